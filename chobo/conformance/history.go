package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// The read steps of a scenario read the ledger's history through the
// client under test, and what they read is compared with what the
// interpreter reads at the same step. The two clocks differ: the
// interpreter counts the scenario's seconds, and a backend dates entries
// with its wall clock, on the test copy, whose passes are a few seconds.
// So the run notes its wall clock at the end of every pass (a Mark, in
// the scenario's time as written), and times are compared through the
// marks: an entry written between the mark of t and the next mark is at
// t, where the interpreter puts every call made after the pass that
// brought it to t. The interpreter dates an expiry at the end of the
// pass that reached the hold's deadline; a backend somewhere between the
// deadline and the end of the pass's own expire: TigerBeetle at the
// deadline, PostgreSQL when an expire() gave the hold back, which may be
// that of another scenario run at the same time, on another tenant. So
// an expiry is at the first pass whose giving back ended at or after it.
// A read's times go to marks too, but the mark of a pass that gives
// holds back may come after some of them were given back: there a time
// goes to the pass's split instead, the earliest a hold it reaches can
// have expired (when its call went out, plus its lifetime), which the
// calls before the pass all come well before (or the run is late, see
// checkLate).

// HistoryReader is a backend that reads the ledger's history: it sends
// a read request of the driver protocol (statement, entries, holds or
// balance_at) and gives back the answer as the driver wrote it. The
// error is for a read that could not be made at all (a broken driver);
// a read that failed is an answer with Error set.
type HistoryReader interface {
	ReadHistory(ctx context.Context, req protocol.Request) (protocol.Response, error)
}

// errNoReader is the answer of a backend that cannot read the history.
var errNoReader = errors.New("the backend reads no history")

// ReadHistory implements HistoryReader: the request goes to the driver
// as it is, and the answer comes back as it was written; the comparison
// with the interpreter's read says what is missing from it.
func (p *Process) ReadHistory(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	return p.ask(ctx, req)
}

// ReadHistory implements HistoryReader through the client under test.
func (t *TigerBeetle) ReadHistory(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	r, ok := t.Calls.(HistoryReader)
	if !ok {
		return protocol.Response{}, errNoReader
	}
	return r.ReadHistory(ctx, req)
}

// Mark is the wall clock of a run at the end of a pass: T is the
// scenario's time the pass brought, in the seconds of the book as
// written, Step the pass's step (-1 for the start of the run, at 0), At
// when its wait was over, before the backend was asked to give holds
// back, and Done when that was over. Split, when not zero, is the
// earliest a hold the pass reached can have expired on the backend.
type Mark struct {
	T               int64
	At, Done, Split time.Time
	Step            int
}

// bound is the instant a read's time that goes to the mark is sent as:
// the split when the pass has one, else the mark.
func (k Mark) bound() time.Time {
	if !k.Split.IsZero() && k.Split.Before(k.At) {
		return k.Split
	}
	return k.At
}

// Marks are the marks of one run, in order.
type Marks []Mark

// Written is the scenario time of an entry a backend wrote at at: that
// of the last mark at or before it.
func (m Marks) Written(at time.Time) int64 {
	var t int64
	for _, k := range m {
		if !at.Before(k.At) {
			t = k.T
		}
	}
	return t
}

// Reached is the scenario time of an instant the run waits for, such as
// a hold's deadline on TigerBeetle: that of the first mark at or after
// it; ok is false when no mark is.
func (m Marks) Reached(at time.Time) (int64, bool) {
	for _, k := range m {
		if !k.At.Before(at) {
			return k.T, true
		}
	}
	return 0, false
}

// Expired is the scenario time of an expiry a backend dated at: that
// of the first pass whose giving back of holds ended at or after it; ok
// is false when none did.
func (m Marks) Expired(at time.Time) (int64, bool) {
	for _, k := range m {
		if !k.Done.IsZero() && !k.Done.Before(at) {
			return k.T, true
		}
	}
	return 0, false
}

// first is the index of the first mark at t or past it (past: strictly
// past t), -1 when none is yet.
func (m Marks) first(t int64, past bool) int {
	for i, k := range m {
		if k.T > t || (!past && k.T == t) {
			return i
		}
	}
	return -1
}

