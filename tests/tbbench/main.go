// Command tbbench measures calls per second on a real TigerBeetle replica
// (tbtest: CHOBO_TIGERBEETLE, else the server beside the checkout), in one
// run, so that the figures can be read against each other on the same
// machine at the same moment:
//
//   - raw-1 ×N: N goroutines sending one transfer per request through one
//     official client (N = 1, 8, 64);
//   - raw-253: one goroutine sending 253 transfers per request;
//   - chobo ×N: N goroutines calling a book through chobotb.Book, the
//     runtime every generated tigerbeetle-go client calls (a receive: one
//     move into an account with a lower bound of 0, one event a call);
//   - chobo bulk: one goroutine sending 253 calls at a time with Bulk (with
//     -production, also chobo bulk-8189 from one goroutine and two: full
//     requests, Book.RequestEvents; and raw-8189 from two);
//   - chain ×N and chain unguarded ×N: the chain of a call that two
//     bounds may refuse (a shelve: out of stock, at least 0, into a bin
//     with an upper bound; two events), built by the runtime, sent with
//     its key guard (as a Book sends it) and without (as calls were sent
//     before the guard), one call a request;
//     chain packed and chain unguarded packed: as many whole chains as fit
//     one request. The last lines give each guarded rate over its twin.
//
// With -production N the replica is a cluster of N started as production
// runs it (tbtest.LaunchProduction: no --development, requests of up to
// 8,189 events), and raw-8189 (one goroutine sending full requests) runs
// too; the figures are then read against it as well.
//
// Every id is a hash, as chobo's are (TigerBeetle is faster with ids that
// rise; neither side gets them here). Each mode runs for -for (default
// 3 s) after a warm-up; the last column is the rate over raw-253's.
//
//	go run ./tests/tbbench [-for 3s] [-production 1]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"

	tb "github.com/tigerbeetle/tigerbeetle-go"
)

const bookSrc = `book tbbench v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account suppliers : pcs outside
account bin(sku: string) : pcs
  at most 1000000000000000 refused as bin_full
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from suppliers to stock(sku)
transfer shelve(ref: string, sku: string, qty: pcs)
  key ref
  move qty from stock(sku) to bin(sku)
`

type mode struct {
	name  string
	calls func(ctx context.Context, run int, stop *atomic.Bool) (int64, error)
}

func main() {
	dur := flag.Duration("for", 3*time.Second, "how long each mode runs")
	profile := flag.String("cpuprofile", "", "write a CPU profile of this process to the file")
	gather = flag.Duration("gather", time.Millisecond, "the window of the gathering modes (Book.Gather)")
	only := flag.String("only", "", "run only the modes whose name starts with this (raw-253 always runs)")
	production = flag.Int("production", 0, "run on a cluster of this many replicas in production mode, with raw-8189 (0: one --development replica)")
	flag.Parse()
	onlyPrefix = *only
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tbbench:", err)
			os.Exit(2)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*dur); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

var (
	onlyPrefix string
	gather     *time.Duration
	production *int
)

