package tests

import (
	"context"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/ids"
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
