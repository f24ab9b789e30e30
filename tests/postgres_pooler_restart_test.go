package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
	sr "github.com/chobo-lang/chobo/tests/clients/stock_reservation"
)

// TestPoolerRestartsWhileCallsRun: 8 callers send restock calls (a key of
// their own each, 1 unit to a SKU of the caller's) through PgBouncer in
// transaction mode while PgBouncer is restarted, and then the server behind
// it. Half the callers let the client send a lost call again (the
// default), half take every error as it comes (Resend(0)); before each
// restart the latter's shelves are locked until calls wait for them, so
// that the restart cuts calls in flight. Every call must
// be answered once: done, or an error marked chobopg.ErrOutcomeUnknown or
// chobopg.ErrNotSent, never another. Each call that failed is then sent
// again on the server itself: one marked ErrNotSent must answer done (it
// never reached the server), one of unknown outcome done or done_before.
// In the end every SKU holds exactly one unit per call, the sum of its
// entries.
func TestPoolerRestartsWhileCallsRun(t *testing.T) {
	// Most of it waits out PgBouncer's server_login_retry after the
	// server's restart: other tests may run meanwhile.
	t.Parallel()
	srv, admin, b := faultBook(t)
	bouncer := pgtest.StartBouncer(t, srv, pgtest.TransactionPooling)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, bouncer.ConnString(pgtest.DefaultDB)+" pool_max_conns=8")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	const tenant, callers = "pooled", 8
	seedShelves(t, sr.Postgres(admin, tenant), callers)
	type sent struct {
		args sr.RestockArgs
		err  error
	}
	var (
		mu       sync.Mutex
		failed   []sent
		messages = map[string]int{}
		calls    atomic.Int64
		after    atomic.Int64 // answers since the server came back
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		opts := []chobopg.Option{chobopg.Resend(0)}
		if c%2 == 0 {
			opts = nil
		}
		client := sr.Postgres(pool, tenant, opts...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				a := sr.RestockArgs{Delivery: fmt.Sprintf("d-%d-%d", c, i), Sku: fmt.Sprintf("s-%d", c), Qty: 1}
				calls.Add(1)
				cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
				r, err := client.Restock.Do(cctx, a)
				cancel()
				// Every key is new: done, also for a call the client sent
				// again after its connection was lost, since the resend
				// carries the call's id and the server answers it with the
				// first sending's answer when that one was applied.
				if err == nil && r.Outcome == sr.Done {
					after.Add(1)
					continue
				}
				mu.Lock()
				failed = append(failed, sent{a, err})
				if err != nil {
					messages[err.Error()]++
				} else {
					messages[fmt.Sprintf("answered %+v", r)]++
				}
				mu.Unlock()
				// Not a tight loop while nothing answers.
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	waitAnswers := func(n int64, what string) {
		t.Helper()
		after.Store(0)
		for deadline := time.Now().Add(90 * time.Second); after.Load() < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("%s: only %d calls answered done in 90 s", what, after.Load())
			}
		}
	}
	restartWhileCalling(t, admin, tenant, callers, bouncer.Restart, srv.Restart, func(what string) { waitAnswers(200, what) })
	close(stop)
	wg.Wait()

	if len(failed) == 0 {
		t.Fatal("no call failed across both restarts: the test proves nothing here")
	}
	// Each failed call again, on the server itself with a client that
	// resends: what it answers says whether the first sending was applied.
	direct := sr.Postgres(admin, tenant)
	var notSent, unknown int
	for _, f := range failed {
		r, err := direct.Restock.Do(ctx, f.args)
		switch {
		case err != nil:
			t.Errorf("%s sent again: %v", f.args.Delivery, err)
		case f.err == nil:
			t.Errorf("%s answered %v, not done, at first", f.args.Delivery, r.Outcome)
		case errors.Is(f.err, chobopg.ErrNotSent):
			notSent++
			if r.Outcome != sr.Done {
				t.Errorf("%s failed as not sent (%v), but had been applied: %v", f.args.Delivery, f.err, r.Outcome)
			}
		case errors.Is(f.err, chobopg.ErrOutcomeUnknown):
			unknown++
			if r.Outcome != sr.Done && r.Outcome != sr.DoneBefore {
				t.Errorf("%s sent again: %v", f.args.Delivery, r.Outcome)
			}
		default:
			t.Errorf("%s: an error neither of unknown outcome nor not sent: %v", f.args.Delivery, f.err)
		}
	}
	var lines []string
	for m, n := range messages {
		lines = append(lines, fmt.Sprintf("%4d× %s", n, m))
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
	var total int64
	for c := 0; c < callers; c++ {
		got, err := direct.Balance.Shelf(ctx, sr.ShelfAccount{Sku: fmt.Sprintf("s-%d", c)})
		if err != nil {
			t.Fatal(err)
		}
		total += got.Posted
	}
	if total != calls.Load()+callers {
		t.Errorf("the shelves hold %d units after %d calls of 1 each and %d seeds", total, calls.Load(), callers)
	}
	wantEntriesBalance(t, admin, b)
	t.Logf("%d calls, %d failed: %d not sent, %d of unknown outcome; resent by the client after a lost connection: %d unknown, %d not sent",
		calls.Load(), len(failed), notSent, unknown, chobopg.Resent(chobopg.ErrOutcomeUnknown), chobopg.Resent(chobopg.ErrNotSent))
}

