package scenario

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// OpResult is the answer to one call of a scenario. Failed holds the
// message when the call failed (and changed nothing).
type OpResult struct {
	interp.Result
	Failed   string
	FailedJa string // Failed in Japanese, when there is one
	// Move and Bound say, for a refusal by a bound in a transfer of
	// several moves, which move's account refused: the move (from 1),
	// and the account as the call names it with the bound's words
	// (`stock(s-2) at least 0`). They are for people: outcomes are
	// told apart and merged without them, as a backend answers the
	// reason alone.
	Move  int
	Bound MetBound
}

// MetBound is the bound a call met: the account as the call names it,
// which of its bounds, and the bound's value at the unit's scale.
type MetBound struct {
	Account string
	Upper   bool
	Value   int64
	Scale   int
}

// String writes the bound in the book's words: `stock(s-2) at least 0`.
func (m MetBound) String() string {
	word := "at least"
	if m.Upper {
		word = "at most"
	}
	return m.Account + " " + word + " " + book.FormatAmount(m.Value, m.Scale)
}

// FailedText is the failure in both languages; the Japanese falls back
// to the English when the failure came without one (a driver's error).
func (r OpResult) FailedText() diag.Text { return diag.T(r.Failed, r.FailedJa) }

// Outcome is one way a scenario can end: the answer to every call, in
// file order, what each pass expired, and the final ledger.
type Outcome struct {
	Results  []OpResult
	Expired  map[int][]string // step index → holds that expired at that pass
	Accounts []interp.AccountBalance
	Holds    []HoldView
	// Reads holds what each read step read, by step index.
	Reads map[int]*ReadResult
	// Trace is the ledger after each step, one entry per step, on the way
	// this outcome was first found; only Trace fills it.
	Trace []Snapshot
}

// Snapshot is the ledger as a step left it: every account touched so
// far and every hold made so far.
type Snapshot struct {
	Accounts []interp.AccountBalance
	Holds    []HoldView
}

// HoldView is a hold as reported: its name and state.
type HoldView struct {
	Name  string
	State interp.HoldState
}

// Budget is the most work one run of `chobo run` may do before it stops
// with a *BudgetError, counted in ledgers made: one per call or pass
// tried, and PathCost for each way the scenario can stand after a step,
// which carries a whole ledger and the answers so far. A `together` of 8
// callers has 40,320 orders and steps multiply what they leave; merging
// ledgers keeps real scenarios far below the cap (two steps of 8 callers
// racing for 4 units, 4,900 outcomes, take about 115,000), and the cap
// turns the rest into a clear error within seconds instead of minutes and
// gigabytes.
const Budget = 500_000

// PathCost is what one path kept after a step counts against the budget.
const PathCost = 20

// Stats is how much work a run did.
type Stats struct {
	// States counts the ledgers made: one per call applied or pass made,
	// and one per ledger put together from a part walked once.
	States int
	// Paths counts the distinct ways the scenario could stand after each
	// step, summed over the steps.
	Paths int
}

// Work is what the run counted against its budget.
func (s Stats) Work() int { return s.States + PathCost*s.Paths }

// BudgetError is a run stopped because it would do more than its budget.
type BudgetError struct {
	Budget int
	Step   int // 1-based step where the budget ran out
}

func (e *BudgetError) Error() string { return e.Text().En }

// Text says it in both languages, with what to do about it.
func (e *BudgetError) Text() diag.Text {
	return diag.T(
		fmt.Sprintf("step %d: the scenario has too many ways to run: exploring them goes past the limit of %d ledger states; split the scenario, or put fewer calls in its `together` steps", e.Step, e.Budget),
		fmt.Sprintf("ステップ %d: このシナリオの進み方が多すぎます。たどると台帳の状態が上限の %d を超えます。シナリオを分けるか、together の呼び出しを減らしてください", e.Step, e.Budget))
}

// branch is one path through the scenario so far. Branches share ledgers:
// a ledger is never changed once made, only cloned.
type branch struct {
	state   *interp.State
	results []OpResult
	expired map[int][]string
	reads   map[int]*ReadResult
	look    look
	// answers and gone write results and expired as the merge compares
	// them, grown step by step instead of rewritten for every branch.
	answers, gone string
	// trace, when tracing, is the ledger after each step so far, newest
	// first; branches share their common past.
	trace *traced
}

// traced is one step's ledger in a branch's past.
type traced struct {
	state *interp.State
	prev  *traced
}

