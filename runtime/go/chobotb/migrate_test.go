package chobotb_test

import (
	"context"
	"errors"
	"testing"

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

// TestMigrateLeavesOutsideAccounts narrows a bound below an account's
// balance: that account keeps its old bound and is reported, the others
// move; once it is back inside, a run of the same version moves it.
func TestMigrateLeavesOutsideAccounts(t *testing.T) {
	m := tbmodel.New()
	old := chobotb.NewBook(m, testDef(), "")
	doCall(t, old, aSupplier, aCapped, "s1", "x", "high", 9)
	doCall(t, old, aSupplier, aCapped, "s2", "x", "low", 2)
	doCall(t, old, aCredit, aCust, "s3", "deep", "c", 4)
	d2 := testDef()
	d2.Accounts[aCapped].Upper.Value = 5
	d2.Accounts[aCredit].Lower.Value = -2
	r := migrated(t, m, d2, 2, chobotb.ErrLeft)
	if len(r.Left) != 2 || r.Left[0].Side == r.Left[1].Side || r.Left[0].HeldBefore || r.Left[1].HeldBefore {
		t.Fatalf("%+v", r.Left)
	}
	b := chobotb.NewBook(m, d2, "")
	// high keeps 10: 9 + 1 is done, as before the migration.
	if got := doCall(t, b, aSupplier, aCapped, "h1", "x", "high", 1); got != "done" {
		t.Fatal(got)
	}
	if got := doCall(t, b, aSupplier, aCapped, "l1", "x", "low", 4); got != ref("full") {
		t.Fatalf("low: %s, want refused(full) under 5", got)
	}
	// Back inside, then a run of the same version moves it.
	doCall(t, b, aCapped, aCust, "h2", "high", "c", 6)
	doCall(t, b, aCust, aCredit, "d1", "c", "deep", 3)
	if r := migrated(t, m, d2, 2, nil); r.Changed != 2 {
		t.Fatalf("%+v", r)
	}
	if got := doCall(t, b, aSupplier, aCapped, "h3", "x", "high", 2); got != ref("full") {
		t.Fatalf("high at 4: %s, want refused(full) under 5", got)
	}
	if got := doCall(t, b, aCredit, aCust, "d2", "deep", "c", 2); got != ref("over_limit") {
		t.Fatalf("deep at -1: %s, want refused(over_limit) under -2", got)
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
	// 15 now: outside 6, so left again, as outside.
	r = migrated(t, m, d2, 2, chobotb.ErrLeft)
	if len(r.Left) != 1 || r.Left[0].HeldBefore || r.Left[0].Reach != "15" {
		t.Fatalf("%+v", r.Left)
	}
	doCall(t, b, aCust, aSupplier, "back", "c", "x", 10)
	if r := migrated(t, m, d2, 2, nil); r.Changed != 1 {
		t.Fatalf("%+v", r)
	}
	if got := doCall(t, b, aSupplier, aCust, "s4", "x", "c", 2); got != ref("cust_full") {
		t.Fatalf("at 5 of at most 6, 2 more: %s", got)
	}
	if got := doCall(t, b, aSupplier, aCust, "s5", "x", "c", 1); got != "done" {
		t.Fatalf("at 5 of at most 6, 1 more: %s", got)
	}
}
