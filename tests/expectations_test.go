package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// wrongExpectations is a scenario file for the inventory book with two
// expectations that do not hold and one scenario that is right. It is
// written to a temporary file: a committed case must pass.
const wrongExpectations = `[
  {"name": "wrong: a hold above the stock is expected done",
   "steps": [
     {"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}, "expect": "done"},
     {"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 2}, "expect": "done"}
   ]},
  {"name": "wrong: a race for the last unit is said to end one way",
   "outcomes": 1,
   "steps": [
     {"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}},
     {"together": [
       [{"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}}],
       [{"op": "reserve.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}}]
     ]}
   ]},
  {"name": "right: ten minutes into thirty, the hold is still there to post",
   "outcomes": 1,
   "steps": [
     {"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}, "expect": "done"},
     {"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}, "expect": "done"},
     {"pass": "10 minutes"},
     {"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1"}, "expect": "done"}
   ]}
]
`

// recorder takes what RunAll reports, so that a test can look at the
// failures it expects instead of failing.
type recorder struct {
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Logf(string, ...any) {}

// TestConformanceChecksExpectations: the conformance runners check a
// hand-written file's `expect` and `outcomes` as `chobo run` does, on
// PostgreSQL through SQL and through the Go client's driver, so a wrong
// expectation fails there too; the right scenario of the same file, with
// a pass shorter than the hold's lifetime, passes.
func TestConformanceChecksExpectations(t *testing.T) {
	c := caseByName(t, "inventory")
	file := filepath.Join(t.TempDir(), "wrong.json")
	if err := os.WriteFile(file, []byte(wrongExpectations), 0o644); err != nil {
		t.Fatal(err)
	}
	// chobo run says the same of this file: the runners agree with it.
	out, _, code := run(c.Dir, nil, "run", c.Book, "--scenario", file)
	if code != 1 || strings.Count(out, "FAILED") != 2 {
		t.Fatalf("chobo run: exit %d, want 1 with two FAILED lines:\n%s", code, out)
	}

	l := loadForBackends(t, c)
	l.Scenarios = nil
	scs, err := scenario.Read(l.Book, []byte(wrongExpectations))
	if err != nil {
		t.Fatal(err)
	}
	l.Scenarios = scs
	d := startPostgres(t, []loaded{l})
	backends := map[string]conformance.Backend{}
	sql, err := conformance.NewSQL(l.Copy, d.app, d.admin)
	if err != nil {
		t.Fatal(err)
	}
	backends["sql"] = sql
	if goDriverAtHand(t) {
		backends["go driver"] = startPostgresClient(t, "postgres-go", d, l)
	}
	for name, be := range backends {
		jobs := l.Jobs("wrong.json", be, func(i int) string {
			return fmt.Sprintf("expect-%s-%d", strings.ReplaceAll(name, " ", "-"), i)
		})
		var r recorder
		conformance.RunAll(&r, jobs)
		all := strings.Join(r.errors, "\n")
		for _, want := range []string{
			`"wrong: a hold above the stock is expected done" does not meet its expectations`,
			"the backend: step 2: expected done, got refused: out_of_stock",
			`"wrong: a race for the last unit is said to end one way" does not meet its expectations`,
			"the interpreter: expected 1 outcomes, got 2",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("through %s: no report of %q; reported:\n%s", name, want, all)
			}
		}
		if len(r.errors) != 2 || strings.Contains(all, "right:") || strings.Contains(all, "differs") {
			t.Errorf("through %s: want exactly the two wrong scenarios reported, got:\n%s", name, all)
		}
	}
}

// goDriverAtHand says whether the postgres-go driver is built, leaving it
// out (with a log line) where it cannot be, so that the SQL half still
// runs.
func goDriverAtHand(t *testing.T) bool {
	ok := false
	t.Run("driver", func(t *testing.T) { driversOf(t, "postgres-go"); ok = true })
	if !ok {
		t.Log("the Go driver is not at hand: checked through SQL only")
	}
	return ok
}
