package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
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
)

// A failover, as an operator with a synchronous standby lives it: the
// primary dies while keyed calls are out, the standby is promoted, and
// the callers reach it at the same address (here a proxy this test keeps,
// standing for a virtual IP or a pooler). Through every language's
// PostgreSQL client, afterwards, on the new primary: every call has one
// answer, every call answered done is there, no key moved twice, every
// balance is the sum of its entries and what the answers add up to, every
// hold stands where its answers left it.

// pgProxy forwards TCP connections to the unix socket of a server, which
// Switch changes: the connections it carries then end, as the clients'
// connections to a dead primary would.
type pgProxy struct {
	ln     net.Listener
	mu     sync.Mutex
	target string // the socket path
	conns  map[net.Conn]bool
}

func startPGProxy(t *testing.T, srv *pgtest.Server) *pgProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln, conns: map[net.Conn]bool{}}
	p.Switch(srv)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.Switch(nil) })
	return p
}

func socketOf(srv *pgtest.Server) string {
	return fmt.Sprintf("%s/.s.PGSQL.%d", srv.SocketDir, srv.Port)
}

// Switch ends every carried connection and sends new ones to srv (none
// while srv is nil).
func (p *pgProxy) Switch(srv *pgtest.Server) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = ""
	if srv != nil {
		p.target = socketOf(srv)
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *pgProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.carry(c)
	}
}

func (p *pgProxy) carry(c net.Conn) {
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	if target == "" {
		c.Close()
		return
	}
	s, err := net.Dial("unix", target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.target != target {
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close(); c.Close() }()
	io.Copy(c, s)
	c.Close()
	s.Close()
}

func (p *pgProxy) dsn(user string) string {
	_, port, _ := net.SplitHostPort(p.ln.Addr().String())
	return fmt.Sprintf("host=127.0.0.1 port=%s user=%s dbname=%s sslmode=disable", port, user, pgtest.DefaultDB)
}

// failoverCall is one keyed call of a failover run and how it ended.
type failoverCall struct {
	call     interp.Call
	result   interp.Result
	answered bool
	errors   int // the errors it met before its answer, each followed by sending it again
}

// By hand, CHOBO_FAILOVER_SECONDS=N runs the calls N seconds before the
// crash and N after it (1.5 by default), and CHOBO_FAILOVER_ASYNC=1 runs
// each client once more on an asynchronous standby, where acknowledged
// calls may be lost: it counts them rather than fail.
func TestFailoverToASynchronousStandby(t *testing.T) {
	l := loadForBackends(t, caseByName(t, "stock_reservation"))
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			driversOf(t, tg)
			runFailover(t, tg, l, true)
			if os.Getenv("CHOBO_FAILOVER_ASYNC") == "1" {
				t.Run("asynchronous", func(t *testing.T) { runFailover(t, tg, l, false) })
			}
		})
	}
}

