package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/search"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// The read families put the history of every book under the same
// comparison as its answers: a handful of scenarios whose calls leave
// entries of every kind the book can write, each followed by reads of
// every kind (statements whole, in pages, newest first, filtered by kind
// and by time, the entries of one call, open holds, a balance at an
// earlier time). Reads cannot stand after a `together`, so these
// scenarios have none; each read's expectation is what the interpreter
// read, as a call's is what it answered.
//
// Open-hold reads are arranged to find at most one hold: the order of
// several is a matter of definition (the interpreter lists them by kind
// and key), and these scenarios are about what each backend records, not
// about that.

// readFamilies adds the read scenarios of the book. They get a searcher
// of their own, so that the work the other families spent (a book whose
// search runs out) leaves every book its reads.
// It returns the operations whose search ran out of work on the way.
func (g *gen) readFamilies() []string {
	r := &gen{b: g.b, s: search.New(g.b), names: g.names}
	kept := 0
	for _, t := range g.b.Transfers {
		if t.Pending != nil && r.holdHistory(t) {
			kept++
		}
	}
	if r.doHistory() {
		kept++
	}
	if r.tenants() {
		kept++
	}
	if kept == 0 {
		r.nothingWritten()
	}
	g.out = append(g.out, r.out...)
	return r.s.RanOut()
}

// subjectRef is the account of t a statement reads: one that further
// calls of t with a fresh key still reach (the key is not all in its
// values), so that one statement shows each call; a book's account
// before an outside one; among equals, the first the moves name.
func subjectRef(t *book.Transfer) book.AccountRef {
	var refs []book.AccountRef
	for _, m := range t.Moves {
		refs = append(refs, m.From, m.To)
	}
	rank := func(r book.AccountRef) int {
		covered := len(t.Key) > 0 && !slices.ContainsFunc(t.Key, func(p *book.Param) bool { return !slices.Contains(r.Args, p) })
		switch {
		case len(r.Args) > 0 && !covered:
			return 0
		case len(r.Args) == 0 && !r.Account.Outside:
			return 1
		case len(r.Args) == 0:
			return 2
		}
		return 3
	}
	best := refs[0]
	for _, r := range refs[1:] {
		if rank(r) < rank(best) {
			best = r
		}
	}
	return best
}

// another is c with a fresh value for each key parameter the account
// ref does not read, so that it reaches the same account under a new
// key; when ref reads the whole key, every key value is fresh.
func (g *gen) another(c interp.Call, ref book.AccountRef) interp.Call {
	out := c
	out.Strings = map[string]string{}
	for k, v := range c.Strings {
		out.Strings[k] = v
	}
	changed := false
	for _, p := range c.Transfer.Key {
		if !slices.Contains(ref.Args, p) {
			out.Strings[p.Name] = g.s.Fresh(p.Name)
			changed = true
		}
	}
	if !changed {
		for _, p := range c.Transfer.Key {
			out.Strings[p.Name] = g.s.Fresh(p.Name)
		}
	}
	return out
}

// then appends c to steps, with calls before it that bring what its
// moves take when an account is short, or take out what leaves no room
// when an account is full, and reports whether c is done.
func (g *gen) then(steps []search.Step, c interp.Call) ([]search.Step, bool) {
	next := append(slices.Clone(steps), search.Step{Call: c})
	for range 2 {
		run, _, ok := g.s.Simulate(next)
		if !ok {
			return steps, false
		}
		r := run[len(run)-1].Result
		if r.Outcome == interp.Done {
			return run, true
		}
		d := r.Detail
		if c.Op == book.Post || c.Op == book.Void || d == nil {
			return steps, false
		}
		if d.Lower {
			run, ok = g.s.Prepare(next, len(c.Transfer.Moves)+1)
		} else {
			short := d.Amount - room(d.Balance, false, d.Account.Kind.Upper)
			run, ok = g.s.Take(next[:len(next)-1], d.Account, short)
			run = append(run, search.Step{Call: c})
		}
		if !ok {
			return steps, false
		}
		next = run
	}
	run, _, ok := g.s.Simulate(next)
	if !ok || run[len(run)-1].Result.Outcome != interp.Done {
		return steps, false
	}
	return run, true
}

