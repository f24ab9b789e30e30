package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
	sr "github.com/chobo-lang/chobo/tests/clients/stock_reservation"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// Faults on a real server: a backend killed in the middle of a call, the
// server restarted between calls, expire() racing post and void at the
// deadline. What must hold through each: the caller gets an error or an
// answer that is true, a second sending with the same key moves nothing
// twice, and every balance still equals the sum of its entries.

// adminShutdown is the SQLSTATE the server sends a session it ends on
// request: pg_terminate_backend, or a fast shutdown.
const adminShutdown = "57P01"

// faultTimeout bounds every wait of these tests: a call that blocks for
// longer than this is a hang, and the test fails instead of waiting on.
const faultTimeout = 10 * time.Second

// faultBook starts a cluster with the book of the stock_reservation case
// loaded and returns the server, a pool on it and the book.
func faultBook(t *testing.T) (*pgtest.Server, *pgxpool.Pool, *book.Book) {
	t.Helper()
	srv := pgtest.Start(t)
	pool := srv.Pool(t, 8)
	b, src := loadBook(t, caseByName(t, "stock_reservation").path())
	installSQL(t, pool, b, src)
	return srv, pool, b
}

// answer is what a call made in the background came back with.
type answer struct {
	r   sr.Result
	err error
}

// inBackground makes a call on a goroutine of its own, so that the test
// can act while the call waits.
func inBackground(call func() (sr.Result, error)) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		r, err := call()
		ch <- answer{r, err}
	}()
	return ch
}

// await returns what a background call answered, or fails the test when
// it has not come back in faultTimeout.
func await[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(faultTimeout):
		t.Fatalf("the call did not come back in %v", faultTimeout)
		var zero T
		return zero
	}
}

// waitForLock returns once backend pid waits for a lock, and fails the
// test when it does not within faultTimeout: the kill must land while the
// call is inside the function, not before it started or after it ended.
func waitForLock(t *testing.T, pool *pgxpool.Pool, pid uint32) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(faultTimeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var waiting bool
		if err := pool.QueryRow(ctx, `select coalesce((select wait_event_type = 'Lock' from pg_stat_activity where pid = $1), false)`, pid).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
	}
	t.Fatalf("backend %d never waited for a lock", pid)
}

// terminate ends backend pid from another connection, as an operator or
// a crashing process next to it would.
func terminate(t *testing.T, pool *pgxpool.Pool, pid uint32) {
	t.Helper()
	var ok bool
	if err := pool.QueryRow(context.Background(), `select pg_terminate_backend($1)`, int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
	}
}

// wantBalances fails the test unless the shelf and the shoppers of a
// tenant hold exactly what is given.
func wantBalances(t *testing.T, c *sr.Book, sku string, shelf, shoppers sr.Balance) {
	t.Helper()
	ctx := context.Background()
	got, err := c.Balance.Shelf(ctx, sr.ShelfAccount{Sku: sku})
	if err != nil || got != shelf {
		t.Errorf("shelf(%s) = %+v, %v; want %+v", sku, got, err, shelf)
	}
	got, err = c.Balance.Shoppers(ctx)
	if err != nil || got != shoppers {
		t.Errorf("shoppers = %+v, %v; want %+v", got, err, shoppers)
	}
}

// wantAnswer fails the test unless a call answered outcome, without error.
func wantAnswer(t *testing.T, what string, r sr.Result, err error, outcome sr.Outcome) {
	t.Helper()
	if err != nil || r.Outcome != outcome {
		t.Fatalf("%s: %+v, %v; want %s", what, r, err, outcome)
	}
}

