package chobotb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// migrated runs Migrate of d on c and fails t on an error other than want.
func migrated(t *testing.T, c chobotb.MigrateClient, d *chobotb.Def, version int, want error) chobotb.MigrateReport {
	t.Helper()
	r, err := chobotb.Migrate(ctx, c, d, chobotb.MigrateOptions{Version: version})
	if !errors.Is(err, want) && !(err == nil && want == nil) {
		t.Fatalf("Migrate: %v, want %v (%+v)", err, want, r)
	}
	return r
}

func doCall(t *testing.T, b *chobotb.Book, from, to int, key, a, c string, n int64) string {
	t.Helper()
	r, err := b.Call(ctx, kindOf("do", from, to), "do", vals(key, a, c, n))
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return r.String()
}

// TestMigrateWidenNarrowAddRemove moves every kind of change of a bound
// onto existing accounts and holds each to the new bound, from both
// sides, after the migration; a second run moves nothing.
func TestMigrateWidenNarrowAddRemove(t *testing.T) {
	m := tbmodel.New()
	old := chobotb.NewBook(m, testDef(), "")
	// capped(k) at 6 of at most 10; credit(a) at -3 of at least -5;
	// cust(c) at 3, no bound; dst(d) at 2 of at least -4, at most 6.
	for _, s := range []struct {
		from, to int
		a, c     string
		n        int64
	}{{aSupplier, aCapped, "x", "k", 6}, {aCredit, aCust, "a", "c", 3}, {aSupplier, aDst, "x", "d", 2}} {
		if got := doCall(t, old, s.from, s.to, "seed-"+s.c, s.a, s.c, s.n); got != "done" {
			t.Fatal(got)
		}
	}
	d2 := testDef()
	d2.Accounts[aCapped].Upper.Value = 8  // narrowed, still above 6
	d2.Accounts[aCredit].Lower.Value = -9 // widened
	d2.Accounts[aCust].Upper = bound(4, "cust_full")
	d2.Accounts[aDst].Upper = nil // removed
	r := migrated(t, m, d2, 2, nil)
	if r.Changed == 0 || r.Seen == 0 {
		t.Fatalf("%+v", r)
	}
	b := chobotb.NewBook(m, d2, "")
	checks := []struct {
		from, to int
		key      string
		a, c     string
		n        int64
		want     string
	}{
		{aSupplier, aCapped, "k1", "x", "k", 3, ref("full")}, // 9 > 8
		{aSupplier, aCapped, "k2", "x", "k", 2, "done"},      // 8
		{aCredit, aFee, "a1", "a", "z", 7, ref("over_limit")},
		{aCredit, aFee, "a2", "a", "z", 6, "done"}, // -9
		{aSupplier, aCust, "c1", "x", "c", 2, ref("cust_full")},
		{aSupplier, aCust, "c2", "x", "c", 1, "done"},
		{aSupplier, aDst, "d1", "x", "d", 100, "done"},
	}
	for _, c := range checks {
		if got := doCall(t, b, c.from, c.to, c.key, c.a, c.c, c.n); got != c.want {
			t.Errorf("%s: %s, want %s", c.key, got, c.want)
		}
	}
	again := migrated(t, m, d2, 2, nil)
	if again.Changed != 0 {
		t.Errorf("a second run moved %d floors and rooms", again.Changed)
	}
}

// TestMigrateStoppedPartWay stops a migration after each number of
// requests in turn, runs it again to the end, and finds the ledger as one
// uninterrupted run leaves it.
func TestMigrateStoppedPartWay(t *testing.T) {
	seed := func() (*tbmodel.Model, *chobotb.Def) {
		m := tbmodel.New()
		old := chobotb.NewBook(m, testDef(), "")
		for i := range 300 {
			if got := doCall(t, old, aSupplier, aCapped, "s"+itoa(i), "x", "k"+itoa(i), int64(i%10)); got != "done" {
				t.Fatal(got)
			}
		}
		d2 := testDef()
		d2.Accounts[aCapped].Upper.Value = 15
		return m, d2
	}
	whole, d := seed()
	full := migrated(t, whole, d, 2, nil)
	if full.Changed != 300 {
		t.Fatalf("%+v", full)
	}
	want := roomsOf(t, whole, d)
	for stop := 1; stop < full.Requests; stop += 3 {
		m, d := seed()
		c, cancel := context.WithCancel(ctx)
		_, err := chobotb.Migrate(c, m, d, chobotb.MigrateOptions{Version: 2, Progress: func(p chobotb.MigrateProgress) {
			if p.Requests == stop {
				cancel()
			}
		}})
		cancel()
		if err == nil {
			t.Fatalf("stopped after %d requests: no error", stop)
		}
		rest := migrated(t, m, d, 2, nil)
		if got := roomsOf(t, m, d); got != want {
			t.Fatalf("stopped after %d requests, then run again (%+v): rooms %v, want %v", stop, rest, got, want)
		}
	}
}