func failoverSeconds(t *testing.T) time.Duration {
	v := os.Getenv("CHOBO_FAILOVER_SECONDS")
	if v == "" {
		return 1500 * time.Millisecond
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 {
		t.Fatalf("CHOBO_FAILOVER_SECONDS=%q: want a number of seconds", v)
	}
	return time.Duration(f * float64(time.Second))
}

func runFailover(t *testing.T, tg string, l loaded, synchronous bool) {
	ctx := context.Background()
	d := startPostgres(t, []loaded{l})
	// The cluster runs with synchronous_commit off on its command line; a
	// setting of the database's comes before that: a commit waits for its
	// WAL to be written, and, with a synchronous standby, received there.
	setup := []string{`alter database ` + pgtest.DefaultDB + ` set synchronous_commit = on`}
	if synchronous {
		setup = append(setup, `alter system set synchronous_standby_names = 'standby'`, `select pg_reload_conf()`)
	}
	for _, q := range setup {
		if _, err := d.admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	standby, err := d.srv.LaunchStandby()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { standby.Stop() })
	want := "async"
	if synchronous {
		want = "sync"
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var state string
		d.admin.QueryRow(ctx, `select coalesce(max(sync_state), '') from pg_stat_replication`).Scan(&state)
		if state == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby is not streaming as %s after 30 s (%q)", want, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
	proxy := startPGProxy(t, d.srv)
	p := startDriver(t, tg, driversOf(t, tg)(l.name), l.Copy, "stock_reservation.book", l.CopySrc,
		protocol.Request{DSN: proxy.dsn(pgdeploy.App)}, conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, "")

	const callers = 8
	const tenant = "failover"
	var stop atomic.Bool
	var mu sync.Mutex
	var calls []*failoverCall
	var lastWrite, longestGap atomic.Int64 // unix nanoseconds; nanoseconds
	lastWrite.Store(time.Now().UnixNano())
	send := func(c interp.Call) *failoverCall {
		fc := &failoverCall{call: c}
		mu.Lock()
		calls = append(calls, fc)
		mu.Unlock()
		give := time.Now().Add(90 * time.Second)
		for {
			r, err := p.Call(ctx, c, tenant)
			if err == nil {
				fc.result, fc.answered = r, true
				now := time.Now().UnixNano()
				if gap := now - lastWrite.Swap(now); gap > longestGap.Load() {
					longestGap.Store(gap)
				}
				return fc
			}
			var de *conformance.DriverError
			if errors.As(err, &de) || time.Now().After(give) {
				t.Errorf("%s: %v", c, err)
				return fc
			}
			// The caller's part: the same call again, as the client's
			// error says is safe.
			fc.errors++
			time.Sleep(100 * time.Millisecond)
		}
	}
	call := func(kind string, op book.Op, strs map[string]string, qty int64) interp.Call {
		c := interp.Call{Transfer: l.Copy.Transfer(kind), Op: op, Strings: strs}
		if qty > 0 {
			c.Amounts = map[string]int64{"qty": qty}
		}
		return c
	}
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sku := fmt.Sprintf("s-%d", c)
			for i := 0; !stop.Load(); i++ {
				id := strconv.Itoa(c) + "-" + strconv.Itoa(i)
				send(call("restock", book.Do, map[string]string{"delivery": "d-" + id, "sku": sku}, 3))
				key := map[string]string{"order": "o-" + id, "sku": sku}
				if h := send(call("reserve_stock", book.Hold, key, 2)); !h.answered || h.result.Outcome == interp.Refused {
					continue
				}
				if i%2 == 0 {
					send(call("reserve_stock", book.Post, key, 0))
				} else {
					send(call("reserve_stock", book.Void, key, 0))
				}
			}
		}()
	}
	run := failoverSeconds(t)
	time.Sleep(run)
	crashed := time.Now()
	if err := d.srv.Crash(); err != nil {
		t.Fatal(err)
	}
	proxy.Switch(nil)
	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, standby.ConnString(pgtest.DefaultDB))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// The new primary came with the old one's settings: as it names
	// itself, a synchronous standby that is not there, every commit would
	// wait for it. Until a new standby joins, it commits alone.
	for _, q := range []string{`alter system reset synchronous_standby_names`, `select pg_reload_conf()`} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	proxy.Switch(standby)
	promoted := time.Since(crashed)
	time.Sleep(run)
	stop.Store(true)
	wg.Wait()

	lost := 0
	checkFailover(t, pool, l, tenant, calls, func(msg string) {
		lost++
		if synchronous {
			t.Error(msg)
		} else if lost <= 5 {
			t.Log(msg)
		}
	})
	errs := 0
	for _, fc := range calls {
		errs += fc.errors
	}
	t.Logf("%s (%s standby): %d calls, %d errors each followed by the same call again, promoted %v after the crash, %v at most between two answers, %d answered done and lost",
		tg, want, len(calls), errs, promoted.Round(time.Millisecond), time.Duration(longestGap.Load()).Round(time.Millisecond), lost)
}

