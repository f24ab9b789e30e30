package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// What the netting of a shortfall rests on, held to a real replica and
// to the in-process model, which must answer alike. A room (or floor) R
// has debits_must_not_exceed_credits; its shortfall S has
// credits_must_not_exceed_debits and owes its debits less its credits.
// The netting event is a transfer from R to S with both balancing flags:
// each check fails if TigerBeetle clamps it, or treats it inside a chain
// or beside holds, another way.
func TestTigerBeetleNettingFacts(t *testing.T) {
	t.Run("model", func(t *testing.T) {
		m := tbmodel.New()
		nettingFacts(t, m, func(func() bool) { m.Advance(2 * time.Second) })
	})
	t.Run("replica", func(t *testing.T) {
		realTigerBeetle(t)
		srv := tbtest.Replica(t)
		nettingFacts(t, srv.Client, func(expired func() bool) {
			deadline := time.Now().Add(20 * time.Second)
			for !expired() {
				if time.Now().After(deadline) {
					t.Fatal("the hold did not expire")
				}
				time.Sleep(500 * time.Millisecond)
			}
		})
	})
}

func nettingFacts(t *testing.T, c chobotb.Client, expire func(expired func() bool)) {
	ctx := context.Background()
	const ledger, code = 11, 1
	id := func(n uint64) ids.ID { return ids.ID{13: byte(n >> 16), 14: byte(n >> 8), 15: byte(n)} }
	const sink = 1
	// Pairs (room, shortfall): 10+2k, 11+2k.
	accounts := []chobotb.Account{{ID: id(sink), Ledger: ledger, Code: code}}
	for k := uint64(0); k < 8; k++ {
		accounts = append(accounts,
			chobotb.Account{ID: id(10 + 2*k), Ledger: ledger, Code: code, Flags: chobotb.AccountDebitsMustNotExceedCredits},
			chobotb.Account{ID: id(11 + 2*k), Ledger: ledger, Code: code, Flags: chobotb.AccountCreditsMustNotExceedDebits})
	}
	if st, err := c.CreateAccounts(ctx, accounts); err != nil || len(st) != len(accounts) || st[0] != chobotb.Created {
		t.Fatal(st, err)
	}
	next := uint64(1000)
	tr := func(debit, credit uint64, amount uint64, flags uint16) chobotb.Transfer {
		next++
		return chobotb.Transfer{ID: id(next), DebitAccountID: id(debit), CreditAccountID: id(credit),
			Amount: chobotb.U64(amount), Ledger: ledger, Code: code, Flags: flags}
	}
	net := func(room uint64, cap uint64) chobotb.Transfer {
		return tr(room, room+1, cap, chobotb.TransferBalancing)
	}
	send := func(linked bool, ts ...chobotb.Transfer) []chobotb.Status {
		t.Helper()
		if linked {
			for i := range ts[:len(ts)-1] {
				ts[i].Flags |= chobotb.TransferLinked
			}
		}
		st, err := c.CreateTransfers(ctx, ts)
		if err != nil || len(st) != len(ts) {
			t.Fatal(st, err)
		}
		return st
	}
	amountOf := func(x chobotb.Transfer) uint64 {
		t.Helper()
		found, err := c.LookupTransfers(ctx, []ids.ID{x.ID})
		if err != nil || len(found) != 1 {
			t.Fatal(found, err)
		}
		return found[0].Amount.Lo
	}
	// fill puts p into a room and makes its shortfall owe e more.
	fill := func(room, p, e uint64) {
		t.Helper()
		ts := []chobotb.Transfer{}
		if p > 0 {
			ts = append(ts, tr(sink, room, p, 0))
		}
		if e > 0 {
			ts = append(ts, tr(room+1, sink, e, 0))
		}
		for i, s := range send(false, ts...) {
			if s != chobotb.Created {
				t.Fatalf("fill %d: event %d: %v", room, i, s)
			}
		}
	}
	created := func(what string, x chobotb.Transfer, st chobotb.Status, want uint64) {
		t.Helper()
		if st != chobotb.Created {
			t.Fatalf("%s: %v", what, st)
		}
		if got := amountOf(x); got != want {
			t.Fatalf("%s: the netting moved %d, want %d", what, got, want)
		}
	}
	one := func(x chobotb.Transfer) chobotb.Status { t.Helper(); return send(false, x)[0] }

	// 1. Cut to what the room has, then to what the shortfall owes, then
	// to the amount given, whichever is least.
	fill(10, 3, 5)
	x := net(10, 100)
	created("the room has less", x, one(x), 3)
	fill(12, 10, 5)
	x = net(12, 100)
	created("the shortfall owes less", x, one(x), 5)
	fill(14, 10, 5)
	x = net(14, 2)
	created("the amount is least", x, one(x), 2)

	// 2. Nothing to net (an empty room, or nothing owed) is no error: the
	// transfer is made with amount 0.
	x = net(10, 100)
	created("an empty room", x, one(x), 0)
	x = net(12, 100)
	created("nothing owed", x, one(x), 0)

	// 3. Sent again with the same id and fields, a netting that was cut
	// is exists; with an amount below the one it moved, another amount.
	if st := one(x); st != chobotb.Exists {
		t.Fatalf("a netting sent again: %v", st)
	}
	first := net(14, 100) // the room has 8 left, the shortfall owes 3
	created("before sending again", first, one(first), 3)
	if st := one(first); st != chobotb.Exists {
		t.Fatalf("a cut netting sent again: %v", st)
	}
	lower := first
	lower.Amount = chobotb.U64(2)
	if st := one(lower); st != chobotb.ExistsWithDifferentAmount {
		t.Fatalf("a cut netting sent again with less: %v", st)
	}

	// 4. In a linked chain, the netting sees what earlier events of the
	// chain put into the room, and the room_take after it sees what the
	// netting took. The amount chobo gives is 2^64 (chobotb.Unbounded),
	// above any shortfall a balance of 64 bits can leave.
	fill(16, 0, 4)
	in, x, take := tr(sink, 16, 6, 0), net(16, 0), tr(16, sink, 2, 0)
	x.Amount = chobotb.Unbounded
	st := send(true, in, x, take)
	if st[0] != chobotb.Created || st[2] != chobotb.Created {
		t.Fatalf("a chain: %v", st)
	}
	created("in a chain", x, st[1], 4)
	// And a room_take the netting leaves short is refused, the whole
	// chain with it.
	fill(16, 0, 3)
	in, x, take = tr(sink, 16, 1, 0), net(16, 0), tr(16, sink, 2, 0)
	x.Amount = chobotb.Unbounded
	st = send(true, in, x, take)
	if st[2] != chobotb.ExceedsCredits || st[0] != chobotb.LinkedEventFailed || st[1] != chobotb.LinkedEventFailed {
		t.Fatalf("a chain refused by its room_take: %v", st)
	}

	// 5. Holds on the room: a pending debit (a hold into the account)
	// keeps what it holds from the netting; a pending credit (a hold out
	// of it) gives the netting nothing until it is posted.
	fill(18, 5, 9)
	held := tr(18, sink, 3, chobotb.TransferPending)
	if s := one(held); s != chobotb.Created {
		t.Fatal(s)
	}
	x = net(18, 100)
	created("a pending debit on the room", x, one(x), 2)
	fill(20, 0, 9)
	out := tr(sink, 20, 4, chobotb.TransferPending)
	if s := one(out); s != chobotb.Created {
		t.Fatal(s)
	}
	x = net(20, 100)
	created("a pending credit on the room", x, one(x), 0)
	post := chobotb.Transfer{ID: id(5000), PendingID: out.ID, Amount: chobotb.U64(3), Flags: chobotb.TransferPostPending}
	if s := one(post); s != chobotb.Created {
		t.Fatal(s)
	}
	x = net(20, 100)
	created("the pending credit posted in part", x, one(x), 3)
	// A void of the pending debit gives the netting what it held.
	void := chobotb.Transfer{ID: id(5001), PendingID: held.ID, Flags: chobotb.TransferVoidPending}
	if s := one(void); s != chobotb.Created {
		t.Fatal(s)
	}
	x = net(18, 100)
	created("the pending debit voided", x, one(x), 3)

	// 6. A pending debit that expires gives the netting what it held, as
	// a void does: no chain runs at the expiry, so only a netting at the
	// next take sees it.
	fill(22, 4, 9)
	expiring := tr(22, sink, 4, chobotb.TransferPending)
	expiring.Timeout = 1
	if s := one(expiring); s != chobotb.Created {
		t.Fatal(s)
	}
	x = net(22, 100)
	created("before the expiry", x, one(x), 0)
	expire(func() bool {
		found, err := c.LookupAccounts(ctx, []ids.ID{id(22)})
		if err != nil || len(found) != 1 {
			t.Fatal(found, err)
		}
		return found[0].DebitsPending.IsZero()
	})
	x = net(22, 100)
	created("after the expiry", x, one(x), 4)

	// 7. A pending netting is cut the same way (chobo sends none: a
	// hold's chain nets with a posted transfer, which no void takes
	// back).
	fill(24, 2, 9)
	x = net(24, 100)
	x.Flags |= chobotb.TransferPending
	created("a pending netting", x, one(x), 2)
}

