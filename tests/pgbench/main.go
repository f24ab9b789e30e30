// Command pgbench measures what one call of a book's PostgreSQL functions
// costs beside the least a hand-written program could send for the same
// change, all on one throwaway cluster (pgtest) in one run, so that the
// ratios can be read on a shared, noisy machine; the absolute figures
// cannot.
//
// Four systems, each on the same rows of the same grown tables (tens of
// thousands of account rows and key rows of other tenants are made first,
// as in any real deployment):
//
//   - chobo: the generated function, called by its statement;
//   - tuned: a function written by hand, as fast as its authors could
//     make it while keeping the same guarantees (tuned.sql; move and
//     outside only). Before any measure, -verify calls sends the same
//     calls to both, keys sent again, refusals and new accounts among
//     them, and stops unless both answer alike and write the same rows;
//   - bare: the conditional UPDATE of the same rows, one statement, one
//     round trip, no key;
//   - floor: one statement that inserts a bare key row and then makes the
//     bare UPDATE, the least any call with a key can do.
//
// Three shapes: move (between two bounded accounts, pay), outside (from a
// bounded account to an account without bounds, redeem; bare and floor
// write the same shard row of it each worker would) and hold+post (a hold
// and then its post, two calls, counted as one operation). Each at 1 and
// at 8 connections, each connection with accounts of its own, sent one
// call a round trip (single) and pipelined (pgx pipeline mode, a Sync
// after every statement so that each is its own transaction, -batch
// statements a round trip). Every statement of every system goes through
// the same path: prepared once per connection, parameters as text; with
// -unnamed, sent unnamed and parsed at every call instead, as the client
// runtimes send their statements.
//
// Each repetition runs the systems in turn, the order rotated from
// one repetition to the next; the table shows medians over the
// repetitions, and the ratios are medians of the ratios of each
// repetition.
//
//	go run ./tests/pgbench [-calls 5000] [-reps 3] [-batch 64] [-shapes move,outside,hold] [-unnamed] [-stats] [-verify 600]
//
// -after and -after-file run SQL of an experiment once the book is loaded
// (a function replaced, an index dropped), to price one part of a call;
// {{.Pay}} and {{.Redeem}} in a file stand for the account ids' declarations
// of the hand-written functions. An experiment that leaves out part of a
// call needs -verify 0.
//
// The machine is shared: the rates move with what else runs, the CPU
// columns (the server processes' own time per operation) much less;
// read the ratios, and more repetitions (-reps 9 -calls 2000) where
// they still move.
//
// -stats loads pg_stat_statements and prints, at the end, the statements
// that took the most server time (the statements inside the functions
// too).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
)

const bookSrc = `book bench v1
unit pt
account wallet(id: string) : pt
  at least 0 refused as not_enough
account issued : pt outside
account redeemed : pt outside
transfer grant(grant_id: string, id: string, amount: pt)
  key grant_id
  move amount from issued to wallet(id)
transfer pay(pay_id: string, a: string, b: string, amount: pt)
  key pay_id
  move amount from wallet(a) to wallet(b)
transfer redeem(order: string, id: string, amount: pt)
  key order
  move amount from wallet(id) to redeemed
transfer spend(order: string, a: string, b: string, amount: pt)
  key order
  pending expires after 10 minutes
  move amount from wallet(a) to wallet(b)
`

const tenant = "bench"

var systems = []string{"chobo", "tuned", "bare", "floor"}

// verifyCalls is the length of the comparison of chobo's functions and
// the hand-written ones (-verify).
var verifyCalls int

// afterLoad is run after the book's SQL is loaded (the experiments' changes).
var afterLoad []string

// A statement of one system, as a worker sends it: its text, and how to
// make its parameters for the i-th operation of worker w.
type stmt struct {
	sql    string
	params func(w *worker, key string) [][]byte
	chobo  bool // answers a row whose first column must be "done"; else must change one row
}

// worker is one connection and the accounts it alone uses.
type worker struct {
	n        int
	conn     *pgx.Conn
	a, b     string // the wallets' arguments
	aID, bID string // and their ids
}