// stallShelves locks the shelf rows of the given SKUs of a tenant from a
// transaction on the server itself, and returns once at least one call
// waits for them. A restart made before release is then certain to cut
// calls in flight, where otherwise it might fall between two calls and
// leave nothing to prove. release ends the transaction (it may already
// have died with the server).
func stallShelves(t *testing.T, admin *pgxpool.Pool, tenant string, skus []string) (release func()) {
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

// restartWhileCalling waits for calls to be answered (wait, told which
// step it waits after), restarts PgBouncer and waits again, then restarts
// the server behind it and waits again. Before each restart the shelves
// of the callers that do not resend are locked until a call waits for
// them (stallShelves), and released once the restart is done.
func restartWhileCalling(t *testing.T, admin *pgxpool.Pool, tenant string, callers int, bouncerRestart, serverRestart func() error, wait func(what string)) {
	t.Helper()
	wait("before the restarts")
	for _, step := range []struct {
		what    string
		restart func() error
	}{
		{"after PgBouncer's restart", bouncerRestart},
		{"after the server's restart behind PgBouncer", serverRestart},
	} {
		release := stallShelves(t, admin, tenant, oddShelves(callers))
		err := step.restart()
		release()
		if err != nil {
			t.Fatal(err)
		}
		wait(step.what)
	}
}

// oddShelves are the SKUs of the callers that do not resend: the calls
// stallShelves holds back for a restart to cut.
func oddShelves(callers int) []string {
	var skus []string
	for c := 1; c < callers; c += 2 {
		skus = append(skus, fmt.Sprintf("s-%d", c))
	}
	return skus
}

// seedShelves makes each caller's shelf with one unit, so that its row
// exists to be locked before the callers start.
func seedShelves(t *testing.T, c *sr.Book, callers int) {
	t.Helper()
	for i := 0; i < callers; i++ {
		r, err := c.Restock.Do(context.Background(), sr.RestockArgs{Delivery: fmt.Sprintf("seed-%d", i), Sku: fmt.Sprintf("s-%d", i), Qty: 1})
		if err != nil || r.Outcome != sr.Done {
			t.Fatalf("seeding shelf s-%d: %+v, %v", i, r, err)
		}
	}
}

// TestPoolerRefusedLoginIsNotSent: PgBouncer lets in a role the server
// does not know, and passes the server's refusal on as its own error
// (08P01, class 08, which on a statement's answer would leave the outcome
// unknown). It comes while the connection is made, so the call never
// went: ErrNotSent.
func TestPoolerRefusedLoginIsNotSent(t *testing.T) {
	srv := pgtest.Start(t)
	bouncer := pgtest.StartBouncer(t, srv, pgtest.TransactionPooling, "nobody_here")
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, bouncer.ConnStringAs("nobody_here", pgtest.DefaultDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	_, err = sr.Postgres(pool, "t", chobopg.Resend(0)).Restock.Do(ctx, sr.RestockArgs{Delivery: "d", Sku: "s", Qty: 1})
	t.Logf("a role the server does not know, through PgBouncer: %v (SQLSTATE %s)", err, chobopg.SQLState(err))
	if !errors.Is(err, chobopg.ErrNotSent) || errors.Is(err, chobopg.ErrOutcomeUnknown) {
		t.Errorf("%v: want ErrNotSent", err)
	}
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

// TestPoolerRestartsPython is TestPoolerRestartsWhileCallsRun for the
// Python book over psycopg_pool: PgBouncer restarted, then the server
// behind it, while 8 threads call (the calls of the threads that do not
// resend held in flight across each restart). Every call is done, or fails with
// CHOBO_OUTCOME_UNKNOWN or CHOBO_NOT_SENT (never an error of the driver's
// as it is); sent again on the server itself, one not sent answers done,
// and the shelves hold one unit per call.
func TestPoolerRestartsPython(t *testing.T) {
	py := pyPooler(t)
	t.Parallel() // as TestPoolerRestartsWhileCallsRun
	srv, admin, b := faultBook(t)
	bouncer := pgtest.StartBouncer(t, srv, pgtest.TransactionPooling)
	src, err := os.ReadFile(caseByName(t, "stock_reservation").path())
	if err != nil {
		t.Fatal(err)
	}
	g, _ := target.Lookup("postgres-python")
	files, ds, err := g.Build(b, gen.NewSource("stock_reservation.book", src), gen.Options{})
	if err != nil || len(ds) > 0 || len(files) != 1 {
		t.Fatalf("the Python client: %v %v", ds, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, files[0].Path), files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	module := strings.TrimSuffix(files[0].Path, ".py")
	const tenant, callers = "pooled-py", 8
	seedShelves(t, sr.Postgres(admin, tenant), callers)
	cmd := exec.Command(py, "-c", fmt.Sprintf(pyRestarts, module), dir, bouncer.ConnString(pgtest.DefaultDB), tenant, strconv.Itoa(callers))
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
	restartWhileCalling(t, admin, tenant, callers, bouncer.Restart, srv.Restart, func(what string) {
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
	direct := sr.Postgres(admin, tenant)
	ctx := context.Background()
	messages := map[string]int{}
	for _, f := range report.Failed {
		messages[f.Kind+": "+f.Message]++
		r, err := direct.Restock.Do(ctx, sr.RestockArgs{Delivery: f.Delivery, Sku: f.Sku, Qty: 1})
		switch {
		case err != nil:
			t.Errorf("%s sent again: %v", f.Delivery, err)
		case f.Kind == "CHOBO_NOT_SENT":
			if r.Outcome != sr.Done {
				t.Errorf("%s failed as not sent (%s), but had been applied: %v", f.Delivery, f.Message, r.Outcome)
			}
		case f.Kind == "CHOBO_OUTCOME_UNKNOWN":
		default:
			t.Errorf("%s: %s: %s", f.Delivery, f.Kind, f.Message)
		}
	}
	var lines []string
	for m, n := range messages {
		lines = append(lines, fmt.Sprintf("%4d× %s", n, m))
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
	var total int64
	for c := 0; c < callers; c++ {
		got, err := direct.Balance.Shelf(ctx, sr.ShelfAccount{Sku: fmt.Sprintf("s-%d", c)})
		if err != nil {
			t.Fatal(err)
		}
		total += got.Posted
	}
	if total != report.Calls+callers {
		t.Errorf("the shelves hold %d units after %d calls of 1 each and %d seeds", total, report.Calls, callers)
	}
	wantEntriesBalance(t, admin, b)
	t.Logf("%d calls, %d failed", report.Calls, len(report.Failed))
}

// TestPoolerRestartsEveryClient: each PostgreSQL client, driven as a
// process as the conformance tests drive it, on a server reached through
// PgBouncer in transaction mode; 8 callers send restock calls (1 unit, a
// key of their own) while PgBouncer is restarted and then the server
// behind it. An error a call meets must say it was of unknown outcome or
// not sent; the caller then sends the same call again, as that error says
// is safe, until it is answered. In the end every SKU holds one unit per
// call: none was lost, none moved twice.
func TestPoolerRestartsEveryClient(t *testing.T) {
	l := loadForBackends(t, caseByName(t, "stock_reservation"))
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			driversOf(t, tg)
			// Most of each run waits out PgBouncer's server_login_retry
			// after the server's restart: the clients wait side by side.
			t.Parallel()
			poolerRestarts(t, tg, l)
		})
	}
}

func poolerRestarts(t *testing.T, tg string, l loaded) {
	ctx := context.Background()
	d := startPostgres(t, []loaded{l})
	bouncer := pgtest.StartBouncer(t, d.srv, pgtest.TransactionPooling, pgdeploy.App)
	p := startDriver(t, tg, driversOf(t, tg)(l.name), l.Copy, "stock_reservation.book", l.CopySrc,
		protocol.Request{DSN: bouncer.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)}, conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, "")
	const callers, tenant = 8, "pooled"
	var (
		stop     atomic.Bool
		answered atomic.Int64
		calls    atomic.Int64
		mu       sync.Mutex
		kinds    = map[string]int{}
	)
	kindOf := func(err error) string {
		switch msg := err.Error(); {
		case strings.Contains(msg, "may or may not have been applied"):
			return "unknown outcome"
		case strings.Contains(msg, "was not sent"):
			return "not sent"
		}
		return ""
	}
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				call := interp.Call{Transfer: l.Copy.Transfer("restock"), Op: book.Do,
					Strings: map[string]string{"delivery": fmt.Sprintf("d-%d-%d", c, i), "sku": fmt.Sprintf("s-%d", c)}, Amounts: map[string]int64{"qty": 1}}
				calls.Add(1)
				for give := time.Now().Add(90 * time.Second); ; {
					r, err := p.Call(ctx, call, tenant)
					if err == nil {
						if r.Outcome != interp.Done && r.Outcome != interp.DoneBefore {
							t.Errorf("%s: %s", call, conformance.ShortResult(r, nil))
						}
						answered.Add(1)
						break
					}
					var de *conformance.DriverError
					kind := kindOf(err)
					if errors.As(err, &de) || kind == "" || time.Now().After(give) {
						t.Errorf("%s: %v", call, err)
						return
					}
					mu.Lock()
					kinds[kind+": "+err.Error()]++
					mu.Unlock()
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	waitAnswers := func(n int64, what string) {
		start := answered.Load()
		for deadline := time.Now().Add(90 * time.Second); answered.Load()-start < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("%s: only %d calls answered in 90 s", what, answered.Load()-start)
			}
		}
	}
	waitAnswers(100, "before the restarts")
	if err := bouncer.Restart(); err != nil {
		t.Fatal(err)
	}
	waitAnswers(100, "after PgBouncer's restart")
	if err := d.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitAnswers(100, "after the server's restart behind PgBouncer")
	stop.Store(true)
	wg.Wait()
	var lines []string
	for m, n := range kinds {
		if len(m) > 300 {
			m = m[:300] + "…"
		}
		lines = append(lines, fmt.Sprintf("%4d× %s", n, m))
	}
	sort.Strings(lines)
	for _, line := range lines {
		t.Log(line)
	}
	var total int64
	for c := 0; c < callers; c++ {
		var posted int64
		if err := d.admin.QueryRow(ctx, `select posted from "stock_reservation".balance_shelf($1, $2)`, tenant, fmt.Sprintf("s-%d", c)).Scan(&posted); err != nil {
			t.Fatal(err)
		}
		total += posted
	}
	if total != calls.Load() || answered.Load() != calls.Load() {
		t.Errorf("the shelves hold %d units after %d calls of 1 each, %d answered", total, calls.Load(), answered.Load())
	}
	checkEntries(t, d.admin, []loaded{l})
	t.Logf("%s: %d calls through PgBouncer restarted, then the server behind it", tg, calls.Load())
}
