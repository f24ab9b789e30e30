// Package runner is the program behind chobo_conformance_test: it runs
// every scenario of one book on a throwaway PostgreSQL cluster, through
// the book's SQL functions, and compares each run with the reference
// interpreter.
//
// It is a Go test rather than a plain binary because tests/pgtest, which
// starts and removes the clusters, works on a testing.TB. The rule passes
// everything through the environment, as runfiles paths:
//
//	CHOBO_CONFORMANCE_BOOK       the .book file
//	CHOBO_CONFORMANCE_SCENARIOS  hand-written scenario files (.json), separated by spaces
//	CHOBO_CONFORMANCE_INITDB     initdb of the PostgreSQL toolchain (its directory holds pg_ctl and postgres)
//
// Without CHOBO_CONFORMANCE_BOOK (a bare `bazel test` of this target) the
// test skips.
//
// Given a generated Go client (chobo_conformance_test's client), a runner
// of the book's own is compiled with it and runs every scenario through it
// too. TigerBeetle would fit in as one more conformance.Backend in
// backends(); see docs/bazel.md.
package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/chobo/target/postgres"
	"github.com/chobo-lang/chobo/tests/conformance"
	"github.com/chobo-lang/chobo/tests/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// runfile turns a runfiles path ("repo/dir/file") into a path that is
// valid whatever the working directory is.
func runfile(t *testing.T, p string) string {
	t.Helper()
	for _, env := range []string{"RUNFILES_DIR", "TEST_SRCDIR"} {
		if d := os.Getenv(env); d != "" {
			return filepath.Join(d, p)
		}
	}
	t.Fatalf("neither RUNFILES_DIR nor TEST_SRCDIR is set: run this through bazel test")
	return ""
}

func TestConformance(t *testing.T) {
	bookPath := os.Getenv("CHOBO_CONFORMANCE_BOOK")
	if bookPath == "" {
		t.Skip("SKIP: CHOBO_CONFORMANCE_BOOK is not set; this runner is driven by chobo_conformance_test")
	}
	bookPath = runfile(t, bookPath)

	// The server binaries: the toolchain hands over initdb; pgtest takes
	// the directory it really lives in (the toolchain's files may be
	// symlinks, and the server finds its share/ and lib/ from there).
	initdb, err := filepath.EvalSymlinks(runfile(t, os.Getenv("CHOBO_CONFORMANCE_INITDB")))
	if err != nil {
		t.Fatalf("the PostgreSQL toolchain's initdb: %v", err)
	}
	t.Setenv("CHOBO_PG_BIN", filepath.Dir(initdb))
	fmt.Printf("PostgreSQL server binaries: %s\n", filepath.Dir(initdb))
	// A missing server is a failure here, never a skip.
	t.Setenv("CI", "true")

	src, err := os.ReadFile(bookPath)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(bookPath)
	res := check.Check(name, src)
	if res.Book == nil {
		t.Fatalf("%s does not check: %+v", name, res.Diags)
	}
	// Holds expire in real time on the server: run a copy of the book
	// whose holds last seconds (see conformance.Shorten).
	copySrc, cp, err := conformance.Shorten(res.Book, src)
	if err != nil {
		t.Fatal(err)
	}
	scenarios := scenario.Generate(res.Book)
	for _, p := range strings.Fields(os.Getenv("CHOBO_CONFORMANCE_SCENARIOS")) {
		data, err := os.ReadFile(runfile(t, p))
		if err != nil {
			t.Fatal(err)
		}
		more, err := scenario.Read(cp, data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		scenarios = append(scenarios, more...)
	}

	srv := pgtest.Start(t)
	pool := srv.Pool(t, 20)
	files, ds := postgres.Build(cp, target.NewSource(name, copySrc), target.Options{})
	if len(ds) > 0 {
		t.Fatalf("%s: the SQL of the test copy: %+v", name, ds)
	}
	if _, err := pool.Exec(context.Background(), string(files[0].Data)); err != nil {
		t.Fatalf("%s: loading the SQL: %v", name, err)
	}

	for _, be := range backends(cp, pool) {
		t.Run(be.name, func(t *testing.T) {
			n := runAll(t, name, cp, scenarios, be)
			// Printed, not logged, so the test log shows what ran even
			// without -test.v.
			if !t.Failed() {
				fmt.Printf("%s: %d scenarios on %s, each equal to the interpreter\n", name, n, be.name)
			}
		})
	}
	bad, err := conformance.EntriesBalance(context.Background(), pool, cp)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("balances that are not the sum of their entries: %v", bad)
	}
}

// goClient is the constructor (Postgres) of the book's generated Go
// client when chobo_conformance_test was given one: a file the rule writes
// sets it, compiled into a runner of that book's own.
var goClient any

type namedBackend struct {
	name    string
	backend conformance.Backend
}

// backends are the ways the book is reached: its SQL functions, and its
// generated Go client when one is compiled in. TigerBeetle needs a server
// that no toolchain provides yet.
func backends(b *book.Book, pool *pgxpool.Pool) []namedBackend {
	out := []namedBackend{{"postgres-sql", conformance.SQL{Book: b, Pool: pool}}}
	if goClient != nil {
		out = append(out, namedBackend{"postgres-go", conformance.GoClient{Book: b, Postgres: goClient, Pool: pool}})
	}
	return out
}

// runAll runs every scenario on one backend, each for a tenant of its
// own (backends share the server, so the tenant names the backend too),
// and reports how many ran.
func runAll(t *testing.T, name string, b *book.Book, scenarios []scenario.Scenario, be namedBackend) int {
	var jobs []conformance.Job
	for i, sc := range scenarios {
		jobs = append(jobs, conformance.Job{Where: name, Book: b, Scenario: sc, Backend: be.backend, Tenant: fmt.Sprintf("%s-s%d", be.name, i)})
	}
	return conformance.RunAll(t, jobs).Total
}
