package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

const shopBook = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account suppliers : pcs outside
account customers : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from suppliers to stock(sku)
transfer reserve(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 30 minutes
  move qty from stock(sku) to customers
`

// One scenario expects what the book does not do, one counts a race's
// outcomes wrong, and one is right, with a pass shorter than the hold's
// lifetime and another that ends it.
const shopScenarios = `[
  {"name": "wrong: a hold above the stock is expected done",
   "steps": [
     {"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}},
     {"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 2}, "expect": "done"}
   ]},
  {"name": "wrong: a race said to end one way",
   "outcomes": 1,
   "steps": [
     {"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}},
     {"together": [
       [{"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}}],
       [{"op": "reserve.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}}]
     ]}
   ]},
  {"name": "right: held after 20 minutes, gone after 30",
   "steps": [
     {"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}, "expect": "done"},
     {"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}, "expect": "done"},
     {"pass": "20 minutes"},
     {"op": "reserve.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}, "expect": "refused: out_of_stock"},
     {"pass": "10 minutes"},
     {"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1"}, "expect": "refused: expired"},
     {"op": "reserve.hold", "args": {"order": "o-3", "sku": "s-1", "qty": 1}, "expect": "done"}
   ]}
]
`

// TestRunnerChecksExpectations runs the runner as chobo_conformance_test
// does, through the SQL functions, on a hand-written file with wrong
// expectations: it must fail exactly those scenarios, as `chobo run`
// would, and pass the rest.
func TestRunnerChecksExpectations(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "shop.book")
	scs := filepath.Join(dir, "shop.more.json")
	if err := os.WriteFile(book, []byte(shopBook), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scs, []byte(shopScenarios), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	r := &run{out: &out, errOut: &errOut}
	err := r.main(config{book: book, scenarios: []string{scs}})
	r.end()
	if errors.Is(err, pgtest.ErrNoServer) && os.Getenv("CI") != "true" {
		t.Skip("SKIP: ", err)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !r.failed {
		t.Fatalf("the runner passed a file with wrong expectations:\n%s", out.String())
	}
	fails := errOut.String()
	for _, want := range []string{
		`FAIL: shop.book on postgres "wrong: a hold above the stock is expected done" does not meet its expectations`,
		"postgres: step 2: expected done, got refused: out_of_stock",
		`FAIL: shop.book on postgres "wrong: a race said to end one way" does not meet its expectations`,
		"the interpreter: expected 1 outcomes, got 2",
	} {
		if !strings.Contains(fails, want) {
			t.Errorf("the runner did not report %q; it wrote:\n%s", want, fails)
		}
	}
	if n := strings.Count(fails, "FAIL:"); n != 2 || strings.Contains(fails, "right:") {
		t.Errorf("want the two wrong scenarios failed and nothing else, got:\n%s", fails)
	}
	if strings.Contains(out.String(), "each equal to the interpreter") {
		t.Errorf("the runner printed its success line:\n%s", out.String())
	}
	// The log ends with one line per pair.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "FAIL: shop.book on postgres: 2 of ") || !strings.HasSuffix(last, " scenarios failed") {
		t.Errorf("the last line is %q, want the summary of the one pair", last)
	}
}

// A part given no client of its own (the rule hands every part a client
// it could not sort) runs nothing, and says so rather than pass in
// silence; it needs no PostgreSQL server.
func TestPartWithoutClients(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "shop.book")
	if err := os.WriteFile(book, []byte(shopBook), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	r := &run{out: &out, errOut: &errOut}
	err := r.main(config{book: book, parts: map[string]bool{partModel: true}})
	r.end()
	if err != nil || r.failed {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if want := "SKIP: shop.book: no client of this part among the test's clients\n"; !strings.HasPrefix(out.String(), want) || strings.Contains(out.String(), "PASS") {
		t.Errorf("the log is %q, want %q and no pair", out.String(), want)
	}
}

// shopV2 is the next version of shopBook: the stock may no longer run
// down to 0.
var shopV2 = strings.NewReplacer("book shop v1", "book shop v2", "at least 0", "at least 1").Replace(shopBook)

// A scenario that deploys shopV2 from a file beside the scenario file, as
// the rule lays the versions out in the runfiles.
const shopDeploys = `[
  {"name": "the stock kept above 0 from v2 on",
   "steps": [
     {"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}, "expect": "done"},
     {"deploy": "shop.v2.book"},
     {"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 2}, "expect": "refused: out_of_stock"},
     {"op": "reserve.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}, "expect": "done"}
   ]}
]
`

// TestRunnerDeploysOnTheSQLPair: the pair of the SQL functions runs the
// scenarios that deploy a new version, the one of a file and the
// generated bound-change families, rather than skip them; each passes.
func TestRunnerDeploysOnTheSQLPair(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "shop.book")
	scs := filepath.Join(dir, "shop.deploys.json")
	for path, src := range map[string]string{book: shopBook, scs: shopDeploys, filepath.Join(dir, "shop.v2.book"): shopV2} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	r := &run{out: &out, errOut: &errOut}
	err := r.main(config{book: book, scenarios: []string{scs}, parts: map[string]bool{partPostgres: true}})
	r.end()
	if errors.Is(err, pgtest.ErrNoServer) && os.Getenv("CI") != "true" {
		t.Skip("SKIP: ", err)
	}
	if err != nil || r.failed {
		t.Fatalf("%v\n%s\n%s", err, errOut.String(), out.String())
	}
	log := out.String()
	if strings.Contains(log, "not run") || strings.Contains(log, "SKIP") {
		t.Errorf("a scenario was not run:\n%s", log)
	}
	// The file's one deploy step and at least one of each family's.
	m := regexp.MustCompile(`(?m)^PASS: shop\.book on postgres: \d+ scenarios, each equal to the interpreter; (\d+) deploy steps, each a new version put in place`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no line of the SQL pair with its deploy steps:\n%s", log)
	}
	if n, _ := strconv.Atoi(m[1]); n < 5 {
		t.Errorf("%s deploy steps run; want the file's and the families' (5 at least):\n%s", m[1], log)
	}
}

// TestRunnerNamesAMissingVersion: a deploy step whose file the test was
// not given fails before any server starts, and says where to give it.
func TestRunnerNamesAMissingVersion(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "shop.book")
	scs := filepath.Join(dir, "shop.deploys.json")
	for path, src := range map[string]string{book: shopBook, scs: shopDeploys} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	r := &run{out: &out, errOut: &errOut}
	err := r.main(config{book: book, scenarios: []string{scs}})
	r.end()
	want := `deploy "shop.v2.book": the test has no such file beside the scenario file; give it in the versions of chobo_conformance_test`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error saying %q", err, want)
	}
	if strings.Contains(out.String(), "PostgreSQL cluster") {
		t.Errorf("a server was started:\n%s", out.String())
	}
}

// TestSQLPairDeploysApart: a version the SQL pair loads goes to its own
// database; the default one, which the clients built for the first
// version call, keeps that version's functions.
func TestSQLPairDeploysApart(t *testing.T) {
	l, err := conformance.Load(conformance.File{Name: "shop.book", Data: []byte(shopBook)})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	r := &run{out: &out, errOut: &errOut}
	defer r.end()
	srv, admin, err := r.deploy(l)
	if errors.Is(err, pgtest.ErrNoServer) && os.Getenv("CI") != "true" {
		t.Skip("SKIP: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	pair, err := r.sqlPair(srv, admin, l)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The functions of the book's schema, as their definitions read.
	functions := func(db *pgxpool.Pool) string {
		t.Helper()
		var defs string
		if err := db.QueryRow(ctx, `select string_agg(pg_get_functiondef(p.oid), e'\n' order by p.oid::regprocedure::text)
		  from pg_proc p where p.pronamespace = 'shop'::regnamespace and p.prokind = 'f'`).Scan(&defs); err != nil {
			t.Fatal(err)
		}
		return defs
	}
	clients, sqls := functions(admin), functions(pair.Read)
	if clients != sqls {
		t.Fatalf("the two databases start with other functions")
	}
	v2, err := conformance.Follow(l.Book, "shop.v2.book", []byte(shopV2))
	if err != nil {
		t.Fatal(err)
	}
	src, cp, err := conformance.Shorten(v2, []byte(shopV2))
	if err != nil {
		t.Fatal(err)
	}
	if err := pair.Deploy(ctx, &conformance.Version{File: "shop.v2.book", Book: v2, Copy: cp, CopySrc: src}); err != nil {
		t.Fatal(err)
	}
	if functions(pair.Read) == sqls {
		t.Errorf("the deploy changed no function of the SQL pair's database")
	}
	if functions(admin) != clients {
		t.Errorf("the deploy changed the functions the clients call")
	}
	// Neither database lets PUBLIC connect.
	var public bool
	if err := admin.QueryRow(ctx, `select has_database_privilege('public', $1, 'connect')`, sqlDB).Scan(&public); err != nil || public {
		t.Errorf("PUBLIC may connect to %s: %v, %v", sqlDB, public, err)
	}
}

// TestDeploysInProcess: on the model, the pair of chobo's Go runtime in
// the runner runs the scenarios that deploy, the file's and the
// families', and only those.
func TestDeploysInProcess(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "shop.book")
	scs := filepath.Join(dir, "shop.deploys.json")
	for path, src := range map[string]string{book: shopBook, scs: shopDeploys, filepath.Join(dir, "shop.v2.book"): shopV2} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := load(config{book: book, scenarios: []string{scs}})
	if err != nil {
		t.Fatal(err)
	}
	m := tbmodel.New()
	m.FollowWallClock()
	be := deploysInProcess(l, m)
	if be == nil {
		t.Fatal("no pair for the scenarios that deploy")
	}
	var out, errOut bytes.Buffer
	r := &run{out: &out, errOut: &errOut}
	line := r.runOn(be.l, *be)
	r.end()
	if r.failed {
		t.Fatalf("%s\n%s\n%s", line, errOut.String(), out.String())
	}
	// The file's scenario and the four families; none skipped.
	want := "PASS: shop.book on " + inProcessDeploys + ": 5 scenarios, each equal to the interpreter; 5 deploy steps, each a new version put in place"
	if !strings.HasPrefix(line, want) || strings.Contains(line, "not run") {
		t.Errorf("the pair's line is %q, want it to start %q\n%s", line, want, out.String())
	}
	// A book no scenario of which deploys gets no such pair.
	plain, err := conformance.Load(conformance.File{Name: "plain.book", Data: []byte("book plain v1\nunit pcs\naccount a : pcs outside\naccount b : pcs outside\ntransfer t(k: string, q: pcs)\n  key k\n  move q from a to b\n")})
	if err != nil {
		t.Fatal(err)
	}
	if be := deploysInProcess(plain, m); be != nil {
		t.Errorf("a pair for a book none of whose scenarios deploys: %q", be.name)
	}
}