// success is a call of t that gets done, with the calls before it: the
// search's, or, where the search stops at an upper bound with no room
// yet (a credit line paid back), one made room for.
func (g *gen) success(t *book.Transfer) ([]search.Step, bool) {
	if ex, ok := g.s.Success(t); ok {
		return ex.Steps, true
	}
	return g.then(nil, g.s.Call(t, firstOp(t), func(*book.Param) int64 { return 1 }))
}

// stocked is c done after calls that put into each account its moves
// take from enough for n calls like it and a few more: a book may have
// a single way to fill an account (a sale keyed by the order it fills),
// so the holds that follow c find what they take there already.
func (g *gen) stocked(c interp.Call, n int64) ([]search.Step, bool) {
	need := map[string]int64{}
	var accs []interp.Account
	for _, m := range c.Transfer.Moves {
		if m.From.Account.Lower == nil {
			continue
		}
		acc := accountOf(m.From, c)
		if _, ok := need[acc.String()]; !ok {
			accs = append(accs, acc)
		}
		amount := m.Amount.Literal
		if m.Amount.Param != nil {
			amount = c.Amounts[m.Amount.Param.Name]
		}
		need[acc.String()] += n * (amount + 1)
	}
	var steps []search.Step
	for _, acc := range accs {
		var ok bool
		if steps, ok = g.s.Feed(steps, acc, need[acc.String()]); !ok {
			return nil, false
		}
	}
	return g.then(steps, c)
}

// clockAt is the scenario's clock after steps: the passes added up.
func clockAt(steps []search.Step) int64 {
	var n int64
	for _, st := range steps {
		if st.IsPass() {
			n += st.Pass
		}
	}
	return n
}

// plusOne is c with one more of each amount parameter: a hold that can
// be posted in part, one step short of what it held.
func plusOne(c interp.Call) interp.Call {
	out := c
	out.Amounts = map[string]int64{}
	for k, v := range c.Amounts {
		out.Amounts[k] = v + 1
	}
	return out
}

// holdHistory: every way a hold of t ends, on one account, then that
// account's history read every way. A hold posted in full; one posted in
// part (where t's moves take amounts); one voided; one that expires at
// a pass past its deadline (one that is posted after the pass, when t's
// holds never expire); and, after a second pass, one left open.
func (g *gen) holdHistory(t *book.Transfer) bool {
	found, ok := g.success(t)
	if !ok {
		return false
	}
	first := found[len(found)-1].Call
	ref := subjectRef(t)
	steps, ok := g.stocked(first, 6)
	if !ok || len(steps) > len(found)+1 {
		steps = found
	}
	if steps, ok = g.then(steps, search.KeyCall(first, book.Post)); !ok {
		return false
	}
	var stages, stagesJa []string
	stages, stagesJa = append(stages, "a hold posted in full"), append(stagesJa, "全額を確定した仮押さえ")
	var en, ja []string
	steps, en, ja = g.endedEarly(t, first, ref, steps)
	stages, stagesJa = append(stages, en...), append(stagesJa, ja...)
	last := g.another(first, ref)
	var lastOK bool
	if steps, lastOK = g.then(steps, last); !lastOK {
		return false
	}
	// Where the hold still open before the pass is read.
	openAt := len(steps)
	wait := int64(3600)
	if t.Pending.Expires {
		wait = t.Pending.Seconds + 60
		stages, stagesJa = append(stages, "one expired"), append(stagesJa, "期限切れになった仮押さえ")
	}
	steps = append(steps, search.Step{Pass: wait})
	passed := clockAt(steps)
	if !t.Pending.Expires {
		var ok bool
		if steps, ok = g.then(steps, search.KeyCall(last, book.Post)); !ok {
			return false
		}
		stages, stagesJa = append(stages, "one posted after a pass"), append(stagesJa, "時間が経ってから確定した仮押さえ")
	}
	// A second pass, short of any lifetime a book gives, closes a window
	// around how the hold before the first one ended.
	steps = append(steps, search.Step{Pass: 1})
	end := clockAt(steps)
	open := g.another(first, ref)
	if steps, ok = g.then(steps, open); !ok {
		return false
	}
	stages, stagesJa = append(stages, "one left open"), append(stagesJa, "押さえたままの仮押さえ")

	acc := accountOf(ref, first)
	calls := callSteps(steps)
	calls = slices.Insert(calls, openAt, Step{Read: &ReadStep{Kind: ReadHolds, Account: &acc, AfterStep: -1}})
	reads := historyReads{accs: []interp.Account{acc}, passed: passed, holdsOf: t,
		keys: []callKey{{t, keyOf(first)}, {t, keyOf(last)}}, until: end}
	sc := Scenario{
		Name:    fmt.Sprintf("%s: the history of %s, read back", t.Name, strings.Join(stages, ", ")),
		TitleJa: fmt.Sprintf("%s: %sの記録を読み返す", t.Name, strings.Join(stagesJa, "、")),
	}
	return g.addReads(sc, calls, reads, func(lines []string) bool {
		// The statement shows what the name says: each way a hold ends.
		want := []string{"." + string(book.Hold) + "(", "." + string(book.Post) + "("}
		if slices.Contains(stages, "one voided") {
			want = append(want, "."+string(book.Void)+"(")
		}
		if t.Pending.Expires {
			want = append(want, "."+string(interp.Expire)+"(")
		}
		return containsAll(lines, want)
	})
}