// TestBackendKilledMidCall: the session of a call is ended by the server
// (pg_terminate_backend) while the call is inside the book's function.
// The caller, on a connection of its own, gets the server's FATAL 57P01
// as the call's error, marked chobopg.ErrOutcomeUnknown, and its
// connection is closed, so the client has none to send the call again on.
// Nothing of the killed call stays: sending it again with the same key on
// a new connection answers done when the killed call was the only one, and
// done_before when another sending of it committed; either way the amount
// moved once.
func TestBackendKilledMidCall(t *testing.T) {
	srv, pool, b := faultBook(t)
	ctx := context.Background()
	hold := sr.ReserveStockArgs{Order: "o-1", Sku: "s", Qty: 3}
	// What the shelf and the shoppers hold once the hold of 3 is made, once.
	shelfHeld := sr.Balance{Posted: 10, HeldOut: 3}
	shoppersHeld := sr.Balance{HeldIn: 3}

	// killed sends the hold on a connection of its own, waits until it is
	// stuck on a lock, ends its backend and returns what the caller got.
	killed := func(t *testing.T, tenant string) error {
		t.Helper()
		victim, err := srv.OpenConn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer victim.Close(ctx)
		pid := victim.PgConn().PID()
		ch := inBackground(func() (sr.Result, error) {
			return sr.Postgres(victim, tenant).ReserveStock.Hold(ctx, hold)
		})
		waitForLock(t, pool, pid)
		terminate(t, pool, pid)
		a := await(t, ch)
		if a.err == nil {
			t.Fatalf("the killed call answered %+v and no error", a.r)
		}
		if !victim.IsClosed() {
			t.Errorf("the connection of the killed call is still open")
		}
		if !errors.Is(a.err, chobopg.ErrOutcomeUnknown) {
			t.Errorf("the killed call's error %v is not marked ErrOutcomeUnknown", a.err)
		}
		return a.err
	}

	// The call waits for the shelf's row, which another transaction has
	// locked: it has written its key, but not committed it.
	t.Run("waiting for an account", func(t *testing.T) {
		tenant := "account-lock"
		c := sr.Postgres(pool, tenant)
		r, err := c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10})
		wantAnswer(t, "restock", r, err, sr.Done)
		locker, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer locker.Rollback(ctx)
		if _, err := locker.Exec(ctx, `select 1 from "stock_reservation".accounts where tenant = $1 and kind = 'shelf' for update`, tenant); err != nil {
			t.Fatal(err)
		}
		err = killed(t, tenant)
		t.Logf("the killed call's error: %v", err)
		if chobopg.SQLState(err) != adminShutdown {
			t.Errorf("the killed call failed with %v (SQLSTATE %q), want the server's %s", err, chobopg.SQLState(err), adminShutdown)
		}
		if err := locker.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		// The killed call's key went with it: no hold, nothing held.
		if st, err := c.ReserveStock.Status(ctx, sr.ReserveStockKey{Order: hold.Order, Sku: hold.Sku}); err != nil || st != "" {
			t.Errorf("status after the kill: %q, %v; want no hold", st, err)
		}
		wantBalances(t, c, "s", sr.Balance{Posted: 10}, sr.Balance{})

		retry := sr.Postgres(srv.Pool(t, 1), tenant)
		r, err = retry.ReserveStock.Hold(ctx, hold)
		wantAnswer(t, "the retry", r, err, sr.Done)
		r, err = retry.ReserveStock.Hold(ctx, hold)
		wantAnswer(t, "a second retry", r, err, sr.DoneBefore)
		wantBalances(t, c, "s", shelfHeld, shoppersHeld)
		langtest.EntriesBalance(t, pool, b)
	})

	// A first sending of the same call is in flight (its transaction has
	// the key, uncommitted) when a second one, stuck behind it on the key,
	// is killed; then the first commits. The retry finds the key: done_before.
	t.Run("waiting for the key of a first sending that commits", func(t *testing.T) {
		tenant := "key-lock"
		c := sr.Postgres(pool, tenant)
		r, err := c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10})
		wantAnswer(t, "restock", r, err, sr.Done)
		first, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer first.Rollback(ctx)
		r, err = sr.Postgres(first, tenant).ReserveStock.Hold(ctx, hold)
		wantAnswer(t, "the first sending", r, err, sr.Done)
		err = killed(t, tenant)
		if chobopg.SQLState(err) != adminShutdown {
			t.Errorf("the killed call failed with %v (SQLSTATE %q), want the server's %s", err, chobopg.SQLState(err), adminShutdown)
		}
		if err := first.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		retry := sr.Postgres(srv.Pool(t, 1), tenant)
		r, err = retry.ReserveStock.Hold(ctx, hold)
		wantAnswer(t, "the retry", r, err, sr.DoneBefore)
		wantBalances(t, c, "s", shelfHeld, shoppersHeld)
		langtest.EntriesBalance(t, pool, b)
	})

	// The caller made the call inside its own transaction, which answered
	// done, and the session is ended before the commit. The done meant
	// nothing yet: the commit fails, and the retry is done, once.
	t.Run("inside the caller's transaction, before its commit", func(t *testing.T) {
		tenant := "caller-tx"
		c := sr.Postgres(pool, tenant)
		r, err := c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10})
		wantAnswer(t, "restock", r, err, sr.Done)
		conn, err := srv.OpenConn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r, err = sr.Postgres(tx, tenant).ReserveStock.Hold(ctx, hold)
		wantAnswer(t, "the hold inside the transaction", r, err, sr.Done)
		terminate(t, pool, conn.PgConn().PID())
		err = tx.Commit(ctx)
		t.Logf("the commit's error: %v", err)
		// Which error depends on timing: the server's FATAL when the client
		// reads it before writing the commit, or a failed write when the
		// socket is gone first, in which case nothing was sent at all.
		if chobopg.SQLState(err) != adminShutdown && !pgconn.SafeToRetry(err) {
			t.Fatalf("the commit of a killed session: %v; want the server's %s, or a write that never left", err, adminShutdown)
		}
		wantBalances(t, c, "s", sr.Balance{Posted: 10}, sr.Balance{})
		retry := sr.Postgres(srv.Pool(t, 1), tenant)
		r, err = retry.ReserveStock.Hold(ctx, hold)
		wantAnswer(t, "the retry", r, err, sr.Done)
		wantBalances(t, c, "s", shelfHeld, shoppersHeld)
		langtest.EntriesBalance(t, pool, b)
	})
}