// look is what an outcome reports of a ledger, numbered: outcomes that
// read alike are merged, and only ledgers that read alike can be the same.
type look struct{ shown int }

// seenLedger is a ledger already met and what came of it; a ledger that
// is the Same as it gets the same.
type seenLedger struct {
	state *interp.State
	ends  []ending
}

// findSame returns the endings of the ledger in seen that is the Same as s.
func findSame(seen []seenLedger, s *interp.State) ([]ending, bool) {
	for _, l := range seen {
		if l.state.Same(s) {
			return l.ends, true
		}
	}
	return nil, false
}

// ending is one way a single step can end from one ledger: the answers of
// its calls and the ledger after them.
type ending struct {
	state   *interp.State
	results []OpResult
	expired []string // for a pass: the holds that expired
	look    look
	answers string
}

// runner holds what one run counts and numbers.
type runner struct {
	trace  bool // keep every step's ledger in each outcome
	budget int
	step   int
	stats  Stats
	// answerIDs and shownIDs number the distinct answers and reported
	// ledgers, so that merging compares short strings of numbers.
	answerIDs map[OpResult]uint64
	shownIDs  map[string]int
}

// Run runs sc on a fresh ledger, with no bound on the work: for scenarios
// chobo makes itself. What comes from a user goes through Explore.
func Run(b *book.Book, sc Scenario) []Outcome {
	out, _, _ := Explore(b, sc, 0)
	return out
}

// Explore runs sc on a fresh ledger. Without `together` there is one
// outcome; with it, every order that keeps each caller's own order is
// tried, and orders that end the same way are merged, in the order first
// found. budget, when above 0, bounds the work (see Budget).
//
// A step runs once per distinct ledger, however many paths lead to it; a
// `together` is walked once per distinct part of the ledger its calls can
// see, and within the walk each ledger at each point of the callers'
// progress is explored once. Only the answers so far, which outcomes
// report, are kept apart per path.
func Explore(b *book.Book, sc Scenario, budget int) ([]Outcome, Stats, error) {
	return explore(b, sc, budget, false)
}

// Trace runs sc as Explore does, and each outcome also carries the ledger
// after every step (Outcome.Trace) on one way that leads to it: what a
// page that steps through a scenario shows. The outcomes are Explore's,
// in the same order.
func Trace(b *book.Book, sc Scenario, budget int) ([]Outcome, Stats, error) {
	return explore(b, sc, budget, true)
}

func explore(b *book.Book, sc Scenario, budget int, trace bool) ([]Outcome, Stats, error) {
	r := &runner{trace: trace, budget: budget, answerIDs: map[OpResult]uint64{}, shownIDs: map[string]int{}}
	start := interp.New(b)
	if slices.ContainsFunc(sc.Steps, func(st Step) bool { return st.Read != nil }) {
		// Only a scenario that reads its history keeps one: the others
		// are spared the copies.
		start.KeepHistory()
	}
	branches := []branch{{state: start, expired: map[int][]string{}, look: r.lookOf(start)}}
	type merged struct {
		answers, gone string
		shown         int
	}
	for i, st := range sc.Steps {
		r.step = i + 1
		ledgers := map[look][]seenLedger{}
		parts := map[look][]seenLedger{}
		seen := map[merged]bool{}
		var next []branch
		if st.Read != nil {
			branches = r.read(branches, i, st.Read)
			continue
		}
		for _, br := range branches {
			ends, ok := findSame(ledgers[br.look], br.state)
			if !ok {
				var err error
				if ends, err = r.stepFrom(br.state, st, parts); err != nil {
					return nil, r.stats, err
				}
				ledgers[br.look] = append(ledgers[br.look], seenLedger{br.state, ends})
			}
			for _, e := range ends {
				nb := r.extend(br, e, i)
				k := merged{nb.answers, nb.gone, nb.look.shown}
				if seen[k] {
					continue
				}
				seen[k] = true
				r.stats.Paths++
				if err := r.over(); err != nil {
					return nil, r.stats, err
				}
				next = append(next, nb)
			}
		}
		branches = next
	}
	out := make([]Outcome, 0, len(branches))
	for _, br := range branches {
		out = append(out, outcomeOf(br))
	}
	return out, r.stats, nil
}

// read runs the read step i on every branch. A read changes nothing; it
// comes before any together (Read sees to it), so the branches are one.
func (r *runner) read(branches []branch, i int, rs *ReadStep) []branch {
	var next []branch
	for _, br := range branches {
		m := make(map[int]*ReadResult, len(br.reads)+1)
		for k, v := range br.reads {
			m[k] = v
		}
		m[i] = rs.run(br.state, br.reads)
		br.reads = m
		if r.trace {
			br.trace = &traced{state: br.state, prev: br.trace}
		}
		next = append(next, br)
	}
	return next
}

