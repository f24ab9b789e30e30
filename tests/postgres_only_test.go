package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/tests/clients/stock_reservation"
	"github.com/chobo-lang/chobo/tests/clients/to_itself"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// What only PostgreSQL has: locks, isolation levels, constraints that
// guard the tables, rows that keep the bounds they were made with.

func loadBook(t testing.TB, path string) (*book.Book, []byte) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(filepath.Base(path), src)
	if res.Book == nil {
		t.Fatalf("%s does not check", path)
	}
	return res.Book, src
}

// bookSQL is what `chobo build --target postgres` writes for b, whose
// text is src.
func bookSQL(t testing.TB, b *book.Book, src []byte) string {
	t.Helper()
	files, ds := postgres.Build(b, gen.NewSource("x.book", src), gen.Options{})
	if len(ds) > 0 {
		t.Fatalf("%+v", ds)
	}
	return string(files[0].Data)
}

func installSQL(t testing.TB, pool *pgxpool.Pool, b *book.Book, src []byte) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), bookSQL(t, b, src)); err != nil {
		t.Fatal(err)
	}
}

// deployBook is deploy for one book, given as it is written.
func deployBook(t testing.TB, b *book.Book, src []byte, conns int) pgDeployment {
	t.Helper()
	return deploy(t, []pgdeploy.Book{{Name: b.Name, SQL: bookSQL(t, b, src)}}, conns)
}

// onServer starts a cluster, loads the SQL of the book of a case (the
// case of the same name as the book file) into it, and
// returns a pool of at most conns connections.
func onServer(t testing.TB, file string, conns int) *pgxpool.Pool {
	t.Helper()
	srv := pgtest.Start(t)
	pool := srv.Pool(t, conns)
	b, src := loadBook(t, filepath.Join(casesDir, strings.TrimSuffix(file, ".book"), file))
	installSQL(t, pool, b, src)
	return pool
}

// callSQL sends the statement "select result, reason from " + sql and
// reads the answer as the scenarios write it: "done", or "refused: reason".
func callSQL(t testing.TB, pool *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	var result string
	var reason *string
	if err := pool.QueryRow(context.Background(), `select result, reason from `+sql, args...).Scan(&result, &reason); err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
	if reason != nil {
		result += ": " + *reason
	}
	return result
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestNoDeadlockOppositeDirections: four sessions relocate between the
// same two bins, two each way, 100 times each, at once. Accounts are
// locked in id order whatever the direction, so no deadlock can form.
func TestNoDeadlockOppositeDirections(t *testing.T) {
	pool := onServer(t, "to_itself.book", 8)
	ctx := context.Background()
	c := to_itself.Postgres(pool, "deadlock")
	for _, place := range []string{"a", "b"} {
		if r, err := c.StockIn.Do(ctx, to_itself.StockInArgs{Delivery: "d-" + place, Place: place, Qty: 50}); err != nil || r.Outcome != to_itself.Done {
			t.Fatalf("stock_in: %v %v", r, err)
		}
	}
	var wg sync.WaitGroup
	var failures atomic.Int64
	for s := 0; s < 4; s++ {
		from, to := "a", "b"
		if s%2 == 1 {
			from, to = "b", "a"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				_, err := c.Relocate.Do(ctx, to_itself.RelocateArgs{Slip: fmt.Sprintf("s%d-%d", s, i), Source: from, Target: to, Qty: 1})
				if err != nil {
					failures.Add(1)
					t.Errorf("session %d call %d: %v (SQLSTATE %s)", s, i, err, sqlState(err))
					return
				}
			}
		}()
	}
	wg.Wait()
	a, err := c.Balance.Bin(ctx, to_itself.BinAccount{Place: "a"})
	if err != nil {
		t.Fatal(err)
	}
	bb, err := c.Balance.Bin(ctx, to_itself.BinAccount{Place: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Posted+bb.Posted != 100 {
		t.Errorf("units were made or lost: a %d + b %d", a.Posted, bb.Posted)
	}
	t.Logf("400 relocations in opposite directions, %d failed; bins end at %d and %d", failures.Load(), a.Posted, bb.Posted)
}

// countingQuerier counts serialization failures the client retries.
type countingQuerier struct {
	pool     *pgxpool.Pool
	failures *atomic.Int64
}

type countingRow struct {
	pgx.Row
	failures *atomic.Int64
}

func (r countingRow) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if sqlState(err) == "40001" {
		r.failures.Add(1)
	}
	return err
}

func (q countingQuerier) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return countingRow{q.pool.QueryRow(ctx, sql, args...), q.failures}
}

