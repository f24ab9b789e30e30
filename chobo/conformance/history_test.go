package conformance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// at is a wall time some seconds after a fixed instant.
func at(s float64) time.Time {
	return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(s * float64(time.Second)))
}

// marks: the run starts at 0 s (the scenario's 0), a pass to 600 s ends
// at 4 s and has holds given back by 4.5 s, a pass to 3600 s ends at 9 s
// and has them given back by 9.5 s; the holds this one reaches can have
// expired from 7.25 s.
var someMarks = Marks{{T: 0, At: at(0), Done: at(0), Step: -1}, {T: 600, At: at(4), Done: at(4.5), Step: 2},
	{T: 3600, At: at(9), Done: at(9.5), Split: at(7.25), Step: 5}}

func TestMarksMapTimes(t *testing.T) {
	const none = -1 // no mark is
	for _, c := range []struct {
		wall             float64
		written          int64 // a call's entry
		reached, expired int64 // a deadline, an expiry's entry
	}{
		{0, 0, 0, 0},
		{1.5, 0, 600, 600},
		{3.999, 0, 600, 600},
		{4, 600, 600, 600},
		{4.2, 600, 3600, 600}, // given back by the pass's own expire
		{4.5, 600, 3600, 600},
		{4.6, 600, 3600, 3600},
		{9, 3600, 3600, 3600},
		{9.4, 3600, none, 3600},
		{12, 3600, none, none},
	} {
		if got := someMarks.Written(at(c.wall)); got != c.written {
			t.Errorf("an entry written at %vs is at %d, want %d", c.wall, got, c.written)
		}
		for _, f := range []struct {
			what string
			of   func(time.Time) (int64, bool)
			want int64
		}{{"a deadline", someMarks.Reached, c.reached}, {"an expiry", someMarks.Expired, c.expired}} {
			got, ok := f.of(at(c.wall))
			if !ok {
				got = none
			}
			if got != f.want {
				t.Errorf("%s at %vs is at %d, want %d", f.what, c.wall, got, f.want)
			}
		}
	}
}

// counter is twoLifetimes: carts expire after 10 minutes, layaways
// after an hour.
func counterBooks(t *testing.T) (*book.Book, *book.Book) { return books(t, twoLifetimes) }

