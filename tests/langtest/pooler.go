package langtest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
)

// The tests that restart PgBouncer and the server behind it while a
// client calls, in the tests package and in a language's folder, share
// one shape: the stock_reservation case, callers that each send restock
// calls of 1 unit to a shelf of their own (s-0, s-1, …), the even callers
// letting the client resend a lost call and the odd ones not. What they
// share is here.

// RestockCase is the case whose book the restart tests call.
const RestockCase = "stock_reservation"

// RestartWhileCalling waits for calls to be answered (wait, told which
// step it waits after), restarts PgBouncer and waits again, then restarts
// the server behind it and waits again. Before each restart the shelves
// of the callers that do not resend are locked until a call waits for
// them (StallShelves), and released once the restart is done: a restart
// then always cuts calls in flight.
func RestartWhileCalling(t testing.TB, admin *pgxpool.Pool, tenant string, callers int, bouncerRestart, serverRestart func() error, wait func(what string)) {
	t.Helper()
	wait("before the restarts")
	for _, step := range []struct {
		what    string
		restart func() error
	}{
		{"after PgBouncer's restart", bouncerRestart},
		{"after the server's restart behind PgBouncer", serverRestart},
	} {
		release := StallShelves(t, admin, tenant, OddShelves(callers))
		err := step.restart()
		release()
		if err != nil {
			t.Fatal(err)
		}
		wait(step.what)
	}
}

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
	b, files, ok := build(t, books[0], "postgres")
	if !ok || len(files) != 1 {
		t.Fatalf("%s does not check, or its SQL is not one file", books[0])
	}
	return b, pgdeploy.Book{Name: b.Name, SQL: string(files[0].Data)}
}