// TestServerRestartBetweenCalls: calls are made, the server restarts
// (a fast shutdown, then a start on the same data), and the same calls go
// again. A fresh pool gets done_before and nothing moves twice. What was
// open across the restart is dead: a *pgx.Conn fails the first call with
// an error that says nothing was sent (ErrNotSent); a pool connection
// that pgxpool does not check fails the same way, and the client sends the
// call again itself on a new one of the pool; pgxpool checks (pings) a
// connection that was idle for more than a second before it hands it out,
// drops it when dead and dials anew, so then the first call goes through.
// Either way the retry with the same key is safe.
func TestServerRestartBetweenCalls(t *testing.T) {
	srv, _, b := faultBook(t)
	ctx := context.Background()
	tenant := "restart"
	// Three ways to be connected across the restart: a pool as pgxpool
	// comes (pings a connection idle for more than a second), a pool that
	// never pings (what the first gets when its connection was used less
	// than a second before), and a single connection.
	pinging := srv.Pool(t, 1)
	cfg, err := pgxpool.ParseConfig(srv.ConnString(pgtest.DefaultDB))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	unchecked, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unchecked.Close)
	single := srv.Connect(t)

	restock := sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10}
	holdPinging := sr.ReserveStockArgs{Order: "o-pinging", Sku: "s", Qty: 1}
	holdUnchecked := sr.ReserveStockArgs{Order: "o-unchecked", Sku: "s", Qty: 2}
	holdSingle := sr.ReserveStockArgs{Order: "o-single", Sku: "s", Qty: 4}
	r, err := sr.Postgres(pinging, tenant).Restock.Do(ctx, restock)
	wantAnswer(t, "restock", r, err, sr.Done)
	r, err = sr.Postgres(pinging, tenant).ReserveStock.Hold(ctx, holdPinging)
	wantAnswer(t, "hold through the pinging pool", r, err, sr.Done)
	r, err = sr.Postgres(unchecked, tenant).ReserveStock.Hold(ctx, holdUnchecked)
	wantAnswer(t, "hold through the unchecked pool", r, err, sr.Done)
	lastUse := time.Now()

	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart took %v", time.Since(lastUse).Round(time.Millisecond))

	fresh := sr.Postgres(srv.Pool(t, 2), tenant)
	r, err = fresh.Restock.Do(ctx, restock)
	wantAnswer(t, "restock again, after the restart", r, err, sr.DoneBefore)
	r, err = fresh.ReserveStock.Hold(ctx, holdPinging)
	wantAnswer(t, "hold again, after the restart", r, err, sr.DoneBefore)
	wantBalances(t, fresh, "s", sr.Balance{Posted: 10, HeldOut: 3}, sr.Balance{HeldIn: 3})

	// The single connection: the call fails when pgx writes it to a
	// socket whose server end is gone, before anything went out, and the
	// client, with no other connection, returns that error marked
	// ErrNotSent. The call never reached a server, so its retry on a new
	// connection is done.
	_, err = sr.Postgres(single, tenant).ReserveStock.Hold(ctx, holdSingle)
	t.Logf("a *pgx.Conn opened before the restart: %v", err)
	wantUnsent(t, "a *pgx.Conn opened before the restart", err)
	if !errors.Is(err, chobopg.ErrNotSent) {
		t.Errorf("a *pgx.Conn opened before the restart: %v is not marked ErrNotSent", err)
	}
	if !single.IsClosed() {
		t.Error("the dead connection is still open")
	}
	r, err = fresh.ReserveStock.Hold(ctx, holdSingle)
	wantAnswer(t, "the retry of the single connection's call", r, err, sr.Done)

	// The pool that does not check: the first sending fails the same way,
	// the pool drops the dead connection, and the client sends the call
	// again on the pool, which dials anew: the key answers. The first
	// sending never went, so the answer is not marked as a resend.
	r, err = sr.Postgres(unchecked, tenant).ReserveStock.Hold(ctx, holdUnchecked)
	wantAnswer(t, "a pool connection not pinged", r, err, sr.DoneBefore)
	if r.Resent {
		t.Errorf("a call whose first sending never went is marked resent")
	}
	// With resending off, the error goes to the caller.
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	_, err = sr.Postgres(unchecked, tenant, chobopg.Resend(0)).ReserveStock.Hold(ctx, holdUnchecked)
	t.Logf("a pool connection not pinged, resending off: %v", err)
	wantUnsent(t, "a pool connection not pinged, resending off", err)
	if !errors.Is(err, chobopg.ErrNotSent) {
		t.Errorf("a pool connection not pinged, resending off: %v is not marked ErrNotSent", err)
	}

	// The pool as it comes: once its connection has been idle for more
	// than a second, pgxpool pings it, finds it dead and dials anew, so
	// the first call after the restart goes through.
	if wait := 1200*time.Millisecond - time.Since(lastUse); wait > 0 {
		time.Sleep(wait)
	}
	r, err = sr.Postgres(pinging, tenant).ReserveStock.Hold(ctx, holdPinging)
	wantAnswer(t, "the pinging pool's first call after the restart", r, err, sr.DoneBefore)

	wantBalances(t, fresh, "s", sr.Balance{Posted: 10, HeldOut: 7}, sr.Balance{HeldIn: 7})
	langtest.EntriesBalance(t, pinging, b)
}