func main() {
	calls := flag.Int("calls", 5000, "operations per system, shape, connection count and repetition")
	reps := flag.Int("reps", 3, "repetitions (the order of the systems rotates)")
	batch := flag.Int("batch", 64, "statements per round trip when pipelined")
	shapeList := flag.String("shapes", "move,outside,hold", "shapes to run")
	connList := flag.String("conns", "1,8", "connection counts")
	modeList := flag.String("modes", "single,pipelined", "ways of sending")
	stats := flag.Bool("stats", false, "print the statements that took the most server time (pg_stat_statements)")
	sysList := flag.String("systems", strings.Join(systems, ","), "systems to run (for a profile of one; the ratios need chobo)")
	pidFile := flag.String("pidfile", "", "write the server process ids of the connections here, then wait 2 s (to attach perf)")
	dropCheck := flag.Bool("drop-check", false, "an experiment: drop the check of the accounts table after the load, to see what it costs a call")
	flag.Func("after", "an experiment: a statement to run after the load (repeatable)", func(v string) error { afterLoad = append(afterLoad, v); return nil })
	flag.Func("after-file", "an experiment: a file of SQL to run after the load (repeatable)", func(v string) error {
		b, err := os.ReadFile(v)
		afterLoad = append(afterLoad, string(b))
		return err
	})
	flag.IntVar(&verifyCalls, "verify", 600, "calls sent to chobo's and the hand-written functions alike before measuring, their answers and rows compared (0: none, for an experiment that leaves out part of a call)")
	flag.BoolVar(&unnamed, "unnamed", false, "send every statement unnamed, parsed at each call, as the client runtimes do, instead of prepared once per connection")
	flag.Parse()
	systems = strings.Split(*sysList, ",")
	if *dropCheck {
		afterLoad = append(afterLoad, `alter table "bench".accounts drop constraint within_bounds`)
	}
	if err := run(*calls, *reps, *batch, strings.Split(*shapeList, ","), ints(*connList), strings.Split(*modeList, ","), *stats, *pidFile); err != nil {
		fmt.Fprintln(os.Stderr, "pgbench:", err)
		os.Exit(1)
	}
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "pgbench: -conns: %q is not a positive count\n", f)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

