package python_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// The Python clients behind PgBouncer in transaction mode, over a
// psycopg_pool pool shared by threads, as a Python service runs them: the
// pool's connections and psycopg's prepared statements meet a pooler that
// hands each transaction any server connection. The clients driven one
// call at a time behind PgBouncer are held by the tests package's
// TestClientsBehindPooler and TestPoolerRestartsEveryClient, as every
// language's are.

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
	py := poolPython(t)
	b, sql := langtest.CaseBook(t, "inventory")
	d := langtest.Deploy(t, []pgdeploy.Book{sql}, 4)
	bouncer := pgtest.StartBouncer(t, d.Server, pgtest.TransactionPooling, pgdeploy.App)
	dir, _ := clientIn(t, "inventory")
	const callers, each, tenant = 8, 150, "collide"
	cmd := exec.Command(py, "-c", pyCollision, dir, bouncer.ConnStringAs(pgdeploy.App, pgtest.DefaultDB), tenant, strconv.Itoa(callers), strconv.Itoa(each))
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the callers: %v\n%s", err, stderr.String())
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
		if err := d.Admin.QueryRow(ctx, `select posted, held_in, held_out from "inventory"."balance_stock"($1, $2)`, tenant, fmt.Sprintf("s-%d", c)).Scan(&posted, &heldIn, &heldOut); err != nil {
			t.Fatal(err)
		}
		if posted != 9*each || heldIn != 0 || heldOut != 4*each {
			t.Errorf("stock(s-%d): posted %d, held in %d, held out %d; the calls asked for %d, 0, %d", c, posted, heldIn, heldOut, 9*each, 4*each)
		}
	}
	langtest.EntriesBalance(t, d.Admin, b)
	t.Logf("%d calls from %d callers through PgBouncer in transaction mode, %d not answered as asked", callers*(2*each+1), callers, len(bad))
}

// pyRestarts is the Python side of TestPoolerRestartsPython: callers
// threads send restock calls through the stock_reservation book's Python
// client over a psycopg_pool pool with its defaults, the even ones
// resending lost calls (the default), the odd ones not (resend_for=0).
// Told "wait N" on stdin it answers "ok" once N more calls were done;
// told "stop" it prints, as JSON, how many calls went and each that failed.
const pyRestarts = `
import json, sys, threading, time
sys.path.insert(0, sys.argv[1])
import psycopg_pool
from %s import ChoboError, postgres

dsn, tenant, callers = sys.argv[2], sys.argv[3], int(sys.argv[4])
pool = psycopg_pool.ConnectionPool(dsn, open=True)
lock = threading.Lock()
state = {"calls": 0, "done": 0}
failed = []
stop = threading.Event()

def run(c):
    book = postgres(pool, tenant, resend_for=None if c %% 2 == 0 else 0)
    i = 0
    while not stop.is_set():
        delivery, sku = f"d-{c}-{i}", f"s-{c}"
        i += 1
        with lock:
            state["calls"] += 1
        try:
            r = book.restock.do(delivery=delivery, sku=sku, qty=1)
            if r.result == "done" or r.result == "done_before" and r.resent:
                with lock:
                    state["done"] += 1
                continue
            kind, message = "answer", f"{r.result} {r.reason}"
        except ChoboError as e:
            kind, message = e.code, f"{type(e.__cause__).__name__}: {e}"
        except Exception as e:
            kind, message = "unclassified", f"{type(e).__name__}: {e}"
        with lock:
            failed.append({"delivery": delivery, "sku": sku, "kind": kind, "message": message})
        time.sleep(0.02)

threads = [threading.Thread(target=run, args=(c,)) for c in range(callers)]
for t in threads:
    t.start()
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "wait":
        with lock:
            start = state["done"]
        deadline = time.monotonic() + 90
        while True:
            with lock:
                got = state["done"] - start
            if got >= int(cmd[1]) or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        print("ok" if got >= int(cmd[1]) else f"only {got}", flush=True)
    elif cmd[0] == "stop":
        stop.set()
        for t in threads:
            t.join()
        pool.close()
        print(json.dumps({"calls": state["calls"], "failed": failed}), flush=True)
        break
`

