package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// ProductionMinutesEnv, when set to a number of minutes, makes
// TestTigerBeetleProductionCluster its long form: the round of faults
// again and again for that long, a line of figures after each.
const ProductionMinutesEnv = "CHOBO_TB_PRODUCTION_MINUTES"

// TestTigerBeetleProductionCluster runs every language's TigerBeetle client
// on a cluster as production runs it: six replicas formatted and started
// without --development (tbtest.LaunchProduction). Each client, driven as
// the conformance tests drive it and dialling the six addresses itself,
// sends receive calls of one unit from three callers, each with a key of
// its own, and bulk calls of 300 from a fourth where the language has
// them, each in one request (the client told the cluster's 8,189 events
// a request, past the 253 of a --development replica), while the replicas
// are made to fail: the primary killed and
// started again; a backup paused and let go on; the primary and a backup
// killed together, which leaves the four a view change needs, and both
// started again. A call whose answer does not come (an error that says it
// may or may not have been applied) is sent again with the same key until
// one does. Every first answer must be done; every stock balance, read
// back through the official Go client, must hold one unit a call: nothing
// acknowledged was lost, and nothing moved twice.
//
// Six such replicas take about 14 GiB; the test says SKIP and does not run
// where the machine has not that much free. tests/run.sh runs it on its
// own, after the rest. With CHOBO_TB_PRODUCTION_MINUTES it runs its round
// of faults for that long, printing calls, resends and the longest wait.
func TestTigerBeetleProductionCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no TigerBeetle cluster is started")
	}
	realTigerBeetle(t)
	var minutes float64
	if v := os.Getenv(ProductionMinutesEnv); v != "" {
		m, err := strconv.ParseFloat(v, 64)
		if err != nil || m <= 0 {
			t.Fatalf("%s=%q is not a number of minutes", ProductionMinutesEnv, v)
		}
		minutes = m
	}
	ctx := context.Background()
	srv, err := tbtest.LaunchProduction(ctx, 6)
	if errors.Is(err, tbtest.ErrShortOfMemory) {
		fmt.Printf("SKIP: TestTigerBeetleProductionCluster: %v\n", err)
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("tbtest: %v", err)
		}
	})
	t.Logf("real TigerBeetle: %s", srv.Describe())

	var runs []*prodRun
	for _, tg := range targetsOn("tigerbeetle") {
		_, kit := languageOf(t, tg)
		l := clientCase(t, tg, "inventory")
		tb := &conformance.TigerBeetle{Raw: srv.Client, Book: l.Copy, Replica: true}
		// Two seconds a request, so that calls meet the timeout while the
		// cluster changes views and are sent again.
		p := startClient(t, tg, l, protocol.Request{TigerBeetle: strings.Join(srv.Addresses, ","), TimeoutMS: 2000,
			RequestEvents: tbtest.ProductionRequestEvents}, tb, "")
		runs = append(runs, &prodRun{tg: tg, p: p, b: l.Copy, bulk: driverkit.BulkOn(kit, "tigerbeetle"), tenant: "production-" + tg})
	}
	w := newProdWork(t, runs)
	w.start()

	// Each step of the round, then a wait for calls to be answered after
	// it: the cluster must go on serving, not merely come back at the end.
	kill := func(i int) {
		if err := srv.Kill(i); err != nil {
			t.Fatal(err)
		}
	}
	restart := func(is ...int) {
		for _, i := range is {
			if err := srv.Restart(ctx, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	primary := func() int {
		if p := srv.Primary(); p >= 0 {
			return p
		}
		return 0
	}
	backupOf := func(p int) int { return (p + 1) % srv.Replicas() }
	round := func() {
		w.waitAnswers(60, "before the faults")
		p := primary()
		kill(p)
		w.note("killed replica %d, the primary by its log", p)
		w.waitAnswers(60, "with the primary killed")
		restart(p)
		w.waitAnswers(60, "after the old primary came back")
		b := backupOf(primary())
		if err := srv.Pause(b); err != nil {
			t.Fatal(err)
		}
		w.note("paused replica %d", b)
		w.waitAnswers(60, "with a backup paused")
		if err := srv.Resume(b); err != nil {
			t.Fatal(err)
		}
		w.waitAnswers(60, "after the paused backup went on")
		p = primary()
		b = backupOf(p)
		kill(p)
		kill(b)
		w.note("killed replicas %d (the primary) and %d together", p, b)
		w.waitAnswers(60, "with two of six replicas killed")
		restart(p, b)
		w.waitAnswers(60, "after both came back")
	}
	if minutes == 0 {
		round()
	} else {
		for end, n := time.Now().Add(time.Duration(minutes*float64(time.Minute))), 1; time.Now().Before(end); n++ {
			round()
			fmt.Printf("production cluster, round %d: %s\n", n, w.figures())
		}
	}
	w.stop()
	if t.Failed() {
		return
	}
	w.check(ctx, srv.Client)
	fmt.Printf("production cluster: %s, 6 replicas without --development: %s\n", srv.Version, w.figures())
}

// prodRun is one language's client in TestTigerBeetleProductionCluster.
type prodRun struct {
	tg     string
	p      *conformance.Process
	b      *book.Book
	bulk   bool
	tenant string
}

// prodCallers is how many callers of single calls each client has; a bulk
// caller comes on top where the language has bulk calls.
const prodCallers = 3

// prodBulk is how many calls a bulk carries: more than a request of 253
// events holds.
const prodBulk = 300

// prodWork is the calls of TestTigerBeetleProductionCluster: who sent
// what, and what came back.
type prodWork struct {
	t    *testing.T
	runs []*prodRun
	quit atomic.Bool
	wg   sync.WaitGroup

	answered, resends, inBulks atomic.Int64

	mu         sync.Mutex
	sent       map[string]int // calls of each caller (its SKU), by tenant and SKU
	lastAnswer time.Time
	longestGap time.Duration // the longest time no call was answered
	longest    time.Duration // the longest a call took, its resends included
	notes      []string
}

func newProdWork(t *testing.T, runs []*prodRun) *prodWork {
	return &prodWork{t: t, runs: runs, sent: map[string]int{}, lastAnswer: time.Now()}
}

// receive is a receive of one unit into stock(sku) under key.
func (r *prodRun) receive(key, sku string) interp.Call {
	return interp.Call{Transfer: r.b.Transfer("receive"), Op: book.Do,
		Strings: map[string]string{"delivery": key, "sku": sku}, Amounts: map[string]int64{"qty": 1}}
}

func (w *prodWork) start() {
	for _, r := range w.runs {
		for c := 0; c < prodCallers; c++ {
			w.wg.Add(1)
			go w.single(r, fmt.Sprintf("sku-%d", c))
		}
		if r.bulk {
			w.wg.Add(1)
			go w.bulks(r, "sku-bulk")
		}
	}
}

// answeredNow counts n calls of sku answered, after a wait of took.
func (w *prodWork) answeredNow(r *prodRun, sku string, n int, took time.Duration) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sent[r.tenant+"/"+sku] += n
	w.longestGap = max(w.longestGap, now.Sub(w.lastAnswer))
	w.lastAnswer = now
	w.longest = max(w.longest, took)
	w.answered.Add(int64(n))
}

// giveUp is how long a call may go unanswered, resends and all.
const giveUp = 3 * time.Minute

func (w *prodWork) single(r *prodRun, sku string) {
	defer w.wg.Done()
	ctx := context.Background()
	for i := 0; !w.quit.Load(); i++ {
		call := r.receive(fmt.Sprintf("d-%s-%d", sku, i), sku)
		start := time.Now()
		for try := 0; ; try++ {
			res, err := r.p.Call(ctx, call, r.tenant)
			if err == nil {
				if !w.fine(r, call, res, try) {
					return
				}
				break
			}
			if !w.again(r, call, err, start) {
				return
			}
		}
		w.answeredNow(r, sku, 1, time.Since(start))
	}
}

func (w *prodWork) bulks(r *prodRun, sku string) {
	defer w.wg.Done()
	ctx := context.Background()
	for i := 0; !w.quit.Load(); i++ {
		todo := make([]interp.Call, prodBulk)
		for j := range todo {
			todo[j] = r.receive(fmt.Sprintf("b-%d-%d", i, j), sku)
		}
		n, start := len(todo), time.Now()
		for try := 0; len(todo) > 0; try++ {
			res, errs, err := r.p.CallBulk(ctx, todo, r.tenant)
			if err != nil {
				if !w.again(r, todo[0], err, start) {
					return
				}
				continue
			}
			var left []interp.Call
			for k, c := range todo {
				switch {
				case errs[k] == nil:
					if !w.fine(r, c, res[k], try) {
						return
					}
				case !w.again(r, c, errs[k], start):
					return
				default:
					left = append(left, c)
				}
			}
			todo = left
		}
		w.inBulks.Add(int64(n))
		w.answeredNow(r, sku, n, time.Since(start))
	}
}

// fine checks an answer: done at the first try; done or done_before
// (the try whose answer was lost had moved it) after.
func (w *prodWork) fine(r *prodRun, c interp.Call, res interp.Result, try int) bool {
	if res.Outcome == interp.Done || (try > 0 && res.Outcome == interp.DoneBefore) {
		return true
	}
	w.t.Errorf("%s: %s answered %s at try %d", r.tg, c, conformance.ShortResult(res, nil), try+1)
	return false
}

// again says whether a failed try is sent again: when the error says its
// outcome is unknown, and the call has waited less than giveUp.
func (w *prodWork) again(r *prodRun, c interp.Call, err error, start time.Time) bool {
	var de *conformance.DriverError
	if errors.As(err, &de) || !unknownOutcome(err) || time.Since(start) > giveUp {
		w.t.Errorf("%s: %s: %v (after %v)", r.tg, c, err, time.Since(start).Round(time.Millisecond))
		return false
	}
	w.resends.Add(1)
	time.Sleep(50 * time.Millisecond)
	return true
}

// unknownOutcome says whether a client's error is one after which the
// same call may be sent again: TigerBeetle gave no answer in time.
func unknownOutcome(err error) bool {
	msg := err.Error()
	for _, s := range []string{"CHOBO_TIMEOUT", "no answer", "may or may not have been applied"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func (w *prodWork) note(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notes = append(w.notes, fmt.Sprintf(format, args...))
	w.t.Logf(format, args...)
}

// waitAnswers waits until n more calls have been answered, or fails the
// test when they are not within giveUp.
func (w *prodWork) waitAnswers(n int64, what string) {
	w.t.Helper()
	start, since := w.answered.Load(), time.Now()
	for w.answered.Load()-start < n {
		if time.Since(since) > giveUp || w.t.Failed() {
			w.stop()
			w.t.Fatalf("%s: %d calls answered in %v, %d wanted", what, w.answered.Load()-start, time.Since(since).Round(time.Second), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (w *prodWork) stop() {
	w.quit.Store(true)
	w.wg.Wait()
}

// check reads every caller's stock balance through the official Go
// client: one unit a call answered.
func (w *prodWork) check(ctx context.Context, c chobotb.Client) {
	w.t.Helper()
	for _, r := range w.runs {
		def := tigerbeetle.Def(r.b)
		b := chobotb.NewBook(c, def, r.tenant)
		stock := accountIndex(w.t, def, "stock")
		w.mu.Lock()
		sent := map[string]int{}
		for k, n := range w.sent {
			if sku, ok := strings.CutPrefix(k, r.tenant+"/"); ok {
				sent[sku] = n
			}
		}
		w.mu.Unlock()
		if len(sent) == 0 {
			w.t.Errorf("%s: no call was answered", r.tg)
		}
		for sku, n := range sent {
			bal, err := b.Balance(ctx, stock, sku)
			if err != nil {
				w.t.Fatal(err)
			}
			if bal.Posted != int64(n) || bal.HeldIn != 0 || bal.HeldOut != 0 {
				w.t.Errorf("%s: stock(%s) is %+v after %d calls of 1 answered: a call was lost or moved twice", r.tg, sku, bal, n)
			}
		}
	}
}

// figures is the line the test prints: calls, resends, waits.
func (w *prodWork) figures() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var tgs []string
	for _, r := range w.runs {
		tgs = append(tgs, r.tg)
	}
	return fmt.Sprintf("%d calls answered (%d of them in bulks of %d) through %s; %d sent again; the longest call %.2f s; the longest time no call was answered %.2f s; faults: %s",
		w.answered.Load(), w.inBulks.Load(), prodBulk, strings.Join(tgs, ", "), w.resends.Load(), w.longest.Seconds(), w.longestGap.Seconds(), strings.Join(w.notes, "; "))
}
