package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// What a scenario may hold.
//
// A scenario's passes are written in the book's time: minutes, days. The
// conformance test runs it on a real backend, where holds expire in real
// time, so it runs there on a test copy of the book whose holds all last
// CopyLifetime seconds, whatever the book gives them. Each pass then
// needs a length in the copy's time, in whole seconds (the
// interpreter's unit), that keeps what the pass does in the book: which
// holds reach their deadline at it, and which are still held after it.
// A pass cannot simply be multiplied by CopyLifetime/L: a book may give
// its holds several lifetimes, and the copy gives them one. So the
// lengths are solved for, and a scenario no lengths exist for is one
// the conformance test cannot run. Timing is that rule, and every
// command that reads a scenario (`chobo run`, `chobo doc --scenario`,
// the conformance runner) applies it, so a scenario is refused at once
// and in the same words wherever it is given.

// CopyLifetime is how long, in seconds, every hold lasts on the test
// copy the conformance test runs scenarios on.
const CopyLifetime int64 = 3

// Timing returns the length, in whole seconds of the test copy, of each
// pass of sc in order, such that on the copy every pass expires exactly
// the holds it expires in outs (the outcomes of sc on its book) and
// leaves held the holds still held there; the least such lengths, so a
// run waits no longer than it must. When no lengths do, it returns a
// *TimingError naming the holds whose deadlines cannot keep their order.
func Timing(sc Scenario, outs []Outcome) ([]int64, error) {
	t := newTimeline(sc)
	at, err := t.solve(t.limits(outs))
	if err != nil {
		return nil, err
	}
	lens := make([]int64, len(t.passes))
	for k := range t.passes {
		lens[k] = at[k+1] - at[k]
	}
	return lens, nil
}

// TimingError is a scenario whose passes no lengths on the test copy
// keep faithful: Why lists the facts of the book's run, along the
// cycle of limits that cannot all hold.
type TimingError struct {
	Why []Limit
}

func (e *TimingError) Error() string { return e.Text().En }

// Text says it in both languages: the rule, then the facts it cannot
// keep, then what to do.
func (e *TimingError) Text() diag.Text {
	var en, ja []string
	for _, l := range e.Why {
		t := l.Text()
		en, ja = append(en, t.En), append(ja, t.Ja)
	}
	return diag.T(
		fmt.Sprintf("the conformance test cannot run this scenario: it runs every scenario on a test copy of the book where every hold lasts %d seconds, "+
			"and gives each pass a length there, in whole seconds, that expires exactly the holds the pass expires in the book; "+
			"no lengths give all of: %s. On the copy, holds made with no pass between them expire at the same pass, a hold made later never expires before one made earlier, "+
			"and at most %[1]d of the holds held at one moment can expire at different passes; split the scenario into parts that keep to this",
			CopyLifetime, strings.Join(en, "; ")),
		fmt.Sprintf("このシナリオは突き合わせのテストで流せません。突き合わせのテストはどのシナリオも、仮押さえがどれも %d 秒で期限切れになる帳簿の写しで流し、"+
			"経過のそれぞれに、帳簿でその経過が期限切れにする仮押さえをちょうど期限切れにする長さを、秒単位で与えます。"+
			"次のすべてを満たす長さはありません: %s。写しでは、間に経過の無い仮押さえは同じ経過で期限切れになり、後から作った仮押さえが先に作ったものより前に期限切れになることはなく、"+
			"ある時点で押さえている仮押さえのうち、別々の経過で期限切れにできるのは %[1]d つまでです。これに収まるように、シナリオを分けてください",
			CopyLifetime, strings.Join(ja, "。")))
}

// Limit says of one hold and one pass either that the pass reaches the
// hold's deadline (Reach) or that the hold is still held after it.
type Limit struct {
	Hold     string
	MadeStep int // 1-based step that made the hold
	PassStep int // 1-based step of the pass
	Reach    bool
	// made and pass are periods: the hold was made in made; the pass
	// ends period pass-1.
	made, pass int
}

// Text writes the limit as a fact of the book's run.
func (l Limit) Text() diag.Text {
	h := diag.Printable(l.Hold)
	if l.Reach {
		return diag.T(fmt.Sprintf("%s, held at step %d, expires at the pass of step %d", h, l.MadeStep, l.PassStep),
			fmt.Sprintf("ステップ %d で押さえた %s が、ステップ %d の経過で期限切れになる", l.MadeStep, h, l.PassStep))
	}
	return diag.T(fmt.Sprintf("%s, held at step %d, is still held after the pass of step %d", h, l.MadeStep, l.PassStep),
		fmt.Sprintf("ステップ %d で押さえた %s が、ステップ %d の経過の後も押さえたままである", l.MadeStep, h, l.PassStep))
}

// timeline numbers a scenario's time: pass k (from 1) ends period k;
// period 0 is before the first pass. Every call of a period happens at
// one instant of the interpreter's clock.
type timeline struct {
	sc     Scenario
	passes []int // step index of each pass
	period []int // of each step: how many passes come before it
}

func newTimeline(sc Scenario) *timeline {
	t := &timeline{sc: sc, period: make([]int, len(sc.Steps))}
	for i, st := range sc.Steps {
		t.period[i] = len(t.passes)
		if st.Call == nil && st.Together == nil && st.Read == nil && st.Deploy == nil {
			t.passes = append(t.passes, i)
		}
	}
	return t
}

// limit makes a Limit, with the step of its pass.
func (t *timeline) limit(hold string, made madeAt, pass int, reach bool) Limit {
	return Limit{Hold: hold, MadeStep: made.step, PassStep: t.passes[pass-1] + 1, Reach: reach, made: made.period, pass: pass}
}