// checkFailover holds what the new primary keeps to what the calls were
// answered.
func checkFailover(t *testing.T, pool *pgxpool.Pool, l loaded, tenant string, calls []*failoverCall, lost func(string)) {
	t.Helper()
	ctx := context.Background()
	checkEntries(t, pool, []loaded{l})
	kept := map[string]string{} // kind op key → result
	rows, err := pool.Query(ctx, fmt.Sprintf(`select kind, op, key, result from %q.keys where tenant = $1`, l.Copy.Name), tenant)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var kind, op, result string
		var key []string
		if err := rows.Scan(&kind, &op, &key, &result); err != nil {
			t.Fatal(err)
		}
		kept[fmt.Sprint(kind, op, key)] = result
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	lostAny := false
	type shelf struct{ posted, heldOut int64 }
	want := map[string]*shelf{}
	holds := map[string]string{} // order → the state its answers say
	for _, fc := range calls {
		if !fc.answered {
			t.Errorf("%s: no answer", fc.call)
			continue
		}
		c, r := fc.call, fc.result
		if r.Outcome == interp.Refused {
			// Only a post or void of a hold the failover lost is refused.
			lost(fmt.Sprintf("%s: %s", c, conformance.ShortResult(r, nil)))
			lostAny = true
			continue
		}
		// Every key is used once. A call the caller sent once is done,
		// even when the client itself sent it again after losing its
		// connection (its resends carry its call id, and the server
		// answers them with what the first sending answered); only the
		// caller's own sending again, another call, may find the key of
		// the first done already.
		if fc.errors == 0 && r.Outcome != interp.Done {
			t.Errorf("%s answered %s; a call its caller sent once is done", c, conformance.ShortResult(r, nil))
		}
		sku := c.Strings["sku"]
		if want[sku] == nil {
			want[sku] = &shelf{}
		}
		if state := kept[fmt.Sprint(c.Transfer.Name, string(c.Op), keyOf(c))]; state != "done" {
			lost(fmt.Sprintf("%s answered %s, but the new primary keeps %q", c, conformance.ShortResult(r, nil), state))
			lostAny = true
			continue
		}
		switch c.Op {
		case book.Do:
			want[sku].posted += 3
		case book.Hold:
			want[sku].heldOut += 2
			holds[c.Strings["order"]] = "held"
		case book.Post:
			want[sku].heldOut -= 2
			want[sku].posted -= 2
			holds[c.Strings["order"]] = "posted"
		case book.Void:
			want[sku].heldOut -= 2
			holds[c.Strings["order"]] = "voided"
		}
	}
	if lostAny {
		return // the answers no longer add up to what the server keeps
	}
	for sku, w := range want {
		var posted, heldOut int64
		err := pool.QueryRow(ctx, fmt.Sprintf(`select posted, held_out from %q.balance_shelf($1, $2)`, l.Copy.Name), tenant, sku).Scan(&posted, &heldOut)
		if err != nil || posted != w.posted || heldOut != w.heldOut {
			t.Errorf("shelf(%s): posted %d, held out %d (%v); the answers add up to %d and %d", sku, posted, heldOut, err, w.posted, w.heldOut)
		}
	}
	for order, st := range holds {
		var got string
		err := pool.QueryRow(ctx, fmt.Sprintf(`select state from %q.keys where tenant = $1 and kind = 'reserve_stock' and op = 'hold' and key[1] = $2`, l.Copy.Name), tenant, order).Scan(&got)
		if err != nil || got != st {
			t.Errorf("hold %s: %q (%v), its answers say %s", order, got, err, st)
		}
	}
	var below int
	if err := pool.QueryRow(ctx, fmt.Sprintf(`select count(*) from %q.accounts where lower_bound is not null and posted - held_out < lower_bound`, l.Copy.Name)).Scan(&below); err != nil || below != 0 {
		t.Errorf("%d accounts below their bound (%v)", below, err)
	}
}

// keyOf is the key row's key of a call of stock_reservation: its
// transfer's key values in order.
func keyOf(c interp.Call) []string {
	var out []string
	for _, k := range c.Transfer.Key {
		out = append(out, c.Strings[k.Name])
	}
	return out
}
