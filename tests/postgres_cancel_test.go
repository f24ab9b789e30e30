package tests

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/runtime/go/chobopg"
	sr "github.com/chobo-lang/chobo/tests/clients/stock_reservation"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// Cancellation on a real server, as chobopg documents it: a context that
// ended before the call went makes an error marked ErrNotSent, and the
// call was not applied; one that ends while the call is out makes an
// error marked ErrOutcomeUnknown that also wraps the context's error, and
// the call may have been applied or not: sending it again says which, and
// applies it at most once.

// wantCtxErr fails the test unless err is marked kind and wraps cause.
func wantCtxErr(t *testing.T, what string, err, kind, cause error) {
	t.Helper()
	if !errors.Is(err, kind) || !errors.Is(err, cause) {
		t.Errorf("%s: %v; want an error marked %v that wraps %v", what, err, kind, cause)
	}
}

// TestContextEndedBeforeTheCall: calls, reads and bulks made with a
// context already cancelled, or past its deadline, over a pool and over
// one connection, send nothing: each error is marked ErrNotSent and wraps
// the context's error, and the same calls made afterwards are done, not
// done_before. The connection stays open and usable.
func TestContextEndedBeforeTheCall(t *testing.T) {
	srv, pool, _ := faultBook(t)
	ctx := context.Background()
	conn, err := srv.OpenConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	expired, cancel2 := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel2()
	for _, q := range []struct {
		name string
		q    chobopg.Querier
	}{{"pool", pool}, {"conn", conn}} {
		for _, e := range []struct {
			name  string
			ctx   context.Context
			cause error
		}{{"cancelled", cancelled, context.Canceled}, {"expired", expired, context.DeadlineExceeded}} {
			tenant := q.name + "-" + e.name
			c := sr.Postgres(q.q, tenant)
			restock := sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10}
			_, err := c.Restock.Do(e.ctx, restock)
			wantCtxErr(t, tenant+": do", err, chobopg.ErrNotSent, e.cause)
			_, err = c.ReserveStock.Status(e.ctx, sr.ReserveStockKey{Order: "o", Sku: "s"})
			wantCtxErr(t, tenant+": status", err, chobopg.ErrNotSent, e.cause)
			_, err = c.Balance.Shelf(e.ctx, sr.ShelfAccount{Sku: "s"})
			wantCtxErr(t, tenant+": balance", err, chobopg.ErrNotSent, e.cause)
			_, err = c.ExpireUpTo(e.ctx, 10)
			wantCtxErr(t, tenant+": expire", err, chobopg.ErrNotSent, e.cause)
			bulk := []sr.Call{c.Restock.DoCall(sr.RestockArgs{Delivery: "d-2", Sku: "s", Qty: 1}), c.Restock.DoCall(sr.RestockArgs{Delivery: "d-3", Sku: "s", Qty: 1})}
			for i, a := range c.Bulk(e.ctx, bulk...) {
				wantCtxErr(t, tenant+": bulk call "+string(rune('0'+i)), a.Err, chobopg.ErrNotSent, e.cause)
			}
			// Nothing was applied: the same calls are done now, once.
			r, err := c.Restock.Do(ctx, restock)
			wantAnswer(t, tenant+": the do sent again", r, err, sr.Done)
			for i, a := range c.Bulk(ctx, bulk...) {
				if a.Err != nil || a.Result.Outcome != sr.Done {
					t.Errorf("%s: bulk call %d sent again: %+v %v; want done", tenant, i, a.Result, a.Err)
				}
			}
			wantBalances(t, c, "s", sr.Balance{Posted: 12}, sr.Balance{})
		}
	}
	if conn.IsClosed() {
		t.Error("a call that was not sent closed the connection")
	}
}

