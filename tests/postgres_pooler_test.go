package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
)

// Behind a connection pooler (PgBouncer): the clients on a real server
// reached through PgBouncer in transaction and in session mode, where a
// server connection runs the transactions of many client connections in
// turn and keeps whatever they left on it.

// pyCollision is the Python side of TestPoolerRunsTheNamedOperation: the
// inventory book's Python client over a psycopg_pool pool with its
// defaults, callers threads each sending receive.do and reserve.hold (the
// same argument types: text, text, text, bigint) on a SKU of its own, the
// odd threads the hold first. It prints, as JSON, every answer that was not
// done.
const pyCollision = `
import json, sys, threading
sys.path.insert(0, sys.argv[1])
import psycopg_pool
from inventory import postgres

dsn, tenant, callers, each = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
pool = psycopg_pool.ConnectionPool(dsn, open=True)
book = postgres(pool, tenant)
bad = []

def run(c):
    sku = f"s-{c}"
    def receive(i, qty):
        return book.receive.do(delivery=f"d-{c}-{i}", sku=sku, qty=qty)
    def hold(i):
        return book.reserve.hold(order=f"o-{c}-{i}", sku=sku, qty=4)
    calls = [("receive", lambda: receive("start", 4 * each))]
    for i in range(each):
        pair = [(f"receive {i}", lambda i=i: receive(i, 5)), (f"hold {i}", lambda i=i: hold(i))]
        calls += pair[::-1] if c % 2 else pair
    for name, call in calls:
        try:
            r = call()
            if r.result != "done":
                bad.append(f"caller {c} {name}: {r.result} {r.reason}")
        except Exception as e:
            bad.append(f"caller {c} {name}: {type(e).__name__}: {e}")

threads = [threading.Thread(target=run, args=(c,)) for c in range(callers)]
for t in threads:
    t.start()
for t in threads:
    t.join()
pool.close()
print(json.dumps(bad))
`

// TestPoolerRunsTheNamedOperation: through PgBouncer in transaction mode,
// many calls of two operations whose arguments have the same types, from
// 8 callers sharing a psycopg_pool pool. psycopg 3 prepares a statement
// that ran 5 times on a connection under a name of that connection's;
// PgBouncer hands the next transaction any server connection, where that
// name may stand for the other operation's statement, which would then run
// in its place (or fail as missing or already there). A call must only
// ever run the operation it names: every answer is done, and every SKU's
// stock holds exactly what the calls moved.
func TestPoolerRunsTheNamedOperation(t *testing.T) {
	py := pyPooler(t)
	l := loadForBackends(t, caseByName(t, "inventory"))
	d := startPostgres(t, []loaded{l})
	b := pgtest.StartBouncer(t, d.srv, pgtest.TransactionPooling, pgdeploy.App)
	g, _ := target.Lookup("postgres-python")
	files, ds, err := g.Build(l.Copy, gen.NewSource(filepath.Base(l.path), l.CopySrc), gen.Options{})
	if err != nil || len(ds) > 0 || len(files) != 1 {
		t.Fatalf("the Python client: %v %v", ds, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "inventory.py"), files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	const callers, each, tenant = 8, 150, "collide"
	cmd := exec.Command(py, "-c", pyCollision, dir, b.ConnStringAs(pgdeploy.App, pgtest.DefaultDB), tenant, strconv.Itoa(callers), strconv.Itoa(each))
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the callers: %v\n%s", err, stderrOf(err))
	}
	var bad []string
	if err := json.Unmarshal(out, &bad); err != nil {
		t.Fatalf("the callers printed %q: %v", out, err)
	}
	for i, s := range bad {
		if i == 10 {
			t.Errorf("… and %d more", len(bad)-10)
			break
		}
		t.Errorf("%s", s)
	}
	// Read on the server itself, past the pooler.
	ctx := context.Background()
	for c := 0; c < callers; c++ {
		var posted, heldIn, heldOut int64
		if err := d.admin.QueryRow(ctx, `select posted, held_in, held_out from "inventory"."balance_stock"($1, $2)`, tenant, fmt.Sprintf("s-%d", c)).Scan(&posted, &heldIn, &heldOut); err != nil {
			t.Fatal(err)
		}
		if posted != 9*each || heldIn != 0 || heldOut != 4*each {
			t.Errorf("stock(s-%d): posted %d, held in %d, held out %d; the calls asked for %d, 0, %d", c, posted, heldIn, heldOut, 9*each, 4*each)
		}
	}
	checkEntries(t, d.admin, []loaded{l})
	t.Logf("%d calls from %d callers through PgBouncer in transaction mode, %d not answered as asked", callers*(2*each+1), callers, len(bad))
}