func readOf(t *testing.T, b *book.Book, steps string) scenario.Scenario {
	t.Helper()
	scs, err := scenario.Read(b, []byte(`{"name": "reads", "steps": [`+steps+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	return scs[0]
}

func TestReadRequestMapsTimesToMarks(t *testing.T) {
	orig, _ := counterBooks(t)
	now := at(20)
	stamp := func(s float64) string { return at(s).UTC().Format(protocol.TimeFormat) }
	answered := map[int]*ReadAnswer{0: {Response: protocol.Response{Next: "17"}}, 1: {Response: protocol.Response{Error: "no"}}}
	for _, c := range []struct {
		name, step string
		want       protocol.Request
	}{
		{"a statement from the start, to a time no pass reached yet",
			`{"read": "statement", "account": "shelf(s-1)", "to": "2 hours"}`,
			protocol.Request{Op: "statement", Tenant: "t", Account: "shelf", Args: map[string]string{"sku": "s-1"}, Limit: chobo.MaxPage}},
		{"from a pass's end, to the split of another that reaches a hold's deadline, newest first, by kind",
			`{"read": "statement", "account": "shelf(s-1)", "from": "10 minutes", "to": "1 hour", "order": "newest", "limit": 2, "transfers": ["cart"]}`,
			protocol.Request{Op: "statement", Tenant: "t", Account: "shelf", Args: map[string]string{"sku": "s-1"},
				From: stamp(4), To: stamp(7.25), Newest: true, Limit: 2, Transfers: []string{"cart"}}},
		{"from between passes is from the next one's end",
			`{"read": "statement", "account": "shelf(s-1)", "from": "5 minutes"}`,
			protocol.Request{Op: "statement", Tenant: "t", Account: "shelf", Args: map[string]string{"sku": "s-1"}, From: stamp(4), Limit: chobo.MaxPage}},
		{"from past every pass is from now",
			`{"read": "statement", "account": "shelf(s-1)", "from": "2 hours"}`,
			protocol.Request{Op: "statement", Tenant: "t", Account: "shelf", Args: map[string]string{"sku": "s-1"}, From: stamp(20), Limit: chobo.MaxPage}},
		{"a balance at a pass's time is just before the next mark's split",
			`{"read": "balance", "account": "shelf(s-1)", "at": "10 minutes"}`,
			protocol.Request{Op: "balance_at", Tenant: "t", Account: "shelf", Args: map[string]string{"sku": "s-1"},
				At: at(7.25).Add(-time.Microsecond).UTC().Format(protocol.TimeFormat)}},
		{"a balance at the clock is now",
			`{"read": "balance", "account": "shelf(s-1)", "at": "1 hour"}`,
			protocol.Request{Op: "balance_at", Tenant: "t", Account: "shelf", Args: map[string]string{"sku": "s-1"},
				At: at(20).Add(-time.Microsecond).UTC().Format(protocol.TimeFormat)}},
		{"the entries of a call, the key by name",
			`{"read": "entries", "transfer": "cart", "key": {"order": "o-1", "sku": "s-1"}}`,
			protocol.Request{Op: "entries", Tenant: "t", Transfer: "cart", Args: map[string]string{"order": "o-1", "sku": "s-1"}}},
		{"open holds of a kind",
			`{"read": "holds", "transfer": "cart"}`,
			protocol.Request{Op: "holds", Tenant: "t", Transfer: "cart"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rd := readOf(t, orig, c.step).Steps[0].Read
			req, err := readRequest(rd, "t", someMarks, now, answered)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", req) != fmt.Sprintf("%+v", c.want) {
				t.Errorf("request\n got  %+v\n want %+v", req, c.want)
			}
		})
	}
	// A statement that continues another sends the cursor that one was
	// answered, and is not sent when that one failed.
	sc := readOf(t, orig, `{"read": "statement", "account": "shelf(s-1)", "name": "a", "limit": 1},
		{"read": "statement", "account": "shelf(s-1)", "name": "b", "limit": 1},
		{"read": "statement", "account": "shelf(s-1)", "after": "a"},
		{"read": "statement", "account": "shelf(s-1)", "after": "b"}`)
	req, err := readRequest(sc.Steps[2].Read, "t", someMarks, now, answered)
	if err != nil || req.After != "17" {
		t.Errorf("after a: %+v %v, want the cursor 17", req, err)
	}
	if _, err := readRequest(sc.Steps[3].Read, "t", someMarks, now, answered); err == nil || !strings.Contains(err.Error(), "step 2") {
		t.Errorf("after a failed statement: %v, want an error naming step 2", err)
	}
}

// fakeLedger is a backend that keeps its ledger in the interpreter, on
// the test copy, dates each entry with the wall clock when it is written
// and answers the reads from them as a driver would: what a correct
// backend answers. mangle, when set, spoils each read's answer.
type fakeLedger struct {
	b      *book.Book
	passes []int64 // the scaled passes, in order; each Expire makes the next
	// deadline dates an expiry at the hold's deadline, as TigerBeetle
	// does, and not when Expire gave it back.
	deadline bool
	mangle   func(req protocol.Request, res *protocol.Response)

	mu   sync.Mutex
	s    *interp.State
	wall []time.Time // by entry, from Seq 1
	made map[string]time.Time
}

func newFakeLedger(b *book.Book, passes []int64) *fakeLedger {
	s := interp.New(b)
	s.KeepHistory()
	return &fakeLedger{b: b, passes: passes, s: s, made: map[string]time.Time{}}
}

// stamp dates the entries of a call's key not dated yet.
func (f *fakeLedger) stamp(t *book.Transfer, key []string, when time.Time) {
	es, _ := f.s.CallEntries(t, key)
	for _, e := range es {
		for int64(len(f.wall)) < e.Seq {
			f.wall = append(f.wall, when)
		}
	}
}

func (f *fakeLedger) Call(_ context.Context, c interp.Call, _ string) (interp.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.s.Apply(c)
	if err != nil {
		return r, err
	}
	now := time.Now()
	key := keyOf(c)
	f.stamp(c.Transfer, key, now)
	if c.Op == book.Hold && r.Outcome == interp.Done {
		f.made[c.Transfer.Name+"\x00"+strings.Join(key, "\x00")] = now
	}
	return r, nil
}

func (f *fakeLedger) Expire(context.Context, string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.passes) == 0 {
		return false, fmt.Errorf("more passes than the scenario has")
	}
	gone, err := f.s.Pass(f.passes[0])
	f.passes = f.passes[1:]
	for _, h := range gone {
		when := time.Now()
		if f.deadline {
			when = f.deadlineOf(h)
		}
		f.stamp(h.Transfer, h.Key, when)
	}
	return false, err
}