// TestCancelledWhileWaitingOnALock: the call is out, waiting for the
// shelf's row that another transaction holds, when its context is
// cancelled. The error is marked ErrOutcomeUnknown and wraps
// context.Canceled. pgx gives up on the connection rather than waiting
// for the server (its default on a cancelled context is to close the
// socket): a *pgx.Conn is closed afterwards, and a call on it is marked
// ErrNotSent; over a pool the connection is dropped and the next call
// takes another. The server may still run the cancelled statement once
// the lock is free: sending the call again, on a new connection, is done
// or done_before, and the hold is made once. A second call made on the
// same *pgx.Conn while the first waited waits its turn (the connection
// serves one statement at a time), and when its own deadline comes first
// it was never sent: ErrNotSent.
func TestCancelledWhileWaitingOnALock(t *testing.T) {
	srv, pool, b := faultBook(t)
	ctx := context.Background()
	hold := sr.ReserveStockArgs{Order: "o-1", Sku: "s", Qty: 3}
	for _, over := range []string{"conn", "pool"} {
		t.Run(over, func(t *testing.T) {
			tenant := "cancel-" + over
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
			var q chobopg.Querier
			var conn *pgx.Conn
			var pid uint32
			if over == "conn" {
				if conn, err = srv.OpenConn(ctx); err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				q, pid = conn, conn.PgConn().PID()
			} else {
				own := srv.Pool(t, 1)
				pc, err := own.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				pid = pc.Conn().PgConn().PID()
				pc.Release()
				q = own
			}
			callCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			ch := inBackground(func() (sr.Result, error) {
				return sr.Postgres(q, tenant).ReserveStock.Hold(callCtx, hold)
			})
			waitForLock(t, pool, pid)
			if conn != nil {
				// Its turn comes after the waiting call's: its deadline
				// passes first, and it was never sent.
				short, stop := context.WithTimeout(ctx, 100*time.Millisecond)
				_, err := sr.Postgres(conn, tenant).Restock.Do(short, sr.RestockArgs{Delivery: "d-2", Sku: "s", Qty: 1})
				stop()
				wantCtxErr(t, "a call waiting its turn on the connection", err, chobopg.ErrNotSent, context.DeadlineExceeded)
			}
			cancel()
			a := await(t, ch)
			wantCtxErr(t, "the cancelled call", a.err, chobopg.ErrOutcomeUnknown, context.Canceled)
			t.Logf("the cancelled call's error: %v", a.err)
			if conn != nil {
				if !conn.IsClosed() {
					t.Error("the connection of the cancelled call is still open")
				}
				_, err := sr.Postgres(conn, tenant).Balance.Shelf(ctx, sr.ShelfAccount{Sku: "s"})
				wantCtxErr(t, "a call on the connection after the cancel", err, chobopg.ErrNotSent, err)
			}
			if err := locker.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			r, err = sr.Postgres(srv.Pool(t, 1), tenant).ReserveStock.Hold(ctx, hold)
			if err != nil || r.Outcome != sr.Done && r.Outcome != sr.DoneBefore {
				t.Fatalf("the hold sent again: %+v %v; want done or done_before", r, err)
			}
			t.Logf("the hold sent again: %v", r)
			r, err = c.ReserveStock.Hold(ctx, hold)
			wantAnswer(t, "the hold sent a third time", r, err, sr.DoneBefore)
			wantBalances(t, c, "s", sr.Balance{Posted: 10, HeldOut: 3}, sr.Balance{HeldIn: 3})
			if conn != nil {
				// The second call never went: it is done now, once.
				r, err = c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d-2", Sku: "s", Qty: 1})
				wantAnswer(t, "the call that waited its turn, sent again", r, err, sr.Done)
			}
			langtest.EntriesBalance(t, pool, b)
		})
	}
}

// muteProxy carries TCP connections to a server's socket, and, once
// muted, lets what the client writes through but drops what the server
// answers: a call then commits and its answer never arrives, as when a
// network fails after the server has done its part.
type muteProxy struct {
	ln    net.Listener
	sock  string
	muted atomic.Bool
	wg    sync.WaitGroup
}

