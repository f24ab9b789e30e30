package tests

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	sr "github.com/chobo-lang/chobo/tests/clients/stock_reservation"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// A call whose answer is lost after the server committed it, sent again
// by the client itself: the Go client sends its call id with every
// sending, so the server answers the resend with what the first sending
// answered, where a call of its own with the same key gets done_before or
// already_refused.

// cutProxy carries TCP connections to a server's socket. Armed, it drops
// the next answer the server sends on any connection and closes that
// connection at both ends: the server has done its part (an autocommitted
// call's answer leaves only after its commit), and the client sees its
// connection break while the call is out.
type cutProxy struct {
	ln   net.Listener
	sock string
	cut  atomic.Bool
	cuts atomic.Int32 // answers dropped
}

func startCutProxy(t *testing.T, sock string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, sock: sock}
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

func (p *cutProxy) carry(c net.Conn) {
	s, err := net.Dial("unix", p.sock)
	if err != nil {
		c.Close()
		return
	}
	go func() { io.Copy(s, c); s.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 && p.cut.CompareAndSwap(true, false) {
			p.cuts.Add(1)
			break
		}
		if n > 0 {
			if _, err := c.Write(buf[:n]); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	c.Close()
	s.Close()
}

// pool is a pool of one connection through the proxy, which never pings
// a connection before handing it out: a ping would be the answer cut.
func (p *cutProxy) pool(t *testing.T, user string) *pgxpool.Pool {
	t.Helper()
	_, port, _ := net.SplitHostPort(p.ln.Addr().String())
	cfg, err := pgxpool.ParseConfig("host=127.0.0.1 port=" + port + " user=" + user + " dbname=postgres sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := pool.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	return pool
}

// lostOnce makes call with the proxy armed and returns its answer, which
// must be that of a sending again (Resent) after exactly one answer was
// cut.
func (p *cutProxy) lostOnce(t *testing.T, what string, call func() (sr.Result, error)) sr.Result {
	t.Helper()
	before := p.cuts.Load()
	p.cut.Store(true)
	defer p.cut.Store(false)
	r, err := call()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if n := p.cuts.Load() - before; n != 1 {
		t.Fatalf("%s: %d answers cut, want 1", what, n)
	}
	if !r.Resent {
		t.Errorf("%s: %+v is not marked as the answer of a sending again", what, r)
	}
	return r
}

// wantResult fails the test unless r is outcome (and reason, for a
// refusal).
func wantResult(t *testing.T, what string, r sr.Result, outcome sr.Outcome, reason string) {
	t.Helper()
	if r.Outcome != outcome || r.Reason != reason {
		t.Errorf("%s: %s (%s), want %s (%s)", what, r.Outcome, r.Reason, outcome, reason)
	}
}

// TestResentCallAnswersItsFirstAnswer: each operation, its answer cut
// after the commit, is sent again by the pool client and answers what
// its first sending answered: done for a do, a hold, a post and a void,
// and a hold refused by the shelf's bound keeps its reason (sold_out).
// The same calls made anew by the caller answer done_before and
// already_refused, and nothing moved twice.
func TestResentCallAnswersItsFirstAnswer(t *testing.T) {
	srv, pool, b := faultBook(t)
	ctx := context.Background()
	var user string
	if err := pool.QueryRow(ctx, `select current_user`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	p := startCutProxy(t, socketOf(srv))
	tenant := "resent"
	c := sr.Postgres(p.pool(t, user), tenant)

	restock := sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10}
	tooMany := sr.ReserveStockArgs{Order: "o-big", Sku: "s", Qty: 50}
	posted := sr.ReserveStockArgs{Order: "o-1", Sku: "s", Qty: 3}
	voided := sr.ReserveStockArgs{Order: "o-2", Sku: "s", Qty: 4}
	key := func(a sr.ReserveStockArgs) sr.ReserveStockKey { return sr.ReserveStockKey{Order: a.Order, Sku: a.Sku} }

	r := p.lostOnce(t, "restock", func() (sr.Result, error) { return c.Restock.Do(ctx, restock) })
	wantResult(t, "restock sent again", r, sr.Done, "")
	r = p.lostOnce(t, "a hold above the stock", func() (sr.Result, error) { return c.ReserveStock.Hold(ctx, tooMany) })
	wantResult(t, "a hold above the stock sent again", r, sr.Refused, "sold_out")
	r = p.lostOnce(t, "hold o-1", func() (sr.Result, error) { return c.ReserveStock.Hold(ctx, posted) })
	wantResult(t, "hold o-1 sent again", r, sr.Done, "")
	r = p.lostOnce(t, "post o-1", func() (sr.Result, error) { return c.ReserveStock.Post(ctx, key(posted), nil) })
	wantResult(t, "post o-1 sent again", r, sr.Done, "")
	r = p.lostOnce(t, "hold o-2", func() (sr.Result, error) { return c.ReserveStock.Hold(ctx, voided) })
	wantResult(t, "hold o-2 sent again", r, sr.Done, "")
	r = p.lostOnce(t, "void o-2", func() (sr.Result, error) { return c.ReserveStock.Void(ctx, key(voided)) })
	wantResult(t, "void o-2 sent again", r, sr.Done, "")

	// The caller's own calls with the same keys are other calls.
	for _, c2 := range []struct {
		what    string
		call    func() (sr.Result, error)
		outcome sr.Outcome
		reason  string
	}{
		{"restock", func() (sr.Result, error) { return c.Restock.Do(ctx, restock) }, sr.DoneBefore, ""},
		{"the hold above the stock", func() (sr.Result, error) { return c.ReserveStock.Hold(ctx, tooMany) }, sr.Refused, "already_refused"},
		{"hold o-1", func() (sr.Result, error) { return c.ReserveStock.Hold(ctx, posted) }, sr.DoneBefore, ""},
		{"post o-1", func() (sr.Result, error) { return c.ReserveStock.Post(ctx, key(posted), nil) }, sr.DoneBefore, ""},
		{"void o-2", func() (sr.Result, error) { return c.ReserveStock.Void(ctx, key(voided)) }, sr.DoneBefore, ""},
	} {
		r, err := c2.call()
		if err != nil || r.Resent {
			t.Fatalf("%s made again: %+v, %v", c2.what, r, err)
		}
		wantResult(t, c2.what+" made again", r, c2.outcome, c2.reason)
	}
	// 10 in, 3 out for o-1; o-2 given back.
	wantBalances(t, sr.Postgres(pool, tenant), "s", sr.Balance{Posted: 7}, sr.Balance{Posted: 3})
	langtest.EntriesBalance(t, pool, b)
}

// TestResentBulkCallsKeepTheirIDs: a bulk's pipeline loses its answers
// after the server committed its calls; the pool client sends each call
// again alone, with the id it had in the bulk, and each answers done.
func TestResentBulkCallsKeepTheirIDs(t *testing.T) {
	srv, pool, b := faultBook(t)
	ctx := context.Background()
	var user string
	if err := pool.QueryRow(ctx, `select current_user`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	p := startCutProxy(t, socketOf(srv))
	tenant := "resent-bulk"
	c := sr.Postgres(p.pool(t, user), tenant)
	r, err := c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10})
	wantAnswer(t, "restock", r, err, sr.Done)
	calls := []sr.Call{
		c.ReserveStock.HoldCall(sr.ReserveStockArgs{Order: "o-1", Sku: "s", Qty: 3}),
		c.ReserveStock.HoldCall(sr.ReserveStockArgs{Order: "o-2", Sku: "s", Qty: 50}),
		c.Restock.DoCall(sr.RestockArgs{Delivery: "d-2", Sku: "s", Qty: 1}),
	}
	want := []string{"done", "refused(sold_out)", "done"}
	before := p.cuts.Load()
	p.cut.Store(true)
	answers := c.Bulk(ctx, calls...)
	p.cut.Store(false)
	if n := p.cuts.Load() - before; n != 1 {
		t.Fatalf("%d answers cut, want 1", n)
	}
	for i, a := range answers {
		if a.Err != nil || a.Result.String() != want[i] || !a.Result.Resent {
			t.Errorf("call %d of the bulk: %+v, %v; want %s, sent again", i, a.Result, a.Err, want[i])
		}
	}
	// The same calls in another bulk are other calls.
	want = []string{"done_before", "refused(already_refused)", "done_before"}
	for i, a := range c.Bulk(ctx, calls...) {
		if a.Err != nil || a.Result.String() != want[i] || a.Result.Resent {
			t.Errorf("call %d of a second bulk: %+v, %v; want %s", i, a.Result, a.Err, want[i])
		}
	}
	wantBalances(t, sr.Postgres(pool, tenant), "s", sr.Balance{Posted: 11, HeldOut: 3}, sr.Balance{HeldIn: 3})
	langtest.EntriesBalance(t, pool, b)
}

// TestResentExpireAnswersWhatItGaveBack: an expire() whose answer is cut
// after it gave back holds is sent again by the pool client with its id:
// it answers how many that call gave back, the first sending's included,
// and gives back no more than its max in all. Another expire() then gives
// back the rest; no hold is given back twice.
func TestResentExpireAnswersWhatItGaveBack(t *testing.T) {
	srv, pool, b := faultBook(t)
	ctx := context.Background()
	var user string
	if err := pool.QueryRow(ctx, `select current_user`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	p := startCutProxy(t, socketOf(srv))
	tenant := "resent-expire"
	c := sr.Postgres(p.pool(t, user), tenant)
	r, err := c.Restock.Do(ctx, sr.RestockArgs{Delivery: "d-1", Sku: "s", Qty: 10})
	wantAnswer(t, "restock", r, err, sr.Done)
	for i := range 3 {
		r, err := c.ReserveStock.Hold(ctx, sr.ReserveStockArgs{Order: fmt.Sprint("o-", i), Sku: "s", Qty: 2})
		wantAnswer(t, "hold", r, err, sr.Done)
	}
	// Past their deadline, instead of waiting 30 minutes.
	if _, err := pool.Exec(ctx, `update "stock_reservation".holds set deadline = clock_timestamp() - interval '1 second' where tenant = $1`, tenant); err != nil {
		t.Fatal(err)
	}
	expire := func(what string, max int, cut bool) int {
		t.Helper()
		before := p.cuts.Load()
		p.cut.Store(cut)
		defer p.cut.Store(false)
		n, err := c.ExpireUpTo(ctx, max)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if cuts := p.cuts.Load() - before; cut != (cuts == 1) || cuts > 1 {
			t.Fatalf("%s: %d answers cut", what, cuts)
		}
		return n
	}
	if n := expire("expire(2), its answer cut", 2, true); n != 2 {
		t.Errorf("expire(2) sent again answers %d, want the 2 its first sending gave back", n)
	}
	wantBalances(t, sr.Postgres(pool, tenant), "s", sr.Balance{Posted: 10, HeldOut: 2}, sr.Balance{HeldIn: 2})
	if n := expire("another expire(2)", 2, false); n != 1 {
		t.Errorf("another expire(2) answers %d, want the 1 hold left", n)
	}
	if n := expire("expire(2), its answer cut, with nothing left", 2, true); n != 0 {
		t.Errorf("an expire with nothing to give back, sent again, answers %d", n)
	}
	wantBalances(t, sr.Postgres(pool, tenant), "s", sr.Balance{Posted: 10}, sr.Balance{})
	var expired int
	if err := pool.QueryRow(ctx, `select count(*) from "stock_reservation".holds where tenant = $1 and state = 'expired'`, tenant).Scan(&expired); err != nil || expired != 3 {
		t.Errorf("%d holds expired (%v), want 3", expired, err)
	}
	langtest.EntriesBalance(t, pool, b)
}