func (f *fakeLedger) deadlineOf(h *interp.Hold) time.Time {
	return f.made[h.Transfer.Name+"\x00"+strings.Join(h.Key, "\x00")].Add(time.Duration(h.Deadline-h.Created) * time.Second)
}

func (f *fakeLedger) Ledger(context.Context, string) ([]string, []string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var accounts, holds []string
	for _, a := range f.s.Accounts() {
		accounts = append(accounts, AccountLine(a.Account.String(), a.Balance))
	}
	for _, h := range f.s.Holds() {
		holds = append(holds, h.Name()+" "+h.State.String())
	}
	return accounts, holds, nil
}

func (f *fakeLedger) account(req protocol.Request) *interp.Account {
	if req.Account == "" {
		return nil
	}
	for _, k := range f.b.Accounts {
		if k.Name == req.Account {
			a := interp.Account{Kind: k}
			for _, p := range k.Params {
				a.Args = append(a.Args, req.Args[p])
			}
			return &a
		}
	}
	return nil
}

func (f *fakeLedger) entry(e interp.Entry) protocol.Entry {
	args := map[string]string{}
	for k, v := range e.Call.Strings {
		args[k] = v
	}
	for k, v := range e.Call.Amounts {
		args[k] = protocol.FormatAmount(v)
	}
	return protocol.Entry{Transfer: e.Call.Transfer.Name, Op: string(e.Op), Key: e.Key, Args: args, Move: e.Move, Out: e.Out,
		Account: e.Account.Kind.Name, AccountArgs: e.Account.Args,
		Posted: protocol.FormatAmount(e.Posted), HeldIn: protocol.FormatAmount(e.HeldIn), HeldOut: protocol.FormatAmount(e.HeldOut),
		After: &protocol.Amounts{Posted: protocol.FormatAmount(e.After.Posted), HeldIn: protocol.FormatAmount(e.After.HeldIn),
			HeldOut: protocol.FormatAmount(e.After.HeldOut)},
		At: f.wall[e.Seq-1].UTC().Format(protocol.TimeFormat), Cursor: strconv.FormatInt(e.Seq, 10)}
}

func (f *fakeLedger) ReadHistory(_ context.Context, req protocol.Request) (protocol.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res := f.read(req)
	if f.mangle != nil {
		f.mangle(req, &res)
	}
	return res, nil
}

func (f *fakeLedger) read(req protocol.Request) protocol.Response {
	res := protocol.Response{ID: req.ID}
	parse := func(s string) time.Time { t, _ := time.Parse(protocol.TimeFormat, s); return t }
	switch req.Op {
	case protocol.Statement:
		all, err := f.s.Statement(*f.account(req), interp.Filter{})
		if err != nil {
			return protocol.Response{Error: err.Error()}
		}
		es := all.Entries
		if req.Newest {
			slices.Reverse(es)
		}
		after, _ := strconv.ParseInt(req.After, 10, 64)
		var page []protocol.Entry
		res.Next = req.After
		for _, e := range es {
			w := f.wall[e.Seq-1]
			switch {
			case req.After != "" && ((!req.Newest && e.Seq <= after) || (req.Newest && e.Seq >= after)):
			case req.From != "" && w.Before(parse(req.From)):
			case req.To != "" && !w.Before(parse(req.To)):
			case len(req.Transfers) > 0 && !slices.Contains(req.Transfers, e.Call.Transfer.Name):
			case len(page) == req.Limit:
				res.More = true
			default:
				page = append(page, f.entry(e))
				res.Next = page[len(page)-1].Cursor
			}
		}
		if page == nil {
			page = []protocol.Entry{}
		}
		res.Entries = &page
	case protocol.Entries:
		t := f.b.Transfer(req.Transfer)
		var key []string
		for _, p := range t.Key {
			key = append(key, req.Args[p.Name])
		}
		es, _ := f.s.CallEntries(t, key)
		page := []protocol.Entry{}
		for _, e := range es {
			page = append(page, f.entry(e))
		}
		res.Entries = &page
	case protocol.Holds:
		var t *book.Transfer
		if req.Transfer != "" {
			t = f.b.Transfer(req.Transfer)
		}
		hs := []protocol.Hold{}
		for _, h := range f.s.OpenHolds(f.account(req), t) {
			ph := protocol.Hold{Transfer: h.Transfer.Name, Key: h.Key,
				Created: f.made[h.Transfer.Name+"\x00"+strings.Join(h.Key, "\x00")].UTC().Format(protocol.TimeFormat)}
			if h.Transfer.Pending.Expires {
				ph.Deadline = f.deadlineOf(h).UTC().Format(protocol.TimeFormat)
			}
			for i, a := range h.Amounts {
				ph.Moves = append(ph.Moves, protocol.HoldMove{Move: i + 1, From: h.From[i].Kind.Name, FromArgs: h.From[i].Args,
					To: h.To[i].Kind.Name, ToArgs: h.To[i].Args, Amount: protocol.FormatAmount(a)})
			}
			hs = append(hs, ph)
		}
		res.Holds = &hs
	case protocol.BalanceAt:
		all, _ := f.s.Statement(*f.account(req), interp.Filter{})
		var b interp.Balance
		for _, e := range all.Entries {
			if !f.wall[e.Seq-1].After(parse(req.At)) {
				b = e.After
			}
		}
		res.Posted, res.HeldIn, res.HeldOut = protocol.FormatAmount(b.Posted), protocol.FormatAmount(b.HeldIn), protocol.FormatAmount(b.HeldOut)
	default:
		res.Error = fmt.Sprintf("unknown op %q", req.Op)
	}
	return res
}

