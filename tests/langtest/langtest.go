// Package langtest is what the tests in a client language's folder
// (lang/<language>) and beside the Go runtime share: the root of the
// checkout and the shared vectors in it, the language's tools as its own
// driver kit finds them (or the test skipped aloud), a PostgreSQL server
// for a runtime's tests against a real one, and the check that a
// runtime's replay of the vectors catches small changes to its code.
package langtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
)

// Root is the root of the checkout: the nearest folder above the test's
// working directory that holds go.mod. Under Bazel, whose sandbox holds
// no checkout, it skips t: go test runs the tests that need one.
func Root(t testing.TB) string {
	t.Helper()
	if os.Getenv("TEST_SRCDIR") != "" {
		Skip(t, "under Bazel the checkout is not at hand; go test runs the tests that need one")
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("langtest: no go.mod above the test's folder")
		}
		dir = up
	}
}

// Testdata is the path of a file of runtime/testdata, where the vectors
// every runtime replays are.
func Testdata(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Root(t), "runtime", "testdata", name)
}

// A Client is a file of the client chobo writes of a case's book.
type Client struct {
	Case string // the case's folder under tests/testdata
	gen.File
}

// Clients are the files of the clients of target (a name of the
// registry) of every end-to-end case (tests/testdata/<case>) whose book
// checks and which the target does not refuse, as the build writes them:
// the same as the case's expected/<target>, which the golden tests hold
// them to, and there for a language with no goldens yet.
func Clients(t testing.TB, targetName string) []Client {
	t.Helper()
	return casesClients(t, "*", targetName)
}

// CaseClient is the one file of the client of target of the case named.
func CaseClient(t testing.TB, caseName, targetName string) Client {
	t.Helper()
	found := casesClients(t, caseName, targetName)
	if len(found) != 1 {
		t.Fatalf("langtest: %d files of the %s client of case %s, want one", len(found), targetName, caseName)
	}
	return found[0]
}

// Targets are the names of the registry's targets of a client language.
func Targets(language string) []string {
	var out []string
	for _, tg := range target.All {
		if tg.Language == language {
			out = append(out, tg.Name)
		}
	}
	return out
}

// casesClients is Clients of the cases whose folders match the pattern
// cases.
func casesClients(t testing.TB, cases, targetName string) []Client {
	t.Helper()
	books, err := filepath.Glob(filepath.Join(Root(t), "tests", "testdata", cases, "*.book"))
	if err != nil {
		t.Fatal(err)
	}
	var out []Client
	for _, p := range books {
		if filepath.Base(p) == "against.book" {
			continue // the previous version a case is checked against
		}
		_, files, ok := build(t, p, targetName)
		if !ok {
			continue // a case of a book that does not check, or that the target refuses
		}
		for _, f := range files {
			out = append(out, Client{Case: filepath.Base(filepath.Dir(p)), File: f})
		}
	}
	return out
}

// build is the book at path and what `chobo build --target <targetName>`
// writes for it; ok is false when the book does not check or the target
// refuses it.
func build(t testing.TB, path, targetName string) (b *book.Book, files []gen.File, ok bool) {
	t.Helper()
	tg, found := target.Lookup(targetName)
	if !found {
		t.Fatalf("langtest: no target %s", targetName)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	res := check.Check(name, src)
	if res.Book == nil {
		return nil, nil, false
	}
	files, ds, err := tg.Build(res.Book, gen.NewSource(name, src), gen.Options{})
	if err != nil {
		t.Fatalf("%s of %s: %v", targetName, path, err)
	}
	return res.Book, files, len(ds) == 0
}

// Skip skips t, printing its reason once as a SKIP line so that it shows
// in a log written without -test.v (Bazel's), unless CI=true outside
// Bazel, where what a test needs must be installed and t fails instead.
func Skip(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" && os.Getenv("TEST_SRCDIR") == "" {
		t.Fatalf("cannot run here (CI=true): %s", why)
	}
	if _, printed := skipped.LoadOrStore(why, true); !printed {
		fmt.Println("SKIP: " + why)
	}
	t.Skip("SKIP: " + why)
}

// skipped holds the reasons Skip printed, each printed once per test
// binary.
var skipped sync.Map

// Use has a language's driver kit find its tools in the checkout and
// returns them, or skips t (Skip) saying why they are not there.
func Use(t testing.TB, kit driverkit.Kit) driverkit.Builder {
	t.Helper()
	root := Root(t)
	b, why := kit.Checkout(driverkit.Checkout{Root: root, Scratch: t.TempDir()})
	if why != "" {
		Skip(t, kit.Language()+" clients: "+why)
	}
	return b
}