func run(calls, reps, batch int, shapes []string, connCounts []int, modes []string, stats bool, pidFile string) error {
	ctx := context.Background()
	res := check.Check("bench.book", []byte(bookSrc))
	if res.Book == nil {
		return fmt.Errorf("%v", res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		return err
	}
	files, ds := postgres.Build(res.Book, gen.NewSource("bench.book", []byte(bookSrc)), gen.Options{})
	if len(ds) > 0 {
		return fmt.Errorf("%+v", ds)
	}
	srv, err := pgtest.Launch()
	if err != nil {
		return err
	}
	defer srv.Stop()
	if stats {
		if err := loadStats(ctx, srv); err != nil {
			return err
		}
	}
	setup, err := srv.OpenConn(ctx)
	if err != nil {
		return err
	}
	defer setup.Close(ctx)
	if err := load(ctx, setup, string(files[0].Data)); err != nil {
		return err
	}
	if verifyCalls > 0 {
		if err := verify(ctx, setup, m, verifyCalls); err != nil {
			return err
		}
	}
	maxConns := slices.Max(connCounts)
	workers, err := openWorkers(ctx, srv, setup, m, maxConns)
	if err != nil {
		return err
	}
	defer func() {
		for _, w := range workers {
			w.conn.Close(ctx)
		}
	}()
	var redeemedID string
	if err := setup.QueryRow(ctx, `select id::text from "bench".accounts where tenant = $1 and kind = 'redeemed'`, tenant).Scan(&redeemedID); err != nil {
		return fmt.Errorf("the outside account: %v", err)
	}
	all := statements(m, redeemedID)
	if err := prepare(ctx, workers, all); err != nil {
		return err
	}
	if pidFile != "" {
		if err := writePIDs(pidFile, workers); err != nil {
			return err
		}
	}
	fmt.Printf("pgbench: %d operations per measure, %d repetitions, pipelined %d statements a round trip\n", calls, reps, batch)
	fmt.Printf("%-9s %-8s %5s", "mode", "shape", "conns")
	for _, sys := range systems {
		fmt.Printf(" %9s", sys+"/s")
	}
	for _, sys := range others() {
		fmt.Printf(" %12s", "chobo/"+sys)
	}
	for _, sys := range systems {
		fmt.Printf(" %9s", sys+" cpu")
	}
	fmt.Println()
	r := &measurer{ctx: ctx, workers: workers, calls: calls, reps: reps, batch: batch}
	for _, mode := range modes {
		for _, shape := range shapes {
			ops, ok := all[shape]
			if !ok {
				return fmt.Errorf("no shape %q", shape)
			}
			for _, conns := range connCounts {
				if err := r.row(mode, shape, ops, conns); err != nil {
					return err
				}
			}
		}
	}
	fmt.Println("(hold: one operation is a hold and its post, two calls)")
	fmt.Println("(cpu: microseconds of CPU the connections' server processes spent per operation, from /proc; the ratio")
	fmt.Println(" of two systems' cpu is the ratio of rates a server short of CPU would reach, whatever else runs on the machine)")
	if stats {
		return printStats(ctx, setup)
	}
	return nil
}

// prepare prepares every statement of every system on every connection.
func prepare(ctx context.Context, workers []*worker, all map[string]map[string][]stmt) error {
	for _, w := range workers {
		for name, ops := range all {
			for sys, ss := range ops {
				for j, s := range ss {
					if _, err := w.conn.Prepare(ctx, stmtName(name, sys, j), s.sql); err != nil {
						return fmt.Errorf("preparing %s %s: %v", name, sys, err)
					}
				}
			}
		}
	}
	return nil
}

// writePIDs writes the server process ids of the connections to path,
// then waits 2 s for a profiler to attach.
func writePIDs(path string, workers []*worker) error {
	var pids []string
	for _, w := range workers {
		pids = append(pids, strconv.Itoa(int(w.conn.PgConn().PID())))
	}
	if err := os.WriteFile(path, []byte(strings.Join(pids, ",")+"\n"), 0o644); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	return nil
}

// measurer runs the measures of one server, row by row of the table.
type measurer struct {
	ctx                context.Context
	workers            []*worker
	calls, reps, batch int
	seq                int // numbers each measure, so that keys never repeat
}

// row measures every system sending shape's operations (ops, by system;
// a system with no statements for the shape is left out) on conns
// connections, the order of the systems rotating from one repetition to
// the next, and prints the medians.
func (r *measurer) row(mode, shape string, ops map[string][]stmt, conns int) error {
	var syss []string
	for _, sys := range systems {
		if len(ops[sys]) > 0 {
			syss = append(syss, sys)
		}
	}
	rates := map[string][]float64{}
	ratios := map[string][]float64{} // chobo's rate over each other system's, per repetition
	cpu := map[string][]float64{}
	for rep := 0; rep < r.reps; rep++ {
		rate := map[string]float64{}
		for i := range syss {
			sys := syss[(i+rep)%len(syss)]
			r.seq++
			prefix := fmt.Sprintf("%s-%d", sys, r.seq)
			var d time.Duration
			var err error
			used := serverCPU(r.workers[:conns])
			if mode == "pipelined" {
				d, err = measure(r.workers[:conns], r.calls, func(w *worker, from, to int) error {
					return pipelined(r.ctx, w, shape, sys, ops[sys], prefix, from, to, r.batch)
				})
			} else {
				d, err = measure(r.workers[:conns], r.calls, func(w *worker, from, to int) error {
					return single(r.ctx, w, shape, sys, ops[sys], prefix, from, to)
				})
			}
			if err != nil {
				return fmt.Errorf("%s %s %s conns=%d: %v", mode, shape, sys, conns, err)
			}
			if used >= 0 {
				used = serverCPU(r.workers[:conns]) - used
			}
			rate[sys] = float64(r.calls) / d.Seconds()
			rates[sys] = append(rates[sys], rate[sys])
			cpu[sys] = append(cpu[sys], used.Seconds()*1e6/float64(r.calls))
		}
		if c, ok := rate["chobo"]; ok {
			for sys, v := range rate {
				ratios[sys] = append(ratios[sys], c/v)
			}
		}
	}
	fmt.Printf("%-9s %-8s %5d", mode, shape, conns)
	for _, sys := range systems {
		fmt.Printf(" %9s", cell(rates[sys], "%.0f"))
	}
	for _, sys := range others() {
		fmt.Printf(" %12s", cell(ratios[sys], "%.2f"))
	}
	for _, sys := range systems {
		fmt.Printf(" %9s", cell(cpu[sys], "%.1f"))
	}
	fmt.Println()
	return nil
}

// others are the systems chobo is compared with.
func others() []string {
	var out []string
	for _, sys := range systems {
		if sys != "chobo" {
			out = append(out, sys)
		}
	}
	return out
}

// cell is the median of xs in format f, or "-" when there is none.
func cell(xs []float64, f string) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf(f, median(xs))
}

