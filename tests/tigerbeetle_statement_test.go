package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// TestTigerBeetleStatementIsTheInterpreters runs the scenarios of the
// history case on TigerBeetle, through the runtime every generated
// client calls, and the reference interpreter side by side; wherever a
// scenario reads a statement, the whole statement of that account read
// back from TigerBeetle (chobotb.Book.Statement) must be the
// interpreter's, entry by entry: kind, operation, move, side, changes,
// balance after, the call's key through the record's id, and on the
// model the time. The read's own filter, order and paging are the
// interpreter's alone so far. On the model every scenario runs whole,
// its passes moving the model's clock; on a real replica a pass of a few
// seconds is waited out, and a scenario stops at a longer one.
func TestTigerBeetleStatementIsTheInterpreters(t *testing.T) {
	dir := filepath.Join(casesDir, "history")
	src, err := os.ReadFile(filepath.Join(dir, "card.book"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	statementAgainstInterpreter(t, "card.book", src, data)
}

// TestTigerBeetleStatementSkipsTheMachinery is the same on a book whose
// wallet has a lower bound above 0 and an upper bound, so that every
// hold's move from it brings a probe of the bound and the probe's void
// onto the wallet, which the statement must leave out.
func TestTigerBeetleStatementSkipsTheMachinery(t *testing.T) {
	const scs = `[{"name": "probes on the wallet", "steps": [
  {"op": "top_up.do", "args": {"top_up_id": "t-1", "card": "c-1", "amount": 1000}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-1", "card": "c-1", "price": 300, "fee": 5}, "expect": "done"},
  {"op": "payment.post", "args": {"payment_id": "p-1"}, "amounts": {"price": 200, "fee": 5}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-2", "card": "c-1", "price": 100, "fee": 1}, "expect": "done"},
  {"op": "payment.void", "args": {"payment_id": "p-2"}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-9", "card": "c-1", "price": 5000, "fee": 1}, "expect": "refused: keep_a_dollar"},
  {"op": "payment.hold", "args": {"payment_id": "p-3", "card": "c-1", "price": 50, "fee": 1}, "expect": "done"},
  {"read": "statement", "account": "wallet(c-1)"},
  {"pass": "2 seconds"},
  {"op": "top_up.do", "args": {"top_up_id": "t-2", "card": "c-1", "amount": 10}, "expect": "done"},
  {"read": "statement", "account": "wallet(c-1)"},
  {"read": "statement", "account": "merchants"}
]}]`
	statementAgainstInterpreter(t, "hist.book", []byte(historyTBBook), []byte(scs))
}

// statementAgainstInterpreter runs the scenarios of data on the book src
// on TigerBeetle and in the interpreter, and compares the statements.
func statementAgainstInterpreter(t *testing.T, file string, src, data []byte) {
	res := check.Check(file, src)
	if res.Book == nil {
		t.Fatalf("%s does not check: %v", file, res.Diags)
	}
	b := res.Book
	scs, err := scenario.Read(b, data)
	if err != nil {
		t.Fatal(err)
	}
	def := tigerbeetle.Def(b)
	run := func(t *testing.T, c chobotb.Client, model *tbmodel.Model) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		compared := 0
		for n, sc := range scs {
			tenant := sc.Tenant + "-statement-" + string(rune('a'+n))
			rt := &conformance.Runtime{Client: c, Def: def}
			bk := chobotb.NewBook(c, def, tenant)
			ref := interp.New(b)
			ref.KeepHistory()
			var start uint64
			if model != nil {
				start = model.Now()
			}
			compare := func(acc interp.Account) {
				t.Helper()
				want, err := ref.Statement(acc, interp.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				// TigerBeetle's time: the model's clock, or for a replica
				// on this machine the wall clock it follows.
				now := uint64(time.Now().UnixNano())
				if model != nil {
					now = model.Now()
				}
				got, err := bk.Statement(ctx, now, kindIndexOf(t, def, acc.Kind.Name), acc.Args...)
				if err != nil {
					t.Fatalf("%s: statement of %s: %v", sc.Name, acc, err)
				}
				if len(got) != len(want.Entries) {
					t.Errorf("%s: %s: %d entries on TigerBeetle, %d in the interpreter", sc.Name, acc, len(got), len(want.Entries))
				}
				for i := range min(len(got), len(want.Entries)) {
					g, w := got[i], want.Entries[i]
					bad := func(what string, gv, wv any) {
						t.Errorf("%s: %s entry %d (%s): %s %v, the interpreter's %v", sc.Name, acc, i+1, w, what, gv, wv)
					}
					if name := def.Transfers[g.Kind].Name; name != w.Call.Transfer.Name {
						bad("kind", name, w.Call.Transfer.Name)
					}
					if g.Op != string(w.Op) || g.Move != w.Move || g.Out != w.Out {
						bad("op, move, out", []any{g.Op, g.Move, g.Out}, []any{w.Op, w.Move, w.Out})
					}
					if g.Posted != w.Posted || g.HeldOut != w.HeldOut || g.HeldIn != w.HeldIn {
						bad("changes", []int64{g.Posted, g.HeldOut, g.HeldIn}, []int64{w.Posted, w.HeldOut, w.HeldIn})
					}
					if g.After.Posted != w.After.Posted || g.After.HeldOut != w.After.HeldOut || g.After.HeldIn != w.After.HeldIn {
						bad("balance after", g.After, w.After)
					}
					if id := entryID(t, def, tenant, w); g.ID != id {
						bad("record id", g.ID.Hex(), id.Hex())
					}
					if model != nil {
						s := int64((g.Timestamp - start) / 1e9)
						switch {
						case w.Op != interp.Expire:
							if s != w.Time {
								bad("time (s)", s, w.Time)
							}
						default:
							// The one difference left: TigerBeetle's expiry is
							// at the hold's deadline, the interpreter's at the
							// end of the pass that reached it.
							deadline := holdTime(want.Entries, w) + int64(def.Transfers[g.Kind].Timeout)
							if s != deadline || w.Time < deadline {
								bad("expiry time (s)", s, []int64{deadline, w.Time})
							}
						}
					}
					compared++
				}
			}
		steps:
			for _, st := range sc.Steps {
				switch {
				case st.Call != nil:
					want, werr := ref.Apply(st.Call.Call)
					got, gerr := rt.Call(ctx, st.Call.Call, tenant)
					if (werr != nil) != (gerr != nil) || got.Outcome != want.Outcome || got.Reason != want.Reason {
						t.Fatalf("%s: %s: %v, %v on TigerBeetle; %v, %v in the interpreter", sc.Name, st.Call, got, gerr, want, werr)
					}
				case st.PassText != "":
					if model == nil && st.Pass > 5 {
						break steps // a replica's clock cannot be moved on
					}
					if _, err := ref.Pass(st.Pass); err != nil {
						t.Fatal(err)
					}
					if model != nil {
						model.Advance(time.Duration(st.Pass) * time.Second)
					} else {
						// Past the deadline and the pulse that releases it.
						time.Sleep(time.Duration(st.Pass)*time.Second + 500*time.Millisecond)
					}
				case st.Read != nil && st.Read.Kind == scenario.ReadStatement:
					compare(*st.Read.Account)
				}
			}
			// And at the end, every account the scenario named.
			for _, st := range sc.Steps {
				if st.Read != nil && st.Read.Account != nil {
					compare(*st.Read.Account)
				}
			}
		}
		if compared == 0 {
			t.Fatal("no entry was compared")
		}
		t.Logf("%d entries compared", compared)
	}
	t.Run("model", func(t *testing.T) {
		m := tbmodel.New()
		run(t, m, m)
	})
	t.Run("replica", func(t *testing.T) { run(t, replicaClient(t), nil) })
}

// holdTime is when the hold an expiry ends was made, in the interpreter.
func holdTime(entries []interp.Entry, exp interp.Entry) int64 {
	for _, e := range entries {
		if e.Op == interp.EntryOp(book.Hold) && e.Move == exp.Move && slices.Equal(e.Key, exp.Key) && e.Call.Transfer == exp.Call.Transfer {
			return e.Time
		}
	}
	return -1
}

// kindIndexOf is the index of an account kind in the definition.
func kindIndexOf(t *testing.T, def *chobotb.Def, name string) int {
	t.Helper()
	for i, a := range def.Accounts {
		if a.Name == name {
			return i
		}
	}
	t.Fatalf("no account %s", name)
	return -1
}

// entryID is the id of the record an interpreter's entry must be read
// from: its call's key, operation and the move's place in the chain.
func entryID(t *testing.T, def *chobotb.Def, tenant string, e interp.Entry) ids.ID {
	t.Helper()
	kind := e.Call.Transfer.Index
	switch e.Op {
	case interp.EntryOp(book.Hold), interp.Expire:
		moves, err := def.Lookups(tenant, kind, e.Key)
		if err != nil {
			t.Fatal(err)
		}
		return moves[e.Move-1]
	case interp.EntryOp(book.Post), interp.EntryOp(book.Void):
		var amounts []uint64
		if e.Op == interp.EntryOp(book.Post) {
			amounts = make([]uint64, len(def.Transfers[kind].Moves))
		}
		chain, err := def.Finish(tenant, kind, string(e.Op), e.Key, amounts)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range chain {
			if ev.Move == e.Move {
				return ev.Transfer.ID
			}
		}
	default:
		op := conformance.RuntimeOp(e.Call)
		p, err := def.Build(tenant, kind, "do", op.Values)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range p.Chain {
			if ev.Role == chobotb.RoleMove && ev.Move == e.Move {
				return ev.Transfer.ID
			}
		}
	}
	t.Fatalf("no record id for %s", e)
	return ids.ID{}
}
