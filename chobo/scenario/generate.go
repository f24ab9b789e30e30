package scenario

import (
	"fmt"
	"slices"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/search"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// Generate builds the scenarios of a book, family by family: bounds below,
// at and past; keys repeated; every path of a hold; all or nothing; two
// callers racing for the last unit or the last room; same account. Each
// is built by running it on the interpreter and kept only when it shows
// what its name says; then, for every book, the read families
// (readfamilies.go). Values are distinct within a scenario and numbered
// by first appearance. Generate writes no scenario that deploys: the
// families that change a bound need versions of the book made and
// checked (GenerateWith).
func Generate(b *book.Book) []Scenario {
	out, _ := GenerateAll(b, nil)
	return out
}

// GenerateWith is Generate and, when deploy is not nil, the families
// that change a bound between two calls (changefamilies.go), each
// version made by deploy as a derived deploy step's is.
func GenerateWith(b *book.Book, deploy Deployer) []Scenario {
	out, _ := GenerateAll(b, deploy)
	return out
}

// GenerateAll is GenerateWith, and the operations whose scenarios it gave
// up on for want of work: the search and the runs of one book together
// may spend search.TotalWork, so that no book keeps the generator long.
func GenerateAll(b *book.Book, deploy Deployer) ([]Scenario, []string) {
	g := &gen{b: b, s: search.New(b), names: map[string]bool{}, deploy: deploy, versions: map[string]*book.Book{}}
	for _, t := range b.Transfers {
		g.bounds(t)
		g.keys(t)
		g.refusedKeys(t)
		if t.Pending != nil {
			g.holds(t)
		}
		g.allOrNothing(t)
		g.races(t)
		g.sameAccount(t)
	}
	ranOut := slices.Clone(g.s.RanOut())
	more := g.readFamilies()
	// After every other family, so that the work they spend leaves
	// the others as they were.
	g.boundChanges()
	for _, op := range append(more, g.s.RanOut()...) {
		if !slices.Contains(ranOut, op) {
			ranOut = append(ranOut, op)
		}
	}
	return g.out, ranOut
}

type gen struct {
	b     *book.Book
	s     *search.Searcher
	out   []Scenario
	names map[string]bool
	// deploy makes the versions of the bound-change families, nil for
	// none; versions keeps each it made (nil when refused), by the
	// "bounds" object of its step.
	deploy   Deployer
	versions map[string]*book.Book
}

func firstOp(t *book.Transfer) book.Op {
	if t.Pending != nil {
		return book.Hold
	}
	return book.Do
}

func opName(t *book.Transfer, op book.Op) string { return t.Name + "." + string(op) }

func amt(a *book.Account, v int64) string { return book.FormatAmount(v, a.Unit.Scale) }

// refused is the expectation of a call refused with reason, written by
// the interpreter so that it matches what a run answers.
func refused(reason string) string {
	return interp.Result{Outcome: interp.Refused, Reason: reason}.Short()
}

// call wraps an interpreter call as a scenario step.
func call(c interp.Call, expect string) Step {
	return Step{Call: &Call{Call: c}, Expect: expect}
}

// fromSearch turns steps found by the search (feeders, all done) into
// scenario steps that expect what they got.
func fromSearch(steps []search.Step) []Step {
	var out []Step
	for _, st := range steps {
		if st.IsPass() {
			out = append(out, Step{Pass: st.Pass, PassText: syntax.FormatDuration(st.Pass)})
			continue
		}
		r := OpResult{Result: st.Result}
		out = append(out, call(st.Call, r.Short()))
	}
	return out
}

func pass(secs int64) Step { return Step{Pass: secs, PassText: syntax.FormatDuration(secs)} }

// add renames the values of sc, runs it, and keeps it when every
// expectation holds and ok (when given) approves the renamed scenario's
// outcomes. It reports whether sc was kept.
func (g *gen) add(sc Scenario, ok func(sc Scenario, outs []Outcome) bool) bool {
	if g.names[sc.Name] {
		return false
	}
	sc.Steps = append([]Step{}, sc.Steps...)
	if !g.s.Afford(runOp(sc), runWork(sc)) {
		return false
	}
	rename(&sc)
	outs := Run(g.b, sc)
	if len(Failures(sc, outs)) > 0 || (ok != nil && !ok(sc, outs)) {
		return false
	}
	g.names[sc.Name] = true
	g.out = append(g.out, sc)
	return true
}

// rename gives every value the name `param-N`, N counted over the whole
// scenario in order of first appearance. Equal values stay equal (they
// name the same account) and distinct ones distinct, whether they came
// fresh or from an example found earlier.
func rename(sc *Scenario) {
	names := map[string]string{}
	n := 0
	fix := func(c *Call) {
		strs := map[string]string{}
		for _, p := range c.Transfer.Params {
			v, ok := c.Strings[p.Name]
			if !ok {
				continue
			}
			if names[v] == "" {
				n++
				names[v] = fmt.Sprintf("%s-%d", p.Name, n)
			}
			strs[p.Name] = names[v]
		}
		c.Strings = strs
	}
	for i := range sc.Steps {
		st := &sc.Steps[i]
		if st.Call != nil {
			cp := *st.Call
			fix(&cp)
			st.Call = &cp
		}
		if st.Together != nil {
			st.Together = append([][]*Call{}, st.Together...)
		}
		for ci := range st.Together {
			st.Together[ci] = append([]*Call{}, st.Together[ci]...)
			for oi := range st.Together[ci] {
				cp := *st.Together[ci][oi]
				fix(&cp)
				st.Together[ci][oi] = &cp
			}
		}
		if st.Read != nil {
			// A read names the values of the calls before it.
			rd := *st.Read
			known := func(vs []string) []string {
				var out []string
				for _, v := range vs {
					if names[v] != "" {
						v = names[v]
					}
					out = append(out, v)
				}
				return out
			}
			if rd.Account != nil {
				a := interp.Account{Kind: rd.Account.Kind, Args: known(rd.Account.Args)}
				rd.Account = &a
			}
			rd.Key = known(rd.Key)
			st.Read = &rd
		}
	}
}

// onlyIn reports whether the account ref of move m (from or to) appears
// in no other move of t: then the bound scenarios speak of one move only.
func onlyIn(t *book.Transfer, m *book.Move, ref book.AccountRef) bool {
	for _, o := range t.Moves {
		if o == m {
			continue
		}
		for _, r := range []book.AccountRef{o.From, o.To} {
			if r.Account == ref.Account && slices.Equal(r.Args, ref.Args) {
				return false
			}
		}
	}
	return true
}

func accountOf(ref book.AccountRef, c interp.Call) interp.Account {
	a := interp.Account{Kind: ref.Account}
	for _, p := range ref.Args {
		a.Args = append(a.Args, c.Strings[p.Name])
	}
	return a
}

// withAmount returns c with the amount parameter of m set to v.
func withAmount(c interp.Call, m *book.Move, v int64) interp.Call {
	out := c
	out.Amounts = map[string]int64{}
	for k, x := range c.Amounts {
		out.Amounts[k] = x
	}
	out.Amounts[m.Amount.Param.Name] = v
	return out
}

func balanceAfter(g *gen, steps []search.Step, a interp.Account) (interp.Balance, bool) {
	_, st, ok := g.s.Simulate(steps)
	if !ok {
		return interp.Balance{}, false
	}
	return st.Balance(a), true
}

// FromExample is the scenario of an example the search found: its steps,
// each expecting the answer it got there.
func FromExample(name string, e search.Example) Scenario {
	return Scenario{Name: name, Steps: fromSearch(e.Steps)}
}

// room is how much a move can still carry out of acc (lower) or into it
// before it sits exactly at its bound, as the interpreter counts: a
// hold counts against the bound as soon as it is made.
func room(b interp.Balance, lower bool, bound *book.Bound) int64 {
	if lower {
		return b.Posted - b.HeldOut - bound.Value
	}
	return bound.Value - b.Posted - b.HeldIn
}

// level brings acc, after prefix, to exactly want of room under its
// bound: calls that put into it when there is too little room to take
// (a lower bound), calls that take from it when there is too much, and
// the other way round for an upper bound. Takers that are holds are
// posted, so that what they took stays taken.
func (g *gen) level(prefix []search.Step, acc interp.Account, lower bool, bound *book.Bound, want int64) ([]search.Step, bool) {
	steps := prefix
	for range 2 {
		bal, ok := balanceAfter(g, steps, acc)
		if !ok {
			return nil, false
		}
		gap := room(bal, lower, bound) - want
		if gap == 0 {
			return steps, true
		}
		// For a lower bound, putting in makes room and taking out
		// uses it; for an upper bound, the other way round.
		if (gap < 0) == lower {
			steps, ok = g.s.Feed(steps, acc, abs(gap))
		} else {
			steps, ok = g.s.Take(steps, acc, abs(gap))
		}
		if !ok {
			return nil, false
		}
	}
	bal, ok := balanceAfter(g, steps, acc)
	return steps, ok && room(bal, lower, bound) == want
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// runOp names the operation a scenario is built for: that of its last
// call.
func runOp(sc Scenario) string {
	for i := len(sc.Steps) - 1; i >= 0; i-- {
		st := sc.Steps[i]
		if st.Call != nil {
			return st.Call.Transfer.Name + "." + string(st.Call.Op)
		}
		for _, cs := range st.Together {
			if len(cs) > 0 {
				return cs[0].Transfer.Name + "." + string(cs[0].Op)
			}
		}
	}
	return ""
}

// runWork is what running a scenario costs, as the search counts work:
// each call the moves of its transfer and one more, every order of a
// together counted.
func runWork(sc Scenario) int64 {
	var n int64
	for _, st := range sc.Steps {
		n++
		if st.Call != nil {
			n += int64(len(st.Call.Transfer.Moves))
		}
		for _, cs := range st.Together {
			for _, c := range cs {
				n += int64(len(c.Transfer.Moves)+1) * 40 // every interleaving runs it again
			}
		}
	}
	return n
}
