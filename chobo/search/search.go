// Package search finds concrete calls that lead a book to a given answer:
// the examples behind the diagnostics that come from running a book and
// behind the per-operation refusal report.
//
// Every example is found by running it on the reference interpreter, so
// what it claims is what the interpreter answers. The search is bounded:
// fresh, distinct values for strings; amounts from a short list (1, 2, 3,
// 5, 10, 100, 1000, plus one past each bound the transfer meets); accounts
// that are short are filled first by a transfer that puts into them,
// following such feeders up to three deep.
package search

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// Step is one step of an example: a call, or time passing.
type Step struct {
	Call   interp.Call // Transfer is nil for a pass
	Pass   int64
	Result interp.Result // what the interpreter answered
}

// IsPass reports whether the step lets time pass.
func (s Step) IsPass() bool { return s.Call.Transfer == nil }

// Example is a sequence of steps whose last one shows what was sought.
type Example struct {
	Steps []Step
}

// Last returns the final step.
func (e Example) Last() Step { return e.Steps[len(e.Steps)-1] }

// Searcher finds examples for one book.
type Searcher struct {
	b *book.Book
	// fresh counts the values handed out; values are renumbered once an
	// example is found.
	fresh int
	// Memos: one report asks for the same success or the same refusal
	// at a move several times.
	amounts map[*book.Transfer][]map[string]int64
	success map[*book.Transfer]memo
	atMove  map[atMoveKey]memo
	shadow  map[atMoveKey]bool // whether a refusal there is shadowed
	movers  map[moversKey][]transferMove
	// trajectories keep, for each call of a transfer the goals try, the
	// rounds of feeding that get it past its lower bounds.
	trajectories map[trajectoryKey]*trajectory
	// ends keep the ledger after each found example that steps are
	// added to (a success, then a retry with other content, a post after
	// a void…), by its first step: it is run once, not once per addition.
	ends map[*Step]*interp.State
	work work
}

// The search's work is counted in steps of the interpreter: a call it
// runs counts the moves of its transfer and callWork more (checking and
// recording a call costs about as much as that many moves), a pass one. Each
// goal (a success, a refusal at a move, a refusal with a reason; what the
// scenario generator asks for) may spend GoalWork; one searcher, all its
// goals together, TotalWork. A goal whose work runs out is not found, and
// the searcher remembers it (RanOut). Counting work rather than time
// keeps every output the same on every machine.
const (
	GoalWork  = 500_000
	TotalWork = 1_000_000
	callWork  = 4
)

// work is what the searcher has spent, and on what.
type work struct {
	depth  int    // goals entered and not left: nested ones are their outer goal's
	goal   string // the outer goal, as the operation it is for
	spent  int64  // on that goal
	total  int64  // on every goal
	ranOut []string
	seen   map[string]bool
}

// enter starts a goal of what (an operation, "reserve.hold"), unless one
// is going on, whose part it then is; the function it returns leaves it.
// It reports false, and starts nothing, when the searcher has no work
// left at all: the goal is then noted as given up on at once.
func (s *Searcher) enter(what string) (func(), bool) {
	if s.work.depth == 0 {
		s.work.goal, s.work.spent = what, 0
		if s.work.total > TotalWork {
			s.spend(0)
			return func() {}, false
		}
	}
	s.work.depth++
	return func() { s.work.depth-- }, true
}

// spend counts n steps of work on the current goal; false when that goal
// or the searcher has no work left.
func (s *Searcher) spend(n int64) bool {
	s.work.spent += n
	s.work.total += n

	if s.work.spent <= GoalWork && s.work.total <= TotalWork {
		return true
	}
	if s.work.seen == nil {
		s.work.seen = map[string]bool{}
	}
	if g := s.work.goal; g != "" && !s.work.seen[g] {
		s.work.seen[g] = true
		s.work.ranOut = append(s.work.ranOut, g)
	}
	return false
}

// starved reports whether the current goal, or the searcher, has spent
// all the work it may: what failed then may not have failed for good.
func (s *Searcher) starved() bool {
	return s.work.spent > GoalWork || s.work.total > TotalWork
}