// endedEarly adds to steps, where it can, a hold of t posted in part
// (where t's moves take amounts) and one voided, each beside first; it
// gives the steps and the names of what it added.
func (g *gen) endedEarly(t *book.Transfer, first interp.Call, ref book.AccountRef, steps []search.Step) ([]search.Step, []string, []string) {
	var en, ja []string
	if amounts := t.PostAmounts(); len(amounts) > 0 {
		h := plusOne(g.another(first, ref))
		part := search.KeyCall(h, book.Post)
		part.Amounts = map[string]int64{}
		for _, a := range amounts {
			part.Amounts[a.Name] = h.Amounts[a.Name] - 1
		}
		if s, ok := g.then(steps, h); ok {
			if s, ok = g.then(s, part); ok {
				steps = s
				en, ja = append(en, "one posted in part"), append(ja, "一部を確定した仮押さえ")
			}
		}
	}
	voided := g.another(first, ref)
	if s, ok := g.then(steps, voided); ok {
		if s, ok = g.then(s, search.KeyCall(voided, book.Void)); ok {
			steps = s
			en, ja = append(en, "one voided"), append(ja, "取り消した仮押さえ")
		}
	}
	return steps, en, ja
}

// doHistory: a successful call of every transfer that posts at once,
// a pass, and a second call of each on the same account, then the
// history read back.
func (g *gen) doHistory() bool {
	var steps []search.Step
	var firsts, seconds []interp.Call
	var refs []book.AccountRef
	var names []string
	for i, t := range g.b.Transfers {
		if t.Pending != nil {
			continue
		}
		found, ok := g.success(t)
		if !ok {
			continue
		}
		// Filled at once for both calls, where the search's example
		// fills bit by bit.
		if stocked, ok := g.stocked(found[len(found)-1].Call, 2); ok && len(stocked) < len(found) {
			found = stocked
		}
		// Each example names its values from 1: apart, they are apart.
		run, _, ok := g.s.Simulate(append(slices.Clone(steps), apart(found, i)...))
		if !ok || run[len(run)-1].Result.Outcome != interp.Done {
			continue
		}
		steps = run
		firsts = append(firsts, run[len(run)-1].Call)
		refs = append(refs, subjectRef(t))
		names = append(names, t.Name)
	}
	if len(firsts) == 0 {
		return false
	}
	steps = append(steps, search.Step{Pass: 3600})
	passed := clockAt(steps)
	for i, c := range firsts {
		next := g.another(c, refs[i])
		var ok bool
		if steps, ok = g.then(steps, next); ok {
			seconds = append(seconds, next)
		}
	}
	reads := historyReads{passed: passed}
	for i, c := range firsts {
		reads.keys = append(reads.keys, callKey{c.Transfer, keyOf(c)})
		if a := accountOf(refs[i], c); !slices.ContainsFunc(reads.accs, func(x interp.Account) bool { return x.String() == a.String() }) {
			reads.accs = append(reads.accs, a)
		}
	}
	if len(seconds) > 0 {
		reads.keys = append(reads.keys, callKey{seconds[0].Transfer, keyOf(seconds[0])})
	}
	sc := Scenario{
		Name:    fmt.Sprintf("calls of %s before and after a pass, read back", strings.Join(names, ", ")),
		TitleJa: fmt.Sprintf("%s の呼び出しを時間の経過の前と後に行い、記録を読み返す", strings.Join(names, "、")),
	}
	return g.addReads(sc, callSteps(steps), reads, func(lines []string) bool {
		return len(lines) >= 2
	})
}

