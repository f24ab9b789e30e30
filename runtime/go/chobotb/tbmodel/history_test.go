package tbmodel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// The answers of get_account_transfers as a 0.17.9 replica gave them
// (tests/tigerbeetle_history_test.go records them on a real one).
func TestGetAccountTransfers(t *testing.T) {
	ctx := context.Background()
	m := New()
	if _, err := m.CreateAccounts(ctx, []chobotb.Account{acct("a", 0), acct("b", 0), acct("c", 0)}); err != nil {
		t.Fatal(err)
	}
	tr := func(name, from, to string, amount uint64, flags uint16, code uint16) chobotb.Transfer {
		return chobotb.Transfer{ID: id(name), DebitAccountID: id(from), CreditAccountID: id(to),
			Amount: chobotb.U64(amount), Ledger: ledger, Code: code, Flags: flags, Timeout: 0}
	}
	hold := tr("h", "a", "b", 5, chobotb.TransferPending, 2)
	hold.Timeout = 1
	hold.UserData64 = 77
	expiring := tr("e", "a", "b", 3, chobotb.TransferPending, 2)
	expiring.Timeout = 1
	st, err := m.CreateTransfers(ctx, []chobotb.Transfer{
		tr("t1", "a", "b", 1, 0, 1), tr("t2", "b", "a", 2, 0, 1), tr("t3", "b", "c", 3, 0, 1), hold, expiring,
		{ID: id("v"), PendingID: id("h"), Flags: chobotb.TransferVoidPending},
	})
	if err != nil || len(st) != 6 || st[5] != chobotb.Created {
		t.Fatalf("%v, %v", st, err)
	}
	m.Advance(2 * time.Second) // "e" expires: no record of it
	get := func(f chobotb.AccountFilter) []string {
		t.Helper()
		f.AccountID = id("a")
		got, err := m.GetAccountTransfers(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, x := range got {
			for _, n := range []string{"t1", "t2", "t3", "h", "e", "v"} {
				if x.ID == id(n) {
					names = append(names, n)
				}
			}
		}
		return names
	}
	want := func(got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
	all := chobotb.AccountFilter{Debits: true, Credits: true, Limit: 100}
	want(get(all), "t1", "t2", "h", "e", "v")
	want(get(chobotb.AccountFilter{Debits: true, Limit: 100}), "t1", "h", "e", "v")
	want(get(chobotb.AccountFilter{Credits: true, Limit: 100}), "t2")
	want(get(chobotb.AccountFilter{Limit: 100}))
	r := all
	r.Reversed, r.Limit = true, 2
	want(get(r), "v", "e")
	code := all
	code.Code = 2
	want(get(code), "h", "e", "v")
	// Both bounds are inclusive.
	t2, _ := m.Transfer(id("t2"))
	h, _ := m.Transfer(id("h"))
	between := all
	between.TimestampMin, between.TimestampMax = t2.Timestamp, h.Timestamp
	want(get(between), "t2", "h")
	// A void is kept with its hold's accounts, code, user data and amount.
	v, _ := m.Transfer(id("v"))
	if v.DebitAccountID != id("a") || v.Code != 2 || v.UserData64 != 77 || v.Amount != chobotb.U64(5) {
		t.Errorf("the void as kept: %+v", v)
	}
	over := all
	over.Limit = 8190
	if _, err := m.GetAccountTransfers(ctx, over); !errors.Is(err, ErrTooMuchData) {
		t.Errorf("a limit of 8,190: %v", err)
	}
	if got, _ := m.GetAccountTransfers(ctx, chobotb.AccountFilter{AccountID: ids.Sum("nowhere"), Debits: true, Credits: true, Limit: 10}); len(got) != 0 {
		t.Errorf("an unknown account: %d records", len(got))
	}
}
