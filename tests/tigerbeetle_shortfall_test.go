package tests

import (
	"testing"
	"time"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
)

// What the netting of a shortfall rests on, held to a real replica. A
// room (or floor) R has debits_must_not_exceed_credits; its shortfall S
// has credits_must_not_exceed_debits and owes its debits less its
// credits. The netting event is a transfer from R to S with both
// balancing flags: each check below fails if TigerBeetle clamps it, or
// treats it inside a chain, another way.
func TestTigerBeetleNettingFacts(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	c := srv.Raw()
	const ledger, code = 11, 1
	id := func(n uint64) tb.Uint128 { return tb.ToUint128(n) }
	roomFlags := tb.AccountFlags{DebitsMustNotExceedCredits: true}.ToUint16()
	shortFlags := tb.AccountFlags{CreditsMustNotExceedDebits: true}.ToUint16()
	const sink = 1
	// Pairs (room, shortfall): 10+2k, 11+2k.
	accounts := []tb.Account{{ID: id(sink), Ledger: ledger, Code: code}}
	for k := uint64(0); k < 8; k++ {
		accounts = append(accounts, tb.Account{ID: id(10 + 2*k), Ledger: ledger, Code: code, Flags: roomFlags},
			tb.Account{ID: id(11 + 2*k), Ledger: ledger, Code: code, Flags: shortFlags})
	}
	if res, err := c.CreateAccounts(accounts); err != nil || len(res) != len(accounts) {
		t.Fatal(res, err)
	}
	next := uint64(1000)
	tr := func(debit, credit uint64, amount uint64, flags tb.TransferFlags) tb.Transfer {
		next++
		return tb.Transfer{ID: id(next), DebitAccountID: id(debit), CreditAccountID: id(credit),
			Amount: tb.ToUint128(amount), Ledger: ledger, Code: code, Flags: flags.ToUint16()}
	}
	net := func(room uint64, cap uint64) tb.Transfer {
		return tr(room, room+1, cap, tb.TransferFlags{BalancingDebit: true, BalancingCredit: true})
	}
	send := func(linked bool, ts ...tb.Transfer) []tb.CreateTransferStatus {
		t.Helper()
		if linked {
			for i := range ts[:len(ts)-1] {
				f := ts[i].TransferFlags()
				f.Linked = true
				ts[i].Flags = f.ToUint16()
			}
		}
		res, err := c.CreateTransfers(ts)
		if err != nil || len(res) != len(ts) {
			t.Fatal(res, err)
		}
		out := make([]tb.CreateTransferStatus, len(res))
		for i, r := range res {
			out[i] = r.Status
		}
		return out
	}
	amountOf := func(x tb.Transfer) uint64 {
		t.Helper()
		found, err := c.LookupTransfers([]tb.Uint128{x.ID})
		if err != nil || len(found) != 1 {
			t.Fatal(found, err)
		}
		return found[0].Amount.BigInt().Uint64()
	}
	// fill puts p into a room and makes its shortfall owe e.
	fill := func(room, p, e uint64) {
		t.Helper()
		ts := []tb.Transfer{}
		if p > 0 {
			ts = append(ts, tr(sink, room, p, tb.TransferFlags{}))
		}
		if e > 0 {
			ts = append(ts, tr(room+1, sink, e, tb.TransferFlags{}))
		}
		for i, s := range send(false, ts...) {
			if s != tb.TransferCreated {
				t.Fatalf("fill %d: event %d: %v", room, i, s)
			}
		}
	}
	created := func(what string, x tb.Transfer, st tb.CreateTransferStatus, want uint64) {
		t.Helper()
		if st != tb.TransferCreated {
			t.Fatalf("%s: %v", what, st)
		}
		if got := amountOf(x); got != want {
			t.Fatalf("%s: the netting moved %d, want %d", what, got, want)
		}
	}

	// 1. Clamped to what the room has, then to what the shortfall owes,
	// then to the amount given, whichever is least.
	fill(10, 3, 5)
	x := net(10, 100)
	created("the room has less", x, send(false, x)[0], 3)
	fill(12, 10, 5)
	x = net(12, 100)
	created("the shortfall owes less", x, send(false, x)[0], 5)
	fill(14, 10, 5)
	x = net(14, 2)
	created("the amount is least", x, send(false, x)[0], 2)

	// 2. Nothing to net (an empty room, or nothing owed) is not an
	// error: the transfer is made with amount 0.
	x = net(10, 100)
	created("an empty room", x, send(false, x)[0], 0)
	x = net(12, 100)
	created("nothing owed", x, send(false, x)[0], 0)

	// 3. Sent again with the same id and fields, a netting that was
	// clamped is exists, not exists_with_different_amount.
	again := x
	if st := send(false, again)[0]; st != tb.TransferExists {
		t.Fatalf("a netting sent again: %v", st)
	}
	first := net(14, 100) // the room has 8 left, the shortfall owes 3
	created("before sending again", first, send(false, first)[0], 3)
	if st := send(false, first)[0]; st != tb.TransferExists {
		t.Fatalf("a clamped netting sent again: %v", st)
	}
	// With an amount below the one made, it is another amount.
	lower := first
	lower.Amount = tb.ToUint128(2)
	if st := send(false, lower)[0]; st != tb.TransferExistsWithDifferentAmount {
		t.Fatalf("a clamped netting sent again with less: %v", st)
	}

	// 4. In a linked chain, the netting sees what earlier events of the
	// chain put into the room, and the room_take after it sees what the
	// netting took.
	fill(16, 0, 4)
	// The amount chobo gives is 2^64 (chobotb.Unbounded), above any
	// shortfall a balance of 64 bits can leave.
	in, x, take := tr(sink, 16, 6, tb.TransferFlags{}), net(16, 0), tr(16, sink, 2, tb.TransferFlags{})
	x.Amount = tb.Uint128{0, 0, 0, 0, 0, 0, 0, 0, 1}
	st := send(true, in, x, take)
	if st[0] != tb.TransferCreated || st[2] != tb.TransferCreated {
		t.Fatalf("a chain: %v", st)
	}
	created("in a chain", x, st[1], 4)
	// And a room_take the netting leaves short is refused, the whole
	// chain with it.
	in, x, take = tr(sink, 16, 1, tb.TransferFlags{}), net(16, 1<<62), tr(16, sink, 2, tb.TransferFlags{})
	fill(16, 0, 3) // the shortfall owes 3 again
	st = send(true, in, x, take)
	if st[2] != tb.TransferExceedsCredits || st[0] != tb.TransferLinkedEventFailed || st[1] != tb.TransferLinkedEventFailed {
		t.Fatalf("a chain refused by its room_take: %v", st)
	}

	// 5. Holds on the room: a pending debit (a hold into the account)
	// keeps what it holds from the netting; a pending credit (a hold out
	// of it) gives the netting nothing until it is posted.
	fill(18, 5, 9)
	held := tr(18, sink, 3, tb.TransferFlags{Pending: true})
	if st := send(false, held)[0]; st != tb.TransferCreated {
		t.Fatal(st)
	}
	x = net(18, 100)
	created("a pending debit on the room", x, send(false, x)[0], 2)
	fill(20, 0, 9)
	out := tr(sink, 20, 4, tb.TransferFlags{Pending: true})
	if st := send(false, out)[0]; st != tb.TransferCreated {
		t.Fatal(st)
	}
	x = net(20, 100)
	created("a pending credit on the room", x, send(false, x)[0], 0)
	post := tb.Transfer{ID: id(5000), PendingID: out.ID, Amount: tb.ToUint128(3),
		Flags: tb.TransferFlags{PostPendingTransfer: true}.ToUint16()}
	if st := send(false, post)[0]; st != tb.TransferCreated {
		t.Fatal(st)
	}
	x = net(20, 100)
	created("the pending credit posted in part", x, send(false, x)[0], 3)
	// A void of the pending debit gives the netting what it held.
	void := tb.Transfer{ID: id(5001), PendingID: held.ID, Flags: tb.TransferFlags{VoidPendingTransfer: true}.ToUint16()}
	if st := send(false, void)[0]; st != tb.TransferCreated {
		t.Fatal(st)
	}
	x = net(18, 100)
	created("the pending debit voided", x, send(false, x)[0], 3)

	// 6. A pending debit that expires gives the netting what it held, as
	// a void does: no chain runs at the expiry, so only a netting at the
	// next take sees it.
	fill(22, 4, 9)
	expiring := tr(22, sink, 4, tb.TransferFlags{Pending: true})
	expiring.Timeout = 1
	if st := send(false, expiring)[0]; st != tb.TransferCreated {
		t.Fatal(st)
	}
	x = net(22, 100)
	created("before the expiry", x, send(false, x)[0], 0)
	deadline := time.Now().Add(20 * time.Second)
	for {
		time.Sleep(500 * time.Millisecond)
		found, err := c.LookupAccounts([]tb.Uint128{id(22)})
		if err != nil || len(found) != 1 {
			t.Fatal(found, err)
		}
		if found[0].DebitsPending.BigInt().Sign() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hold did not expire")
		}
	}
	x = net(22, 100)
	created("after the expiry", x, send(false, x)[0], 4)

	// 7. A pending netting is clamped the same way, against posted
	// balances less pending debits (chobo never sends one; a hold's
	// chain nets with a posted transfer, which no void takes back).
	fill(24, 2, 9)
	x = net(24, 100)
	f := x.TransferFlags()
	f.Pending = true
	x.Flags = f.ToUint16()
	created("a pending netting", x, send(false, x)[0], 2)
}