// extend is branch br taken on by one of the ends of step i.
func (r *runner) extend(br branch, e ending, i int) branch {
	nb := branch{state: e.state, expired: br.expired, reads: br.reads, look: e.look,
		results: slices.Concat(br.results, e.results),
		answers: br.answers + e.answers, gone: br.gone}
	if r.trace {
		nb.trace = &traced{state: e.state, prev: br.trace}
	}
	if len(e.expired) > 0 {
		// Branches share the map until one writes to it.
		m := make(map[int][]string, len(br.expired)+1)
		for k, v := range br.expired {
			m[k] = v
		}
		m[i] = e.expired
		nb.expired = m
		nb.gone += fmt.Sprintf("%d%q;", i, e.expired)
	}
	return nb
}

// over reports a run past its budget.
func (r *runner) over() error {
	if r.budget > 0 && r.stats.Work() > r.budget {
		return &BudgetError{Budget: r.budget, Step: r.step}
	}
	return nil
}

// made counts a new ledger against the budget.
func (r *runner) made() error {
	r.stats.States++
	return r.over()
}

func (r *runner) lookOf(s *interp.State) look {
	var sb strings.Builder
	for _, a := range s.Accounts() {
		fmt.Fprintf(&sb, "%q=%d/%d/%d;", a.Account.String(), a.Balance.Posted, a.Balance.HeldOut, a.Balance.HeldIn)
	}
	sb.WriteString("|")
	for _, h := range s.Holds() {
		fmt.Fprintf(&sb, "%q=%d;", h.Name(), h.State)
	}
	id, ok := r.shownIDs[sb.String()]
	if !ok {
		id = len(r.shownIDs)
		r.shownIDs[sb.String()] = id
	}
	return look{shown: id}
}

// answer writes res as its number. Numbers are varints, which no other
// sequence of numbers can be read as, so strings of them compare as the
// sequences do.
func (r *runner) answer(res OpResult) string {
	res.Move, res.Bound = 0, MetBound{}
	id, ok := r.answerIDs[res]
	if !ok {
		id = uint64(len(r.answerIDs))
		r.answerIDs[res] = id
	}
	return string(binary.AppendUvarint(nil, id))
}

// stepFrom runs one step from the ledger s, which it leaves as it is.
// parts holds, for a `together`, the parts of ledgers already explored
// in this step.
func (r *runner) stepFrom(s *interp.State, st Step, parts map[look][]seenLedger) ([]ending, error) {
	if st.Together != nil {
		return r.together(s, st.Together, parts)
	}
	if err := r.made(); err != nil {
		return nil, err
	}
	s2 := s.Clone()
	if st.Deploy != nil {
		s2.Deploy(st.Deploy.Book)
		return []ending{{state: s2, look: r.lookOf(s2)}}, nil
	}
	if st.Call != nil {
		res := apply(s2, st.Call)
		return []ending{{state: s2, results: []OpResult{res}, answers: r.answer(res), look: r.lookOf(s2)}}, nil
	}
	hs, _ := s2.Pass(st.Pass)
	var names []string
	for _, h := range hs {
		names = append(names, h.Name())
	}
	return []ending{{state: s2, expired: names, look: r.lookOf(s2)}}, nil
}

// together runs a `together` step from s. Its calls see only a part of
// the ledger (their keys, holds and accounts), and ledgers that differ
// elsewhere, such as those a race before left with different winners,
// go through the same orders: they are walked once, on that part alone,
// and each ledger gets the endings with the rest of it put back.
func (r *runner) together(s *interp.State, callers [][]*Call, parts map[look][]seenLedger) ([]ending, error) {
	var calls []interp.Call
	for _, cs := range callers {
		for _, c := range cs {
			calls = append(calls, c.Call)
		}
	}
	part := s.PartFor(calls)
	only := s.Only(part)
	lk := r.lookOf(only)
	ends, ok := findSame(parts[lk], only)
	if !ok {
		var err error
		if ends, err = r.interleave(only, callers); err != nil {
			return nil, err
		}
		parts[lk] = append(parts[lk], seenLedger{only, ends})
	}
	out := make([]ending, len(ends))
	for i, e := range ends {
		if err := r.made(); err != nil {
			return nil, err
		}
		full := s.With(e.state, part)
		out[i] = ending{state: full, results: e.results, answers: e.answers, look: r.lookOf(full)}
	}
	return out, nil
}