// load loads the book's SQL, runs the statements of afterLoad, and
// grows the tables.
func load(ctx context.Context, setup *pgx.Conn, sql string) error {
	if _, err := setup.Exec(ctx, sql); err != nil {
		return fmt.Errorf("loading the book: %v", err)
	}
	marks, err := tunedFunctions(sql)
	if err != nil {
		return err
	}
	if _, err := setup.Exec(ctx, marks.Replace(tunedSQL)); err != nil {
		return fmt.Errorf("loading the hand-written functions: %v", err)
	}
	for _, sql := range afterLoad {
		if _, err := setup.Exec(ctx, marks.Replace(sql)); err != nil {
			return fmt.Errorf("%s: %v", sql, err)
		}
	}
	return grow(ctx, setup)
}

// grow fills the tables with rows of other tenants: on a table of a few
// pages every plan is a scan, cheaper than it will ever be in use.
func grow(ctx context.Context, c *pgx.Conn) error {
	_, err := c.Exec(ctx, `insert into "bench".accounts (tenant, id, kind, args, unit, lower_bound)
select 'other-' || (i % 50), "bench".chobo_id(array['account', 'bench', 'other', 'wallet', i::text]),
       'wallet', array[i::text], 'pt', 0
  from generate_series(1, 30000) i;
insert into "bench".keys (tenant, kind, op, key, content, definition, result)
select 'other-' || (i % 50), 'pay', 'do', array[md5(i::text)], '', '', 'done'
  from generate_series(1, 30000) i;
analyze "bench".accounts;
analyze "bench".keys`)
	if err != nil {
		return fmt.Errorf("growing the tables: %v", err)
	}
	return nil
}

// openWorkers opens n connections, gives each worker's first wallet its
// funds, and makes the rows every shape needs (the outside account's
// shards come with its first call).
func openWorkers(ctx context.Context, srv *pgtest.Server, setup *pgx.Conn, m *model.Model, n int) ([]*worker, error) {
	grant := m.Transfer("grant").Operation("do").Statement
	redeem := m.Transfer("redeem").Operation("do").Statement
	pay := m.Transfer("pay").Operation("do").Statement
	var ws []*worker
	for i := 0; i < n; i++ {
		c, err := srv.OpenConn(ctx)
		if err != nil {
			return nil, err
		}
		w := &worker{n: i, conn: c, a: fmt.Sprintf("a-%d", i), b: fmt.Sprintf("b-%d", i)}
		ws = append(ws, w)
		for _, call := range []struct {
			sql  string
			args []any
		}{
			{grant, []any{tenant, "g-" + w.a, w.a, int64(1) << 50, nil}},
			{pay, []any{tenant, "warm-pay-" + w.a, w.a, w.b, int64(1), nil}},
			{redeem, []any{tenant, "warm-redeem-" + w.a, w.a, int64(1), nil}},
		} {
			var result string
			var reason *string
			if err := c.QueryRow(ctx, call.sql, call.args...).Scan(&result, &reason); err != nil || result != "done" {
				return nil, fmt.Errorf("preparing worker %d: %v %v %v", i, result, reason, err)
			}
		}
		for _, p := range []struct {
			arg string
			id  *string
		}{{w.a, &w.aID}, {w.b, &w.bID}} {
			if err := setup.QueryRow(ctx, `select id::text from "bench".accounts where tenant = $1 and kind = 'wallet' and args = array[$2]`, tenant, p.arg).Scan(p.id); err != nil {
				return nil, err
			}
		}
	}
	return ws, nil
}