// TestPoolerRestartsPython restarts PgBouncer, then the server behind
// it, while 8 threads call through the Python book over psycopg_pool (the
// calls of the threads that do not resend held in flight across each
// restart: langtest.RestartWhileCalling). Every call is done, or fails
// with CHOBO_OUTCOME_UNKNOWN or CHOBO_NOT_SENT (never an error of the
// driver's as it is); sent again on the server itself, through the book's
// SQL, one not sent answers done, and the shelves hold one unit per call.
func TestPoolerRestartsPython(t *testing.T) {
	py := poolPython(t)
	// Most of it waits out PgBouncer's server_login_retry after the
	// server's restart: other tests may run meanwhile.
	t.Parallel()
	b, sql := langtest.CaseBook(t, langtest.RestockCase)
	d := langtest.Deploy(t, []pgdeploy.Book{sql}, 8)
	bouncer := pgtest.StartBouncer(t, d.Server, pgtest.TransactionPooling, pgdeploy.App)
	dir, module := clientIn(t, langtest.RestockCase)
	const tenant, callers = "pooled-py", 8
	// The calls sent on the server itself go through the book's SQL
	// functions, not the client under test.
	shelves := langtest.NewShelves(t, d.Admin, b, tenant, callers)
	shelves.Seed()
	cmd := exec.Command(py, "-c", fmt.Sprintf(pyRestarts, module), dir, bouncer.ConnStringAs(pgdeploy.App, pgtest.DefaultDB), tenant, strconv.Itoa(callers))
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	out := bufio.NewReader(outPipe)
	say := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, stderr.String())
		}
		got, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, stderr.String())
		}
		return strings.TrimSpace(got)
	}
	shelves.RestartWhileCalling(bouncer.Restart, d.Server.Restart, func(what string) {
		if got := say("wait 100"); got != "ok" {
			t.Fatalf("%s: %s calls done in 90 s\n%s", what, got, stderr.String())
		}
	})
	var report struct {
		Calls  int64
		Failed []struct{ Delivery, Sku, Kind, Message string }
	}
	if err := json.Unmarshal([]byte(say("stop")), &report); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(report.Failed) == 0 {
		t.Fatal("no call failed across both restarts: the test proves nothing here")
	}
	messages := map[string]int{}
	for _, f := range report.Failed {
		messages[f.Kind+": "+f.Message]++
		r, err := shelves.Restock(f.Delivery, f.Sku)
		switch {
		case err != nil:
			t.Errorf("%s sent again: %v", f.Delivery, err)
		case f.Kind == "CHOBO_NOT_SENT":
			if r.Outcome != interp.Done {
				t.Errorf("%s failed as not sent (%s), but had been applied: %v", f.Delivery, f.Message, r.Outcome)
			}
		case f.Kind == "CHOBO_OUTCOME_UNKNOWN":
			if r.Outcome != interp.Done && r.Outcome != interp.DoneBefore {
				t.Errorf("%s sent again: %v", f.Delivery, r.Outcome)
			}
		default:
			t.Errorf("%s: %s: %s", f.Delivery, f.Kind, f.Message)
		}
	}
	langtest.LogTally(t, messages)
	shelves.WantUnits(report.Calls)
	langtest.EntriesBalance(t, d.Admin, b)
	t.Logf("%d calls, %d failed", report.Calls, len(report.Failed))
}

// poolPython is the virtual environment's interpreter, which setup.sh
// installs psycopg_pool into (requirements-dev.txt).
func poolPython(t *testing.T) string {
	t.Helper()
	py := venvPython(t)
	if out, err := exec.Command(py, "-c", "import psycopg_pool").CombinedOutput(); err != nil {
		langtest.Skip(t, fmt.Sprintf("the Python runtime's virtual environment lacks psycopg_pool (run tests/setup.sh): %v %s", err, strings.TrimSpace(string(out))))
	}
	return py
}

// clientIn writes the postgres-python client of a case into a folder of
// its own and returns the folder, which the callers' program imports
// from, and the client's module.
func clientIn(t *testing.T, caseName string) (dir, module string) {
	t.Helper()
	c := langtest.CaseClient(t, caseName, "postgres-python")
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, c.Path), c.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSuffix(c.Path, ".py")
}
