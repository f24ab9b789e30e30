package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// TestTigerBeetleStatementIsTheInterpreters runs the scenarios of the
// history cases (English and Japanese) on TigerBeetle, through the
// runtime every generated client calls, and the reference interpreter
// side by side. Every read step is made on both and must agree: a
// statement (filter, order, limit, cursor and More included), the
// entries of a call, the open holds and a balance at a time; and at the
// end the whole statement of every account a read named. Entries are
// compared field by field: kind, operation, move, side, account, the
// account's values where TigerBeetle knows them, changes, balance after,
// the record's id against the one the interpreter's key gives, and on
// the model the time. On the model every scenario runs whole, its passes
// moving the model's clock; on a real replica a pass of a few seconds is
// waited out, and a scenario stops at a longer one.
func TestTigerBeetleStatementIsTheInterpreters(t *testing.T) {
	for _, c := range []struct{ dir, file string }{{"history", "card.book"}, {"history_ja", "カード.book"}} {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join(casesDir, c.dir)
			src, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "scenarios.json"))
			if err != nil {
				t.Fatal(err)
			}
			readsAgainstInterpreter(t, c.file, src, data)
		})
	}
}

// TestTigerBeetleStatementSkipsTheMachinery is the same on a book whose
// wallet has a lower bound above 0 and an upper bound, so that every
// hold's move from it brings a probe of the bound and the probe's void
// onto the wallet, which every read must leave out; its hold expires
// after a second, so that a replica shows every kind of entry: a page
// that ends between two entries of one call, read on while more calls
// come, newest first, a post in part, a void, an expiry, and a tenant
// that does not see another's entries.
func TestTigerBeetleStatementSkipsTheMachinery(t *testing.T) {
	const scs = `[{"name": "another tenant, the same card, a hold left open", "tenant": "other", "steps": [
  {"op": "top_up.do", "args": {"top_up_id": "t-1", "card": "c-1", "amount": 500}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-1", "card": "c-1", "price": 40, "fee": 2}, "expect": "done"},
  {"read": "statement", "account": "wallet(c-1)"},
  {"read": "holds"},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-1"}}
]},
{"name": "probes on the wallet", "steps": [
  {"op": "top_up.do", "args": {"top_up_id": "t-1", "card": "c-1", "amount": 1000}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-1", "card": "c-1", "price": 300, "fee": 5}, "expect": "done"},
  {"read": "statement", "name": "first", "account": "wallet(c-1)", "limit": 2},
  {"op": "payment.post", "args": {"payment_id": "p-1"}, "amounts": {"price": 200, "fee": 5}, "expect": "done"},
  {"read": "statement", "name": "second", "account": "wallet(c-1)", "limit": 2, "after": "first"},
  {"op": "payment.hold", "args": {"payment_id": "p-2", "card": "c-1", "price": 100, "fee": 1}, "expect": "done"},
  {"read": "statement", "account": "wallet(c-1)", "limit": 2, "after": "second"},
  {"op": "payment.void", "args": {"payment_id": "p-2"}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-9", "card": "c-1", "price": 5000, "fee": 1}, "expect": "refused: keep_a_dollar"},
  {"op": "payment.hold", "args": {"payment_id": "p-3", "card": "c-1", "price": 50, "fee": 1}, "expect": "done"},
  {"read": "statement", "name": "newest", "account": "wallet(c-1)", "order": "newest", "limit": 3},
  {"read": "statement", "account": "wallet(c-1)", "order": "newest", "limit": 3, "after": "newest"},
  {"read": "statement", "account": "wallet(c-1)", "transfers": ["top_up"]},
  {"read": "statement", "account": "merchants", "transfers": ["payment"], "order": "newest"},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-1"}},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-2"}},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-9"}},
  {"read": "entries", "transfer": "top_up", "key": {"top_up_id": "t-1"}},
  {"read": "holds", "account": "wallet(c-1)"},
  {"read": "holds", "account": "fees", "transfer": "payment"},
  {"read": "holds"},
  {"pass": "2 seconds"},
  {"op": "top_up.do", "args": {"top_up_id": "t-2", "card": "c-1", "amount": 10}, "expect": "done"},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-3"}},
  {"read": "holds", "transfer": "payment"},
  {"read": "balance", "account": "wallet(c-1)", "at": "0 seconds"},
  {"read": "balance", "account": "wallet(c-1)", "at": "2 seconds"},
  {"read": "statement", "account": "wallet(c-1)"},
  {"read": "statement", "account": "merchants"}
]}]`
	readsAgainstInterpreter(t, "hist.book", []byte(historyTBBook), []byte(scs))
}