// Afford counts n steps of work that the caller does on the searcher's
// behalf (the scenario generator runs what it built), on the goal of
// what; false when there is no work left for them, and the caller should
// not do it.
func (s *Searcher) Afford(what string, n int64) bool {
	leave, ok := s.enter(what)
	defer leave()
	return ok && s.spend(n)
}

// RanOut lists, in the order it happened, the operations some goal of
// which the search gave up on for want of work: what it did not find
// there may exist.
func (s *Searcher) RanOut() []string { return s.work.ranOut }

// Spent is how many steps of work the searcher has spent.
func (s *Searcher) Spent() int64 { return s.work.total }

type memo struct {
	ex Example
	ok bool
}

type atMoveKey struct {
	t     *book.Transfer
	move  int
	lower bool
}

// New returns a searcher for b.
func New(b *book.Book) *Searcher {
	return &Searcher{b: b,
		amounts: map[*book.Transfer][]map[string]int64{},
		success: map[*book.Transfer]memo{},
		atMove:  map[atMoveKey]memo{},
		shadow:  map[atMoveKey]bool{},
		movers:  map[moversKey][]transferMove{},

		trajectories: map[trajectoryKey]*trajectory{},
		ends:         map[*Step]*interp.State{},
	}
}

// baseAmounts are the amounts tried for every amount parameter. Zero is
// left out on purpose: a call of 0 passes every bound, and examples built
// on it would say nothing (a hold that can never hold anything would look
// as if it could be posted).
var baseAmounts = []int64{1, 2, 3, 5, 10, 100, 1000}

// maxFeedDepth is how many feeders deep the search follows.
const maxFeedDepth = 3

// maxCombos bounds the amount assignments tried for one goal.
const maxCombos = 400

// freshMark is in every fresh value and in nothing a person writes:
// U+FDD0 is a noncharacter, set aside for a program's own use. It marks
// the values finish renames. It must be valid text without NUL, or the
// interpreter would fail every call that carries it.
const freshMark = "\uFDD0"

func (s *Searcher) value(param string) string {
	s.fresh++
	return fmt.Sprintf("%s%s%d", param, freshMark, s.fresh)
}

// mk builds a call of t with fresh strings and the given amount for each
// amount parameter.
func (s *Searcher) mk(t *book.Transfer, op book.Op, amount func(p *book.Param) int64) interp.Call {
	c := interp.Call{Transfer: t, Op: op, Strings: map[string]string{}}
	for _, p := range t.Params {
		if p.IsAmount() {
			if c.Amounts == nil {
				c.Amounts = map[string]int64{}
			}
			c.Amounts[p.Name] = amount(p)
		} else {
			c.Strings[p.Name] = s.value(p.Name)
		}
	}
	return c
}

// keyOnly returns the call that names the same hold: the key values only.
func keyOnly(c interp.Call, op book.Op) interp.Call {
	k := interp.Call{Transfer: c.Transfer, Op: op, Strings: map[string]string{}}
	for _, p := range c.Transfer.Key {
		k.Strings[p.Name] = c.Strings[p.Name]
	}
	return k
}

// simulate runs steps on a fresh ledger and records each answer. A step
// that fails (rather than being refused) makes the whole run unusable.
func (s *Searcher) simulate(steps []Step) ([]Step, *interp.State, bool) {
	if !s.spend(workOf(steps)) {
		return nil, nil, false
	}
	return s.runOn(interp.New(s.b), steps)
}

// runOn runs steps on st, which it changes, and records each answer; the
// caller has counted their work.
func (s *Searcher) runOn(st *interp.State, steps []Step) ([]Step, *interp.State, bool) {
	out := slices.Clone(steps)
	for i := range out {
		if out[i].IsPass() {
			if _, err := st.Pass(out[i].Pass); err != nil {
				return nil, nil, false
			}
			continue
		}
		r, err := st.Apply(out[i].Call)
		if err != nil {
			return nil, nil, false
		}
		out[i].Result = r
	}
	return out, st, true
}