// statements gives, per shape and system, the statements of one operation.
func statements(m *model.Model, redeemedID string) map[string]map[string][]stmt {
	two := func(w *worker, key string) [][]byte {
		return [][]byte{[]byte(tenant), []byte(w.aID), []byte(w.bID), []byte("1"), []byte(key)}
	}
	out := func(w *worker, key string) [][]byte {
		return [][]byte{[]byte(tenant), []byte(w.aID), []byte(redeemedID), []byte("1"), []byte(key), []byte(strconv.Itoa(w.n % 16))}
	}
	bare := func(f func(w *worker, key string) [][]byte) func(w *worker, key string) [][]byte {
		// the bare statements have no key: its parameter is left out
		return func(w *worker, key string) [][]byte {
			p := f(w, key)
			return append(p[:4:4], p[5:]...)
		}
	}
	bareSQL := func(s string) string { return strings.ReplaceAll(s, "$6::int", "$5::int") }
	chobo := func(sql string, args func(w *worker, key string) [][]byte) []stmt {
		return []stmt{{sql: sql, params: args, chobo: true}}
	}
	// chobo's functions and the hand-written ones take the same values
	pay := func(w *worker, key string) [][]byte {
		return [][]byte{[]byte(tenant), []byte(key), []byte(w.a), []byte(w.b), []byte("1"), nil}
	}
	redeem := func(w *worker, key string) [][]byte {
		return [][]byte{[]byte(tenant), []byte(key), []byte(w.a), []byte("1"), nil}
	}
	return map[string]map[string][]stmt{
		"move": {
			"chobo": chobo(m.Transfer("pay").Operation("do").Statement, pay),
			"tuned": chobo(tunedCall("tuned_pay", 5), pay),
			"bare":  {{sql: moveSQL(false), params: bare(two)}},
			"floor": {{sql: moveSQL(true), params: two}},
		},
		"outside": {
			"chobo": chobo(m.Transfer("redeem").Operation("do").Statement, redeem),
			"tuned": chobo(tunedCall("tuned_redeem", 4), redeem),
			"bare":  {{sql: bareSQL(outsideSQL(false)), params: bare(out)}},
			"floor": {{sql: outsideSQL(true), params: out}},
		},
		"hold": {
			"chobo": append(chobo(m.Transfer("spend").Operation("hold").Statement, func(w *worker, key string) [][]byte {
				return [][]byte{[]byte(tenant), []byte(key), []byte(w.a), []byte(w.b), []byte("1"), nil}
			}), chobo(m.Transfer("spend").Operation("post").Statement, func(w *worker, key string) [][]byte {
				return [][]byte{[]byte(tenant), []byte(key), nil, nil}
			})...),
			"bare":  {{sql: holdSQL(false), params: bare(two)}, {sql: postSQL(false), params: bare(two)}},
			"floor": {{sql: holdSQL(true), params: two}, {sql: postSQL(true), params: two}},
		},
	}
}

// keySQL is the key row the floor statements write first.
func keySQL(op string) string {
	return `with k as (
  insert into "bench".keys (tenant, kind, op, key, content, definition, result)
  values ($1, 'floor', '` + op + `', array[$5::text], '', '', 'done') on conflict do nothing returning 1)`
}