// historyScenario reads the counter's history at every turn: pages of
// a statement, one continuing another; a statement from a pass's time;
// the entries of a hold that expired; the open holds with their
// deadlines; a balance at an earlier time.
const historyScenario = `
	{"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 5}},
	{"op": "cart.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 2}},
	{"read": "statement", "name": "first", "account": "shelf(s-1)", "limit": 1, "expect": {
		"entries": ["shelf(s-1) at 0s: restock.do(delivery: d-1, sku: s-1, qty: 5) move 1 in; posted +5 -> posted 5, held out 0, held in 0"],
		"more": true}},
	{"read": "statement", "account": "shelf(s-1)", "after": "first"},
	{"read": "holds", "account": "shelf(s-1)"},
	{"pass": "10 minutes"},
	{"op": "layaway.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
	{"read": "statement", "account": "shelf(s-1)", "from": "10 minutes", "order": "newest"},
	{"read": "entries", "transfer": "cart", "key": {"order": "o-1", "sku": "s-1"}},
	{"read": "holds"},
	{"read": "balance", "account": "shelf(s-1)", "at": "0 seconds"},
	{"pass": "1 minute"},
	{"read": "balance", "account": "shelf(s-1)", "at": "10 minutes"}`

// runFakes runs the history scenario on a fake ledger per case, all at
// once, and returns what RunAll reported of each, by pair.
func runFakes(t *testing.T, fakes map[string]*fakeLedger, orig, cp *book.Book, sc scenario.Scenario) (map[string][]string, Stats) {
	t.Helper()
	var jobs []Job
	for name, f := range fakes {
		jobs = append(jobs, Job{Where: "counter.book", Book: cp, Original: orig, Scenario: sc, Backend: f, Pair: name, Tenant: name})
	}
	r := &pairReporter{errs: map[string][]string{}}
	stats := RunAll(r, jobs)
	return r.errs, stats
}

type pairReporter struct {
	mu   sync.Mutex
	errs map[string][]string
	logs []string
}

func (r *pairReporter) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	pair := strings.TrimPrefix(msg, "counter.book on ")
	pair, _, _ = strings.Cut(pair, " ")
	r.errs[pair] = append(r.errs[pair], msg)
}

func (r *pairReporter) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func scaledPasses(t *testing.T, orig, cp *book.Book, sc scenario.Scenario) []int64 {
	t.Helper()
	scaled, err := Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, st := range scaled.Steps {
		if st.Call == nil && st.Together == nil && st.Read == nil {
			out = append(out, st.Pass)
		}
	}
	return out
}

