package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/chobo/target/postgres"
	"github.com/chobo-lang/chobo/tests/conformance"
	"github.com/chobo-lang/chobo/tests/pgtest"
)

// conformanceBooks are the books every backend must agree on: the test
// books and the examples.
func conformanceBooks(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, glob := range []string{filepath.Join(booksDir, "*.book"), filepath.Join("..", "examples", "*", "*.book")} {
		ps, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	if len(paths) < 12 {
		t.Fatalf("found only %d books", len(paths))
	}
	return paths
}

// loaded is a book ready to run on a backend: its test copy, and every
// scenario of it, generated and hand-written.
type loaded struct {
	path      string
	copy      *book.Book
	copySrc   []byte
	scenarios []scenario.Scenario
}

func loadForBackends(t *testing.T, path string) loaded {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(filepath.Base(path), src)
	if res.Book == nil {
		t.Fatalf("%s does not check", path)
	}
	copySrc, cp, err := conformance.Shorten(res.Book, src)
	if err != nil {
		t.Fatal(err)
	}
	l := loaded{path: path, copy: cp, copySrc: copySrc}
	// Generated scenarios must not depend on how long holds last: their
	// passes go past every deadline.
	for _, sc := range scenario.Generate(res.Book) {
		a, b := scenario.Run(res.Book, sc), scenario.Run(cp, sc)
		if !sameOutcomes(a, b) {
			t.Errorf("%s: %q answers differently on the test copy", path, sc.Name)
		}
		l.scenarios = append(l.scenarios, sc)
	}
	more := strings.TrimSuffix(path, ".book") + ".more.json"
	if data, err := os.ReadFile(more); err == nil {
		scs, err := scenario.Read(cp, data)
		if err != nil {
			t.Fatalf("%s: %v", more, err)
		}
		l.scenarios = append(l.scenarios, scs...)
	}
	return l
}

func sameOutcomes(a, b []scenario.Outcome) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if conformance.FromOutcome(a[i]).String() != conformance.FromOutcome(b[i]).String() {
			return false
		}
	}
	return true
}

// runAll runs every scenario of every book on a backend, each for a
// tenant of its own, and compares with the interpreter.
func runAll(t *testing.T, books []loaded, backend func(loaded) conformance.Backend) conformance.Stats {
	t.Helper()
	var jobs []conformance.Job
	for _, l := range books {
		be := backend(l)
		for _, sc := range l.scenarios {
			jobs = append(jobs, conformance.Job{Where: l.path, Book: l.copy, Scenario: sc, Backend: be, Tenant: fmt.Sprintf("s%d", len(jobs))})
		}
	}
	return conformance.RunAll(t, jobs)
}

// startPostgres starts a cluster and loads the SQL of every book's test
// copy into it.
func startPostgres(t *testing.T, books []loaded) *pgxpool.Pool {
	t.Helper()
	srv := pgtest.Start(t)
	pool := srv.Pool(t, 20)
	for _, l := range books {
		files, ds := postgres.Build(l.copy, target.NewSource(filepath.Base(l.path), l.copySrc), target.Options{})
		if len(ds) > 0 {
			t.Fatalf("%s: %+v", l.path, ds)
		}
		if _, err := pool.Exec(context.Background(), string(files[0].Data)); err != nil {
			t.Fatalf("%s: loading the SQL: %v", l.path, err)
		}
	}
	return pool
}

// TestPostgresConformance runs every scenario of every book through the
// SQL functions on a real PostgreSQL server.
func TestPostgresConformance(t *testing.T) {
	var books []loaded
	for _, p := range conformanceBooks(t) {
		books = append(books, loadForBackends(t, p))
	}
	pool := startPostgres(t, books)
	st := runAll(t, books, func(l loaded) conformance.Backend {
		return conformance.SQL{Book: l.copy, Pool: pool}
	})
	checkEntries(t, pool, books)
	t.Logf("%d scenarios of %d books on PostgreSQL through SQL (%d with together, %d run again)", st.Total, len(books), st.Together, st.Again)
}

// TestGoClientConformance runs every scenario of every book through the
// generated Go clients, compiled in, on a real PostgreSQL server.
func TestGoClientConformance(t *testing.T) {
	var books []loaded
	for _, p := range conformanceBooks(t) {
		books = append(books, loadForBackends(t, p))
	}
	pool := startPostgres(t, books)
	st := runAll(t, books, func(l loaded) conformance.Backend {
		return conformance.GoClient{Book: l.copy, Postgres: goClients[clientDir(t, l.path)], Pool: pool}
	})
	checkEntries(t, pool, books)
	t.Logf("%d scenarios of %d books on PostgreSQL through the Go clients (%d with together, %d run again)", st.Total, len(books), st.Together, st.Again)
}

// checkEntries fails for every account whose balance is not the sum of
// its entries.
func checkEntries(t *testing.T, pool *pgxpool.Pool, books []loaded) {
	t.Helper()
	for _, l := range books {
		bad, err := conformance.EntriesBalance(context.Background(), pool, l.copy)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Errorf("%s: balances that are not the sum of their entries: %v", l.path, bad)
		}
	}
}