// Postgres starts a throwaway PostgreSQL server for a runtime's tests
// against a real one and returns its connection string; without server
// binaries it prints a SKIP line naming what then goes untested and
// returns "" (under CI a server must be there). The server stops when t
// ends.
func Postgres(t testing.TB, what string) string {
	t.Helper()
	srv, err := pgtest.Launch()
	switch {
	case errors.Is(err, pgtest.ErrNoServer) && os.Getenv("CI") != "true":
		fmt.Printf("SKIP: %s on a real PostgreSQL: %v\n", what, err)
		return ""
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return srv.ConnString(pgtest.DefaultDB)
}

// A Deployment is a throwaway PostgreSQL cluster with books loaded as
// docs/targets.md deploys them (pgdeploy): owned by the owner's role,
// called by the application's, with lookalikes of the built-ins planted
// ahead of pg_catalog on both roles' search paths, so that a function
// that names a built-in without its schema is caught.
type Deployment struct {
	Server *pgtest.Server
	Admin  *pgxpool.Pool // the cluster's superuser
	App    *pgxpool.Pool // the application's role, at most conns connections
}

// Deploy starts a cluster (pgtest.Start: it skips t, aloud, where there
// are no server binaries, and fails under CI) and loads books into it;
// everything stops when t ends.
func Deploy(t testing.TB, books []pgdeploy.Book, conns int) Deployment {
	t.Helper()
	srv := pgtest.Start(t)
	admin := srv.Pool(t, 20)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	app, planted, err := pgdeploy.Deploy(ctx, srv, admin, books, pgdeploy.Options{Trap: true, Conns: conns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	if len(planted.Skipped) > 0 {
		t.Errorf("built-ins without a lookalike: %q", planted.Skipped)
	}
	t.Logf("lookalikes before pg_catalog on the path of %s and %s: %s", pgdeploy.Owner, pgdeploy.App, planted)
	// The trap is armed: a built-in named on the application's path is
	// a lookalike.
	if _, err := app.Exec(ctx, `select convert_to('x', 'UTF8')`); !pgdeploy.Reached(err) {
		t.Fatalf("a built-in called as the application's role on its path: %v; want a lookalike reached", err)
	}
	return Deployment{Server: srv, Admin: admin, App: app}
}

// Env is the libpq environment of a program that connects as the
// application's role.
func (d Deployment) Env() []string {
	return []string{"PGHOST=" + d.Server.SocketDir, fmt.Sprintf("PGPORT=%d", d.Server.Port),
		"PGUSER=" + pgdeploy.App, "PGDATABASE=" + pgtest.DefaultDB}
}

// BookSQL is the book at path (from the root of the checkout) with the
// SQL `chobo build --target postgres` writes for it.
func BookSQL(t testing.TB, path string) pgdeploy.Book {
	t.Helper()
	_, sql := bookSQL(t, filepath.Join(Root(t), filepath.FromSlash(path)))
	return sql
}

// bookSQL is the checked book at path and its SQL.
func bookSQL(t testing.TB, path string) (*book.Book, pgdeploy.Book) {
	t.Helper()
	b, files, ok := build(t, path, "postgres")
	if !ok || len(files) != 1 {
		t.Fatalf("%s does not check, or its SQL is not one file", path)
	}
	return b, pgdeploy.Book{Name: b.Name, SQL: string(files[0].Data)}
}

// DocExample is the first block fenced as fence (its language) in the
// section of docs/targets.md that starts with heading, and the block
// after it, which shows what the program prints.
func DocExample(t testing.TB, heading, fence string) (program, printed string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(Root(t), "docs", "targets.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("docs/targets.md has no section %q", heading)
	}
	block := func(from int, open string) (string, int) {
		start := strings.Index(text[from:], open)
		if start < 0 {
			t.Fatalf("docs/targets.md: no %q block after %q", open, heading)
		}
		start += from + len(open)
		end := strings.Index(text[start:], "```\n")
		return text[start : start+end], start + end + 4
	}
	program, next := block(i, "```"+fence+"\n")
	printed, _ = block(next, "```\n")
	return program, printed
}

// A Mutation is a small change to one source file of a runtime, of the
// kind that once slipped through or easily could: New in place of Old,
// which must be in the file exactly once.
type Mutation struct {
	Name, File, Old, New string
}

// A Replay runs a runtime's own replay of a vector file with the source
// file named file (as a Mutation names it) holding src instead of what
// it holds; with file "" every source is as it is. It returns what the
// replay printed, and an error when it failed.
type Replay func(t *testing.T, file, src string) (string, error)

// CatchesMutations holds a runtime's replay of the vectors to what it
// is worth: it must pass on the sources in dir as they are, and fail
// with each mutation, by a vector (failedVector reads that from what it
// printed) rather than a build. A mutation whose text is no longer in
// its file fails too: it is to be written again for the code as it is.
func CatchesMutations(t *testing.T, dir string, ms []Mutation, replay Replay, failedVector func(out string) bool) {
	t.Helper()
	if out, err := replay(t, "", ""); err != nil {
		t.Fatalf("the vectors fail the runtime as it is: %v\n%s", err, out)
	}
	for _, m := range ms {
		t.Run(m.Name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, m.File))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(src), m.Old); n != 1 {
				t.Fatalf("its text is %d times in %s, not once:\n%s", n, m.File, m.Old)
			}
			out, err := replay(t, m.File, strings.Replace(string(src), m.Old, m.New, 1))
			if err == nil {
				t.Fatalf("the vectors pass with the mutation:\n%s", out)
			}
			if !failedVector(out) {
				t.Fatalf("the replay did not run to fail a vector:\n%s", out)
			}
		})
	}
}

// GoReplay is the Replay of the Go package in the test's own folder: its
// tests matching run, with go test's -overlay putting the changed file
// in place. Where the go command is not at hand (under Bazel) it skips t.
func GoReplay(run string) Replay {
	return func(t *testing.T, file, src string) (string, error) {
		t.Helper()
		if os.Getenv("TEST_SRCDIR") != "" {
			Skip(t, "under Bazel the go command is not at hand; go test runs the replays")
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			Skip(t, "no go command: "+err.Error())
		}
		replace := map[string]string{}
		if file != "" {
			abs, err := filepath.Abs(file)
			if err != nil {
				t.Fatal(err)
			}
			changed := filepath.Join(t.TempDir(), file)
			if err := os.WriteFile(changed, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			replace[abs] = changed
		}
		o, _ := json.Marshal(map[string]any{"Replace": replace})
		overlay := filepath.Join(t.TempDir(), "overlay.json")
		if err := os.WriteFile(overlay, o, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(goBin, "test", "-overlay", overlay, "-count=1", "-timeout=120s", "-run", run, ".")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
}