// limits lists, from every outcome of the book's run, what each pass
// must do to each hold made before it: a hold that expired at pass k
// must be reached by pass k and not by the pass before; a hold posted or
// voided in period e, or held to the end, must not be reached by any
// pass before that. What happens to a hold after it is settled no
// longer depends on time, so nothing more is asked.
func (t *timeline) limits(outs []Outcome) []Limit {
	seen := map[Limit]bool{}
	var out []Limit
	add := func(l Limit) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	last := len(t.passes)
	for _, o := range outs {
		life := t.lifeOf(o)
		for _, name := range life.order {
			h := life.made[name]
			if p, ok := life.expired[name]; ok {
				add(t.limit(name, h, p, true))
				if p-1 > h.period {
					add(t.limit(name, h, p-1, false))
				}
				continue
			}
			end := last
			if e, ok := life.settled[name]; ok {
				end = e
			}
			if end > h.period {
				add(t.limit(name, h, end, false))
			}
		}
	}
	return out
}

// madeAt is where a hold was made: the period (passes before it) and
// the step.
type madeAt struct{ period, step int }

// holdLife is what one outcome says of its expiring holds: where each
// was made (in order of making), the first period a post or void settled
// it, and the pass that expired it.
type holdLife struct {
	made    map[string]madeAt
	order   []string
	settled map[string]int
	expired map[string]int
}

// lifeOf reads the holds of one outcome of the book's run.
func (t *timeline) lifeOf(o Outcome) holdLife {
	life := holdLife{made: map[string]madeAt{}, settled: map[string]int{}, expired: map[string]int{}}
	k := 0
	visit := func(i int, c *Call) {
		r := o.Results[k]
		k++
		if r.Failed != "" || r.Outcome != interp.Done {
			return
		}
		name := holdName(c)
		switch c.Op {
		case book.Hold:
			if p := c.Transfer.Pending; p != nil && p.Expires {
				if _, ok := life.made[name]; !ok {
					life.made[name] = madeAt{t.period[i], i + 1}
					life.order = append(life.order, name)
				}
			}
		case book.Post, book.Void:
			// A done post or void settles a hold that exists, so it
			// comes after the hold, whatever order a together took.
			if e, ok := life.settled[name]; !ok || t.period[i] < e {
				life.settled[name] = t.period[i]
			}
		}
	}
	for i, st := range t.sc.Steps {
		switch {
		case st.Call != nil:
			visit(i, st.Call)
		case st.Together != nil:
			for _, calls := range st.Together {
				for _, c := range calls {
					visit(i, c)
				}
			}
		}
	}
	for i, names := range o.Expired {
		for _, n := range names {
			life.expired[n] = t.period[i] + 1
		}
	}
	return life
}

// holdName names the hold a call makes or settles, as the interpreter
// does.
func holdName(c *Call) string {
	var key []string
	for _, p := range c.Transfer.Key {
		key = append(key, c.Strings[p.Name])
	}
	return book.KindArgs(c.Transfer.Name, key)
}

// edge says at[to] >= at[from] + w: a difference constraint.
type edge struct {
	from, to int
	w        int64
	why      *Limit // nil: time does not go back
}

// solve finds the clock reading at the end of each period, in the
// copy's seconds, that meets every limit: the least one. On the copy a
// hold made at time a expires at the first pass that brings the clock
// to a + CopyLifetime. The limits are difference constraints; the least
// solution is the longest path from period 0, and a cycle that keeps
// growing means no solution.
func (t *timeline) solve(lims []Limit) ([]int64, error) {
	n := len(t.passes) + 1
	var edges []edge
	for p := 1; p < n; p++ {
		edges = append(edges, edge{from: p - 1, to: p})
	}
	for i := range lims {
		l := &lims[i]
		if l.Reach {
			edges = append(edges, edge{from: l.made, to: l.pass, w: CopyLifetime, why: l})
		} else {
			edges = append(edges, edge{from: l.pass, to: l.made, w: -(CopyLifetime - 1), why: l})
		}
	}
	at := make([]int64, n)
	pred := make([]int, n) // the edge that last raised each period
	for p := range pred {
		pred[p] = -1
	}
	for round := 0; ; round++ {
		changed := -1
		for ei, e := range edges {
			if v := at[e.from] + e.w; v > at[e.to] {
				at[e.to], pred[e.to], changed = v, ei, e.to
			}
		}
		if changed < 0 {
			break
		}
		if round == n {
			return nil, noTiming(edges, pred, changed)
		}
	}
	for p := n - 1; p >= 0; p-- {
		at[p] -= at[0]
	}
	return at, nil
}

// noTiming explains a scenario without a timing: the limits along the
// cycle that has no solution.
func noTiming(edges []edge, pred []int, v int) error {
	// Going back n times from a node still changing lands on the cycle.
	for range pred {
		if pred[v] < 0 {
			break
		}
		v = edges[pred[v]].from
	}
	var why []Limit
	for u, steps := v, 0; pred[u] >= 0 && steps < len(pred); steps++ {
		e := edges[pred[u]]
		if e.why != nil {
			why = append(why, *e.why)
		}
		u = e.from
		if u == v {
			break
		}
	}
	if len(why) == 0 {
		// Not expected; say everything rather than nothing.
		for _, e := range edges {
			if e.why != nil {
				why = append(why, *e.why)
			}
		}
	}
	slices.Reverse(why)
	return &TimingError{Why: why}
}