const purseBook = `book purse v%d

unit pt

account purse(member: string) : pt
  at least %s refused as over_limit
  at most %s refused as purse_full
account bank : pt outside

transfer pay(id: string, member: string, amount: pt)
  key id
  move amount from bank to purse(member)

transfer spend(id: string, member: string, amount: pt)
  key id
  move amount from purse(member) to bank

transfer reserve(id: string, member: string, amount: pt)
  key id
  pending expires after 10 minutes
  move amount from bank to purse(member)

transfer withhold(id: string, member: string, amount: pt)
  key id
  pending expires after 10 minutes
  move amount from purse(member) to bank
`

func purseVersion(t *testing.T, version int, lower, upper string) (*book.Book, *chobotb.Def) {
	t.Helper()
	text := fmt.Sprintf(purseBook, version, lower, upper)
	res := check.Errors("purse.book", []byte(text))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	return res.Book, tigerbeetle.Def(res.Book)
}

// TestTigerBeetleOutsideAnswersAsTheInterpreter narrows the room and the
// floor of a kind past where two accounts stand, with holds open into and
// out of both, and sends the same calls to the interpreter (deployed to
// the new version) and to TigerBeetle (migrated), on the model and on a
// real replica: call by call they answer alike. Further out is refused
// with the bound's reason, back is done while still outside, and once
// inside the bound holds; the holds made before are posted and voided.
func TestTigerBeetleOutsideAnswersAsTheInterpreter(t *testing.T) {
	t.Run("model", func(t *testing.T) { outsideAnswers(t, tbmodel.New()) })
	t.Run("replica", func(t *testing.T) {
		realTigerBeetle(t)
		srv := tbtest.Replica(t)
		c, ok := srv.Client.(chobotb.MigrateClient)
		if !ok {
			t.Fatalf("%T cannot query accounts", srv.Client)
		}
		outsideAnswers(t, c)
	})
}

