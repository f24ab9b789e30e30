package langtest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// The tests that restart PgBouncer and the server behind it while a
// client calls, in the tests package and in a language's folder, share
// one shape: the stock_reservation case, callers that each send restock
// calls of 1 unit to a shelf of their own (s-0, s-1, …), the even callers
// letting the client resend a lost call and the odd ones not. What they
// share is here.

// RestockCase is the case whose book the restart tests call.
const RestockCase = "stock_reservation"

// StallShelves locks the shelf rows of the given SKUs of a tenant from a
// transaction on the server itself, and returns once at least one call
// waits for them. A restart made before release is then certain to cut
// calls in flight, where otherwise it might fall between two calls and
// leave nothing to prove. release ends the transaction (it may already
// have died with the server). The rows must exist: each caller's shelf is
// seeded before the callers start.
func StallShelves(t testing.TB, admin *pgxpool.Pool, tenant string, skus []string) (release func()) {
	t.Helper()
	ctx := context.Background()
	locker, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release = func() { _ = locker.Rollback(ctx) }
	var locked int
	if err := locker.QueryRow(ctx, `with l as (select 1 from "stock_reservation".accounts where tenant = $1 and kind = 'shelf' and args[1] = any($2::text[]) for update) select count(*) from l`, tenant, skus).Scan(&locked); err != nil || locked != len(skus) {
		release()
		t.Fatalf("locking the shelves %v: %d rows, %v", skus, locked, err)
	}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var waiting int
		if err := admin.QueryRow(ctx, `select count(*) from pg_stat_activity where wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			release()
			t.Fatal(err)
		}
		if waiting > 0 {
			return release
		}
		if time.Now().After(deadline) {
			release()
			t.Fatalf("no call waited for the shelves %v in 90 s", skus)
		}
	}
}

// OddShelves are the SKUs of the callers that do not resend: the calls
// StallShelves holds back for a restart to cut.
func OddShelves(callers int) []string {
	var skus []string
	for c := 1; c < callers; c += 2 {
		skus = append(skus, fmt.Sprintf("s-%d", c))
	}
	return skus
}

// Shelves are the shelves of the restart tests' callers in one tenant,
// s-0 to s-<Callers-1>, reached on the server itself, past the pooler,
// through the book's SQL functions rather than a client under test.
type Shelves struct {
	t       testing.TB
	admin   *pgxpool.Pool
	sql     conformance.SQL
	restock *book.Transfer
	Tenant  string
	Callers int
}

// NewShelves are the callers' shelves of tenant in the book b of
// RestockCase, loaded on the server admin reaches.
func NewShelves(t testing.TB, admin *pgxpool.Pool, b *book.Book, tenant string, callers int) *Shelves {
	t.Helper()
	sql, err := conformance.NewSQL(b, admin, admin)
	if err != nil {
		t.Fatal(err)
	}
	return &Shelves{t: t, admin: admin, sql: sql, restock: b.Transfer("restock"), Tenant: tenant, Callers: callers}
}

// Restock sends restock.do of 1 unit to sku under the key delivery.
func (s *Shelves) Restock(delivery, sku string) (interp.Result, error) {
	return s.sql.Call(context.Background(), interp.Call{Transfer: s.restock, Op: book.Do,
		Strings: map[string]string{"delivery": delivery, "sku": sku}, Amounts: map[string]int64{"qty": 1}}, s.Tenant)
}

// Seed gives each caller's shelf one unit, so that its row exists for
// RestartWhileCalling to lock before the callers start.
func (s *Shelves) Seed() {
	s.t.Helper()
	for c := 0; c < s.Callers; c++ {
		if r, err := s.Restock(fmt.Sprintf("seed-%d", c), fmt.Sprintf("s-%d", c)); err != nil || r.Outcome != interp.Done {
			s.t.Fatalf("seeding shelf s-%d: %v, %v", c, r, err)
		}
	}
}

// Units are what the shelves hold, posted, all together.
func (s *Shelves) Units() int64 {
	s.t.Helper()
	var total int64
	for c := 0; c < s.Callers; c++ {
		var posted int64
		if err := s.admin.QueryRow(context.Background(), `select posted from "stock_reservation"."balance_shelf"($1, $2)`, s.Tenant, fmt.Sprintf("s-%d", c)).Scan(&posted); err != nil {
			s.t.Fatal(err)
		}
		total += posted
	}
	return total
}

// WantUnits fails t unless the shelves hold one unit for each of calls
// and each seed.
func (s *Shelves) WantUnits(calls int64) {
	s.t.Helper()
	if total := s.Units(); total != calls+int64(s.Callers) {
		s.t.Errorf("the shelves hold %d units after %d calls of 1 each and %d seeds", total, calls, s.Callers)
	}
}

// RestartWhileCalling waits for calls to be answered (wait, told which
// step it waits after), restarts PgBouncer and waits again, then restarts
// the server behind it and waits again. Before each restart the shelves
// of the callers that do not resend are locked until a call waits for
// them (StallShelves), and released once the restart is done: a restart
// then always cuts calls in flight.
func (s *Shelves) RestartWhileCalling(bouncerRestart, serverRestart func() error, wait func(what string)) {
	s.t.Helper()
	wait("before the restarts")
	for _, step := range []struct {
		what    string
		restart func() error
	}{
		{"after PgBouncer's restart", bouncerRestart},
		{"after the server's restart behind PgBouncer", serverRestart},
	} {
		release := StallShelves(s.t, s.admin, s.Tenant, OddShelves(s.Callers))
		err := step.restart()
		release()
		if err != nil {
			s.t.Fatal(err)
		}
		wait(step.what)
	}
}

// LogTally logs how many times each message came, one line each, sorted,
// a message cut after 300 bytes.
func LogTally(t testing.TB, messages map[string]int) {
	t.Helper()
	var lines []string
	for m, n := range messages {
		if len(m) > 300 {
			m = m[:300] + "…"
		}
		lines = append(lines, fmt.Sprintf("%4d× %s", n, m))
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
}

// EntriesBalance fails t where an account of b on the server is not the
// sum of its entries.
func EntriesBalance(t testing.TB, pool *pgxpool.Pool, b *book.Book) {
	t.Helper()
	bad, err := conformance.EntriesBalance(context.Background(), pool, b)
	if err != nil || len(bad) > 0 {
		t.Errorf("balances that are not the sum of their entries: %v %v", bad, err)
	}
}

// CaseBook is the checked book of a case and the SQL `chobo build
// --target postgres` writes for it, for Deploy.
func CaseBook(t testing.TB, caseName string) (*book.Book, pgdeploy.Book) {
	t.Helper()
	books, err := filepath.Glob(filepath.Join(Root(t), "tests", "testdata", caseName, "*.book"))
	if err != nil {
		t.Fatal(err)
	}
	books = slices.DeleteFunc(books, func(p string) bool { return filepath.Base(p) == "against.book" })
	if len(books) != 1 {
		t.Fatalf("langtest: the book of case %s: %v", caseName, books)
	}
	return bookSQL(t, books[0])
}
