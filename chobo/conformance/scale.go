package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// A scenario's passes are written in the book's time: minutes, days.
// On a backend, holds expire in real time, so the backend holds the test
// copy (Shorten), whose holds all last Lifetime. Before a scenario runs
// there, each pass gets a length in the copy's time that keeps what the
// pass does in the book: which holds reach their deadline at it, and
// which are still held after it. A pass cannot simply be multiplied by
// Lifetime/L: a book may give its holds several lifetimes, and the copy
// gives them one. So the lengths are solved for, in whole seconds (the
// interpreter's unit), and the solution is checked by running the
// interpreter on both books.

// copyLifetime is Lifetime in the interpreter's unit.
const copyLifetime = int64(Lifetime / time.Second)

// Scale returns sc ready for the test copy cp of orig: its calls bound
// to cp's transfers and each pass given a length in cp's time such that
// the interpreter on cp answers exactly as it does on orig, pass by pass
// (the same holds expire at the same passes). sc may be bound to either
// book; its passes are read in orig's time. A scenario no such lengths
// exist for is refused, with the holds whose deadlines cannot all keep
// their order.
func Scale(orig, cp *book.Book, sc scenario.Scenario) (scenario.Scenario, error) {
	onOrig, err := bind(orig, sc)
	if err != nil {
		return sc, err
	}
	want := scenario.Run(orig, onOrig)
	t := newTimeline(onOrig)
	at, err := t.solve(t.limits(want))
	if err != nil {
		return sc, err
	}
	out, err := bind(cp, sc)
	if err != nil {
		return sc, err
	}
	for k, i := range t.passes {
		secs := at[k+1] - at[k]
		out.Steps[i].Pass = secs
		out.Steps[i].PassText = passText(secs)
	}
	// The limits are meant to be exactly what keeps the run the same; a
	// difference here is a fault of this file, not of the scenario, and
	// must not pass for a backend's.
	if got := scenario.Run(cp, out); !sameRuns(want, got) {
		return sc, fmt.Errorf("its passes, scaled to the test copy (%s), make the interpreter answer differently than on the book: a fault of conformance.Scale", passList(out))
	}
	return out, nil
}

// bind returns sc with its calls on b's transfers, found by name: the
// interpreter reads a hold's lifetime from the call's transfer, not from
// the book it runs on.
func bind(b *book.Book, sc scenario.Scenario) (scenario.Scenario, error) {
	out := sc
	out.Steps = make([]scenario.Step, len(sc.Steps))
	rebind := func(c *scenario.Call) (*scenario.Call, error) {
		t := b.Transfer(c.Transfer.Name)
		if t == nil {
			return nil, fmt.Errorf("%s has no transfer %s", b.File, c.Transfer.Name)
		}
		n := *c
		n.Transfer = t
		return &n, nil
	}
	for i, st := range sc.Steps {
		var err error
		switch {
		case st.Call != nil:
			st.Call, err = rebind(st.Call)
		case st.Together != nil:
			callers := make([][]*scenario.Call, len(st.Together))
			for ci, calls := range st.Together {
				for _, c := range calls {
					nc, e := rebind(c)
					if e != nil {
						err = e
						break
					}
					callers[ci] = append(callers[ci], nc)
				}
			}
			st.Together = callers
		}
		if err != nil {
			return sc, err
		}
		out.Steps[i] = st
	}
	return out, nil
}

// passText writes a scaled pass in the scenario format.
func passText(secs int64) string {
	if secs == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", secs)
}

func passList(sc scenario.Scenario) string {
	var out []string
	for i, st := range sc.Steps {
		if st.Call == nil && st.Together == nil {
			out = append(out, fmt.Sprintf("step %d: %s", i+1, st.PassText))
		}
	}
	return strings.Join(out, ", ")
}

// sameRuns compares two runs as conformance does, and also what expired
// at each pass.
func sameRuns(a, b []scenario.Outcome) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if FromOutcome(a[i]).String() != FromOutcome(b[i]).String() ||
			!maps.EqualFunc(a[i].Expired, b[i].Expired, slices.Equal) {
			return false
		}
	}
	return true
}

// timeline numbers a scenario's time: pass k (from 1) ends period k;
// period 0 is before the first pass. Every call of a period happens at
// one instant of the interpreter's clock.
type timeline struct {
	sc     scenario.Scenario
	passes []int // step index of each pass
	period []int // of each step: how many passes come before it
}