func startMuteProxy(t *testing.T, sock string) *muteProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &muteProxy{ln: ln, sock: sock}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.carry(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return p
}

func (p *muteProxy) carry(c net.Conn) {
	s, err := net.Dial("unix", p.sock)
	if err != nil {
		c.Close()
		return
	}
	go func() { io.Copy(s, c); s.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 && !p.muted.Load() {
			if _, err := c.Write(buf[:n]); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	c.Close()
}

func (p *muteProxy) config(t *testing.T, user string) *pgx.ConnConfig {
	_, port, _ := net.SplitHostPort(p.ln.Addr().String())
	cfg, err := pgx.ParseConfig("host=127.0.0.1 port=" + port + " user=" + user + " dbname=postgres sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestCancelledAfterTheCommit: the call commits on the server, and its
// answer is held back on the way; the caller cancels. The error is marked
// ErrOutcomeUnknown and wraps context.Canceled, though the call was
// applied: sending it again answers done_before, and nothing moved twice.
func TestCancelledAfterTheCommit(t *testing.T) {
	srv, pool, b := faultBook(t)
	ctx := context.Background()
	tenant := "after-commit"
	c := sr.Postgres(pool, tenant)
	r, err := c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10})
	wantAnswer(t, "restock", r, err, sr.Done)

	var user string
	if err := pool.QueryRow(ctx, `select current_user`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	p := startMuteProxy(t, socketOf(srv))
	for _, over := range []string{"conn", "pool"} {
		t.Run(over, func(t *testing.T) {
			hold := sr.ReserveStockArgs{Order: "o-" + over, Sku: "s", Qty: 2}
			var q chobopg.Querier
			var conn *pgx.Conn
			if over == "conn" {
				if conn, err = pgx.ConnectConfig(ctx, p.config(t, user)); err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				q = conn
			} else {
				cfg, err := pgxpool.ParseConfig("")
				if err != nil {
					t.Fatal(err)
				}
				cfg.ConnConfig, cfg.MaxConns = p.config(t, user), 1
				own, err := pgxpool.NewWithConfig(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer own.Close()
				if err := own.Ping(ctx); err != nil {
					t.Fatal(err)
				}
				q = own
			}
			// A first hold on the same connection has pgx prepare the
			// statement, so that the muted call is one round trip: sent
			// whole, its answer the only thing held back.
			r, err := sr.Postgres(q, tenant).ReserveStock.Hold(ctx, sr.ReserveStockArgs{Order: "warm-" + over, Sku: "s", Qty: 1})
			wantAnswer(t, "a first hold", r, err, sr.Done)
			p.muted.Store(true)
			defer p.muted.Store(false)
			callCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			ch := inBackground(func() (sr.Result, error) {
				return sr.Postgres(q, tenant).ReserveStock.Hold(callCtx, hold)
			})
			// The server has done its part once the hold is there for
			// everyone else.
			for deadline := time.Now().Add(faultTimeout); ; time.Sleep(5 * time.Millisecond) {
				st, err := c.ReserveStock.Status(ctx, sr.ReserveStockKey{Order: hold.Order, Sku: hold.Sku})
				if err != nil {
					t.Fatal(err)
				}
				if st == sr.Held {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the hold never committed")
				}
			}
			cancel()
			a := await(t, ch)
			wantCtxErr(t, "the call whose answer was held back", a.err, chobopg.ErrOutcomeUnknown, context.Canceled)
			t.Logf("its error: %v", a.err)
			p.muted.Store(false)
			r, err = c.ReserveStock.Hold(ctx, hold)
			wantAnswer(t, "the hold sent again", r, err, sr.DoneBefore)
		})
	}
	wantBalances(t, c, "s", sr.Balance{Posted: 10, HeldOut: 6}, sr.Balance{HeldIn: 6})
	langtest.EntriesBalance(t, pool, b)
}