func apply(s *interp.State, c *Call) OpResult {
	if c.Bad != "" {
		return OpResult{Failed: c.Bad, FailedJa: c.BadJa}
	}
	res, err := s.Apply(c.Call)
	if err != nil {
		var f *interp.Failure
		if errors.As(err, &f) {
			return OpResult{Failed: f.Msg, FailedJa: f.Ja}
		}
		return OpResult{Failed: err.Error()}
	}
	out := OpResult{Result: res}
	if d := res.Detail; d != nil && len(c.Transfer.Moves) > 1 {
		out.Move, out.Bound = d.Move, boundAt(d)
	}
	out.Detail = nil // the balances where a bound was met are for diagnostics, not outcomes
	return out
}

// boundAt is the account a refusal met and its bound.
func boundAt(d *interp.BoundDetail) MetBound {
	acc := d.Account.Kind
	b := acc.Upper
	if d.Lower {
		b = acc.Lower
	}
	return MetBound{Account: d.Account.String(), Upper: !d.Lower, Value: b.Value, Scale: acc.Unit.Scale}
}

// interleave runs every order of the callers' calls that keeps each
// caller's own order. Results are stored in file order: caller by caller.
//
// Which calls are done so far (one count per caller) and the ledger they
// left decide everything that can still happen, so each such point is
// explored once and its endings reused by every order that reaches it.
// Endings are merged on the answers and what the ledger shows, keeping
// the first found with caller 1 tried first: the same outcomes, in the
// same order, as walking every order one by one.
func (r *runner) interleave(s *interp.State, callers [][]*Call) ([]ending, error) {
	offset := make([]int, len(callers))
	total := 0
	for i, c := range callers {
		offset[i] = total
		total += len(c)
	}
	pos := make([]byte, len(callers)) // a caller has at most MaxTogether calls
	// The calls done and their answers nearly always decide the ledger,
	// and are cheap to compare: they find the candidates, and Same
	// decides among them.
	answered := make([]string, total)
	memo := map[string][]seenLedger{}
	type merged struct {
		answers string
		shown   int
	}
	var walk func(s *interp.State, done int) ([]ending, error)
	walk = func(s *interp.State, done int) ([]ending, error) {
		mk := string(pos) + strings.Join(answered, "")
		if ends, ok := findSame(memo[mk], s); ok {
			return ends, nil
		}
		if done == total {
			ends := []ending{{state: s, results: make([]OpResult, total), look: r.lookOf(s)}}
			memo[mk] = append(memo[mk], seenLedger{s, ends})
			return ends, nil
		}
		var out []ending
		seen := map[merged]bool{}
		for ci, calls := range callers {
			if int(pos[ci]) == len(calls) {
				continue
			}
			if err := r.made(); err != nil {
				return nil, err
			}
			s2 := s.Clone()
			res := apply(s2, calls[pos[ci]])
			slot := offset[ci] + int(pos[ci])
			pos[ci]++
			answered[slot] = r.answer(res)
			sub, err := walk(s2, done+1)
			answered[slot] = ""
			pos[ci]--
			if err != nil {
				return nil, err
			}
			for _, e := range sub {
				results := slices.Clone(e.results)
				results[slot] = res
				var answers []byte
				for _, x := range results {
					answers = append(answers, r.answer(x)...)
				}
				k := merged{string(answers), e.look.shown}
				if seen[k] {
					continue
				}
				seen[k] = true
				out = append(out, ending{state: e.state, results: results, look: e.look, answers: k.answers})
			}
		}
		memo[mk] = append(memo[mk], seenLedger{s, out})
		return out, nil
	}
	return walk(s, 0)
}

func outcomeOf(br branch) Outcome {
	snap := snapshotOf(br.state)
	o := Outcome{Results: br.results, Expired: br.expired, Reads: br.reads, Accounts: snap.Accounts, Holds: snap.Holds}
	for t := br.trace; t != nil; t = t.prev {
		o.Trace = append(o.Trace, snapshotOf(t.state))
	}
	slices.Reverse(o.Trace)
	return o
}

func snapshotOf(s *interp.State) Snapshot {
	out := Snapshot{Accounts: s.Accounts()}
	for _, h := range s.Holds() {
		out.Holds = append(out.Holds, HoldView{h.Name(), h.State})
	}
	return out
}