// clockMark is the scenario's time at the start or at the end of a pass, and
// TigerBeetle's then.
type clockMark struct {
	s  int64
	ts uint64
}

// readsAgainstInterpreter runs the scenarios of data on the book src on
// TigerBeetle and in the interpreter, and compares every read.
func readsAgainstInterpreter(t *testing.T, file string, src, data []byte) {
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
		// Each run its own tenants, so that runs on one replica (and the
		// scenarios that name one tenant) do not meet.
		run := fmt.Sprintf("%x", time.Now().UnixNano())
		for n, sc := range scs {
			tenant := fmt.Sprintf("%s-%s-%d", sc.Tenant, run, n)
			rt := &conformance.Runtime{Client: c, Def: def}
			bk := chobotb.NewBook(c, def, tenant)
			ref := interp.New(b)
			ref.KeepHistory()
			now := func() uint64 {
				if model != nil {
					return model.Now()
				}
				return uint64(time.Now().UnixNano()) // a replica on this machine follows its clock
			}
			marks := []clockMark{{0, now()}}
			// tbTime is TigerBeetle's time for the scenario's second s: on
			// the model exactly s seconds after the start; on a replica
			// the first mark at or after s.
			tbTime := func(s int64) time.Time {
				if model != nil {
					return time.Unix(0, int64(marks[0].ts)+s*1e9).UTC()
				}
				for _, m := range marks {
					if m.s >= s {
						return time.Unix(0, int64(m.ts)).UTC()
					}
				}
				return time.Unix(0, int64(now())).UTC()
			}
			tbCursor, refCursor := map[int]string{}, map[int]string{}
			where := func(i int) string { return fmt.Sprintf("%s: step %d", sc.Name, i+1) }
			cmp := &entryCmp{t: t, def: def, tenant: tenant, start: marks[0].ts, model: model != nil}
			statement := func(i int, rd *scenario.ReadStep) {
				t.Helper()
				f := interp.Filter{Transfers: rd.Transfers, Order: rd.Order, Limit: rd.Limit, From: rd.From, To: rd.To}
				q := chobo.StatementQuery{Newest: rd.Order == interp.Newest, Limit: rd.Limit}
				if rd.AfterStep >= 0 {
					f.After, q.After = refCursor[rd.AfterStep], tbCursor[rd.AfterStep]
				}
				for _, tr := range rd.Transfers {
					q.Transfers = append(q.Transfers, tr.Name)
				}
				if rd.FromText != "" {
					q.From = tbTime(rd.From)
				}
				if rd.To != nil {
					q.To = tbTime(*rd.To)
				}
				want, err := ref.Statement(*rd.Account, f)
				if err != nil {
					t.Fatal(err)
				}
				if rd.FromText != "" || rd.To != nil {
					// TigerBeetle's expiry is at the hold's deadline, the
					// interpreter's at the end of the pass that reached it:
					// a window of time is held to the interpreter's entries
					// at TigerBeetle's times.
					all, err := ref.Statement(*rd.Account, interp.Filter{Transfers: rd.Transfers, Order: rd.Order})
					if err != nil {
						t.Fatal(err)
					}
					want = interp.Page{}
					for _, e := range all.Entries {
						s := cmp.seconds(all.Entries, e)
						if s >= rd.From && (rd.To == nil || s < *rd.To) {
							if rd.Limit > 0 && len(want.Entries) == rd.Limit {
								want.More = true
								break
							}
							want.Entries = append(want.Entries, e)
						}
					}
				}
				got, err := bk.Statement(ctx, kindIndexOf(t, def, rd.Account.Kind.Name), rd.Account.Args, q)
				if err != nil {
					t.Fatalf("%s: statement of %s: %v", where(i), rd.Account, err)
				}
				tbCursor[i], refCursor[i] = got.Next, want.Next
				if got.More != want.More {
					t.Errorf("%s: %s: more %v on TigerBeetle, %v in the interpreter", where(i), rd.Label(diag.English), got.More, want.More)
				}
				compared += cmp.entries(where(i)+": "+rd.Label(diag.English), got.Entries, want.Entries, history(ref, *rd.Account), false)
			}
		steps:
			for i, st := range sc.Steps {
				switch {
				case st.Call != nil:
					want, werr := ref.Apply(st.Call.Call)
					got, gerr := rt.Call(ctx, st.Call.Call, tenant)
					if (werr != nil) != (gerr != nil) || got.Outcome != want.Outcome || got.Reason != want.Reason {
						t.Fatalf("%s: %s: %v, %v on TigerBeetle; %v, %v in the interpreter", where(i), st.Call, got, gerr, want, werr)
					}
				case st.PassText != "":
					if model == nil && st.Pass > 5 {
						t.Logf("SKIP: %s: a replica's clock cannot be moved on %s; the scenario stops here", where(i), st.PassText)
						break steps
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
					marks = append(marks, clockMark{ref.Now, now()})
				case st.Read != nil:
					rd := st.Read
					switch rd.Kind {
					case scenario.ReadStatement:
						statement(i, rd)
					case scenario.ReadEntries:
						want, err := ref.CallEntries(rd.Transfer, rd.Key)
						if err != nil {
							t.Fatal(err)
						}
						key := make(chobotb.Values, len(rd.Key))
						for n, v := range rd.Key {
							key[n] = v
						}
						got, err := bk.CallEntries(ctx, rd.Transfer.Index, key)
						if err != nil {
							t.Fatalf("%s: %s: %v", where(i), rd.Label(diag.English), err)
						}
						compared += cmp.entries(where(i)+": "+rd.Label(diag.English), got, want, nil, true)
					case scenario.ReadHolds:
						account, kind := -1, -1
						var args []string
						if rd.Account != nil {
							account, args = kindIndexOf(t, def, rd.Account.Kind.Name), rd.Account.Args
						}
						if rd.Transfer != nil {
							kind = rd.Transfer.Index
						}
						got, err := bk.OpenHolds(ctx, account, args, kind)
						if err != nil {
							t.Fatalf("%s: %s: %v", where(i), rd.Label(diag.English), err)
						}
						compared += cmp.holds(where(i)+": "+rd.Label(diag.English), got, ref.OpenHolds(rd.Account, rd.Transfer), rd.Account)
					case scenario.ReadBalance:
						// The balance at the end of the second: on a replica,
						// just before the first mark past it.
						at := tbTime(rd.At).Add(time.Second - 1)
						next := int64(-1)
						if model == nil {
							at = time.Unix(0, int64(now())).UTC()
							for _, m := range marks {
								if m.s > rd.At {
									at, next = time.Unix(0, int64(m.ts)-1).UTC(), m.s
									break
								}
							}
						}
						want, err := ref.BalanceAt(*rd.Account, rd.At)
						if err != nil {
							t.Fatal(err)
						}
						entries := history(ref, *rd.Account)
						for _, e := range entries {
							d := cmp.seconds(entries, e)
							switch {
							case e.Op != interp.Expire || e.Time == d:
							case d <= rd.At && rd.At < e.Time:
								// The hold was given back at its deadline on
								// TigerBeetle, at the end of the pass in the
								// interpreter.
								want.HeldOut -= -e.HeldOut
								want.HeldIn -= -e.HeldIn
							case model == nil && d > rd.At && (next < 0 || d <= next):
								t.Logf("SKIP: %s: %s: the deadline of %s falls between that second and the next mark the run took on the replica, so the balance read there depends on when it is read",
									where(i), rd.Label(diag.English), e.CallText())
								continue steps
							}
						}
						got, err := bk.BalanceAt(ctx, kindIndexOf(t, def, rd.Account.Kind.Name), rd.Account.Args, at)
						if err != nil {
							t.Fatalf("%s: %s: %v", where(i), rd.Label(diag.English), err)
						}
						if got.Posted != want.Posted || got.HeldOut != want.HeldOut || got.HeldIn != want.HeldIn {
							t.Errorf("%s: %s: %+v on TigerBeetle, %+v in the interpreter", where(i), rd.Label(diag.English), got, want)
						}
						compared++
					}
				}
			}
			// And at the end, the whole statement of every account the
			// scenario named.
			for i, st := range sc.Steps {
				if st.Read != nil && st.Read.Account != nil {
					statement(i, &scenario.ReadStep{Kind: scenario.ReadStatement, Account: st.Read.Account, AfterStep: -1, Limit: chobo.MaxPage})
				}
			}
		}
		if compared == 0 {
			t.Fatal("nothing was compared")
		}
		t.Logf("%d entries, holds and balances compared", compared)
	}
	t.Run("model", func(t *testing.T) {
		m := tbmodel.New()
		run(t, m, m)
	})
	t.Run("replica", func(t *testing.T) { run(t, replicaClient(t), nil) })
}

