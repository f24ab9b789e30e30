package tests

import (
	"context"
	"testing"
	"time"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// What the migration of bounds rests on, held to a real replica: each
// check fails if TigerBeetle behaves otherwise.
func TestTigerBeetleWhatTheMigrationRestsOn(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	c := srv.Raw()
	const ledger, code = 7, 1
	id := func(n uint64) tb.Uint128 { return tb.ToUint128(n) }
	flagged := tb.AccountFlags{DebitsMustNotExceedCredits: true}.ToUint16()
	var accounts []tb.Account
	for n := uint64(1); n <= 5; n++ {
		a := tb.Account{ID: id(n), Ledger: ledger, Code: code}
		if n == 2 || n == 3 {
			a.Flags = flagged
		}
		if n == 5 {
			a.UserData128 = id(99)
		}
		accounts = append(accounts, a)
	}
	res, err := c.CreateAccounts(accounts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Status != tb.AccountCreated {
			t.Fatalf("create: %v", r.Status)
		}
	}
	transfer := func(ts ...tb.Transfer) []tb.CreateTransferStatus {
		t.Helper()
		res, err := c.CreateTransfers(ts)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]tb.CreateTransferStatus, len(res))
		for i, r := range res {
			out[i] = r.Status
		}
		return out
	}
	balance := func(n uint64) (credits, debits, debitsPending uint64) {
		t.Helper()
		found, err := c.LookupAccounts([]tb.Uint128{id(n)})
		if err != nil || len(found) != 1 {
			t.Fatal(found, err)
		}
		a := found[0]
		return a.CreditsPosted.BigInt().Uint64(), a.DebitsPosted.BigInt().Uint64(), a.DebitsPending.BigInt().Uint64()
	}
	// 1 is the sink. 2 (a room) gets 10; 3 (a shortfall, flagged) nothing.
	if st := transfer(tb.Transfer{ID: id(100), DebitAccountID: id(1), CreditAccountID: id(2), Amount: tb.ToUint128(10), Ledger: ledger, Code: code}); st[0] != tb.TransferCreated {
		t.Fatal(st)
	}

	t.Run("an account's flags are fixed when it is made", func(t *testing.T) {
		res, err := c.CreateAccounts([]tb.Account{{ID: id(2), Ledger: ledger, Code: code}})
		if err != nil || len(res) != 1 || res[0].Status != tb.AccountExistsWithDifferentFlags {
			t.Fatal(res, err)
		}
	})

	t.Run("a transfer resent is made once; with another amount it is refused", func(t *testing.T) {
		move := tb.Transfer{ID: id(101), DebitAccountID: id(1), CreditAccountID: id(2), Amount: tb.ToUint128(3), Ledger: ledger, Code: code}
		if st := transfer(move); st[0] != tb.TransferCreated {
			t.Fatal(st)
		}
		if st := transfer(move); st[0] != tb.TransferExists {
			t.Fatal(st)
		}
		move.Amount = tb.ToUint128(4)
		if st := transfer(move); st[0] != tb.TransferExistsWithDifferentAmount {
			t.Fatal(st)
		}
		if cr, _, _ := balance(2); cr != 13 {
			t.Fatalf("credits %d, want 13", cr)
		}
	})

	t.Run("a flagged account refuses what its pending debits leave it short of", func(t *testing.T) {
		hold := tb.Transfer{ID: id(102), DebitAccountID: id(2), CreditAccountID: id(1), Amount: tb.ToUint128(5), Ledger: ledger, Code: code,
			Flags: tb.TransferFlags{Pending: true}.ToUint16()}
		if st := transfer(hold); st[0] != tb.TransferCreated {
			t.Fatal(st)
		}
		// 13 posted, 5 pending: 9 is refused, 8 passes.
		over := tb.Transfer{ID: id(103), DebitAccountID: id(2), CreditAccountID: id(1), Amount: tb.ToUint128(9), Ledger: ledger, Code: code}
		if st := transfer(over); st[0] != tb.TransferExceedsCredits {
			t.Fatal(st)
		}
		// A refused id is used up; a probe refused in a linked chain leaves
		// the ids after it free.
		if st := transfer(over); st[0] != tb.TransferIDAlreadyFailed {
			t.Fatal(st)
		}
		probe := tb.Transfer{ID: id(104), DebitAccountID: id(2), CreditAccountID: id(1), Amount: tb.ToUint128(9), Ledger: ledger, Code: code,
			Flags: tb.TransferFlags{Pending: true, Linked: true}.ToUint16()}
		void := tb.Transfer{ID: id(105), PendingID: id(104), Flags: tb.TransferFlags{VoidPendingTransfer: true, Linked: true}.ToUint16()}
		move := tb.Transfer{ID: id(106), DebitAccountID: id(2), CreditAccountID: id(1), Amount: tb.ToUint128(9), Ledger: ledger, Code: code}
		if st := transfer(probe, void, move); st[0] != tb.TransferExceedsCredits || st[2] != tb.TransferLinkedEventFailed {
			t.Fatal(st)
		}
		move.Amount = tb.ToUint128(8)
		if st := transfer(move); st[0] != tb.TransferCreated {
			t.Fatalf("the move's id after a refused probe: %v", st)
		}
		if st := transfer(tb.Transfer{ID: id(107), PendingID: id(102), Flags: tb.TransferFlags{VoidPendingTransfer: true}.ToUint16()}); st[0] != tb.TransferCreated {
			t.Fatal(st)
		}
	})

	t.Run("a balancing transfer clamps to both accounts, and may come out as 0 in a chain", func(t *testing.T) {
		// 2 has 13 - 8 = 5. 3 (flagged) has nothing; 4 (unflagged) owes 2.
		if st := transfer(tb.Transfer{ID: id(110), DebitAccountID: id(4), CreditAccountID: id(1), Amount: tb.ToUint128(2), Ledger: ledger, Code: code}); st[0] != tb.TransferCreated {
			t.Fatal(st)
		}
		both := tb.TransferFlags{BalancingDebit: true, BalancingCredit: true}
		// From 2 (5 available) to 4 (2 of debits to cancel): 2.
		net := tb.Transfer{ID: id(111), DebitAccountID: id(2), CreditAccountID: id(4), Amount: tb.ToUint128(100), Ledger: ledger, Code: code, Flags: both.ToUint16()}
		if st := transfer(net); st[0] != tb.TransferCreated {
			t.Fatal(st)
		}
		found, err := c.LookupTransfers([]tb.Uint128{id(111)})
		if err != nil || len(found) != 1 || found[0].Amount.BigInt().Uint64() != 2 {
			t.Fatalf("clamped to %v, want 2", found)
		}
		// Again: 4 owes nothing now, so 0, inside a linked chain that is made.
		both.Linked = true
		again := tb.Transfer{ID: id(112), DebitAccountID: id(2), CreditAccountID: id(4), Amount: tb.ToUint128(100), Ledger: ledger, Code: code, Flags: both.ToUint16()}
		after := tb.Transfer{ID: id(113), DebitAccountID: id(1), CreditAccountID: id(2), Amount: tb.ToUint128(1), Ledger: ledger, Code: code}
		if st := transfer(again, after); st[0] != tb.TransferCreated || st[1] != tb.TransferCreated {
			t.Fatalf("a chain with a balancing transfer of 0: %v", st)
		}
		found, err = c.LookupTransfers([]tb.Uint128{id(112)})
		if err != nil || len(found) != 1 || !found[0].Amount.BigInt().IsUint64() || found[0].Amount.BigInt().Uint64() != 0 {
			t.Fatalf("clamped to %v, want 0", found)
		}
		// From 3 (flagged, nothing available): 0, not exceeds_credits.
		empty := tb.Transfer{ID: id(114), DebitAccountID: id(3), CreditAccountID: id(1), Amount: tb.ToUint128(100), Ledger: ledger, Code: code,
			Flags: tb.TransferFlags{BalancingDebit: true}.ToUint16()}
		if st := transfer(empty); st[0] != tb.TransferCreated {
			t.Fatalf("a balancing transfer from an empty flagged account: %v", st)
		}
	})

	t.Run("query_accounts finds an account by user_data_128, ledger and code, a page at a time", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		q := srv.Client.(chobotb.AccountQuerier)
		got, err := q.QueryAccounts(ctx, chobotb.AccountQuery{Ledger: ledger, Code: code, Limit: 2})
		if err != nil || len(got) != 2 || got[0].Timestamp >= got[1].Timestamp {
			t.Fatal(got, err)
		}
		next, err := q.QueryAccounts(ctx, chobotb.AccountQuery{Ledger: ledger, Code: code, Limit: 10, TimestampMin: got[1].Timestamp + 1})
		if err != nil || len(next) != 3 {
			t.Fatal(next, err)
		}
		one, err := q.QueryAccounts(ctx, chobotb.AccountQuery{UserData128: [16]byte{15: 99}, Ledger: ledger, Code: code, Limit: 10})
		if err != nil || len(one) != 1 || one[0].ID != [16]byte{15: 5} {
			t.Fatal(one, err)
		}
	})
}