// workOf is what running steps costs.
func workOf(steps []Step) int64 {
	var cost int64
	for _, step := range steps {
		cost++
		if !step.IsPass() {
			cost += callWork + int64(len(step.Call.Transfer.Moves))
		}
	}
	return cost
}

// amountCandidates lists the amounts worth trying for t: the base list
// and one past every bound its moves meet, so that a bound far from zero
// (a credit line of 50,000) can be crossed too.
func amountCandidates(t *book.Transfer) []int64 {
	set := slices.Clone(baseAmounts)
	for _, m := range t.Moves {
		if lo := m.From.Account.Lower; lo != nil && lo.Value < 0 && lo.Value > -book.MaxAmount {
			set = append(set, -lo.Value+1)
		}
		if up := m.To.Account.Upper; up != nil && up.Value < book.MaxAmount {
			set = append(set, up.Value+1)
		}
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// assignments yields amount choices for the amount parameters of t:
// first every parameter the same, then combinations, at most maxCombos.
func (s *Searcher) assignments(t *book.Transfer) []map[string]int64 {
	if a, ok := s.amounts[t]; ok {
		return a
	}
	a := assignments(t)
	s.amounts[t] = a
	return a
}

func assignments(t *book.Transfer) []map[string]int64 {
	var params []string
	for _, p := range t.Params {
		if p.IsAmount() {
			params = append(params, p.Name)
		}
	}
	cands := amountCandidates(t)
	if len(params) == 0 {
		return []map[string]int64{{}}
	}
	var out []map[string]int64
	seen := map[string]bool{}
	add := func(m map[string]int64) {
		var kb []byte
		for _, p := range params {
			kb = strconv.AppendInt(append(kb, ','), m[p], 10)
		}
		k := string(kb)
		if !seen[k] && len(out) < maxCombos {
			seen[k] = true
			out = append(out, m)
		}
	}
	for _, a := range cands {
		m := map[string]int64{}
		for _, p := range params {
			m[p] = a
		}
		add(m)
	}
	idx := make([]int, len(params))
	for len(out) < maxCombos {
		m := map[string]int64{}
		for i, p := range params {
			m[p] = cands[idx[i]]
		}
		add(m)
		i := 0
		for i < len(idx) {
			idx[i]++
			if idx[i] < len(cands) {
				break
			}
			idx[i] = 0
			i++
		}
		if i == len(idx) {
			break
		}
	}
	return out
}

func (s *Searcher) withAmounts(t *book.Transfer, op book.Op, amts map[string]int64) interp.Call {
	return s.mk(t, op, func(p *book.Param) int64 { return amts[p.Name] })
}

// prepare puts feeders before the last step until it gets past every
// lower bound before move upto (1-based; len(moves)+1 to get through all
// of them). It returns the steps, run, and whether that worked.
func (s *Searcher) prepare(steps []Step, upto int, depth int) ([]Step, bool) {
	for iter := 0; iter < 2*len(steps[len(steps)-1].Call.Transfer.Moves)+2; iter++ {
		run, _, ok := s.simulate(steps)
		if !ok {
			return nil, false
		}
		r := run[len(run)-1].Result
		d := r.Detail
		if r.Outcome != interp.Refused || d == nil || d.Move >= upto || !d.Lower {
			return run, true
		}
		lower := d.Account.Kind.Lower.Value
		need := deficit(d.Balance, d.Amount, lower)
		if need <= 0 {
			return run, true
		}
		feed, ok := s.feed(steps[:len(steps)-1], d.Account, need, depth)
		if !ok {
			return run, false
		}
		steps = append(feed, steps[len(steps)-1])
	}
	return nil, false
}

// feed returns prefix followed by calls that put at least amount into
// acc, each of them done. A feeder may also take some back (a sale that
// brings the price and takes a fee), so feeding goes on, a few rounds at
// most, until the account has gained what was asked.
func (s *Searcher) feed(prefix []Step, acc interp.Account, amount int64, depth int) ([]Step, bool) {
	_, st, ok := s.simulate(prefix)
	if !ok {
		return nil, false
	}
	start := st.Balance(acc).Posted
	steps := prefix
	need := amount
	for round := 0; round < 3; round++ {
		next, ok := s.feedOnce(steps, acc, need, depth)
		if !ok {
			return nil, false
		}
		_, st, ok := s.simulate(next)
		if !ok {
			return nil, false
		}
		gained := st.Balance(acc).Posted - start
		if gained >= amount {
			return next, true
		}
		if len(next) == len(steps) {
			return nil, false
		}
		steps, need = next, amount-gained
	}
	return nil, false
}

func (s *Searcher) feedOnce(prefix []Step, acc interp.Account, amount int64, depth int) ([]Step, bool) {
	if depth >= maxFeedDepth {
		return nil, false
	}
	tried := map[string]bool{}
	for _, m := range s.movesOf(acc.Kind, false) {
		// Other amounts of the feeder are 0 first, so that it brings what
		// it can without taking anything back; then 1.
		for _, other := range []int64{0, 1} {
			if !firstTry(tried, m.t, m.m, m.m.To, other) {
				continue
			}
			if out, ok := s.feedWith(prefix, m.t, m.m, acc, amount, other, depth); ok {
				return out, true
			}
		}
	}
	return nil, false
}

// transferMove is a move with its transfer.
type transferMove struct {
	t *book.Transfer
	m *book.Move
}

// movesOf lists, in the book's order, the moves that put into accounts of
// kind a, or that take from them (from): the feeders and the takers the
// search tries, looked up once per kind rather than on every feed.
func (s *Searcher) movesOf(a *book.Account, from bool) []transferMove {
	k := moversKey{a, from}
	if l, ok := s.movers[k]; ok {
		return l
	}
	var l []transferMove
	for _, t := range s.b.Transfers {
		for _, m := range t.Moves {
			side := m.To
			if from {
				side = m.From
			}
			if side.Account == a {
				l = append(l, transferMove{t, m})
			}
		}
	}
	s.movers[k] = l
	return l
}

type moversKey struct {
	a    *book.Account
	from bool
}

// firstTry reports whether calling t through move m, with side pointed at
// the account and other for its other amounts, makes a call not tried
// before (in tried): two moves that point the same parameters and move
// the same amount make the same call, up to fresh values, and get the
// same answer. A transfer whose moves go back and forth through one
// account would otherwise be tried once for each of them, at every depth
// of feeding.
func firstTry(tried map[string]bool, t *book.Transfer, m *book.Move, side book.AccountRef, other int64) bool {
	var k strings.Builder
	fmt.Fprintf(&k, "%d", t.Index)
	for _, p := range side.Args {
		fmt.Fprintf(&k, ",%d", p.Index)
	}
	if m.Amount.Param != nil {
		fmt.Fprintf(&k, "|p%d", m.Amount.Param.Index)
	} else {
		fmt.Fprintf(&k, "|l%d", m.Amount.Literal)
	}
	otherUsed := false
	for _, p := range t.Params {
		otherUsed = otherUsed || (p.IsAmount() && p != m.Amount.Param)
	}
	if otherUsed {
		fmt.Fprintf(&k, "|o%d", other)
	}
	if tried[k.String()] {
		return false
	}
	tried[k.String()] = true
	return true
}

func (s *Searcher) feedWith(prefix []Step, t *book.Transfer, m *book.Move, acc interp.Account, amount, other int64, depth int) ([]Step, bool) {
	per := amount
	times := int64(1)
	if m.Amount.Param == nil {
		if m.Amount.Literal <= 0 {
			return nil, false
		}
		per = m.Amount.Literal
		times = (amount + per - 1) / per
		if times > 10 {
			return nil, false
		}
	}
	steps := slices.Clone(prefix)
	for range times {
		op := book.Do
		if t.Pending != nil {
			op = book.Hold
		}
		c := s.mk(t, op, func(p *book.Param) int64 {
			if p == m.Amount.Param {
				return per
			}
			return other
		})
		// Point the move at the account to fill; a parameter named twice
		// must get one value.
		pointed := map[string]bool{}
		for i, p := range m.To.Args {
			if pointed[p.Name] && c.Strings[p.Name] != acc.Args[i] {
				return nil, false
			}
			c.Strings[p.Name] = acc.Args[i]
			pointed[p.Name] = true
		}
		var ok bool
		steps, ok = s.prepare(append(steps, Step{Call: c}), len(t.Moves)+1, depth+1)
		if !ok || steps[len(steps)-1].Result.Outcome != interp.Done {
			return nil, false
		}
		if op == book.Hold {
			steps = append(steps, Step{Call: keyOnly(c, book.Post)})
		}
	}
	run, _, ok := s.simulate(steps)
	if !ok || run[len(run)-1].Result.Outcome != interp.Done {
		return nil, false
	}
	return run, true
}

// deficit is how much must come into an account so that taking amount
// leaves it at lower or above, capped at the largest amount.
func deficit(b interp.Balance, amount, lower int64) int64 {
	v := big.NewInt(lower)
	v.Add(v, big.NewInt(amount))
	v.Sub(v, big.NewInt(b.Posted))
	v.Add(v, big.NewInt(b.HeldOut))
	if v.Cmp(big.NewInt(book.MaxAmount)) > 0 {
		return book.MaxAmount
	}
	return v.Int64()
}

// take returns prefix followed by calls, each done, that take exactly
// amount from acc's posted balance: the mirror of feed, for an account
// that must come down (a credit line drawn on, a jar emptied part way).
// A hold that takes is posted at once: then what it took counts against
// the upper bound as well as the lower one, and no deadline gives it
// back. False when no transfer takes exactly that much.
func (s *Searcher) take(prefix []Step, acc interp.Account, amount int64) ([]Step, bool) {
	_, st, ok := s.simulate(prefix)
	if !ok || amount <= 0 {
		return nil, false
	}
	start := st.Balance(acc).Posted
	tried := map[string]bool{}
	for _, tm := range s.movesOf(acc.Kind, true) {
		t, m := tm.t, tm.m
		for _, other := range []int64{0, 1} {
			if !firstTry(tried, t, m, m.From, other) {
				continue
			}
			out, ok := s.takeWith(prefix, t, m, acc, amount, other)
			if !ok {
				continue
			}
			_, st, ok := s.simulate(out)
			if ok && start-st.Balance(acc).Posted == amount {
				return out, true
			}
		}
	}
	return nil, false
}

func (s *Searcher) takeWith(prefix []Step, t *book.Transfer, m *book.Move, acc interp.Account, amount, other int64) ([]Step, bool) {
	per, times := amount, int64(1)
	if m.Amount.Param == nil {
		per = m.Amount.Literal
		if per <= 0 || amount%per != 0 || amount/per > 10 {
			return nil, false
		}
		times = amount / per
	}
	steps := slices.Clone(prefix)
	for range times {
		c := s.mk(t, firstOp(t), func(p *book.Param) int64 {
			if p == m.Amount.Param {
				return per
			}
			return other
		})
		pointed := map[string]bool{}
		for i, p := range m.From.Args {
			if pointed[p.Name] && c.Strings[p.Name] != acc.Args[i] {
				return nil, false
			}
			c.Strings[p.Name] = acc.Args[i]
			pointed[p.Name] = true
		}
		var ok bool
		steps, ok = s.prepare(append(steps, Step{Call: c}), len(t.Moves)+1, 1)
		if !ok || steps[len(steps)-1].Result.Outcome != interp.Done {
			return nil, false
		}
		if c.Op == book.Hold {
			steps = append(steps, Step{Call: keyOnly(c, book.Post)})
		}
	}
	run, _, ok := s.simulate(steps)
	if !ok || run[len(run)-1].Result.Outcome != interp.Done {
		return nil, false
	}
	return run, true
}