// firstAt is the first scenario time among the marks at or after t, for
// the interpreter's side of a deadline; ok is false when no mark is.
func (m Marks) firstAt(t int64) (int64, bool) {
	if i := m.first(t, false); i >= 0 {
		return m[i].T, true
	}
	return 0, false
}

// ReadAnswer is what the run read at a read step.
type ReadAnswer struct {
	Request  protocol.Request
	Response protocol.Response
	// Err is why the read was not answered: the backend reads no
	// history, or the statement it continues was not answered.
	Err error
}

// readRequest writes a read step as the protocol sends it, its times
// mapped through the marks so far; now is the time of the read. A
// statement that continues another takes the cursor that one was
// answered.
func readRequest(rd *scenario.ReadStep, tenant string, marks Marks, now time.Time, earlier map[int]*ReadAnswer) (protocol.Request, error) {
	req := protocol.Request{Op: readOp(rd.Kind), Tenant: tenant}
	account := func() {
		if rd.Account == nil {
			return
		}
		req.Account = rd.Account.Kind.Name
		req.Args = map[string]string{}
		for i, p := range rd.Account.Kind.Params {
			req.Args[p] = rd.Account.Args[i]
		}
	}
	// at is the wall time a scenario time maps to: the first mark at t
	// or past it, or now when no pass has brought the scenario there.
	at := func(t int64, past bool) time.Time {
		if i := marks.first(t, past); i >= 0 {
			return marks[i].bound()
		}
		return now
	}
	switch rd.Kind {
	case scenario.ReadStatement:
		account()
		for _, t := range rd.Transfers {
			req.Transfers = append(req.Transfers, t.Name)
		}
		if rd.From > 0 {
			req.From = at(rd.From, false).UTC().Format(protocol.TimeFormat)
		}
		if rd.To != nil && marks.first(*rd.To, false) >= 0 {
			req.To = at(*rd.To, false).UTC().Format(protocol.TimeFormat)
		}
		req.Newest = rd.Order == interp.Newest
		// The interpreter's page is unbounded without a limit; a
		// client's is 100 then. The largest page a client takes reads
		// what the interpreter reads, up to that many entries.
		req.Limit = rd.Limit
		if req.Limit == 0 {
			req.Limit = chobo.MaxPage
		}
		if rd.AfterStep >= 0 {
			prev := earlier[rd.AfterStep]
			if prev == nil || prev.Err != nil || prev.Response.Error != "" {
				return req, fmt.Errorf("the statement of step %d it continues was not answered", rd.AfterStep+1)
			}
			req.After = prev.Response.Next
		}
	case scenario.ReadEntries:
		req.Transfer = rd.Transfer.Name
		req.Args = map[string]string{}
		for i, p := range rd.Transfer.Key {
			req.Args[p.Name] = rd.Key[i]
		}
	case scenario.ReadHolds:
		account()
		if rd.Transfer != nil {
			req.Transfer = rd.Transfer.Name
		}
	case scenario.ReadBalance:
		account()
		// Just before the first mark past the time: after every entry
		// at that time or before it. Times go to PostgreSQL in
		// microseconds, and marks are kept to the microsecond.
		req.At = at(rd.At, true).Add(-time.Microsecond).UTC().Format(protocol.TimeFormat)
	}
	return req, nil
}

func readOp(kind string) string {
	if kind == scenario.ReadBalance {
		return protocol.BalanceAt
	}
	return kind // statement, entries and holds are named alike
}

// readCheck compares the reads of one run with the interpreter's.
type readCheck struct {
	marks Marks
	// def, when set, is the TigerBeetle definition of the test copy, by
	// which an entry's id is checked against the call that wrote it.
	def    *chobotb.Def
	tenant string
}