// tenants: the same calls, the same keys and accounts, in two tenants,
// with other amounts in the second. Each scenario starts from an empty
// ledger of its own (the conformance tests give each a fresh tenant as
// well), so a read that saw the other tenant's calls would show entries
// its expectation does not hold.
func (g *gen) tenants() bool {
	var steps []search.Step
	found := false
	for _, t := range g.b.Transfers {
		if steps, found = g.success(t); found {
			break
		}
	}
	if !found {
		return false
	}
	c := steps[len(steps)-1].Call
	ref := subjectRef(c.Transfer)
	acc := accountOf(ref, c)
	// The second tenant's last call moves one more of each amount, when
	// it is still done: its entries differ from the first tenant's.
	bigger := slices.Clone(steps)
	bigger[len(bigger)-1].Call = plusOne(c)
	// The Japanese titles count the tenants: their names are English
	// words.
	other := diag.T("the same keys and accounts as tenant-a, other amounts", "二つ目: 一つ目と同じキーと勘定で、額が違う")
	if run, _, ok := g.s.Simulate(bigger); !ok || run[len(run)-1].Result.Outcome != interp.Done {
		bigger, other = steps, diag.T("the same calls as tenant-a", "二つ目: 一つ目と同じ呼び出し")
	}
	kept := false
	for _, v := range []struct {
		tenant string
		steps  []search.Step
		what   diag.Text
	}{
		{"tenant-a", steps, diag.T("a read sees only the calls of its own tenant", "一つ目: 読むと自分のテナントの呼び出しだけが見える")},
		{"tenant-b", bigger, other},
	} {
		calls := callSteps(v.steps)
		a := acc
		calls = append(calls,
			Step{Read: &ReadStep{Kind: ReadStatement, Account: &a, AfterStep: -1}},
			Step{Read: &ReadStep{Kind: ReadEntries, Transfer: c.Transfer, Key: keyOf(c), AfterStep: -1}},
			Step{Read: &ReadStep{Kind: ReadBalance, Account: &a, At: 0, AtText: start, AfterStep: -1}})
		sc := Scenario{Name: fmt.Sprintf("tenants: %s: %s", v.tenant, v.what.En),
			TitleJa: "テナント: " + v.what.Ja, Tenant: v.tenant, Steps: calls}
		if g.addFilled(sc, func(sc Scenario, outs []Outcome) bool {
			return len(outs[0].Reads[len(sc.Steps)-3].Entries) > 0
		}) {
			kept = true
		}
	}
	return kept
}

// nothingWritten is the read scenario of a book none of whose calls can
// get done: one call refused, and every read finds nothing.
func (g *gen) nothingWritten() {
	for _, t := range g.b.Transfers {
		c := g.s.Call(t, firstOp(t), func(*book.Param) int64 { return 1 })
		ref := subjectRef(t)
		acc := accountOf(ref, c)
		steps := []Step{call(c, ""),
			{Read: &ReadStep{Kind: ReadStatement, Account: &acc, AfterStep: -1}},
			{Read: &ReadStep{Kind: ReadEntries, Transfer: t, Key: keyOf(c), AfterStep: -1}},
			{Read: &ReadStep{Kind: ReadHolds, Account: &acc, AfterStep: -1}},
			{Read: &ReadStep{Kind: ReadBalance, Account: &acc, At: 0, AtText: start, AfterStep: -1}}}
		name := opName(t, firstOp(t))
		kept := g.addFilled(Scenario{Name: name + " refused: nothing is written to read back",
			TitleJa: name + " が拒否され、読み返す記録が何も無い", Steps: steps},
			func(_ Scenario, outs []Outcome) bool {
				return outs[0].Results[0].Outcome == interp.Refused && len(outs[0].Reads[1].Entries) == 0
			})
		if kept {
			return
		}
	}
}

// start is the time a scenario starts at, as a read writes it.
const start = "0 seconds"