func run(dur time.Duration) error {
	ctx := context.Background()
	if _, err := tbtest.Bin(); errors.Is(err, tbtest.ErrNoBinary) {
		// a machine without the server: nothing to measure, which is not a failure
		fmt.Printf("SKIP: tbbench: no TigerBeetle server: %v\n", err)
		return nil
	}
	var srv *tbtest.Server
	var err error
	if *production > 0 {
		srv, err = tbtest.LaunchProduction(ctx, *production)
	} else {
		srv, err = tbtest.Launch(ctx)
	}
	if errors.Is(err, tbtest.ErrShortOfMemory) {
		fmt.Printf("SKIP: tbbench: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Printf("real TigerBeetle: %s\n", srv.Describe())
	res := check.Check("tbbench.book", []byte(bookSrc))
	if res.Book == nil {
		return fmt.Errorf("the book does not check: %v", res.Diags)
	}
	b := &bench{c: srv.Client, raw: srv.Raw(), def: tigerbeetle.Def(res.Book)}
	if !b.def.Guarded(shelve) {
		return fmt.Errorf("shelve has no key guard")
	}
	// Raw: two accounts, the first with chobo's flag for a lower bound of 0.
	b.a = chobotb.Account{ID: ids.Sum("tbbench", "a"), Ledger: 1, Code: 1, Flags: chobotb.AccountDebitsMustNotExceedCredits}
	b.s = chobotb.Account{ID: ids.Sum("tbbench", "s"), Ledger: 1, Code: 1}
	if _, err := b.c.CreateAccounts(ctx, []chobotb.Account{b.a, b.s}); err != nil {
		return err
	}
	modes := []mode{b.rawBatch(chobotb.MaxEvents, 1)}
	var more []mode
	if *production > 0 {
		modes = append(modes, b.rawBatch(tbtest.ProductionRequestEvents, 1))
		more = append(more, b.rawBatch(tbtest.ProductionRequestEvents, 2),
			b.bulk(tbtest.ProductionRequestEvents, 1), b.bulk(tbtest.ProductionRequestEvents, 2))
	}
	for _, m := range []mode{b.raw1(1), b.raw1(8), b.raw1(64), b.calls(1, 0), b.calls(8, 0), b.calls(64, 0),
		b.calls(8, *gather), b.calls(64, *gather), b.bulk(chobotb.MaxEvents, 1),
		b.chains(1, false), b.chains(1, true), b.chains(8, false), b.chains(8, true), b.chains(64, false), b.chains(64, true),
		b.packed(false), b.packed(true)} {
		more = append(more, m)
	}
	for _, m := range more {
		if strings.HasPrefix(m.name, onlyPrefix) {
			modes = append(modes, m)
		}
	}
	rates := make([]float64, len(modes))
	cpu := make([]float64, len(modes)) // µs of this process's CPU per call
	for i, m := range modes {
		// A short run first, not counted: connections, caches, the JIT of
		// the replica's own paths.
		if _, err := timed(ctx, m, 1000+i, dur/5); err != nil {
			return fmt.Errorf("%s: %v", m.name, err)
		}
		start, used := time.Now(), cpuTime()
		n, err := timed(ctx, m, i, dur)
		if err != nil {
			return fmt.Errorf("%s: %v", m.name, err)
		}
		rates[i] = float64(n) / time.Since(start).Seconds()
		cpu[i] = float64((cpuTime() - used).Microseconds()) / float64(n)
	}
	report(modes, rates, cpu)
	if *production > 0 {
		fmt.Println("over raw-8189, the full requests of a production replica:")
		for i, m := range modes {
			fmt.Printf("  %-24s %6.2f\n", m.name, rates[i]/rates[1])
		}
	}
	return nil
}

// report prints each mode's rate, its ratio to the first mode's and the
// CPU it took, then each guarded chain's rate over its unguarded twin.
func report(modes []mode, rates, cpu []float64) {
	fmt.Printf("%-24s %10s %9s %12s\n", "mode", "calls/s", "×raw-253", "CPU µs/call")
	for i, m := range modes {
		fmt.Printf("%-24s %10.0f %9.2f %12.1f\n", m.name, rates[i], rates[i]/rates[0], cpu[i])
	}
	// Each guarded mode against its unguarded twin, measured in this run.
	for i, m := range modes {
		if before, ok := strings.CutPrefix(m.name, "chain "); ok && !strings.HasPrefix(before, "unguarded") {
			for j, u := range modes {
				if u.name == "chain unguarded "+before {
					fmt.Printf("key guard, %-13s %.2f× the calls/s without it\n", before+":", rates[i]/rates[j])
				}
			}
		}
	}
	fmt.Println("(CPU is this process's, user and system, with the official client's; the replica's is not in it)")
}

// The key guard's cost is measured on the chain a Book sends for one
// shelve (out of stock(sku), at least 0, into bin(sku), at most 10^15;
// either bound may refuse it, so it has a guard), built by the same code
// and sent with its guard (as every call is) and without it (as calls
// were before there was one), one chain a request or as many whole
// chains as fit one request.
const shelve = 1

// bench is what the modes share: the replica's client, the book's
// definition, the two raw accounts and a counter that makes ids unique.
type bench struct {
	c    chobotb.Client
	raw  tb.Client
	def  *chobotb.Def
	a, s chobotb.Account
	seq  atomic.Int64
}

// rawTransfer is one transfer of 1 from s to a, with a fresh id.
func (b *bench) rawTransfer() chobotb.Transfer {
	n := b.seq.Add(1)
	return chobotb.Transfer{ID: ids.Sum("tbbench", "raw", fmt.Sprint(n)), DebitAccountID: b.s.ID, CreditAccountID: b.a.ID,
		Amount: chobotb.U64(1), Ledger: 1, Code: 1}
}

func (b *bench) raw1(n int) mode {
	return mode{fmt.Sprintf("raw-1 ×%d", n), func(ctx context.Context, _ int, stop *atomic.Bool) (int64, error) {
		return parallel(n, stop, func() (int64, error) {
			st, err := b.c.CreateTransfers(ctx, []chobotb.Transfer{b.rawTransfer()})
			if err == nil && st[0] != chobotb.Created {
				err = fmt.Errorf("raw transfer: %s", st[0])
			}
			return 1, err
		})
	}}
}

// rawBatch sends n transfers a request from the given number of
// goroutines, through the official client itself.
func (b *bench) rawBatch(n, callers int) mode {
	return mode{fmt.Sprintf("raw-%d ×%d", n, callers), func(ctx context.Context, _ int, stop *atomic.Bool) (int64, error) {
		return parallel(callers, stop, func() (int64, error) {
			ts := make([]tb.Transfer, n)
			for i := range ts {
				ts[i] = tbgo.TransferToTB(b.rawTransfer())
			}
			res, err := b.raw.CreateTransfers(ts)
			for _, r := range res {
				if r.Status != tb.TransferCreated && err == nil {
					err = fmt.Errorf("raw batch: %v", r.Status)
				}
			}
			if err == nil && len(res) != n {
				err = fmt.Errorf("raw batch: %d results for %d transfers", len(res), n)
			}
			return int64(len(ts)), err
		})
	}}
}

// book is a fresh Book per mode (a tenant of its own), its accounts made
// by a first call before the clock starts.
func (b *bench) book(ctx context.Context, run int) (*chobotb.Book, error) {
	bk := chobotb.NewBook(b.c, b.def, fmt.Sprint("run", run))
	r, err := bk.Call(ctx, 0, "do", chobotb.Values{"warm-up", "A-1", int64(1)})
	if err == nil && r.Outcome != chobo.Done {
		err = fmt.Errorf("warm-up: %s", r)
	}
	return bk, err
}

func (b *bench) calls(n int, gather time.Duration) mode {
	name := fmt.Sprintf("chobo ×%d", n)
	if gather > 0 {
		name = fmt.Sprintf("chobo ×%d gather %v", n, gather)
	}
	return mode{name, func(ctx context.Context, run int, stop *atomic.Bool) (int64, error) {
		bk, err := b.book(ctx, run)
		if err != nil {
			return 0, err
		}
		bk.Gather(gather)
		return parallel(n, stop, func() (int64, error) {
			r, err := bk.Call(ctx, 0, "do", chobotb.Values{fmt.Sprint("d-", b.seq.Add(1)), "A-1", int64(1)})
			if err == nil && r.Outcome != chobo.Done {
				err = fmt.Errorf("receive: %s", r)
			}
			return 1, err
		})
	}}
}

// bulk sends bulk calls of n receives, one event each, through a book
// whose requests carry n events, from the given number of goroutines: with
// two, one plans its bulk while the other's is in flight.
func (b *bench) bulk(n, callers int) mode {
	name := fmt.Sprintf("chobo bulk ×%d", callers)
	if n != chobotb.MaxEvents {
		name = fmt.Sprintf("chobo bulk-%d ×%d", n, callers)
	}
	return mode{name, func(ctx context.Context, run int, stop *atomic.Bool) (int64, error) {
		bk, err := b.book(ctx, run)
		if err != nil {
			return 0, err
		}
		if err := bk.RequestEvents(n); err != nil {
			return 0, err
		}
		return parallel(callers, stop, func() (int64, error) {
			ops := make([]chobotb.Op, n)
			for i := range ops {
				ops[i] = chobotb.Op{Kind: 0, Op: "do", Values: chobotb.Values{fmt.Sprint("d-", b.seq.Add(1)), "A-1", int64(1)}}
			}
			answers, err := bk.Bulk(ctx, ops)
			if err != nil {
				return 0, err
			}
			for _, ans := range answers {
				if ans.Err != nil {
					return 0, ans.Err
				}
				if ans.Result.Outcome != chobo.Done {
					return 0, fmt.Errorf("bulk receive: %s", ans.Result)
				}
			}
			return int64(len(ops)), nil
		})
	}}
}

// stocked makes run's Book with stock for every call to come; one shelve
// makes its accounts.
func (b *bench) stocked(ctx context.Context, run int) error {
	bk, err := b.book(ctx, run)
	if err != nil {
		return err
	}
	r, err := bk.Call(ctx, 0, "do", chobotb.Values{"stock", "A-1", int64(1) << 40})
	if err == nil && r.Outcome == chobo.Done {
		r, err = bk.Call(ctx, shelve, "do", chobotb.Values{"warm-up", "A-1", int64(1)})
	}
	if err == nil && r.Outcome != chobo.Done {
		err = fmt.Errorf("stocking: %s", r)
	}
	return err
}

// chainOf is the chain of a new shelve of run's tenant, with its key
// guard or without.
func (b *bench) chainOf(run int, guarded bool) ([]chobotb.Event, error) {
	p, err := b.def.Build(fmt.Sprint("run", run), shelve, "do", chobotb.Values{fmt.Sprint("s-", b.seq.Add(1)), "A-1", int64(1)})
	if err != nil {
		return nil, err
	}
	if !guarded {
		return p.Chain[:len(p.Chain)-1], nil
	}
	return p.Chain, nil
}

// send sends the chains in one request and checks that each was done.
func (b *bench) send(ctx context.Context, chains [][]chobotb.Event) error {
	var ts []chobotb.Transfer
	for _, ch := range chains {
		for _, e := range ch {
			ts = append(ts, e.Transfer)
		}
	}
	st, err := b.c.CreateTransfers(ctx, ts)
	if err != nil {
		return err
	}
	for _, ch := range chains {
		r, err := chobotb.Read(ch, st[:len(ch)])
		if err == nil && r.Outcome != chobo.Done {
			err = fmt.Errorf("receive: %s", r)
		}
		if err != nil {
			return err
		}
		st = st[len(ch):]
	}
	return nil
}

func chainName(guarded bool) string {
	if guarded {
		return "chain"
	}
	return "chain unguarded"
}

func (b *bench) chains(n int, guarded bool) mode {
	return mode{fmt.Sprintf("%s ×%d", chainName(guarded), n), func(ctx context.Context, run int, stop *atomic.Bool) (int64, error) {
		if err := b.stocked(ctx, run); err != nil {
			return 0, err
		}
		return parallel(n, stop, func() (int64, error) {
			ch, err := b.chainOf(run, guarded)
			if err != nil {
				return 0, err
			}
			return 1, b.send(ctx, [][]chobotb.Event{ch})
		})
	}}
}

func (b *bench) packed(guarded bool) mode {
	return mode{chainName(guarded) + " packed", func(ctx context.Context, run int, stop *atomic.Bool) (int64, error) {
		if err := b.stocked(ctx, run); err != nil {
			return 0, err
		}
		return parallel(1, stop, func() (int64, error) {
			var batch [][]chobotb.Event
			for events := 0; ; {
				ch, err := b.chainOf(run, guarded)
				if err != nil {
					return 0, err
				}
				if events+len(ch) > chobotb.MaxEvents {
					break
				}
				batch, events = append(batch, ch), events+len(ch)
			}
			return int64(len(batch)), b.send(ctx, batch)
		})
	}}
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs m for d and returns how many calls it made.
func timed(ctx context.Context, m mode, run int, d time.Duration) (int64, error) {
	var stop atomic.Bool
	time.AfterFunc(d, func() { stop.Store(true) })
	return m.calls(ctx, run, &stop)
}

// parallel runs f on n goroutines until stop, and adds up what they count.
func parallel(n int, stop *atomic.Bool, f func() (int64, error)) (int64, error) {
	var total atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				k, err := f()
				if err != nil {
					once.Do(func() { first = err })
					stop.Store(true)
					return
				}
				total.Add(k)
			}
		}()
	}
	wg.Wait()
	return total.Load(), first
}