func outsideAnswers(t *testing.T, c chobotb.MigrateClient) {
	ctx := context.Background()
	b1, d1 := purseVersion(t, 1, "-5", "10")
	b2, d2 := purseVersion(t, 2, "-2", "5")
	st, cur := interp.New(b1), b1
	st.KeepHistory()
	tbBook := chobotb.NewBook(c, d1, "")
	kinds := map[string]int{}
	for i, tr := range d1.Transfers {
		kinds[tr.Name] = i
	}
	step := 0
	call := func(op, kind, id, member string, n int64, want string) {
		t.Helper()
		step++
		k := kinds[kind]
		ic := interp.Call{Transfer: cur.Transfers[k], Op: book.Op(op), Strings: map[string]string{"id": id}}
		var got chobo.Result
		var err error
		switch op {
		case "do", "hold":
			ic.Strings["member"] = member
			ic.Amounts = map[string]int64{"amount": n}
			got, err = tbBook.Call(ctx, k, op, chobotb.Values{id, member, n})
		case "post":
			got, err = tbBook.Post(ctx, k, chobotb.Values{id}, nil)
		case "void":
			got, err = tbBook.Void(ctx, k, chobotb.Values{id})
		}
		if err != nil {
			t.Fatalf("step %d, %s.%s(%s): %v", step, kind, op, id, err)
		}
		ir, ierr := st.Apply(ic)
		if ierr != nil {
			t.Fatalf("step %d, %s.%s(%s): the interpreter: %v", step, kind, op, id, ierr)
		}
		is := ir.Outcome.String()
		if ir.Reason != "" {
			is += "(" + ir.Reason + ")"
		}
		if got.String() != is || is != want {
			t.Fatalf("step %d, %s.%s(%s, %s, %d): TigerBeetle %s, the interpreter %s, want %s", step, kind, op, id, member, n, got, is, want)
		}
	}
	balances := func() {
		t.Helper()
		for _, m := range []string{"hi", "lo"} {
			got, err := tbBook.Balance(ctx, 0, m)
			if err != nil {
				t.Fatal(err)
			}
			want := st.Balance(interp.Account{Kind: cur.Accounts[0], Args: []string{m}})
			if got.Posted != want.Posted || got.HeldIn != want.HeldIn || got.HeldOut != want.HeldOut {
				t.Fatalf("after step %d, purse(%s): TigerBeetle %+v, the interpreter %+v", step, m, got, want)
			}
		}
	}
	// Under [-5, 10]: hi at 9 with 1 held in and 2 held out, lo at -4 with
	// 1 held out and 2 held in.
	call("do", "pay", "p1", "hi", 9, "done")
	call("hold", "reserve", "r1", "hi", 1, "done")
	call("hold", "withhold", "w1", "hi", 2, "done")
	call("do", "spend", "s1", "lo", 4, "done")
	call("hold", "withhold", "w2", "lo", 1, "done")
	call("hold", "reserve", "r2", "lo", 2, "done")
	balances()

	// Narrowed to [-2, 5]: hi reaches 10 (5 outside), lo -5 (3 outside).
	r, err := chobotb.Migrate(ctx, c, d2, chobotb.MigrateOptions{Version: 2})
	if err != nil {
		t.Fatalf("Migrate: %v (%+v)", err, r)
	}
	if len(r.Left) != 0 || len(r.Outside) != 2 || r.Outside[0].Reach != "10" || r.Outside[1].Reach != "-5" {
		t.Fatalf("%+v", r)
	}
	if again, err := chobotb.Migrate(ctx, c, d2, chobotb.MigrateOptions{Version: 2}); err != nil || again.Changed != 0 || len(again.Outside) != 0 {
		t.Fatalf("a second run: %+v, %v", again, err)
	}
	st.Deploy(b2)
	cur = b2
	tbBook = chobotb.NewBook(c, d2, "")

	// The room: further out refused, back done while outside, held once inside.
	call("do", "pay", "a1", "hi", 1, "refused(purse_full)")
	call("hold", "reserve", "a2", "hi", 1, "refused(purse_full)")
	call("do", "spend", "a3", "hi", 2, "done")
	call("do", "pay", "a4", "hi", 1, "refused(purse_full)")
	call("void", "reserve", "r1", "", 0, "done")
	call("do", "pay", "a5", "hi", 1, "refused(purse_full)")
	call("post", "withhold", "w1", "", 0, "done")
	balances()
	call("do", "pay", "a6", "hi", 1, "refused(purse_full)")
	call("do", "spend", "a7", "hi", 1, "done")
	call("hold", "reserve", "a8", "hi", 1, "done")
	call("do", "pay", "a9", "hi", 1, "refused(purse_full)")
	call("void", "reserve", "a8", "", 0, "done")
	call("do", "pay", "a10", "hi", 1, "done")
	call("do", "pay", "a10", "hi", 1, "done_before")
	call("do", "pay", "a11", "hi", 1, "refused(purse_full)")
	balances()

	// The floor, mirrored.
	call("do", "spend", "b1", "lo", 1, "refused(over_limit)")
	call("hold", "withhold", "b2", "lo", 1, "refused(over_limit)")
	call("do", "pay", "b3", "lo", 1, "done")
	call("do", "spend", "b4", "lo", 1, "refused(over_limit)")
	call("void", "withhold", "w2", "", 0, "done")
	call("do", "spend", "b5", "lo", 1, "refused(over_limit)")
	call("post", "reserve", "r2", "", 0, "done")
	balances()
	call("hold", "withhold", "b6", "lo", 1, "done")
	call("do", "spend", "b7", "lo", 1, "refused(over_limit)")
	call("post", "withhold", "b6", "", 0, "done")
	call("do", "spend", "b8", "lo", 1, "refused(over_limit)")
	call("do", "pay", "b9", "lo", 3, "done")
	call("do", "spend", "b10", "lo", 3, "done")
	call("do", "spend", "b11", "lo", 1, "refused(over_limit)")
	balances()

	// The statements: the same entries, with the same balances after
	// each; the nettings, which never name the account, are none of them.
	for _, m := range []string{"hi", "lo"} {
		got, err := tbBook.Statement(ctx, 0, []string{m}, chobo.StatementQuery{Limit: chobo.MaxPage})
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.Statement(interp.Account{Kind: cur.Accounts[0], Args: []string{m}}, interp.Filter{Limit: chobo.MaxPage})
		if err != nil {
			t.Fatal(err)
		}
		var g, w []string
		for _, e := range got.Entries {
			g = append(g, fmt.Sprintf("%s.%s %d/%d/%d → %d", e.Transfer, e.Op, e.Posted, e.HeldIn, e.HeldOut, e.After.Posted))
		}
		for _, e := range want.Entries {
			w = append(w, fmt.Sprintf("%s.%s %d/%d/%d → %d", e.Call.Transfer.Name, e.Op, e.Posted, e.HeldIn, e.HeldOut, e.After.Posted))
		}
		if len(w) < 10 || fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("purse(%s):\nTigerBeetle     %v\nthe interpreter %v", m, g, w)
		}
	}

	// Inside both now: a run of the same version finds nothing to move.
	if again, err := chobotb.Migrate(ctx, c, d2, chobotb.MigrateOptions{Version: 2}); err != nil || again.Changed != 0 || len(again.Outside) != 0 {
		t.Fatalf("a run once inside: %+v, %v", again, err)
	}
}