// compare writes the interpreter's read and the backend's as lines,
// which must be equal; skip, when not empty, says why this read is not
// compared.
func (c readCheck) compare(rd *scenario.ReadStep, ref *scenario.ReadResult, ans *ReadAnswer) (got, want []string, skip string) {
	if ref.Failed != "" {
		return nil, nil, "the interpreter's read fails: " + ref.Failed
	}
	if ans == nil {
		return nil, nil, "the run stopped before it"
	}
	if errors.Is(ans.Err, errNoReader) {
		return nil, nil, ans.Err.Error()
	}
	res := ans.Response
	switch {
	case ans.Err != nil:
		got = []string{"not read: " + ans.Err.Error()}
	case res.Error != "":
		got = []string{fmt.Sprintf("%s answered an error: %s", ans.Request.Op, res.Error)}
	}
	switch rd.Kind {
	case scenario.ReadStatement, scenario.ReadEntries:
		var gotEntries []protocol.Entry
		if got == nil {
			if res.Entries == nil {
				got = []string{fmt.Sprintf(`the answer to %s has no "entries"`, ans.Request.Op)}
			} else {
				gotEntries = *res.Entries
			}
		}
		for i, e := range ref.Entries {
			var shape *protocol.Entry
			if i < len(gotEntries) {
				shape = &gotEntries[i]
			}
			want = append(want, c.wantEntry(e, shape, rd.Kind == scenario.ReadStatement))
		}
		if got == nil {
			got = []string{}
			for _, e := range gotEntries {
				got = append(got, c.gotEntry(e))
			}
		}
		if rd.Kind == scenario.ReadStatement {
			want = append(want, fmt.Sprintf("more %v", ref.More))
			if ans.Err == nil && res.Error == "" {
				got = append(got, fmt.Sprintf("more %v", res.More))
			}
		}
	case scenario.ReadHolds:
		var gotHolds []protocol.Hold
		if got == nil {
			if res.Holds == nil {
				got = []string{`the answer to holds has no "holds"`}
			} else {
				gotHolds = *res.Holds
			}
		}
		want = []string{}
		for i, h := range ref.Holds {
			var shape *protocol.Hold
			if i < len(gotHolds) {
				shape = &gotHolds[i]
			}
			want = append(want, c.wantHold(h, shape))
		}
		if got == nil {
			got = []string{}
			for _, h := range gotHolds {
				got = append(got, c.gotHold(h))
			}
		}
	case scenario.ReadBalance:
		want = []string{balanceText(ref.Balance.Posted, ref.Balance.HeldIn, ref.Balance.HeldOut)}
		if got == nil {
			got = []string{amountsText(protocol.Amounts{Posted: res.Posted, HeldIn: res.HeldIn, HeldOut: res.HeldOut})}
		}
	}
	return got, want, ""
}

// entryLine is how both sides of an entry are written. key and args are
// left out (nil) where the backend gives none, and so are id and after.
func entryLine(account string, t string, transfer, op string, key []string, args map[string]string, id string,
	move int, out bool, posted, heldOut, heldIn string, after string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s: %s %s", account, t, transfer, op)
	if key != nil {
		fmt.Fprintf(&b, " key (%s)", strings.Join(key, ", "))
	}
	if args != nil {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(args)) {
			kv = append(kv, k+": "+args[k])
		}
		fmt.Fprintf(&b, " args (%s)", strings.Join(kv, ", "))
	}
	if id != "" {
		fmt.Fprintf(&b, " id %s", id)
	}
	side := "in"
	if out {
		side = "out"
	}
	fmt.Fprintf(&b, " move %d %s; posted %s, held out %s, held in %s", move, side, posted, heldOut, heldIn)
	if after != "" {
		fmt.Fprintf(&b, " -> %s", after)
	}
	return b.String()
}

func balanceText(posted, heldIn, heldOut int64) string {
	return fmt.Sprintf("posted %d, held in %d, held out %d", posted, heldIn, heldOut)
}

func amountsText(a protocol.Amounts) string {
	return fmt.Sprintf("posted %s, held in %s, held out %s", a.Posted, a.HeldIn, a.HeldOut)
}

func secs(t int64) string { return fmt.Sprintf("%ds", t) }