func itoa(i int) string {
	return string(rune('a'+i/260)) + string(rune('a'+i/26%10)) + string(rune('a'+i%26))
}

// roomsOf sums the room balances of the capped accounts, and counts them.
func roomsOf(t *testing.T, m *tbmodel.Model, d *chobotb.Def) [2]int64 {
	t.Helper()
	var sum [2]int64
	for i := range 300 {
		b := chobotb.NewBook(m, d, "")
		bal, err := b.Balance(ctx, aCapped, "k"+itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		sum[0] += bal.Posted
		if got := doCall(t, b, aSupplier, aCapped, "probe"+itoa(i), "x", "k"+itoa(i), 15-bal.Posted+1); got != ref("full") {
			t.Fatalf("k%d at %d: one past 15 answers %s", i, bal.Posted, got)
		}
		sum[1]++
	}
	return sum
}

// TestMigrateOutsideAccounts narrows a bound below an account's
// balance: the migration moves it all the same, its floor or room to
// zero and its shortfall owing the rest, and reports it as outside; the
// account answers by the new bound, from outside: further out refused,
// back done, the bound held once inside.
func TestMigrateOutsideAccounts(t *testing.T) {
	m := tbmodel.New()
	old := chobotb.NewBook(m, testDef(), "")
	doCall(t, old, aSupplier, aCapped, "s1", "x", "high", 9)
	doCall(t, old, aSupplier, aCapped, "s2", "x", "low", 2)
	doCall(t, old, aCredit, aCust, "s3", "deep", "c", 4)
	d2 := testDef()
	d2.Accounts[aCapped].Upper.Value = 5
	d2.Accounts[aCredit].Lower.Value = -2
	r := migrated(t, m, d2, 2, nil)
	if len(r.Left) != 0 || len(r.Outside) != 2 || r.Outside[0].Side == r.Outside[1].Side || r.Changed != 3 {
		t.Fatalf("%+v", r)
	}
	for _, o := range r.Outside {
		if o.Side == "room" && (o.Reach != "9" || o.Bound != 5) || o.Side == "floor" && (o.Reach != "-4" || o.Bound != -2) {
			t.Fatalf("%+v", o)
		}
	}
	// The room of high is empty and its shortfall owes 4, the floor of
	// deep is empty and its shortfall owes 2.
	for _, h := range []struct {
		helper ids.ID
		owes   uint64
	}{
		{ids.Room(ids.Account("testbook", "", "capped", "high")), 4},
		{ids.Floor(ids.Account("testbook", "", "credit", "deep")), 2},
	} {
		a, _ := m.Account(h.helper)
		s, _ := m.Account(ids.Shortfall(h.helper))
		if a.CreditsPosted != a.DebitsPosted || s.DebitsPosted.Lo-s.CreditsPosted.Lo != h.owes {
			t.Fatalf("%s: %+v, shortfall %+v", h.helper.Hex(), a, s)
		}
	}
	b := chobotb.NewBook(m, d2, "")
	steps := []struct {
		from, to int
		a, c     string
		n        int64
		want     string
	}{
		{aSupplier, aCapped, "x", "high", 1, ref("full")}, // 9, further out
		{aSupplier, aCapped, "x", "low", 4, ref("full")},  // 2, inside: 6 is past 5
		{aSupplier, aCapped, "x", "low", 3, "done"},
		{aCapped, aCust, "high", "c", 2, "done"},          // back to 7, outside still
		{aSupplier, aCapped, "x", "high", 1, ref("full")}, // 7, further out
		{aCapped, aCust, "high", "c", 3, "done"},          // 4, inside
		{aSupplier, aCapped, "x", "high", 2, ref("full")}, // 6 is past 5
		{aSupplier, aCapped, "x", "high", 1, "done"},
		{aCredit, aCust, "deep", "c", 1, ref("over_limit")}, // -4, further out
		{aCust, aCredit, "c", "deep", 1, "done"},            // back to -3
		{aCredit, aCust, "deep", "c", 1, ref("over_limit")},
		{aCust, aCredit, "c", "deep", 3, "done"},            // 0
		{aCredit, aCust, "deep", "c", 3, ref("over_limit")}, // -3 is past -2
		{aCredit, aCust, "deep", "c", 2, "done"},
	}
	for i, s := range steps {
		if got := doCall(t, b, s.from, s.to, "o"+itoa(i), s.a, s.c, s.n); got != s.want {
			t.Fatalf("step %d: %s, want %s", i, got, s.want)
		}
	}
	if r := migrated(t, m, d2, 2, nil); r.Changed != 0 || len(r.Outside) != 0 {
		t.Fatalf("a run once inside: %+v", r)
	}
}

// TestMigrateWhileCalling sends calls through the Go client between every
// request of a migration: each answers by the old bound or the new one,
// never an error, and nothing is moved twice.
func TestMigrateWhileCalling(t *testing.T) {
	m := tbmodel.New()
	old := chobotb.NewBook(m, testDef(), "")
	for i := range 40 {
		doCall(t, old, aSupplier, aCapped, "s"+itoa(i), "x", "k"+itoa(i), 5)
	}
	d2 := testDef()
	d2.Accounts[aCapped].Upper.Value = 12
	b := chobotb.NewBook(m, d2, "")
	n := 0
	var fail error
	_, err := chobotb.Migrate(ctx, m, d2, chobotb.MigrateOptions{Version: 2, Progress: func(chobotb.MigrateProgress) {
		// 6 more: 11 is past 10 and within 12.
		i := n % 40
		n++
		r, err := b.Call(ctx, kindOf("do", aSupplier, aCapped), "do", vals("w"+itoa(n), "x", "k"+itoa(i), 1))
		if err != nil || (r.Outcome != chobo.Done && r.String() != ref("full")) {
			fail = errors.Join(fail, err)
		}
	}})
	if err != nil || fail != nil {
		t.Fatal(err, fail)
	}
	for i := range 40 {
		bal, err := b.Balance(ctx, aCapped, "k"+itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if got := doCall(t, b, aSupplier, aCapped, "f"+itoa(i), "x", "k"+itoa(i), 12-bal.Posted); got != "done" {
			t.Fatalf("k%d at %d: up to 12 answers %s", i, bal.Posted, got)
		}
		if got := doCall(t, b, aSupplier, aCapped, "g"+itoa(i), "x", "k"+itoa(i), 1); got != ref("full") {
			t.Fatalf("k%d at 12: one more answers %s", i, got)
		}
	}
}

// TestMigrateWaitsForHoldsMadeBefore adds an upper bound to a kind whose
// account has a hold open into it, made before: the room the new client
// opens does not carry that hold, so the migration leaves the account on
// no bound (the old one) and says why; once the hold has ended, a run of
// the same version moves it.
func TestMigrateWaitsForHoldsMadeBefore(t *testing.T) {
	m := tbmodel.New()
	old := chobotb.NewBook(m, testDef(), "")
	doCall(t, old, aSupplier, aCust, "s1", "x", "c", 3)
	if r, err := old.Call(ctx, kindOf("hold", aSupplier, aCust), "hold", vals("h1", "x", "c", 2)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	d2 := testDef()
	d2.Accounts[aCust].Upper = bound(6, "cust_full")
	b := chobotb.NewBook(m, d2, "")
	// Opened unbounded: the account has something on it.
	if got := doCall(t, b, aSupplier, aCust, "s2", "x", "c", 2); got != "done" {
		t.Fatal(got)
	}
	r := migrated(t, m, d2, 2, chobotb.ErrLeft)
	if len(r.Left) != 1 || !r.Left[0].HeldBefore || r.Left[0].Side != "room" {
		t.Fatalf("%+v", r.Left)
	}
	if got := doCall(t, b, aSupplier, aCust, "s3", "x", "c", 10); got != "done" {
		t.Fatalf("left on no bound: %s", got)
	}
	if r, err := old.Void(ctx, kindOf("hold", aSupplier, aCust), chobotb.Values{"h1"}); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	// 15 now: outside 6, moved with the shortfall.
	r = migrated(t, m, d2, 2, nil)
	if len(r.Left) != 0 || len(r.Outside) != 1 || r.Outside[0].Reach != "15" || r.Changed != 1 {
		t.Fatalf("%+v", r)
	}
	if got := doCall(t, b, aSupplier, aCust, "s3b", "x", "c", 1); got != ref("cust_full") {
		t.Fatalf("at 15 of at most 6, 1 more: %s", got)
	}
	doCall(t, b, aCust, aSupplier, "back", "c", "x", 10)
	if got := doCall(t, b, aSupplier, aCust, "s4", "x", "c", 2); got != ref("cust_full") {
		t.Fatalf("at 5 of at most 6, 2 more: %s", got)
	}
	if got := doCall(t, b, aSupplier, aCust, "s5", "x", "c", 1); got != "done" {
		t.Fatalf("at 5 of at most 6, 1 more: %s", got)
	}
}
