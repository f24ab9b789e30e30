package tests

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
	sr "github.com/chobo-lang/chobo/tests/clients/stock_reservation"
	"github.com/chobo-lang/chobo/tests/langtest"
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
	shelves := langtest.NewShelves(t, admin, b, tenant, callers)
	shelves.Seed()
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
	shelves.RestartWhileCalling(bouncer.Restart, srv.Restart, func(what string) { waitAnswers(200, what) })
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
	langtest.LogTally(t, messages)
	shelves.WantUnits(calls.Load())
	langtest.EntriesBalance(t, admin, b)
	t.Logf("%d calls, %d failed: %d not sent, %d of unknown outcome; resent by the client after a lost connection: %d unknown, %d not sent",
		calls.Load(), len(failed), notSent, unknown, chobopg.Resent(chobopg.ErrOutcomeUnknown), chobopg.Resent(chobopg.ErrNotSent))
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
	langtest.LogTally(t, kinds)
	if total := langtest.NewShelves(t, d.admin, l.Copy, tenant, callers).Units(); total != calls.Load() || answered.Load() != calls.Load() {
		t.Errorf("the shelves hold %d units after %d calls of 1 each, %d answered", total, calls.Load(), answered.Load())
	}
	checkEntries(t, d.admin, []loaded{l})
	t.Logf("%s: %d calls through PgBouncer restarted, then the server behind it", tg, calls.Load())
}