// historyReads are the reads that follow the calls of a history family.
type historyReads struct {
	// accs are the accounts whose statements are read whole; the first
	// where a page can end inside a call, else the one with the most
	// entries, is read every way.
	accs   []interp.Account
	passed int64 // the clock right after the family's pass
	// until, when above passed, is the clock after a later pass: the
	// entries from passed until then are read as a window.
	until int64
	// keys are calls whose entries are read.
	keys []callKey
	// holdsOf, when set, has its open holds read, and those of the
	// account read every way.
	holdsOf *book.Transfer
}

// callKey names a call: its transfer and key values.
type callKey struct {
	t   *book.Transfer
	key []string
}

// fullest is the step of the statement, among the n read from step at
// on, that has most to show: one where a page can end inside a call
// first, then the longest; -1 when one of them failed.
func fullest(reads map[int]*ReadResult, at, n int) int {
	whole, split := -1, false
	for i := range n {
		got := reads[at+i]
		if got == nil || got.Failed != "" {
			return -1
		}
		inside := len(got.Entries) > 1 && splitInside(got.Entries)
		if whole < 0 || (inside && !split) || (inside == split && len(got.Entries) > len(reads[whole].Entries)) {
			whole, split = at+i, inside
		}
	}
	return whole
}

// kindsToRead are the transfer kinds a statement is read by: the first
// kind it shows, then a second one it shows, or else one of the book's
// it does not.
func kindsToRead(b *book.Book, st *ReadResult) []*book.Transfer {
	var kinds []*book.Transfer
	for _, e := range st.Entries {
		if !slices.Contains(kinds, e.Call.Transfer) {
			kinds = append(kinds, e.Call.Transfer)
		}
	}
	if len(kinds) == 1 {
		if o := otherKind(b, kinds[0]); o != nil {
			kinds = append(kinds, o)
		}
	}
	return kinds[:min(2, len(kinds))]
}

// addReads adds the reads to the calls of a history family and keeps
// the scenario when every read runs, it keeps the rule of Timing, and
// shows approves of the whole statement of the account read every way.
func (g *gen) addReads(sc Scenario, calls []Step, r historyReads, shows func(lines []string) bool) bool {
	var acc interp.Account
	read := func(rd ReadStep) Step {
		rd.AfterStep = -1
		if rd.Account == nil && rd.Kind != ReadEntries && rd.Kind != ReadHolds {
			a := acc
			rd.Account = &a
		}
		return Step{Read: &rd}
	}
	steps := slices.Clone(calls)
	for _, a := range r.accs {
		steps = append(steps, read(ReadStep{Kind: ReadStatement, Account: &a}))
	}
	// The statements as a whole tell which account has most to show and
	// where a page can end inside a call.
	outs := Run(g.b, renamed(Scenario{Steps: steps}))
	whole := fullest(outs[0].Reads, len(calls), len(r.accs))
	if whole < 0 {
		return false
	}
	first := outs[0].Reads[whole]
	if len(first.Entries) < 2 {
		return false
	}
	acc = *steps[whole].Read.Account
	pageStep, newestStep := len(steps), len(steps)+2
	steps = append(steps,
		read(ReadStep{Kind: ReadStatement, Name: "page 1", Limit: splitAt(first.Entries)}),
		read(ReadStep{Kind: ReadStatement, Name: "page 2"}),
		// A page short of the whole, so that the next one has entries.
		read(ReadStep{Kind: ReadStatement, Name: "newest", Order: interp.Newest, Limit: min(3, len(first.Entries)-1)}),
		read(ReadStep{Kind: ReadStatement, Order: interp.Newest}),
	)
	steps[pageStep+1].Read.AfterStep = pageStep
	steps[newestStep+1].Read.AfterStep = newestStep
	passed := syntax.FormatDuration(r.passed)
	to := r.passed
	steps = append(steps,
		read(ReadStep{Kind: ReadStatement, To: &to, ToText: passed}),
		read(ReadStep{Kind: ReadStatement, From: r.passed, FromText: passed}))
	if r.until > r.passed {
		until := r.until
		steps = append(steps, read(ReadStep{Kind: ReadStatement, From: r.passed, FromText: passed, To: &until, ToText: syntax.FormatDuration(until)}))
	}
	for _, k := range kindsToRead(g.b, first) {
		steps = append(steps, read(ReadStep{Kind: ReadStatement, Transfers: []*book.Transfer{k}}))
	}
	for _, k := range r.keys {
		steps = append(steps, read(ReadStep{Kind: ReadEntries, Transfer: k.t, Key: k.key}))
	}
	if r.holdsOf != nil {
		steps = append(steps,
			read(ReadStep{Kind: ReadHolds, Transfer: r.holdsOf}),
			read(ReadStep{Kind: ReadHolds, Account: &acc}))
	}
	steps = append(steps, read(ReadStep{Kind: ReadBalance, At: 0, AtText: start}))
	sc.Steps = steps
	return g.addFilled(sc, func(sc Scenario, outs []Outcome) bool {
		var lines []string
		for _, e := range outs[0].Reads[whole].Entries {
			lines = append(lines, e.String())
		}
		return shows(lines)
	})
}