// gotEntry writes an entry the backend read, its time mapped to the
// scenario's.
func (c readCheck) gotEntry(e protocol.Entry) string {
	after := ""
	if e.After != nil {
		after = amountsText(*e.After)
	}
	return entryLine(accountText(e.Account, e.AccountArgs, e.AccountArgs != nil), c.gotTime(e.At, e.Op == string(interp.Expire)), e.Transfer, e.Op,
		e.Key, e.Args, e.ID, e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, after)
}

// gotTime maps a time the backend wrote to the scenario's.
func (c readCheck) gotTime(text string, expiry bool) string {
	at, err := time.Parse(protocol.TimeFormat, text)
	if err != nil {
		return fmt.Sprintf("%q (not a time)", text)
	}
	if expiry {
		t, ok := c.marks.Expired(at)
		if !ok {
			return "past the run's last expire"
		}
		return secs(t)
	}
	return secs(c.marks.Written(at))
}

// accountText writes an account; known is false where the backend did
// not give its values (null): TigerBeetle, reading the entries of a
// call, knows only those the key holds.
func accountText(kind string, args []string, known bool) string {
	if !known {
		return kind + "(values not given)"
	}
	return Name(kind, args)
}

// wantEntry writes an interpreter's entry as the backend should give it:
// with the key, the arguments, the account's values, an id and the
// balance after where the backend's entry at the same place (shape) has
// them, and in a statement always with the balance after for an account
// with bounds.
func (c readCheck) wantEntry(e interp.Entry, shape *protocol.Entry, statement bool) string {
	var key []string
	var args map[string]string
	id, after := "", ""
	full := shape == nil
	if full || shape.Key != nil {
		key = slices.Clone(e.Key)
		if key == nil {
			key = []string{}
		}
	}
	if full || shape.Args != nil {
		args = map[string]string{}
		maps.Copy(args, e.Call.Strings)
		for k, v := range e.Call.Amounts {
			args[k] = protocol.FormatAmount(v)
		}
	}
	if c.def != nil && (full || shape.ID != "") {
		id = c.entryID(e)
	}
	if k := e.Account.Kind; (statement && (k.Lower != nil || k.Upper != nil)) || full || shape.After != nil {
		after = balanceText(e.After.Posted, e.After.HeldIn, e.After.HeldOut)
	}
	return entryLine(accountText(e.Account.Kind.Name, e.Account.Args, full || shape.AccountArgs != nil), secs(e.Time), e.Call.Transfer.Name, string(e.Op),
		key, args, id, e.Move, e.Out, protocol.FormatAmount(e.Posted), protocol.FormatAmount(e.HeldOut), protocol.FormatAmount(e.HeldIn), after)
}

// entryID is the id of the TigerBeetle record an entry is read from: a
// move of the do or hold chain of its call, the post or void of that
// move, or, for an expiry, the hold's move that expired.
func (c readCheck) entryID(e interp.Entry) string {
	t := e.Call.Transfer
	kind := transferIndex(c.def, t.Name)
	if kind < 0 {
		return "(no such transfer kind on TigerBeetle)"
	}
	var events []chobotb.Event
	var err error
	switch e.Op {
	case interp.EntryOp(book.Do), interp.EntryOp(book.Hold):
		var vals chobotb.Values
		for _, p := range t.Params {
			if p.IsAmount() {
				vals = append(vals, e.Call.Amounts[p.Name])
			} else {
				vals = append(vals, e.Call.Strings[p.Name])
			}
		}
		var plan *chobotb.Plan
		if plan, err = c.def.Build(c.tenant, kind, string(e.Op), vals); err == nil {
			for _, ev := range plan.Chain {
				if ev.Role == chobotb.RoleMove {
					events = append(events, ev)
				}
			}
		}
	case interp.EntryOp(book.Post), interp.EntryOp(book.Void):
		var amounts []uint64
		if e.Op == interp.EntryOp(book.Post) {
			amounts = make([]uint64, len(t.Moves))
		}
		events, err = c.def.Finish(c.tenant, kind, string(e.Op), e.Key, amounts)
	case interp.Expire:
		var lookups []ids.ID
		if lookups, err = c.def.MoveIDs(c.tenant, kind, e.Key); err == nil {
			if e.Move >= 1 && e.Move <= len(lookups) {
				return lookups[e.Move-1].Hex()
			}
		}
	}
	if err != nil {
		return "(" + err.Error() + ")"
	}
	for _, ev := range events {
		if ev.Move == e.Move {
			return ev.ID.Hex()
		}
	}
	return fmt.Sprintf("(no record of move %d)", e.Move)
}