// TestRunAllComparesReads runs a scenario that reads at every turn on a
// backend that answers as it should, and on backends that each get one
// thing wrong: each of those is reported, with the read's label and both
// sides, and the right one is not.
func TestRunAllComparesReads(t *testing.T) {
	orig, cp := counterBooks(t)
	sc := readOf(t, orig, historyScenario)
	if got := scenario.Failures(sc, scenario.Run(orig, sc)); len(got) > 0 {
		t.Fatalf("the scenario does not hold on the interpreter: %v", got)
	}
	passes := scaledPasses(t, orig, cp, sc)
	entry := func(op string, spoil func(e *protocol.Entry)) func(protocol.Request, *protocol.Response) {
		return func(req protocol.Request, res *protocol.Response) {
			if req.Op == op && res.Entries != nil && len(*res.Entries) > 0 {
				spoil(&(*res.Entries)[0])
			}
		}
	}
	spoilers := map[string]struct {
		mangle func(protocol.Request, *protocol.Response)
		want   string // in the report
	}{
		"amount": {entry("statement", func(e *protocol.Entry) { e.Posted = "4" }), "read statement of shelf(s-1), limit 1"},
		"time": {entry("entries", func(e *protocol.Entry) { e.At = time.Now().Add(time.Hour).UTC().Format(protocol.TimeFormat) }),
			"read entries of cart(o-1, s-1)"},
		"move": {entry("entries", func(e *protocol.Entry) { e.Move = 2 }), "move 2 out"},
		"side": {entry("entries", func(e *protocol.Entry) { e.Out = !e.Out }), "read entries of cart(o-1, s-1)"},
		"after": {entry("statement", func(e *protocol.Entry) { e.After = nil }),
			"move 1 in; posted 5, held out 0, held in 0\n"},
		"key":  {entry("entries", func(e *protocol.Entry) { e.Key = []string{"o-9", "s-1"} }), "key (o-9, s-1)"},
		"args": {entry("entries", func(e *protocol.Entry) { e.Args["qty"] = "3" }), "qty: 3"},
		"more": {func(req protocol.Request, res *protocol.Response) {
			if req.Op == "statement" {
				res.More = !res.More
			}
		}, "more true"},
		"cursor": {func(req protocol.Request, res *protocol.Response) {
			if req.Op == "statement" && req.Limit == 1 {
				res.Next = ""
			}
		}, "read statement of shelf(s-1), after step 3"},
		"hold": {func(req protocol.Request, res *protocol.Response) {
			if req.Op == "holds" && len(*res.Holds) > 0 {
				(*res.Holds)[0].Moves[0].Amount = "7"
			}
		}, "move 1 7 from shelf(s-1) to buyers"},
		"endless": {func(req protocol.Request, res *protocol.Response) {
			if req.Op == "holds" && req.Account == "" && len(*res.Holds) > 0 {
				(*res.Holds)[0].Deadline = ""
			}
		}, "never expires"},
		"balance": {func(req protocol.Request, res *protocol.Response) {
			if req.Op == "balance_at" {
				res.HeldOut = "9"
			}
		}, "read balance of shelf(s-1) at 10 minutes"},
		"unknown": {func(req protocol.Request, res *protocol.Response) {
			if req.Op == "holds" {
				*res = protocol.Response{ID: req.ID, Error: `unknown op "holds"`}
			}
		}, `holds answered an error: unknown op "holds"`},
	}
	// Both ways of dating an expiry are right: when the pass gives the
	// hold back, and at its deadline, before that.
	deadline := newFakeLedger(cp, passes)
	deadline.deadline = true
	fakes := map[string]*fakeLedger{"right": newFakeLedger(cp, passes), "deadline": deadline}
	for name, s := range spoilers {
		f := newFakeLedger(cp, passes)
		f.mangle = s.mangle
		fakes[name] = f
	}
	errs, stats := runFakes(t, fakes, orig, cp, sc)
	for _, name := range []string{"right", "deadline"} {
		if e := errs[name]; len(e) > 0 {
			t.Errorf("a backend that reads right is reported:\n%s", strings.Join(e, "\n"))
		}
	}
	for name, s := range spoilers {
		got := strings.Join(errs[name], "\n")
		if !strings.Contains(got, "reads the history otherwise than the interpreter") || !strings.Contains(got, s.want) {
			t.Errorf("%s: reported\n%s\nwant a difference in the reads showing %q", name, got, s.want)
		}
	}
	if want := 8 * len(fakes); stats.Reads != want || stats.ReadsSkipped != 0 {
		t.Errorf("%d reads compared, %d skipped; want %d and 0", stats.Reads, stats.ReadsSkipped, want)
	}
}