// An encoding of an account that a narrowed upper bound leaves outside,
// held to a real replica: its room at zero and the rest of the shortfall
// as the debit balance of a shortfall account, netted against the room by
// a balancing transfer before the room is taken from. Further out is
// refused, back towards the bound is done, further out again while still
// outside is refused, and once inside the bound holds exactly. This is
// what chobo's chains carry (room_net, floor_net) and what `chobo
// migrate` leaves such an account with; tigerbeetle_shortfall_test.go
// holds the rest of it.
func TestTigerBeetleShortfallEncoding(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	c := srv.Raw()
	const ledger, code = 9, 1
	id := func(n uint64) tb.Uint128 { return tb.ToUint128(n) }
	sink, x, room, short := id(1), id(2), id(3), id(4)
	res, err := c.CreateAccounts([]tb.Account{
		{ID: sink, Ledger: ledger, Code: code},
		{ID: x, Ledger: ledger, Code: code},
		{ID: room, Ledger: ledger, Code: code, Flags: tb.AccountFlags{DebitsMustNotExceedCredits: true}.ToUint16()},
		{ID: short, Ledger: ledger, Code: code, Flags: tb.AccountFlags{CreditsMustNotExceedDebits: true}.ToUint16()},
	})
	if err != nil || len(res) != 4 {
		t.Fatal(res, err)
	}
	next := uint64(100)
	tr := func(debit, credit tb.Uint128, amount uint64, flags tb.TransferFlags) tb.Transfer {
		next++
		return tb.Transfer{ID: id(next), DebitAccountID: debit, CreditAccountID: credit, Amount: tb.ToUint128(amount),
			Ledger: ledger, Code: code, Flags: flags.ToUint16()}
	}
	send := func(ts ...tb.Transfer) []tb.CreateTransferStatus {
		t.Helper()
		for i := range ts[:len(ts)-1] {
			f := ts[i].TransferFlags()
			f.Linked = true
			ts[i].Flags = f.ToUint16()
		}
		res, err := c.CreateTransfers(ts)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]tb.CreateTransferStatus, len(res))
		for i, r := range res {
			out[i] = r.Status
		}
		return out
	}
	max := tb.TransferFlags{BalancingDebit: true, BalancingCredit: true}
	into := func(a uint64) bool { // a move into x, its netting, its room_take
		t.Helper()
		net := tr(room, short, 0, max)
		net.Amount = tb.ToUint128(1 << 62)
		st := send(tr(sink, x, a, tb.TransferFlags{}), net, tr(room, sink, a, tb.TransferFlags{}))
		switch {
		case st[0] == tb.TransferCreated && st[2] == tb.TransferCreated:
			return true
		case st[2] == tb.TransferExceedsCredits:
			return false
		}
		t.Fatalf("into %d: %v", a, st)
		return false
	}
	out := func(a uint64) { // a move out of x and its room_give
		t.Helper()
		if st := send(tr(x, sink, a, tb.TransferFlags{}), tr(sink, room, a, tb.TransferFlags{})); st[1] != tb.TransferCreated {
			t.Fatalf("out %d: %v", a, st)
		}
	}
	encoded := func() int64 { // x's balance + the room - the shortfall
		t.Helper()
		found, err := c.LookupAccounts([]tb.Uint128{x, room, short})
		if err != nil || len(found) != 3 {
			t.Fatal(found, err)
		}
		n := func(v tb.Uint128) int64 { return int64(v.BigInt().Uint64()) }
		return n(found[0].CreditsPosted) - n(found[0].DebitsPosted) + n(found[1].CreditsPosted) - n(found[1].DebitsPosted) -
			(n(found[2].DebitsPosted) - n(found[2].CreditsPosted))
	}
	// Opened at 10, filled to 9: the room holds 1.
	if st := send(tr(sink, room, 10, tb.TransferFlags{})); st[0] != tb.TransferCreated {
		t.Fatal(st)
	}
	if !into(9) || encoded() != 10 {
		t.Fatal("filling to 9 under 10", encoded())
	}
	// Narrowed to 5: the room gives its 1, the shortfall owes 4.
	if st := send(tr(room, sink, 1, tb.TransferFlags{}), tr(short, sink, 4, tb.TransferFlags{})); st[1] != tb.TransferCreated {
		t.Fatal(st)
	}
	if encoded() != 5 {
		t.Fatal(encoded())
	}
	steps := []struct {
		what string
		do   func() bool
		want bool
	}{
		{"at 9, further out by 1", func() bool { return into(1) }, false},
		{"back by 2, to 7", func() bool { out(2); return true }, true},
		{"at 7, outside still, out again by 1", func() bool { return into(1) }, false},
		{"back by 3, to 4", func() bool { out(3); return true }, true},
		{"at 4, 1 more, to 5", func() bool { return into(1) }, true},
		{"at 5, 1 more", func() bool { return into(1) }, false},
		{"back by 2, to 3", func() bool { out(2); return true }, true},
		{"at 3, 2 more", func() bool { return into(2) }, true},
		{"at 5, 1 more again", func() bool { return into(1) }, false},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("%s: done %v, want %v", s.what, got, s.want)
		}
		if e := encoded(); e != 5 {
			t.Fatalf("%s: the bound encoded is %d, want 5", s.what, e)
		}
	}
}
