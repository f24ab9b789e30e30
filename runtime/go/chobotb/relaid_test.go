package chobotb_test

import (
	"testing"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// A hold made under one layout of its chain is posted in part, voided,
// and each sent again, under another: a probe added before the room it
// takes from (its room_take one place on), a room removed (its room_take
// left out of the new layout), a floor removed, and a probe added to
// both moves of a hold of two. Each is ended whole, one call at a time
// and through a bulk, and a post or void sent again answers as the
// interpreter does, under either version.
func TestHoldsAcrossARelaidChain(t *testing.T) {
	probe := func(d *chobotb.Def) { d.Accounts[aStock].Lower = bound(1, "out_of_stock") }
	noRoom := func(d *chobotb.Def) { d.Accounts[aCapped].Upper = nil }
	noFloor := func(d *chobotb.Def) { d.Accounts[aDst].Lower = nil }
	type hold struct {
		kind   int
		from   string
		to     int // the account kind moved into, whose floor and room are read
		amount int64
	}
	for _, c := range []struct {
		name   string
		change func(*chobotb.Def)
		h      hold
		// swap: the hold is made under the changed version and ended
		// under the first.
		swap bool
	}{
		{"probe added", probe, hold{kindOf("hold", aStock, aCapped), "s", aCapped, 5}, false},
		{"probe removed", probe, hold{kindOf("hold", aStock, aCapped), "s", aCapped, 5}, true},
		{"room removed", noRoom, hold{kindOf("hold", aStock, aCapped), "s", aCapped, 5}, false},
		{"floor removed", noFloor, hold{kindOf("hold", aSrc, aDst), "r", aDst, 3}, false},
		{"two moves, probes added", probe, hold{kOrder, "s", aCust, 4}, false},
		{"two moves, probes removed", probe, hold{kOrder, "s", aCust, 4}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := tbmodel.New()
			d1, d2 := testDef(), testDef()
			c.change(d2)
			if c.swap {
				d1, d2 = d2, d1
			}
			before, after := chobotb.NewBook(m, d1, ""), chobotb.NewBook(m, d2, "")
			for _, a := range []struct {
				kind int
				acc  string
				n    int64
			}{{aStock, "s", 40}, {aSrc, "r", 18}} {
				if got := doCall(t, before, aSupplier, a.kind, "seed-"+a.acc, "x", a.acc, a.n); got != "done" {
					t.Fatal(got)
				}
			}
			k := c.h.kind
			if d1.ChainLength(k) == d2.ChainLength(k) {
				t.Fatalf("the two versions lay %s out alike", d1.Transfers[k].Name)
			}
			holdOn := func(key, to string) {
				t.Helper()
				if r, err := before.Call(ctx, k, "hold", vals(key, c.h.from, to, c.h.amount)); err != nil || r.Outcome != chobo.Done {
					t.Fatal(key, r, err)
				}
			}
			for _, h := range []string{"p", "v", "b", "w"} {
				holdOn(h, h)
			}
			// Nothing is migrated between the two: the changes here
			// move no floor or room a hold made before is still on.
			post := func(b *chobotb.Book, key string, n int64, want string) {
				t.Helper()
				r, err := b.Post(ctx, k, chobotb.Values{key}, []int64{n})
				if err != nil || r.String() != want {
					t.Errorf("post %s of %d: %s, %v; want %s", key, n, r, err, want)
				}
			}
			void := func(b *chobotb.Book, key string, want string) {
				t.Helper()
				r, err := b.Void(ctx, k, chobotb.Values{key})
				if err != nil || r.String() != want {
					t.Errorf("void %s: %s, %v; want %s", key, r, err, want)
				}
			}
			done, doneBefore := chobo.Result{Outcome: chobo.Done}.String(), chobo.Result{Outcome: chobo.DoneBefore}.String()
			post(after, "p", c.h.amount+1, ref("over_hold"))
			post(after, "p", 2, done)
			post(after, "p", 2, doneBefore)
			post(before, "p", 2, doneBefore)
			post(after, "p", 1, ref("key_conflict"))
			void(after, "v", done)
			void(before, "v", doneBefore)
			void(after, "v", doneBefore)
			post(after, "v", 1, ref("already_voided"))
			// Ended before the deploy, sent again after it.
			void(before, "w", done)
			void(after, "w", doneBefore)
			post(after, "w", 1, ref("already_voided"))
			a, err := after.Bulk(ctx, []chobotb.Op{
				{Kind: k, Op: "post", Values: chobotb.Values{"b"}, Amounts: []int64{1}},
				{Kind: k, Op: "post", Values: chobotb.Values{"p"}, Amounts: []int64{2}},
				{Kind: k, Op: "void", Values: chobotb.Values{"v"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []string{done, doneBefore, doneBefore} {
				if a[i].Err != nil || a[i].Result.String() != want {
					t.Errorf("bulk call %d: %+v, want %s", i, a[i], want)
				}
			}
			// Nothing is left held: every floor and room the holds
			// moved is ended with its move.
			for _, key := range []string{"p", "v", "b", "w"} {
				if s, err := after.Status(ctx, k, chobotb.Values{key}); err != nil || s == chobo.Held {
					t.Errorf("%s: %s, %v", key, s, err)
				}
				acc := ids.Account(d1.Book, "", d1.Accounts[c.h.to].Name, key)
				as, err := m.LookupAccounts(ctx, []ids.ID{acc, ids.Floor(acc), ids.Room(acc)})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range as {
					if !x.DebitsPending.IsZero() || !x.CreditsPending.IsZero() {
						t.Errorf("%s: account %s still holds %+v %+v", key, x.ID.Hex(), x.DebitsPending, x.CreditsPending)
					}
				}
			}
			// The entries of each call: the hold's and its end's, each
			// move's two sides, read under either version.
			for _, key := range []string{"p", "v", "b", "w"} {
				for _, bk := range []*chobotb.Book{before, after} {
					es, err := bk.CallEntries(ctx, k, chobotb.Values{key})
					if want := 4 * len(d1.Transfers[k].Moves); err != nil || len(es) != want {
						t.Errorf("%s: %d entries, %v; want %d", key, len(es), err, want)
					}
				}
			}
			for key, want := range map[string]int64{"p": 2, "b": 1, "v": 0, "w": 0} {
				bal, err := after.Balance(ctx, c.h.to, key)
				if err != nil || bal.Posted != want || bal.HeldIn != 0 {
					t.Errorf("%s: %+v, %v; want %d posted", key, bal, err, want)
				}
			}
		})
	}
}