// TestRepeatableReadRetries: four callers put into one account 50 times
// each under REPEATABLE READ. Concurrent writers of one row fail with
// serialization failures there; the client retries them, so every call
// ends done and no unit is lost.
func TestRepeatableReadRetries(t *testing.T) {
	srv := pgtest.Start(t)
	cfg, err := pgxpool.ParseConfig(srv.ConnString(pgtest.DefaultDB))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "repeatable read"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	b, src := loadBook(t, caseByName(t, "stock_reservation").path())
	installSQL(t, pool, b, src)
	var failures atomic.Int64
	c := stock_reservation.Postgres(countingQuerier{pool, &failures}, "rr")
	ctx := context.Background()
	var wg sync.WaitGroup
	var notDone atomic.Int64
	for caller := 0; caller < 4; caller++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				r, err := c.Restock.Do(ctx, stock_reservation.RestockArgs{Delivery: fmt.Sprintf("c%d-%d", caller, i), Sku: "one", Qty: 1})
				if err != nil || r.Outcome != stock_reservation.Done {
					notDone.Add(1)
					t.Errorf("caller %d call %d: %+v %v", caller, i, r, err)
				}
			}
		}()
	}
	wg.Wait()
	bal, err := c.Balance.Shelf(ctx, stock_reservation.ShelfAccount{Sku: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if bal.Posted != 200 || notDone.Load() != 0 {
		t.Errorf("shelf holds %d after 200 calls of 1 (%d not done)", bal.Posted, notDone.Load())
	}
	t.Logf("200 calls under REPEATABLE READ all done; %d serialization failures retried", failures.Load())
}

// TestChecksStopBypassingWrites: an UPDATE that skips the functions and
// would cross a bound is stopped by the table's own check.
func TestChecksStopBypassingWrites(t *testing.T) {
	pool := onServer(t, "stock_reservation.book", 2)
	ctx := context.Background()
	c := stock_reservation.Postgres(pool, "")
	if _, err := c.Restock.Do(ctx, stock_reservation.RestockArgs{Delivery: "d", Sku: "s", Qty: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := pool.Exec(ctx, `update "stock_reservation".accounts set posted = -1 where kind = 'shelf'`)
	if sqlState(err) != "23514" {
		t.Fatalf("want a check violation (23514), got %v", err)
	}
	_, err = pool.Exec(ctx, `update "stock_reservation".accounts set held_out = posted + 1 where kind = 'shelf'`)
	if sqlState(err) != "23514" {
		t.Fatalf("want a check violation for held_out too, got %v", err)
	}
}

// TestBoundsChangedIsAnError: a row made outside has no bound to keep,
// and part of its balance may be on its shards. When a new version's SQL
// gives its kind a bound anyway (E050, loaded without the check), a call
// that reaches such a row fails with CB001 rather than answering from
// the row alone.
func TestBoundsChangedIsAnError(t *testing.T) {
	pool := onServer(t, "stock_reservation.book", 2)
	ctx := context.Background()
	c := stock_reservation.Postgres(pool, "")
	if _, err := c.Restock.Do(ctx, stock_reservation.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 5}); err != nil {
		t.Fatal(err)
	}
	_, src := loadBook(t, caseByName(t, "stock_reservation").path())
	changed := strings.Replace(string(src), "account vendors : pcs outside", "account vendors : pcs\n  at most 0 refused as vendors_owed", 1)
	if changed == string(src) {
		t.Fatal("found no outside account to change")
	}
	res := check.Check("changed.book", []byte(changed))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	installSQL(t, pool, res.Book, []byte(changed))
	_, err := c.Restock.Do(ctx, stock_reservation.RestockArgs{Delivery: "d-2", Sku: "s", Qty: 1})
	if sqlState(err) != "CB001" {
		t.Fatalf("want CB001, got %v", err)
	}
}

// TestExpireCounts: expire() gives back exactly the holds past their
// deadline, says how many, and leaves balances equal to their entries.
func TestExpireCounts(t *testing.T) {
	pool := onServer(t, "stock_reservation.book", 2)
	ctx := context.Background()
	c := stock_reservation.Postgres(pool, "")
	if _, err := c.Restock.Do(ctx, stock_reservation.RestockArgs{Delivery: "d", Sku: "s", Qty: 100}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		if r, err := c.ReserveStock.Hold(ctx, stock_reservation.ReserveStockArgs{Order: fmt.Sprint(i), Sku: "s", Qty: 2}); err != nil || r.Outcome != stock_reservation.Done {
			t.Fatalf("hold %d: %+v %v", i, r, err)
		}
	}
	// Age 20 of the 30 holds past their deadline instead of waiting.
	if _, err := pool.Exec(ctx, `update "stock_reservation".holds set deadline = clock_timestamp() - interval '1 second' where key[1]::int < 20`); err != nil {
		t.Fatal(err)
	}
	st, err := c.ReserveStock.Status(ctx, stock_reservation.ReserveStockKey{Order: "3", Sku: "s"})
	if err != nil || st != stock_reservation.Expired {
		t.Fatalf("status of an aged hold before expire(): %q %v", st, err)
	}
	for _, want := range []int{20, 0} {
		n, err := c.Expire(ctx)
		if err != nil || n != want {
			t.Fatalf("expire() = %d, %v; want %d", n, err, want)
		}
	}
	bal, err := c.Balance.Shelf(ctx, stock_reservation.ShelfAccount{Sku: "s"})
	if err != nil || bal.HeldOut != 20 || bal.Posted != 100 {
		t.Fatalf("shelf after expire: %+v %v", bal, err)
	}
	r, err := c.ReserveStock.Post(ctx, stock_reservation.ReserveStockKey{Order: "3", Sku: "s"}, nil)
	if err != nil || r.Reason != "expired" {
		t.Fatalf("post of an expired hold: %+v %v", r, err)
	}
	n, err := c.ExpireUpTo(ctx, 5)
	if err != nil || n != 0 {
		t.Fatalf("a third expire(): %d %v", n, err)
	}
}

// TestChoboIDMatchesGo computes every pinned id with the SQL function and
// compares: the same accounts must have the same ids in every backend.
func TestChoboIDMatchesGo(t *testing.T) {
	pool := onServer(t, "wallet.book", 2)
	for _, v := range ids.Vectors {
		var got string
		parts := append([]string{v.Role}, v.Parts...)
		if err := pool.QueryRow(context.Background(), `select replace("wallet".chobo_id($1)::text, '-', '')`, parts).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != v.Hex {
			t.Errorf("chobo_id(%q) = %s in SQL, %s in Go", parts, got, v.Hex)
		}
	}
}

// TestOneMoveTryPutsBack: a call with one move between two bounded
// accounts first tries the move on both rows, in id order, in the
// statement that inserts its key. When the first row passes its bound and
// the second does not, the first is put back before the general path
// answers. Members are taken until that has happened both ways: a take
// that passes before a put that is refused (too_much, when member_points
// has the lower id), and a put that passes before a take that is refused
// (not_enough_points, when spent has the lower id).
func TestOneMoveTryPutsBack(t *testing.T) {
	srv := pgtest.Start(t)
	pool := srv.Pool(t, 2)
	res := check.Check("points.book", []byte(pointsBook))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	installSQL(t, pool, res.Book, []byte(pointsBook))
	ctx := context.Background()
	balances := func(member string) [2][3]int64 {
		t.Helper()
		var b [2][3]int64
		for i, account := range []string{"balance_member_points", "balance_spent"} {
			if err := pool.QueryRow(ctx, `select posted, held_in, held_out from "points".`+account+`('t', $1)`, member).Scan(&b[i][0], &b[i][1], &b[i][2]); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	pointsFirst := func(member string) bool {
		t.Helper()
		var first bool
		if err := pool.QueryRow(ctx, `select "points".chobo_id(array['account', 'points', 't', 'member_points', $1])
			< "points".chobo_id(array['account', 'points', 't', 'spent', $1])`, member).Scan(&first); err != nil {
			t.Fatal(err)
		}
		return first
	}
	// refused makes both rows of member, leaves member's points or spent
	// room short by one, and wants the next hold of 1 refused with reason
	// and nothing changed.
	refused := func(member, reason string, points, hold int64) {
		t.Helper()
		if got := callSQL(t, pool, `"points".grant_do('t', $1, $2, $3)`, "g-"+member, member, points); got != "done" {
			t.Fatalf("grant: %s", got)
		}
		if got := callSQL(t, pool, `"points".spend_hold('t', $1, $2, $3)`, "fill-"+member, member, hold); got != "done" {
			t.Fatalf("fill: %s", got)
		}
		before := balances(member)
		if got := callSQL(t, pool, `"points".spend_hold('t', $1, $2, 1)`, "one-"+member, member); got != "refused: "+reason {
			t.Errorf("%s (member_points first: %v): %s, want refused: %s", member, pointsFirst(member), got, reason)
		}
		if after := balances(member); after != before {
			t.Errorf("%s: a refused call changed balances: %v -> %v", member, before, after)
		}
	}
	var takeFirst, putFirst bool
	for i := 0; !(takeFirst && putFirst) && i < 64; i++ {
		if m := fmt.Sprintf("full-%d", i); pointsFirst(m) {
			takeFirst = true
			refused(m, "too_much", 2000000000, 1000000000)
		}
		if m := fmt.Sprintf("empty-%d", i); !pointsFirst(m) {
			putFirst = true
			refused(m, "not_enough_points", 5, 5)
		}
	}
	if !takeFirst || !putFirst {
		t.Fatalf("the members tried did not give both id orders (take first %v, put first %v)", takeFirst, putFirst)
	}
	langtest.EntriesBalance(t, pool, res.Book)
}

// TestEarlierLayoutMovesOver: a schema made by an earlier chobo, with
// entries and holds in tables of their own, is carried over when today's
// SQL is loaded over it. Balances, hold states, hold ids and the sum of
// every account's entries read the same before and after; the keys used
// before answer as they did; a hold made before can still be posted. An
// entry that has no key row to move onto stops the load, and the schema
// stays as it was.
func TestEarlierLayoutMovesOver(t *testing.T) {
	earlier, err := os.ReadFile(filepath.Join(casesDir, "earlier-layout.sql"))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check("points.book", []byte(pointsBook))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	ctx := context.Background()
	srv := pgtest.Start(t)
	exec := func(pool *pgxpool.Pool, sql string) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%.60s: %v", sql, err)
		}
	}
	// state reads everything a user can read, as one text.
	state := func(pool *pgxpool.Pool) string {
		t.Helper()
		var b strings.Builder
		for _, q := range []string{
			`select "points".balance_member_points('t', 'm1')::text || "points".balance_member_points('t', 'm2')::text
			     || "points".balance_redeemed('t')::text || "points".balance_spent('t', 'm2')::text || "points".balance_issued('t')::text`,
			`select coalesce("points".redeem_status('t', 'r1'), '') || ' ' || coalesce("points".redeem_status('t', 'r2'), '') || ' '
			     || coalesce("points".redeem_status('t', 'r3'), '') || ' ' || coalesce("points".spend_status('t', 's1'), '') || ' '
			     || coalesce("points".spend_status('t', 's2'), '-')`,
			`select string_agg(id::text || ' ' || kind || ' ' || key::text || ' ' || state || ' ' || amounts::text, '; ' order by id) from "points".holds`,
			`select string_agg(account::text || ' ' || p || ' ' || i || ' ' || o, '; ' order by account)
			   from (select account, sum(posted) p, sum(held_in) i, sum(held_out) o from "points".entries group by account) e`,
		} {
			var s string
			if err := pool.QueryRow(ctx, q).Scan(&s); err != nil {
				t.Fatalf("%.60s: %v", q, err)
			}
			b.WriteString(s + "\n")
		}
		return b.String()
	}
	earlierCalls := func(pool *pgxpool.Pool) {
		t.Helper()
		for _, c := range []struct{ sql, want string }{
			{`grant_do('t', 'g1', 'm1', 100)`, "done"},
			{`grant_do('t', 'g2', 'm2', 50)`, "done"},
			{`redeem_hold('t', 'r1', 'm1', 10)`, "done"},
			{`redeem_hold('t', 'r2', 'm1', 20)`, "done"},
			{`redeem_hold('t', 'r3', 'm1', 5)`, "done"},
			{`spend_hold('t', 's1', 'm2', 7)`, "done"},
			{`spend_hold('t', 's2', 'm2', 500)`, "refused: not_enough_points"},
			{`redeem_post('t', 'r1')`, "done"},
			{`redeem_void('t', 'r2')`, "done"},
		} {
			if got := callSQL(t, pool, `"points".`+c.sql); got != c.want {
				t.Fatalf("before: %s = %s, want %s", c.sql, got, c.want)
			}
		}
		exec(pool, `update "points".holds set deadline = clock_timestamp() where key = array['r3']`)
		var n int
		if err := pool.QueryRow(ctx, `select "points".expire()`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("expire() before: %d %v", n, err)
		}
	}
	files, ds := postgres.Build(res.Book, gen.NewSource("points.book", []byte(pointsBook)), gen.Options{})
	if len(ds) > 0 {
		t.Fatalf("%+v", ds)
	}
	today := string(files[0].Data)

	t.Run("moves", func(t *testing.T) {
		pool := srv.Pool(t, 2)
		exec(pool, string(earlier))
		earlierCalls(pool)
		before := state(pool)
		exec(pool, today)
		exec(pool, today) // a second load finds nothing left to move
		if after := state(pool); after != before {
			t.Fatalf("state changed in the move:\nbefore:\n%safter:\n%s", before, after)
		}
		for _, c := range []struct{ sql, want string }{
			{`grant_do('t', 'g1', 'm1', 100)`, "done_before"},
			{`redeem_hold('t', 'r1', 'm1', 10)`, "done_before"},
			{`spend_hold('t', 's2', 'm2', 500)`, "refused: already_refused"},
			{`redeem_post('t', 'r3')`, "refused: expired"},
			{`spend_post('t', 's1')`, "done"},
			{`redeem_hold('t', 'r4', 'm1', 1)`, "done"},
		} {
			if got := callSQL(t, pool, `"points".`+c.sql); got != c.want {
				t.Errorf("after: %s = %s, want %s", c.sql, got, c.want)
			}
		}
		// Every bounded row equals the sum of its entries, and every
		// balance read equals it too.
		var bad string
		if err := pool.QueryRow(ctx, `select coalesce(string_agg(a.kind, ', '), '')
  from "points".accounts a
  left join (select tenant, account, sum(posted) p, sum(held_in) i, sum(held_out) o from "points".entries group by 1, 2) e
    on e.tenant = a.tenant and e.account = a.id
 where (a.lower_bound is not null or a.upper_bound is not null)
   and (a.posted, a.held_in, a.held_out) is distinct from (e.p, e.i, e.o)`).Scan(&bad); err != nil || bad != "" {
			t.Errorf("rows that differ from their entries: %q %v", bad, err)
		}
		// the entries of the earlier layout are in the history too, the
		// calls after the move numbered on after them
		langtest.EntriesBalance(t, pool, res.Book)
		var m1, issued string
		if err := pool.QueryRow(ctx, `select "points".balance_member_points('t', 'm1')::text, "points".balance_issued('t')::text`).Scan(&m1, &issued); err != nil {
			t.Fatal(err)
		}
		if m1 != "(90,0,1)" || issued != "(-150,0,0)" {
			t.Errorf("after: m1 %s, issued %s; want (90,0,1) and (-150,0,0)", m1, issued)
		}
		// The two checks of the earlier schema are one now, and it still
		// stops a write past either bound that bypasses the functions.
		var checks string
		if err := pool.QueryRow(ctx, `select string_agg(conname, ' ' order by conname) from pg_constraint
 where conrelid = '"points".accounts'::regclass and contype = 'c'`).Scan(&checks); err != nil || checks != "within_bounds" {
			t.Errorf("checks of accounts after the move: %q %v, want within_bounds alone", checks, err)
		}
		for _, bypass := range []string{
			`update "points".accounts set posted = -1 where tenant = 't' and kind = 'member_points' and args = array['m1']`,
			`update "points".accounts set posted = 1000000001 where tenant = 't' and kind = 'spent' and args = array['m2']`,
		} {
			_, err := pool.Exec(ctx, bypass)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "23514" || pgErr.ConstraintName != "within_bounds" {
				t.Errorf("%s: %v, want a violation of within_bounds", bypass, err)
			}
		}
	})

	t.Run("entry without a key row", func(t *testing.T) {
		pool := srv.Pool(t, 2)
		exec(pool, `create database orphan`)
		cfg := pool.Config().ConnConfig.Copy()
		cfg.Database = "orphan"
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, string(earlier)); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `insert into "points".entries (tenant, account, kind, op, key, posted, held_in, held_out)
values ('t', "points".chobo_id(array['account', 'points', 't', 'issued']), 'grant', 'do', array['ghost'], 5, 0, 0)`); err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, today)
		if err == nil || !strings.Contains(err.Error(), "1 entries of \"points\".entries have no key row") {
			t.Fatalf("loading over an entry without a key row: %v", err)
		}
		// The load is one transaction, which its failure left open and
		// aborted, as psql leaves it when it stops; ending it commits
		// nothing of the load.
		if _, err := conn.Exec(ctx, "rollback"); err != nil {
			t.Fatal(err)
		}
		var kind string
		if err := conn.QueryRow(ctx, `select relkind::text from pg_class where oid = to_regclass('"points".entries')`).Scan(&kind); err != nil || kind != "r" {
			t.Fatalf("entries after the failed load: relkind %q %v, want the table kept", kind, err)
		}
	})
}