// moveSQL is the hand-written SQL of a move between two bounded
// accounts; with floor, behind a key row as chobo's calls are.
func moveSQL(floor bool) string {
	s, cond := "with", ""
	if floor {
		s, cond = keySQL("do")+",", " and exists (select 1 from k)"
	}
	return s + ` f as (update "bench".accounts set posted = posted - $4::bigint
   where tenant = $1 and id = $2::uuid and posted - held_out - $4::bigint >= 0` + cond + ` returning 1)
update "bench".accounts set posted = posted + $4::bigint
 where tenant = $1 and id = $3::uuid and exists (select 1 from f)`
}

// outsideSQL is the hand-written SQL of a move into an outside
// account's shard; with floor, behind a key row as chobo's calls are.
func outsideSQL(floor bool) string {
	s, cond := "with", ""
	if floor {
		s, cond = keySQL("do")+",", " and exists (select 1 from k)"
	}
	return s + ` f as (update "bench".accounts set posted = posted - $4::bigint
   where tenant = $1 and id = $2::uuid and posted - held_out - $4::bigint >= 0` + cond + ` returning 1)
update "bench".account_shards set posted = posted + $4::bigint
 where tenant = $1 and id = $3::uuid and shard = $6::int and exists (select 1 from f)`
}

// holdSQL is the hand-written SQL of a hold between two bounded
// accounts; with floor, behind a key row as chobo's calls are.
func holdSQL(floor bool) string {
	s, cond := "with", ""
	if floor {
		s, cond = keySQL("hold")+",", " and exists (select 1 from k)"
	}
	return s + ` f as (update "bench".accounts set held_out = held_out + $4::bigint
   where tenant = $1 and id = $2::uuid and posted - held_out - $4::bigint >= 0` + cond + ` returning 1)
update "bench".accounts set held_in = held_in + $4::bigint
 where tenant = $1 and id = $3::uuid and exists (select 1 from f)`
}

// postSQL is the hand-written SQL of the post of the hold made just
// before, whose rows always change; with floor, behind a key row as
// chobo's calls are.
func postSQL(floor bool) string {
	s, cond := "with", ""
	if floor {
		s, cond = keySQL("post")+",", " and exists (select 1 from k)"
	}
	return s + ` f as (update "bench".accounts set posted = posted - $4::bigint, held_out = held_out - $4::bigint
   where tenant = $1 and id = $2::uuid` + cond + ` returning 1)
update "bench".accounts set posted = posted + $4::bigint, held_in = held_in - $4::bigint
 where tenant = $1 and id = $3::uuid and exists (select 1 from f)`
}

func stmtName(shape, sys string, j int) string { return fmt.Sprintf("%s_%s_%d", shape, sys, j) }

// measure runs operations 0..calls-1 spread over the workers, each
// worker a contiguous range, and returns the time until the last ends.
func measure(ws []*worker, calls int, each func(w *worker, from, to int) error) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, len(ws))
	start := time.Now()
	for i, w := range ws {
		from, to := calls*i/len(ws), calls*(i+1)/len(ws)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = each(w, from, to)
		}()
	}
	wg.Wait()
	return time.Since(start), errors.Join(errs...)
}

// serverCPU is the CPU time the server processes of ws have spent so
// far (the scheduler's count, in nanoseconds), or -1 where it cannot be
// read. Unlike the time a measure takes, it hardly moves when other
// programs share the machine.
func serverCPU(ws []*worker) time.Duration {
	var sum time.Duration
	for _, w := range ws {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", w.conn.PgConn().PID()))
		if err != nil {
			return -1
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return -1
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return -1
		}
		sum += time.Duration(ns)
	}
	return sum
}

// unnamed sends each statement as the runtimes of the clients send theirs:
// unnamed, parsed by the server at every call (a pooler in transaction
// mode keeps no statement prepared on a connection of the client's).
var unnamed bool

// single sends each statement of operations from..to-1 in a round trip
// of its own.
func single(ctx context.Context, w *worker, shape, sys string, ss []stmt, prefix string, from, to int) error {
	pc := w.conn.PgConn()
	for i := from; i < to; i++ {
		key := fmt.Sprintf("%s-%d", prefix, i)
		for j, s := range ss {
			var r *pgconn.Result
			if unnamed {
				r = pc.ExecParams(ctx, s.sql, s.params(w, key), nil, nil, nil).Read()
			} else {
				r = pc.ExecPrepared(ctx, stmtName(shape, sys, j), s.params(w, key), nil, nil).Read()
			}
			if err := answer(s, r); err != nil {
				return fmt.Errorf("operation %d: %v", i, err)
			}
		}
	}
	return nil
}