// addFilled renames sc, fills the expectation of every call and read
// with what the interpreter answered and read, and adds it when every
// read could be made, the scenario keeps the rule of Timing, and ok
// approves.
func (g *gen) addFilled(sc Scenario, ok func(sc Scenario, outs []Outcome) bool) bool {
	sc = renamed(sc)
	outs := Run(g.b, sc)
	if len(outs) != 1 {
		return false
	}
	o := outs[0]
	k := 0
	for i := range sc.Steps {
		st := &sc.Steps[i]
		switch {
		case st.Call != nil:
			st.Expect = o.Results[k].Short()
			k++
		case st.Read != nil:
			got := o.Reads[i]
			if got == nil || got.Failed != "" {
				return false
			}
			rd := *st.Read
			rd.Expect = &ReadExpect{Lines: got.Lines(&rd)}
			if rd.Kind == ReadStatement {
				more := got.More
				rd.Expect.More = &more
			}
			st.Read = &rd
		}
	}
	return g.add(sc, func(sc Scenario, outs []Outcome) bool {
		if _, err := Timing(sc, outs); err != nil {
			return false
		}
		return ok == nil || ok(sc, outs)
	})
}

// renamed is sc with its values renamed, as add does, so that reads
// built on the values name the same accounts and keys as the calls.
func renamed(sc Scenario) Scenario {
	sc.Steps = slices.Clone(sc.Steps)
	rename(&sc)
	return sc
}

// splitAt is a page size at which a page of an account's entries ends
// between two entries of one call (two moves from the account), when
// two follow each other; else one that ends halfway.
func splitAt(es []interp.Entry) int {
	for i := 1; i < len(es); i++ {
		if sameCall(es[i], es[i-1]) {
			return i
		}
	}
	return max(1, len(es)/2)
}

// splitInside reports whether two entries of one call follow each other.
func splitInside(es []interp.Entry) bool {
	n := splitAt(es)
	return n < len(es) && sameCall(es[n], es[n-1])
}

// sameCall reports whether two entries come from one call: a key names
// one call of each operation that writes entries (a repeat is answered
// done_before and writes none).
func sameCall(a, b interp.Entry) bool {
	return a.Call.Transfer == b.Call.Transfer && a.Op == b.Op && slices.Equal(a.Key, b.Key)
}

// callSteps turns the steps of a history family into scenario steps;
// their expectations are filled when the scenario is complete.
func callSteps(steps []search.Step) []Step {
	var out []Step
	for _, st := range steps {
		if st.IsPass() {
			out = append(out, pass(st.Pass))
			continue
		}
		out = append(out, call(st.Call, ""))
	}
	return out
}

func keyOf(c interp.Call) []string {
	var out []string
	for _, p := range c.Transfer.Key {
		out = append(out, c.Strings[p.Name])
	}
	return out
}

// otherKind is a transfer of b other than t, for a filter that keeps
// two kinds; nil when b has one.
func otherKind(b *book.Book, t *book.Transfer) *book.Transfer {
	for _, o := range b.Transfers {
		if o != t {
			return o
		}
	}
	return nil
}

// apart gives the values of steps a mark of their own, n: examples the
// search found name their values from 1 each, and side by side they
// would share them.
func apart(steps []search.Step, n int) []search.Step {
	out := slices.Clone(steps)
	for i := range out {
		c := out[i].Call
		if c.Transfer == nil {
			continue
		}
		strs := map[string]string{}
		for k, v := range c.Strings {
			strs[k] = fmt.Sprintf("%s\uFDD0%d", v, n)
		}
		c.Strings = strs
		out[i].Call = c
	}
	return out
}

func containsAll(lines []string, parts []string) bool {
	for _, p := range parts {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, p) }) {
			return false
		}
	}
	return true
}
