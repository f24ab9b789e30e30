package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
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