func transferIndex(d *chobotb.Def, name string) int {
	for i, t := range d.Transfers {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// holdLine is how both sides of an open hold are written.
func holdLine(transfer string, key []string, id, created, deadline string, moves []string) string {
	var b strings.Builder
	b.WriteString(transfer)
	if key != nil {
		fmt.Fprintf(&b, " key (%s)", strings.Join(key, ", "))
	}
	if id != "" {
		fmt.Fprintf(&b, " id %s", id)
	}
	fmt.Fprintf(&b, " held at %s, %s: %s", created, deadline, strings.Join(moves, "; "))
	return b.String()
}

func moveText(n int, amount, from, to string) string {
	return fmt.Sprintf("move %d %s from %s to %s", n, amount, from, to)
}

// gotHold writes an open hold the backend read. Its deadline is in the
// test copy's time, which only the marks relate to the book's: it is
// the first mark at or after it, as the pass that reaches it gives the
// hold back.
func (c readCheck) gotHold(h protocol.Hold) string {
	var moves []string
	for _, m := range h.Moves {
		moves = append(moves, moveText(m.Move, m.Amount, accountText(m.From, m.FromArgs, m.FromArgs != nil), accountText(m.To, m.ToArgs, m.ToArgs != nil)))
	}
	deadline := "never expires"
	if h.Deadline != "" {
		at, err := time.Parse(protocol.TimeFormat, h.Deadline)
		switch t, ok := c.marks.Reached(at); {
		case err != nil:
			deadline = fmt.Sprintf("expires at %q (not a time)", h.Deadline)
		case ok:
			deadline = "expires at " + secs(t)
		default:
			deadline = "expires past the run's end"
		}
	}
	return holdLine(h.Transfer, h.Key, h.ID, c.gotTime(h.Created, false), deadline, moves)
}

// wantHold writes an interpreter's open hold as the backend should give
// it, its key and id as the backend's hold at the same place has them.
func (c readCheck) wantHold(h *interp.Hold, shape *protocol.Hold) string {
	var moves []string
	for i, a := range h.Amounts {
		from, to := true, true // the values given, as the backend's move at the same place has them
		if shape != nil && i < len(shape.Moves) {
			from, to = shape.Moves[i].FromArgs != nil, shape.Moves[i].ToArgs != nil
		}
		moves = append(moves, moveText(i+1, protocol.FormatAmount(a), accountText(h.From[i].Kind.Name, h.From[i].Args, from),
			accountText(h.To[i].Kind.Name, h.To[i].Args, to)))
	}
	deadline := "never expires"
	if h.Transfer.Pending.Expires {
		if t, ok := c.marks.firstAt(h.Deadline); ok {
			deadline = "expires at " + secs(t)
		} else {
			deadline = "expires past the run's end"
		}
	}
	var key []string
	if shape == nil || shape.Key != nil {
		key = slices.Clone(h.Key)
	}
	id := ""
	if c.def != nil && (shape == nil || shape.ID != "") {
		if kind := transferIndex(c.def, h.Transfer.Name); kind >= 0 {
			if l, err := c.def.MoveIDs(c.tenant, kind, h.Key); err == nil && len(l) > 0 {
				id = l[0].Hex()
			}
		}
	}
	return holdLine(h.Transfer.Name, key, id, secs(h.Created), deadline, moves)
}

// readFailure writes a read whose answer differs from the interpreter's.
func readFailure(step int, rd *scenario.ReadStep, pair string, got, want []string) string {
	return fmt.Sprintf("step %d, %s: differs from the interpreter:\n got (%s):\n  %s\n want:\n  %s", step+1,
		rd.Label(diag.English), pair, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
}