// history is every entry of an account in the interpreter, oldest first.
func history(ref *interp.State, a interp.Account) []interp.Entry {
	p, err := ref.Statement(a, interp.Filter{})
	if err != nil {
		panic(err)
	}
	return p.Entries
}

// entryCmp compares what TigerBeetle reads with what the interpreter
// does.
type entryCmp struct {
	t      *testing.T
	def    *chobotb.Def
	tenant string
	start  uint64 // TigerBeetle's time at the scenario's start
	model  bool   // times are compared only on the model, whose clock the scenario moves
}

// seconds is the scenario's second of an entry on TigerBeetle: its own,
// or for an expiry its hold's deadline. entries are the account's or
// the call's, which hold the hold's entry.
func (c *entryCmp) seconds(entries []interp.Entry, e interp.Entry) int64 {
	if e.Op != interp.Expire {
		return e.Time
	}
	return holdTime(entries, e) + int64(c.def.Transfers[e.Call.Transfer.Index].Timeout)
}

// entries compares entries read from TigerBeetle with the interpreter's;
// byKey says they were read by the call's key. context holds the hold
// entries of the account or call, for the deadline of an expiry.
func (c *entryCmp) entries(what string, got []chobo.Entry, want []interp.Entry, context []interp.Entry, byKey bool) int {
	t := c.t
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d entries on TigerBeetle, %d in the interpreter", what, len(got), len(want))
	}
	if context == nil {
		context = want
	}
	n := 0
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		bad := func(field string, gv, wv any) {
			t.Errorf("%s: entry %d (%s): %s %v, the interpreter's %v", what, i+1, w, field, gv, wv)
		}
		if g.Transfer != w.Call.Transfer.Name || g.Op != string(w.Op) || g.Move != w.Move || g.Out != w.Out {
			bad("kind, op, move, out", []any{g.Transfer, g.Op, g.Move, g.Out}, []any{w.Call.Transfer.Name, w.Op, w.Move, w.Out})
		}
		if g.Account != w.Account.Kind.Name {
			bad("account", g.Account, w.Account.Kind.Name)
		}
		// The account's values are known when the call's key holds them
		// (or the account has none), and always in a statement.
		known := !byKey || len(w.Account.Args) == 0 || keyHolds(w)
		if (g.AccountArgs != nil) != known || (known && !slices.Equal(g.AccountArgs, w.Account.Args)) {
			bad("account values", g.AccountArgs, w.Account.Args)
		}
		if g.Posted != w.Posted || g.HeldOut != w.HeldOut || g.HeldIn != w.HeldIn {
			bad("changes", []int64{g.Posted, g.HeldOut, g.HeldIn}, []int64{w.Posted, w.HeldOut, w.HeldIn})
		}
		switch {
		case byKey && g.After != nil:
			bad("balance after", *g.After, "none read by key")
		case !byKey && (g.After == nil || g.After.Posted != w.After.Posted || g.After.HeldOut != w.After.HeldOut || g.After.HeldIn != w.After.HeldIn):
			bad("balance after", g.After, w.After)
		}
		if byKey != (g.Key != nil) || (byKey && !slices.Equal(g.Key, w.Key)) || g.Args != nil {
			bad("key, args", []any{g.Key, g.Args}, w.Key)
		}
		if id := entryID(t, c.def, c.tenant, w); g.ID != id.Hex() {
			bad("record id", g.ID, id.Hex())
		}
		if g.Cursor == "" {
			bad("cursor", g.Cursor, "one")
		}
		if c.model {
			if s, ws := (g.At.UnixNano()-int64(c.start))/1e9, c.seconds(context, w); s != ws {
				bad("time (s)", s, ws)
			}
		}
		n++
	}
	return n
}