func newTimeline(sc scenario.Scenario) *timeline {
	t := &timeline{sc: sc, period: make([]int, len(sc.Steps))}
	for i, st := range sc.Steps {
		t.period[i] = len(t.passes)
		if st.Call == nil && st.Together == nil {
			t.passes = append(t.passes, i)
		}
	}
	return t
}

// limit says of one hold and one pass either that the pass reaches the
// hold's deadline (reach) or that the hold is still held after it.
type limit struct {
	made, pass int // periods: the hold was made in made; the pass ends period pass-1
	reach      bool
	hold       string
	madeStep   int // 1-based, for messages
}

// limits lists, from every outcome of the book's run, what each pass
// must do to each hold made before it: a hold that expired at pass k
// must be reached by pass k and not by the pass before; a hold posted or
// voided in period e, or held to the end, must not be reached by any
// pass before that. What happens to a hold after it is settled no
// longer depends on time, so nothing more is asked.
func (t *timeline) limits(outs []scenario.Outcome) []limit {
	seen := map[limit]bool{}
	var out []limit
	add := func(l limit) {
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
				add(limit{made: h.period, pass: p, reach: true, hold: name, madeStep: h.step})
				if p-1 > h.period {
					add(limit{made: h.period, pass: p - 1, hold: name, madeStep: h.step})
				}
				continue
			}
			end := last
			if e, ok := life.settled[name]; ok {
				end = e
			}
			if end > h.period {
				add(limit{made: h.period, pass: end, hold: name, madeStep: h.step})
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
func (t *timeline) lifeOf(o scenario.Outcome) holdLife {
	life := holdLife{made: map[string]madeAt{}, settled: map[string]int{}, expired: map[string]int{}}
	k := 0
	visit := func(i int, c *scenario.Call) {
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
func holdName(c *scenario.Call) string {
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
	why      *limit // nil: time does not go back
}

// solve finds the clock reading at the end of each period, in the
// copy's seconds, that meets every limit: the least one, so the run
// waits no longer than it must. On the copy a hold made at time a
// expires at the first pass that brings the clock to a + copyLifetime.
// The limits are difference constraints; the least solution is the
// longest path from period 0, and a cycle that keeps growing means no
// solution.
func (t *timeline) solve(lims []limit) ([]int64, error) {
	n := len(t.passes) + 1
	var edges []edge
	for p := 1; p < n; p++ {
		edges = append(edges, edge{from: p - 1, to: p})
	}
	for i := range lims {
		l := &lims[i]
		if l.reach {
			edges = append(edges, edge{from: l.made, to: l.pass, w: copyLifetime, why: l})
		} else {
			edges = append(edges, edge{from: l.pass, to: l.made, w: -(copyLifetime - 1), why: l})
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
			return nil, t.noTiming(edges, pred, changed)
		}
	}
	for p := n - 1; p >= 0; p-- {
		at[p] -= at[0]
	}
	return at, nil
}

// noTiming explains a scenario without a timing: the limits along the
// cycle that has no solution.
func (t *timeline) noTiming(edges []edge, pred []int, v int) error {
	// Going back n times from a node still changing lands on the cycle.
	for range pred {
		if pred[v] < 0 {
			break
		}
		v = edges[pred[v]].from
	}
	var why []string
	for u, steps := v, 0; pred[u] >= 0 && steps < len(pred); steps++ {
		e := edges[pred[u]]
		if e.why != nil {
			why = append(why, t.describe(*e.why))
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
				why = append(why, t.describe(*e.why))
			}
		}
	}
	slices.Reverse(why)
	return fmt.Errorf("its passes cannot be timed on the test copy, where every hold lasts %v: no length of its passes "+
		"in whole seconds gives all of: %s (the copy gives every hold one lifetime: holds of different lifetimes made "+
		"at once, or too many holds that must expire one by one, cannot keep their order there; split the scenario)",
		Lifetime, strings.Join(why, "; "))
}

func (t *timeline) describe(l limit) string {
	step := t.passes[l.pass-1] + 1
	if l.reach {
		return fmt.Sprintf("%s, held at step %d, expires at the pass of step %d", l.hold, l.madeStep, step)
	}
	return fmt.Sprintf("%s, held at step %d, is still held after the pass of step %d", l.hold, l.madeStep, step)
}