// TestPassesSplitWhereHoldsMayExpire: a pass that reaches a hold's
// deadline has its split at the earliest the hold may expire on the
// backend, before its mark; one that reaches none has none.
func TestPassesSplitWhereHoldsMayExpire(t *testing.T) {
	orig, cp := counterBooks(t)
	sc := readOf(t, orig, `{"op": "cart.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 0}},
		{"pass": "1 minute"}, {"pass": "10 minutes"}`)
	scaled, err := Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeLedger(cp, scaledPasses(t, orig, cp, sc))
	before := time.Now()
	got, _, err := run1(context.Background(), f, scaled, sc, "t", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := got.Marks
	if len(m) != 3 || m[1].T != 60 || m[2].T != 660 || !m[1].Split.IsZero() || m[2].Split.IsZero() {
		t.Fatalf("marks %+v", m)
	}
	if early := before.Add(Lifetime); m[2].Split.Before(early.Truncate(time.Microsecond)) || !m[2].Split.Before(m[2].At) ||
		!m[2].At.Before(m[2].Done) || m[2].bound() != m[2].Split || m[1].bound() != m[1].At {
		t.Errorf("the pass that reaches the deadline: %+v, made after %v", m[2], before)
	}
}

// TestRunAllWithoutHistory: a backend that reads no history has its
// read steps skipped, in one line per scenario.
func TestRunAllWithoutHistory(t *testing.T) {
	orig, cp := counterBooks(t)
	sc := readOf(t, orig, `{"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 5}},
		{"read": "holds"}, {"read": "statement", "account": "shelf(s-1)"}`)
	f := newFakeLedger(cp, nil)
	r := &pairReporter{errs: map[string][]string{}}
	stats := RunAll(r, []Job{{Where: "counter.book", Book: cp, Original: orig, Scenario: sc, Backend: callsOnly{f}, Pair: "calls", Tenant: "t"}})
	if len(r.errs) > 0 || stats.Reads != 0 || stats.ReadsSkipped != 1 ||
		!slices.Contains(r.logs, `SKIP: counter.book on calls "reads": not compared: its 2 read steps: calls reads no history`) {
		t.Errorf("errors %v, %d compared, %d skipped, log %q", r.errs, stats.Reads, stats.ReadsSkipped, r.logs)
	}
}

// callsOnly hides the reads of a backend.
type callsOnly struct{ f *fakeLedger }

func (c callsOnly) Call(ctx context.Context, call interp.Call, tenant string) (interp.Result, error) {
	return c.f.Call(ctx, call, tenant)
}
func (c callsOnly) Expire(ctx context.Context, tenant string) (bool, error) {
	return c.f.Expire(ctx, tenant)
}
func (c callsOnly) Ledger(ctx context.Context, tenant string) ([]string, []string, error) {
	return c.f.Ledger(ctx, tenant)
}

// TestReadsThroughADriverThatKnowsNone: a driver that answers a read op
// with an error, as one that does not know it does, fails the scenario
// with the op named, instead of passing it.
func TestReadsThroughADriverThatKnowsNone(t *testing.T) {
	orig, cp := counterBooks(t)
	sc := readOf(t, orig, `{"read": "holds"}, {"read": "statement", "account": "shelf(s-1)"}`)
	p := startFake(t, "ok")
	r := &pairReporter{errs: map[string][]string{}}
	RunAll(r, []Job{{Where: "counter.book", Book: cp, Original: orig, Scenario: sc, Backend: p, Pair: "fake", Tenant: "t"}})
	got := strings.Join(r.errs["fake"], "\n")
	for _, want := range []string{`step 1, read open holds: differs`, `holds answered an error: unknown op "holds"`,
		`step 2, read statement of shelf(s-1): differs`, `statement answered an error: unknown op "statement"`} {
		if !strings.Contains(got, want) {
			t.Errorf("reported:\n%s\nwant %q", got, want)
		}
	}
}

// card is a book whose payments hold two moves, each on a bounded
// wallet: a hold's chain is both moves, then a key guard.
const card = `book card v1
unit USD scale 2
account wallet(card: string) : USD
  at least 0 refused as insufficient_funds
account bank : USD outside
account merchants : USD outside
account fees : USD outside
transfer top_up(top_up_id: string, card: string, amount: USD)
  key top_up_id
  move amount from bank to wallet(card)
transfer payment(payment_id: string, card: string, price: USD, fee: USD)
  key payment_id
  pending expires after 30 minutes
  move price from wallet(card) to merchants
  move fee from wallet(card) to fees
`

// TestEntryIDsOnTigerBeetle: the id an entry read from TigerBeetle must
// carry is that of the transfer of its move: its place in the do or hold
// chain, or in the post or void chain, or, for an expiry, the hold's
// move that expired.
func TestEntryIDsOnTigerBeetle(t *testing.T) {
	orig, cp := books(t, card)
	sc := readOf(t, orig, `{"op": "top_up.do", "args": {"top_up_id": "u-1", "card": "c-1", "amount": 5000}},
		{"op": "payment.hold", "args": {"payment_id": "p-1", "card": "c-1", "price": 500, "fee": 20}},
		{"op": "payment.post", "args": {"payment_id": "p-1"}},
		{"op": "payment.hold", "args": {"payment_id": "p-2", "card": "c-1", "price": 100, "fee": 10}},
		{"op": "payment.void", "args": {"payment_id": "p-2"}},
		{"op": "payment.hold", "args": {"payment_id": "p-3", "card": "c-1", "price": 200, "fee": 30}},
		{"pass": "1 hour"},
		{"read": "statement", "account": "wallet(c-1)"}`)
	ref := scenario.Run(orig, sc)[0].Reads[7]
	c := readCheck{def: tigerbeetle.Def(cp), tenant: "t"}
	var got []string
	for _, e := range ref.Entries {
		got = append(got, fmt.Sprintf("%s %s move %d %s", e.Op, strings.Join(e.Key, ","), e.Move, c.entryID(e)))
	}
	id := func(kind, op, key string, pos int) string {
		return ids.Transfer("card", "t", kind, op, []string{key}, pos).Hex()
	}
	want := []string{
		"do u-1 move 1 " + id("top_up", "do", "u-1", 0),
		"hold p-1 move 1 " + id("payment", "hold", "p-1", 0), "hold p-1 move 2 " + id("payment", "hold", "p-1", 1),
		"post p-1 move 1 " + id("payment", "post", "p-1", 0), "post p-1 move 2 " + id("payment", "post", "p-1", 1),
		"hold p-2 move 1 " + id("payment", "hold", "p-2", 0), "hold p-2 move 2 " + id("payment", "hold", "p-2", 1),
		"void p-2 move 1 " + id("payment", "void", "p-2", 0), "void p-2 move 2 " + id("payment", "void", "p-2", 1),
		"hold p-3 move 1 " + id("payment", "hold", "p-3", 0), "hold p-3 move 2 " + id("payment", "hold", "p-3", 1),
		"expire p-3 move 1 " + id("payment", "hold", "p-3", 0), "expire p-3 move 2 " + id("payment", "hold", "p-3", 1),
	}
	if !slices.Equal(got, want) {
		t.Errorf("ids\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// TestRuntimeReadsTheHistory runs the history scenario on the model of
// TigerBeetle through chobotb's reads in this process (Runtime), wrapped
// as a TigerBeetle pair: every read must be the interpreter's, the ids of
// the entries included.
func TestRuntimeReadsTheHistory(t *testing.T) {
	orig, cp := counterBooks(t)
	sc := readOf(t, orig, historyScenario)
	m := tbmodel.New()
	m.FollowWallClock()
	rt := &Runtime{Client: m, Def: tigerbeetle.Def(cp), Book: cp}
	be := &TigerBeetle{Calls: rt, Raw: m, Book: cp, Pulse: m.Pulse}
	r := &pairReporter{errs: map[string][]string{}}
	stats := RunAll(r, []Job{{Where: "counter.book", Book: cp, Original: orig, Scenario: sc, Backend: be, Pair: "runtime", Tenant: "t"}})
	got := strings.Join(r.errs["runtime"], "\n")
	if strings.Contains(got, "not yet written for TigerBeetle") {
		fmt.Println("SKIP: chobotb's history reads are not written yet: the TigerBeetle pair's reads are not compared")
		t.Skip("SKIP: chobotb's history reads are not written yet")
	}
	if got != "" || stats.Reads != 8 || stats.ReadsSkipped != 0 {
		t.Errorf("%d reads compared, %d not:\n%s", stats.Reads, stats.ReadsSkipped, got)
	}
}