// keyHolds says whether the call's key names the entry's account: every
// value of the account is a key value.
func keyHolds(e interp.Entry) bool {
	tr := e.Call.Transfer
	m := tr.Moves[e.Move-1]
	side := m.To
	if e.Out {
		side = m.From
	}
	for _, a := range side.Args {
		if !slices.ContainsFunc(tr.Key, func(k *book.Param) bool { return k.Name == a.Name }) {
			return false
		}
	}
	return true
}

// holds compares open holds read from TigerBeetle with the
// interpreter's. by is the account they were read by, or nil.
func (c *entryCmp) holds(what string, got []chobo.OpenHold, want []*interp.Hold, by *interp.Account) int {
	t := c.t
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d open holds on TigerBeetle, %d in the interpreter", what, len(got), len(want))
	}
	n := 0
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		moves, err := c.def.MoveIDs(c.tenant, w.Transfer.Index, w.Key)
		if err != nil {
			t.Fatal(err)
		}
		if g.Transfer != w.Transfer.Name || g.Key != nil || g.ID != moves[0].Hex() || len(g.Moves) != len(w.Amounts) {
			t.Errorf("%s: hold %d: %s %v %s with %d moves; the interpreter's %s (%s) with %d", what, i+1,
				g.Transfer, g.Key, g.ID, len(g.Moves), w.Name(), moves[0].Hex(), len(w.Amounts))
			continue
		}
		for m, gm := range g.Moves {
			ok := gm.Move == m+1 && gm.From == w.From[m].Kind.Name && gm.To == w.To[m].Kind.Name && gm.Amount == w.Amounts[m]
			for _, side := range []struct {
				got  []string
				want interp.Account
			}{{gm.FromArgs, w.From[m]}, {gm.ToArgs, w.To[m]}} {
				known := len(side.want.Args) == 0 || (by != nil && by.Kind == side.want.Kind && slices.Equal(by.Args, side.want.Args))
				if known != (side.got != nil) || (known && !slices.Equal(side.got, side.want.Args)) {
					ok = false
				}
			}
			if !ok {
				t.Errorf("%s: hold %s move %d: %+v", what, w.Name(), m+1, gm)
			}
		}
		if c.model {
			created := (g.Created.UnixNano() - int64(c.start)) / 1e9
			deadline := int64(-1)
			if !g.Deadline.IsZero() {
				deadline = (g.Deadline.UnixNano() - int64(c.start)) / 1e9
			}
			wantDeadline := int64(-1)
			if w.Transfer.Pending.Expires {
				wantDeadline = w.Deadline
			}
			if created != w.Created || deadline != wantDeadline {
				t.Errorf("%s: hold %s: made at %d s, deadline %d s; the interpreter's %d s, %d s", what, w.Name(), created, deadline, w.Created, wantDeadline)
			}
		}
		n++
	}
	return n
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
		moves, err := def.MoveIDs(tenant, kind, e.Key)
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