// pipelined sends the statements of operations from..to-1 in pipeline
// mode, a Sync after each (each its own transaction), batch statements
// before it reads their answers.
func pipelined(ctx context.Context, w *worker, shape, sys string, ss []stmt, prefix string, from, to, batch int) error {
	p := w.conn.PgConn().StartPipeline(ctx)
	per := max(1, batch/len(ss))
	for i := from; i < to; i += per {
		end := min(to, i+per)
		var sent []stmt
		for op := i; op < end; op++ {
			key := fmt.Sprintf("%s-%d", prefix, op)
			for j, s := range ss {
				if unnamed {
					p.SendQueryParams(s.sql, s.params(w, key), nil, nil, nil)
				} else {
					p.SendQueryPrepared(stmtName(shape, sys, j), s.params(w, key), nil, nil)
				}
				p.SendPipelineSync()
				sent = append(sent, s)
			}
		}
		if err := p.Flush(); err != nil {
			return err
		}
		for n, s := range sent {
			got, err := p.GetResults()
			if err != nil {
				return err
			}
			rr, ok := got.(*pgconn.ResultReader)
			if !ok {
				return fmt.Errorf("statement %d of a batch: got %T", n, got)
			}
			if err := answer(s, rr.Read()); err != nil {
				return fmt.Errorf("operation %d: %v", i+n/len(ss), err)
			}
			if got, err = p.GetResults(); err != nil {
				return err
			}
			if _, ok := got.(*pgconn.PipelineSync); !ok {
				return fmt.Errorf("statement %d of a batch: got %T, want its sync", n, got)
			}
		}
	}
	return p.Close()
}

// answer checks that a statement did what it was sent for: a function
// answered done, a bare statement changed its row.
func answer(s stmt, r *pgconn.Result) error {
	if r.Err != nil {
		return r.Err
	}
	if s.chobo {
		if len(r.Rows) != 1 || string(r.Rows[0][0]) != "done" {
			return fmt.Errorf("the function answered %q", r.Rows)
		}
		return nil
	}
	if r.CommandTag.RowsAffected() != 1 {
		return fmt.Errorf("the statement changed %d rows, want 1", r.CommandTag.RowsAffected())
	}
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// loadStats restarts the cluster with pg_stat_statements loaded, every
// nested statement counted.
func loadStats(ctx context.Context, srv *pgtest.Server) error {
	c, err := srv.OpenConn(ctx)
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, `alter system set shared_preload_libraries = 'pg_stat_statements'`)
	c.Close(ctx)
	if err != nil {
		return err
	}
	if err := srv.Restart(); err != nil {
		return err
	}
	c, err = srv.OpenConn(ctx)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	// the setting is known only once the library is loaded
	for _, s := range []string{`create extension pg_stat_statements`,
		`alter system set pg_stat_statements.track = 'all'`, `select pg_reload_conf()`} {
		if _, err := c.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

func printStats(ctx context.Context, c *pgx.Conn) error {
	rows, err := c.Query(ctx, `select calls, round(total_exec_time::numeric, 0), round((total_exec_time / calls * 1000)::numeric, 1),
       regexp_replace(left(query, 150), '\s+', ' ', 'g')
  from pg_stat_statements where calls > 100 order by total_exec_time desc limit 25`)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Printf("\n%9s %9s %8s  %s\n", "calls", "total ms", "us/call", "statement")
	for rows.Next() {
		var calls int64
		var total, per float64
		var q string
		if err := rows.Scan(&calls, &total, &per, &q); err != nil {
			return err
		}
		fmt.Printf("%9d %9.0f %8.1f  %s\n", calls, total, per, q)
	}
	return rows.Err()
}
