package chobotb_test

import (
	"testing"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// A retry across a deploy that lays the chain out otherwise (a room added
// to the account moved into, then removed) answers what the first call
// answered, one call at a time and through a bulk: done_before for a
// call done, already_refused for one a bound refused, key_conflict for
// the key sent with other content.
func TestRetryAcrossARelaidChain(t *testing.T) {
	m := tbmodel.New()
	d1 := testDef()
	d2 := testDef()
	d2.Accounts[aCust].Upper = bound(10, "cust_full")
	k := kindOf("do", aSupplier, aCust)
	before, after := chobotb.NewBook(m, d1, ""), chobotb.NewBook(m, d2, "")
	call := func(b *chobotb.Book, key, to string, n int64, want string) {
		t.Helper()
		r, err := b.Call(ctx, k, "do", vals(key, "x", to, n))
		if err != nil || r.String() != want {
			t.Errorf("%s %d: %s, %v; want %s", key, n, r, err, want)
		}
		a, err := b.Bulk(ctx, []chobotb.Op{{Kind: k, Op: "do", Values: vals(key, "x", to, n)}})
		if err != nil || a[0].Err != nil || a[0].Result.String() != want {
			t.Errorf("%s %d through a bulk: %+v, %v; want %s", key, n, a, err, want)
		}
	}
	done, doneBefore := chobo.Result{Outcome: chobo.Done}.String(), chobo.Result{Outcome: chobo.DoneBefore}.String()
	if r, err := before.Call(ctx, k, "do", vals("r1", "x", "c", 8)); err != nil || r.String() != done {
		t.Fatal(r, err)
	}
	// The move alone, then linked to the room: its flags differ.
	call(after, "r1", "c", 8, doneBefore)
	call(after, "r1", "c", 7, ref("key_conflict"))
	// Refused by the room, after the first event: the guard uses the key
	// up at its first event, which the move alone meets again.
	if r, err := after.Call(ctx, k, "do", vals("r2", "x", "new", 11)); err != nil || r.String() != ref("cust_full") {
		t.Fatal(r, err)
	}
	call(before, "r2", "new", 11, ref("already_refused"))
	call(before, "r1", "c", 8, doneBefore)
}