// wantUnsent fails the test unless err is the error of a statement pgx
// could not send: no answer from a server (no SQLSTATE), and pgx says
// that nothing went out.
func wantUnsent(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || chobopg.SQLState(err) != "" || !pgconn.SafeToRetry(err) {
		t.Errorf("%s: got %v (SQLSTATE %q, safe to retry: %v); want an error that says nothing was sent",
			what, err, chobopg.SQLState(err), pgconn.SafeToRetry(err))
	}
}

// expiryRounds is how many rounds TestExpireRacesPostAndVoid runs; each
// waits out one lifetime of a hold.
func expiryRounds() int {
	if testing.Short() {
		return 3
	}
	return 8
}

// TestExpireRacesPostAndVoid: holds that last one second are posted and
// voided around their deadline while expire() runs again and again. Each
// hold must end in exactly one state, each answer must agree with it, and
// what was held must come back exactly once, with no deadlock and no
// error.
func TestExpireRacesPostAndVoid(t *testing.T) {
	_, src := loadBook(t, caseByName(t, "stock_reservation").path())
	lifetime := regexp.MustCompile(`pending expires after [0-9.]+ [a-z]+`)
	short := lifetime.ReplaceAll(src, []byte("pending expires after 1 seconds"))
	if string(short) == string(src) {
		t.Fatal("found no hold lifetime to shorten")
	}
	res := check.Check("stock_reservation.book", short)
	if res.Book == nil {
		t.Fatalf("the short copy does not check: %+v", res.Diags)
	}
	b := res.Book
	const holds, expirers = 16, 4
	srv := pgtest.Start(t)
	pool := srv.Pool(t, 2*holds+expirers+2)
	installSQL(t, pool, b, short)
	ctx := context.Background()
	// Every connection is made before the first round, so that no call
	// loses its moment at the deadline to a dial.
	var conns []*pgxpool.Conn
	for range 2*holds + expirers {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
	deadlocks := chobopg.Retries(chobopg.DeadlockDetected)
	states := map[string]int{}
	racingExpired := 0
	for round := range expiryRounds() {
		n, counts := expiryRound(t, pool, b, fmt.Sprintf("round-%d", round))
		racingExpired += n
		for s, k := range counts {
			states[s] += k
		}
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
	if n := chobopg.Retries(chobopg.DeadlockDetected) - deadlocks; n != 0 {
		t.Errorf("%d deadlocks were retried; the functions must not deadlock", n)
	}
	t.Logf("%d rounds of %d holds: %v; expire() took %d of the expired while post and void raced it",
		expiryRounds(), holds, states, racingExpired)
	// The rounds must have raced: a run where every hold ended the same
	// way tested no race at all.
	if states["posted"]+states["voided"] == 0 || states["expired"] == 0 {
		t.Errorf("no race at the deadline: %v", states)
	}
}

// expiryRound makes holds for a fresh tenant, then at each hold's
// deadline posts and voids it at once while expire() runs, and checks
// the end. It returns how many holds the racing expire() calls gave back
// and how many holds ended in each state.
func expiryRound(t *testing.T, pool *pgxpool.Pool, b *book.Book, tenant string) (int, map[string]int) {
	t.Helper()
	const holds, expirers = 16, 4
	ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
	defer cancel()
	c := sr.Postgres(pool, tenant)
	const stock = 1 << holds
	r, err := c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d", Sku: "s", Qty: stock})
	wantAnswer(t, "restock", r, err, sr.Done)
	keys := make([]sr.ReserveStockKey, holds)
	for i := range keys {
		// Amounts 1, 2, 4 …: the sum posted tells exactly which were.
		keys[i] = sr.ReserveStockKey{Order: fmt.Sprint(i), Sku: "s"}
		r, err := c.ReserveStock.Hold(ctx, sr.ReserveStockArgs{Order: keys[i].Order, Sku: "s", Qty: 1 << i})
		wantAnswer(t, "hold", r, err, sr.Done)
	}
	deadlines := map[string]time.Time{}
	rows, err := pool.Query(ctx, `select key[1], deadline from "stock_reservation".holds where tenant = $1`, tenant)
	if err != nil {
		t.Fatal(err)
	}
	var first, last time.Time
	for rows.Next() {
		var order string
		var d time.Time
		if err := rows.Scan(&order, &d); err != nil {
			t.Fatal(err)
		}
		deadlines[order] = d
		if first.IsZero() || d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	if err := rows.Err(); err != nil || len(deadlines) != holds {
		t.Fatalf("read %d deadlines, %v", len(deadlines), err)
	}

	// at waits until a moment within 20 ms of d on either side, drawn at
	// random, so that some calls come just before the deadline and some
	// just after.
	at := func(d time.Time) {
		time.Sleep(time.Until(d.Add(time.Duration(rand.Int64N(int64(40*time.Millisecond))) - 20*time.Millisecond)))
	}
	posts := make([]answer, holds)
	voids := make([]answer, holds)
	var mu sync.Mutex
	var expired int
	var expireErrs []error
	var wg sync.WaitGroup
	for i, k := range keys {
		d := deadlines[k.Order]
		wg.Add(2)
		go func() {
			defer wg.Done()
			at(d)
			r, err := c.ReserveStock.Post(ctx, k, nil)
			posts[i] = answer{r, err}
		}()
		go func() {
			defer wg.Done()
			at(d)
			r, err := c.ReserveStock.Void(ctx, k)
			voids[i] = answer{r, err}
		}()
	}
	// expire() from several callers at once, over and over, from just
	// before the first deadline to just after the last.
	for range expirers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at(first)
			for time.Now().Before(last.Add(30 * time.Millisecond)) {
				n, err := c.Expire(ctx)
				mu.Lock()
				expired += n
				if err != nil {
					expireErrs = append(expireErrs, err)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(expireErrs) > 0 {
		t.Errorf("expire() failed: %v", errors.Join(expireErrs...))
	}
	racing := expired
	// The holds that both post and void found past their deadline, and
	// that the racing expire() calls did not take, are given back now.
	for range 3 {
		n, err := c.Expire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		expired += n
		if n == 0 {
			break
		}
	}

	counts := map[string]int{}
	var posted int64
	for i, k := range keys {
		var state string
		if err := pool.QueryRow(ctx, `select state from "stock_reservation".holds where tenant = $1 and key[1] = $2`, tenant, k.Order).Scan(&state); err != nil {
			t.Fatal(err)
		}
		counts[state]++
		if st, err := c.ReserveStock.Status(ctx, k); err != nil || string(st) != state {
			t.Errorf("hold %s: status %q, %v; the table says %s", k.Order, st, err, state)
		}
		p, v := posts[i], voids[i]
		if p.err != nil || v.err != nil {
			t.Errorf("hold %s: post %v, void %v", k.Order, p.err, v.err)
			continue
		}
		done := 0
		for _, a := range []answer{p, v} {
			if a.r.Outcome == sr.Done {
				done++
			} else if a.r.Outcome != sr.Refused {
				t.Errorf("hold %s: answered %+v", k.Order, a.r)
			}
		}
		// Each answer agrees with the end: the one that won is done, the
		// other refused for the reason the end gives; an expired hold
		// refused both as expired.
		ok := false
		switch state {
		case "posted":
			ok = p.r.Outcome == sr.Done && v.r.Outcome == sr.Refused && (v.r.Reason == "already_posted" || v.r.Reason == "expired")
			posted += 1 << i
		case "voided":
			ok = v.r.Outcome == sr.Done && p.r.Outcome == sr.Refused && (p.r.Reason == "already_voided" || p.r.Reason == "expired")
		case "expired":
			ok = p.r == sr.Result{Outcome: sr.Refused, Reason: "expired"} && v.r == sr.Result{Outcome: sr.Refused, Reason: "expired"}
		}
		if !ok || (state == "expired") != (done == 0) {
			t.Errorf("hold %s ended %s, but post answered %+v and void %+v", k.Order, state, p.r, v.r)
		}
	}
	if counts["held"] > 0 {
		t.Errorf("%d holds still held after expire(): %v", counts["held"], counts)
	}
	if expired != counts["expired"] {
		t.Errorf("expire() says it gave back %d holds; %d ended expired", expired, counts["expired"])
	}
	// Every hold has ended: nothing is held, and only the posted moved.
	wantBalances(t, c, "s", sr.Balance{Posted: stock - posted}, sr.Balance{Posted: posted})
	langtest.EntriesBalance(t, pool, b)
	return racing, counts
}

// TestBulkLosesItsConnection: a bulk's pipeline is out, stuck on a
// locked account, when its session is ended. On a *pgx.Conn every call of
// it is of unknown outcome (it may have committed), and a bulk on the
// connection afterwards was never sent; over a pool that sends lost calls
// again, each goes again alone on a new connection and its answer says
// it was sent again. Either way the holds are made once.
func TestBulkLosesItsConnection(t *testing.T) {
	srv, pool, b := faultBook(t)
	ctx := context.Background()
	holds := []sr.ReserveStockArgs{{Order: "o-1", Sku: "s", Qty: 3}, {Order: "o-2", Sku: "s", Qty: 2}}
	calls := func(c *sr.Book) []sr.Call {
		var out []sr.Call
		for _, h := range holds {
			out = append(out, c.ReserveStock.HoldCall(h))
		}
		return out
	}
	// lockShelf restocks the tenant's shelf and locks its row until the
	// returned function is called.
	lockShelf := func(t *testing.T, tenant string) func() {
		t.Helper()
		r, err := sr.Postgres(pool, tenant).Restock.Do(ctx, sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10})
		wantAnswer(t, "restock", r, err, sr.Done)
		locker, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := locker.Exec(ctx, `select 1 from "stock_reservation".accounts where tenant = $1 and kind = 'shelf' for update`, tenant); err != nil {
			t.Fatal(err)
		}
		return func() { _ = locker.Rollback(ctx) }
	}
	inBulk := func(c *sr.Book) <-chan []sr.Answer {
		ch := make(chan []sr.Answer, 1)
		go func() { ch <- c.Bulk(ctx, calls(c)...) }()
		return ch
	}

	t.Run("on one connection", func(t *testing.T) {
		tenant := "bulk-conn"
		release := lockShelf(t, tenant)
		defer release()
		victim, err := srv.OpenConn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer victim.Close(ctx)
		c := sr.Postgres(victim, tenant)
		ch := inBulk(c)
		waitForLock(t, pool, victim.PgConn().PID())
		terminate(t, pool, victim.PgConn().PID())
		for i, a := range await(t, ch) {
			if !errors.Is(a.Err, chobopg.ErrOutcomeUnknown) {
				t.Errorf("call %d of the killed bulk: %+v, %v; want an error marked ErrOutcomeUnknown", i, a.Result, a.Err)
			}
		}
		for i, a := range c.Bulk(ctx, calls(c)...) {
			if !errors.Is(a.Err, chobopg.ErrNotSent) {
				t.Errorf("call %d of a bulk on the closed connection: %+v, %v; want an error marked ErrNotSent", i, a.Result, a.Err)
			}
		}
		release()
		again := sr.Postgres(pool, tenant)
		for i, a := range again.Bulk(ctx, calls(again)...) {
			wantAnswer(t, fmt.Sprintf("call %d sent again", i), a.Result, a.Err, sr.Done)
		}
		wantBalances(t, again, "s", sr.Balance{Posted: 10, HeldOut: 5}, sr.Balance{HeldIn: 5})
		langtest.EntriesBalance(t, pool, b)
	})

	t.Run("over a pool that sends lost calls again", func(t *testing.T) {
		tenant := "bulk-pool"
		release := lockShelf(t, tenant)
		defer release()
		one := srv.Pool(t, 1)
		pc, err := one.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pid := pc.Conn().PgConn().PID()
		pc.Release()
		c := sr.Postgres(one, tenant, chobopg.Resend(faultTimeout/2))
		ch := inBulk(c)
		waitForLock(t, pool, pid)
		terminate(t, pool, pid)
		// The calls go again on a new connection and wait for the lock.
		time.Sleep(100 * time.Millisecond)
		release()
		for i, a := range await(t, ch) {
			wantAnswer(t, fmt.Sprintf("call %d of the bulk", i), a.Result, a.Err, sr.Done)
			if !a.Result.Resent {
				t.Errorf("call %d was sent again after its connection was lost, and its answer does not say so", i)
			}
		}
		wantBalances(t, c, "s", sr.Balance{Posted: 10, HeldOut: 5}, sr.Balance{HeldIn: 5})
		langtest.EntriesBalance(t, pool, b)
	})
}