// swapBook has kinds whose moves join the same account kinds the same
// way, so that the kinds of a record's accounts do not tell its move: its
// place in its chain must.
const swapBook = `book swap v1

unit USD scale 2

account wallet(card: string) : USD
  at least 0 refused as insufficient_funds
account bank : USD outside

transfer top_up(top_up_id: string, card: string, amount: USD)
  key top_up_id
  move amount from bank to wallet(card)

transfer swap(swap_id: string, a: string, b: string, x: USD, y: USD)
  key swap_id
  pending expires after 1 second
  move x from wallet(a) to wallet(b)
  move y from wallet(b) to wallet(a)

transfer split(split_id: string, a: string, b: string, x: USD, y: USD)
  key split_id
  move x from wallet(a) to wallet(b)
  move y from wallet(a) to wallet(b)
`

// TestTigerBeetleStatementTellsMovesApart reads entries whose moves only
// their place in the chain tells apart, in every read.
func TestTigerBeetleStatementTellsMovesApart(t *testing.T) {
	const scs = `[{"name": "moves of one kind between wallets", "steps": [
  {"op": "top_up.do", "args": {"top_up_id": "t-1", "card": "c-1", "amount": 1000}, "expect": "done"},
  {"op": "top_up.do", "args": {"top_up_id": "t-2", "card": "c-2", "amount": 1000}, "expect": "done"},
  {"op": "swap.hold", "args": {"swap_id": "s-1", "a": "c-1", "b": "c-2", "x": 100, "y": 30}, "expect": "done"},
  {"op": "swap.post", "args": {"swap_id": "s-1"}, "amounts": {"x": 60, "y": 30}, "expect": "done"},
  {"op": "swap.hold", "args": {"swap_id": "s-2", "a": "c-2", "b": "c-1", "x": 5, "y": 7}, "expect": "done"},
  {"op": "swap.void", "args": {"swap_id": "s-2"}, "expect": "done"},
  {"op": "split.do", "args": {"split_id": "d-1", "a": "c-1", "b": "c-2", "x": 1, "y": 2}, "expect": "done"},
  {"op": "swap.hold", "args": {"swap_id": "s-3", "a": "c-2", "b": "c-1", "x": 9, "y": 4}, "expect": "done"},
  {"read": "holds", "account": "wallet(c-1)"},
  {"read": "holds", "transfer": "swap"},
  {"read": "statement", "name": "one", "account": "wallet(c-1)", "limit": 3},
  {"read": "statement", "account": "wallet(c-1)", "limit": 3, "after": "one"},
  {"read": "statement", "account": "wallet(c-2)", "order": "newest"},
  {"read": "entries", "transfer": "swap", "key": {"swap_id": "s-1"}},
  {"read": "entries", "transfer": "split", "key": {"split_id": "d-1"}},
  {"pass": "2 seconds"},
  {"read": "entries", "transfer": "swap", "key": {"swap_id": "s-3"}},
  {"read": "holds"},
  {"read": "balance", "account": "wallet(c-1)", "at": "2 seconds"},
  {"read": "statement", "account": "wallet(c-1)"}
]}]`
	readsAgainstInterpreter(t, "swap.book", []byte(swapBook), []byte(scs))
}