// pyPooler is the interpreter of the Python runtime's virtual environment,
// which has psycopg and psycopg_pool; without it t skips (fails under CI).
func pyPooler(t *testing.T) string {
	t.Helper()
	c, err := checkout()
	if err != nil {
		t.Fatal(err)
	}
	venv, why := pydriver.Kit{}.Checkout(c)
	if why != "" {
		// Under Bazel the environment is never at hand, CI or not.
		if os.Getenv("CI") == "true" && os.Getenv("TEST_SRCDIR") == "" {
			t.Fatal(why)
		}
		fmt.Println("SKIP: " + why)
		t.Skip("SKIP: " + why)
	}
	python := venv.(*pydriver.Venv).Python
	if out, err := exec.Command(python, "-c", "import psycopg_pool").CombinedOutput(); err != nil {
		why := fmt.Sprintf("the Python runtime's virtual environment lacks psycopg_pool (run tests/setup.sh): %v %s", err, strings.TrimSpace(string(out)))
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		fmt.Println("SKIP: " + why)
		t.Skip("SKIP: " + why)
	}
	return python
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// poolerCases are the books whose scenarios TestClientsBehindPooler runs:
// inventory has every kind of call (do, hold, post in full and in part,
// void, status) with the same argument types across its operations, which
// is where a statement run in place of another would go unseen by type. A
// subset, so that four clients in two pool modes stay short on CI's two
// cores; TestClientConformance runs every case without a pooler.
var poolerCases = []string{"inventory"}

// TestClientsBehindPooler runs the scenarios of poolerCases through each
// PostgreSQL client, driven as a process as TestClientConformance drives
// it, on a server reached through PgBouncer in transaction and in session
// mode, with the bulk call where the driver takes it; every answer must be
// the interpreter's.
func TestClientsBehindPooler(t *testing.T) {
	var books []loaded
	for _, name := range poolerCases {
		books = append(books, loadForBackends(t, caseByName(t, name)))
	}
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			_, lang := languageOf(t, tg)
			driversOf(t, tg)
			d := startPostgres(t, books)
			for _, mode := range []string{pgtest.TransactionPooling, pgtest.SessionPooling} {
				t.Run(mode, func(t *testing.T) {
					b := pgtest.StartBouncer(t, d.srv, mode, pgdeploy.App)
					var procs []*conformance.Process
					jobs := jobsOf(books, tg+" "+mode, driverkit.BulkOn(lang, "postgres"), func(l loaded) conformance.Backend {
						p := startClient(t, tg, l, protocol.Request{DSN: b.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
							conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, "")
						procs = append(procs, p)
						return p
					})
					// Tenants of their own per mode: both modes run on one server.
					for i := range jobs {
						jobs[i].Tenant = mode + "-" + jobs[i].Tenant
					}
					st := conformance.RunAll(t, jobs)
					if driverkit.BulkOn(lang, "postgres") {
						bulkCounts(t, procs)
					}
					t.Logf("%d scenarios through the %s client behind PgBouncer in %s mode", st.Total, tg, mode)
				})
			}
			checkEntries(t, d.admin, books)
		})
	}
}
