// Package conformance runs scenarios against a real backend and compares
// what it answers with the reference interpreter: every result, and the
// balances and hold states at the end. Inside a `together`, the backend's
// answer must be one of the outcomes the interpreter allows.
//
// Holds expire in real time on a backend, so scenarios run on a test copy
// of the book whose holds all last a few seconds (Shorten). Each `pass`
// is first given a length in the copy's time that keeps which holds it
// expires (Scale); on the backend it then lasts that long, and at least
// until the holds it must expire have reached their deadlines, which it
// then has the backend give back. The reference is the interpreter on
// that same copy, which answers as on the book.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Lifetime is how long every hold of a test copy lasts: the lifetime
// the scenario package times every scenario's passes for.
const Lifetime = time.Duration(scenario.CopyLifetime) * time.Second

// margin is how close to a hold's deadline a step may start: closer, and
// the backend may see the deadline pass before the interpreter does.
const margin = 300 * time.Millisecond

// settle is how long past a deadline a pass waits before it asks the
// backend to give holds back. The deadline is counted from when the
// hold's answer came back, which is already after the backend's own.
const settle = 100 * time.Millisecond

// maxPass bounds one pass of a scenario run on a backend. Passes are
// waited out in real time, and a scaled pass is a few seconds; a longer
// one is a scenario that was not scaled.
const maxPass = 60

var expiry = regexp.MustCompile(`pending expires after [0-9.]+ [a-z]+`)

// Shorten returns the source of a test copy: every `pending expires
// after …` becomes 3 seconds. It fails when the book has expiring holds
// but no such line was found, rather than testing the wrong thing.
func Shorten(b *book.Book, src []byte) ([]byte, *book.Book, error) {
	expires := false
	for _, t := range b.Transfers {
		expires = expires || (t.Pending != nil && t.Pending.Expires)
	}
	out := expiry.ReplaceAll(src, []byte(fmt.Sprintf("pending expires after %d seconds", int(Lifetime/time.Second))))
	if expires && slices.Equal(out, src) {
		return nil, nil, fmt.Errorf("%s: found no `pending expires after` to shorten", b.File)
	}
	res := check.Check(b.File, out)
	if res.Book == nil {
		return nil, nil, fmt.Errorf("%s: the test copy does not check: %+v", b.File, res.Diags)
	}
	return out, res.Book, nil
}

// Backend is a database reached through some client.
type Backend interface {
	// Call makes one call for a tenant. An error means the call failed
	// (the interpreter's "failed"), except a *DriverError, which means
	// the backend itself broke and stops the scenario.
	Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error)
	// Expire gives back holds past their deadline, for every tenant; it
	// reports whether holds of tenant past their deadline remain.
	Expire(ctx context.Context, tenant string) (remaining bool, err error)
	// Ledger reads the accounts and holds of a tenant, written as Observed
	// writes them.
	Ledger(ctx context.Context, tenant string) (accounts, holds []string, err error)
}

// Observed is one way a scenario ended, written so that two of them can
// be compared as strings.
type Observed struct {
	Results  []string
	Accounts []string
	Holds    []string
	// Answers are the results again, as scenario.Failures reads them
	// (not part of String).
	Answers []scenario.OpResult
	// Reads are what the read steps read, by step index, and Marks the
	// run's clock at the end of each pass, by which their times are
	// compared (neither is part of String).
	Reads map[int]*ReadAnswer
	Marks Marks
	// Deploys counts the deploy steps the backend ran (not part of
	// String).
	Deploys int
}

func (o Observed) String() string {
	return fmt.Sprintf("results %v\n  accounts %v\n  holds %v", o.Results, o.Accounts, o.Holds)
}

// FromOutcome writes an interpreter outcome as Observed.
func FromOutcome(out scenario.Outcome) Observed {
	o := Observed{Answers: out.Results}
	for _, r := range out.Results {
		o.Results = append(o.Results, r.Short())
	}
	for _, a := range out.Accounts {
		o.Accounts = append(o.Accounts, AccountLine(a.Account.String(), a.Balance))
	}
	for _, h := range out.Holds {
		o.Holds = append(o.Holds, h.Name+" "+h.State.String())
	}
	slices.Sort(o.Accounts)
	slices.Sort(o.Holds)
	return o
}

// AccountLine writes one account and its balance.
func AccountLine(name string, b interp.Balance) string {
	return fmt.Sprintf("%s posted %d held_in %d held_out %d", name, b.Posted, b.HeldIn, b.HeldOut)
}

// Name writes an account or a hold: kind(a, b), or the bare kind.
func Name(kind string, args []string) string {
	return book.KindArgs(kind, args)
}

// ShortResult writes a backend's answer to a call as the interpreter's
// results are compared: an error is "failed".
func ShortResult(r interp.Result, err error) string {
	if err != nil {
		return "failed"
	}
	return scenario.OpResult{Result: r}.Short()
}

// Run runs a scenario for one tenant and reports what the backend did,
// and whether a step came too close to the deadline of a hold that no
// pass has reached yet (late): the backend then rightly answers expired
// where the interpreter, whose clock only moves with pass, does not.
//
// sc must be in the time of the book the backend holds, the test copy:
// a pass of n seconds lasts n seconds. Scale makes it so, and RunAll
// calls it; a pass longer than a minute is refused as not scaled.
func Run(ctx context.Context, be Backend, sc scenario.Scenario, tenant string) (Observed, bool, error) {
	return run1(ctx, be, sc, sc, tenant, nil, nil)
}

// RunBulk is Run, but every run of calls that do not read a hold made
// among them goes to the backend as one bulk call (be must be a
// BulkCaller): the answers must be those of the calls one by one.
func RunBulk(ctx context.Context, be Backend, sc scenario.Scenario, tenant string) (Observed, bool, error) {
	b, ok := be.(BulkCaller)
	if !ok {
		return Observed{}, false, fmt.Errorf("the backend cannot take bulk calls")
	}
	return run1(ctx, be, sc, sc, tenant, b, nil)
}

// Deployer is a backend that can put another version of the book in
// place between two calls, as an operator deploys one.
type Deployer interface {
	// Deploy puts v's test copy in place of the version the backend
	// holds, for every tenant; no call is in flight.
	Deploy(ctx context.Context, v *Version) error
	deployRefuser
}

// DeployNotRun is the error of a Deploy that put the version in place
// but left the backend unable to answer as the interpreter from there
// (what it found is known only once it has run up to the deploy): the
// scenario is skipped, with Why, rather than failed.
type DeployNotRun struct{ Why string }

func (e *DeployNotRun) Error() string { return e.Why }

// deployRefuser is a backend that says why it cannot run the deploy steps
// of a scenario that starts at first and deploys versions in order, or
// "" when it can.
type deployRefuser interface {
	DeployRefusal(first *book.Book, versions []*book.Book) string
}

// deploying is what a run needs to deploy: the backend, the first version
// of the book, and every version by its test copy.
type deploying struct {
	be     Deployer
	first  *Version
	byCopy map[*book.Book]*Version
}

func hasDeploys(sc scenario.Scenario) bool {
	return slices.ContainsFunc(sc.Steps, func(st scenario.Step) bool { return st.Deploy != nil })
}

// markGuard is how far from a pass's mark the run keeps every call:
// more than the coarsest time a client answers with, a millisecond.
const markGuard = 3 * time.Millisecond

// run1 is Run; with bulk, runs of calls go through it. orig is sc as
// written, whose passes give the marks their scenario time (sc itself
// when it is not scaled).
func run1(ctx context.Context, be Backend, sc, orig scenario.Scenario, tenant string, bulk BulkCaller, dep *deploying) (o Observed, late bool, err error) {
	o = Observed{Reads: map[int]*ReadAnswer{}}
	if err := runnable(sc, orig, dep); err != nil {
		return o, false, err
	}
	if dep != nil && hasDeploys(sc) {
		// The backend may hold the last version another run deployed:
		// the scenario starts from the first.
		if err := dep.be.Deploy(ctx, dep.first); err != nil {
			return o, false, fmt.Errorf("putting the first version back in place: %w", err)
		}
	}
	start := time.Now()
	r := &run{ctx: ctx, be: be, bulk: bulk, tenant: tenant, base: start,
		marks: Marks{{T: 0, At: start.Truncate(time.Microsecond), Done: start, Step: -1}}}
	defer func() { o.Marks = r.marks }()
	add := func(rs ...scenario.OpResult) {
		for _, res := range rs {
			o.Results = append(o.Results, res.Short())
			o.Answers = append(o.Answers, res)
		}
	}
	var group []*scenario.Call
	held := map[string]bool{}
	flush := func() {
		if len(group) > 0 {
			add(r.many(group)...)
		}
		group, held = nil, map[string]bool{}
	}
	for i, st := range sc.Steps {
		if err := r.brokenErr(); err != nil {
			return o, r.late, err
		}
		if r.bulk != nil && st.Call != nil {
			// A run of calls goes as one bulk call, but for a post, void
			// or status of a hold held in it: that reads the hold first.
			c := st.Call
			k := c.Transfer.Name + "\x00" + strings.Join(keyOf(c.Call), "\x00")
			if c.Op != book.Do && c.Op != book.Hold && held[k] {
				flush()
			}
			if c.Op == book.Hold {
				held[k] = true
			}
			group = append(group, c)
			continue
		}
		flush()
		switch {
		case st.Call != nil:
			add(r.one(st.Call))
		case st.Together != nil:
			add(r.together(st.Together)...)
		case st.Read != nil:
			if err := r.read(st.Read, o.Reads, i); err != nil {
				return o, r.late, err
			}
		case st.Deploy != nil:
			if err := dep.be.Deploy(ctx, dep.byCopy[st.Deploy.Book]); err != nil {
				return o, r.late, fmt.Errorf("step %d: deploy %q: %w", i+1, st.Deploy.File, err)
			}
			o.Deploys++
		default:
			if err := r.pass(st.Pass, orig.Steps[i].Pass, i); err != nil {
				return o, r.late, err
			}
		}
	}
	flush()
	if err := r.brokenErr(); err != nil {
		return o, r.late, err
	}
	r.checkLate()
	o.Accounts, o.Holds, err = r.ledger()
	return o, r.late, err
}

// ledger reads the accounts and holds the run's tenant ends with, sorted.
func (r *run) ledger() (accounts, holds []string, err error) {
	accounts, holds, err = r.be.Ledger(r.ctx, r.tenant)
	if err != nil {
		return nil, nil, err
	}
	// The ledger is read in several requests: the last may come after a
	// deadline the first was well before.
	r.mu.Lock()
	r.lateAt(time.Now(), 0)
	r.mu.Unlock()
	slices.Sort(accounts)
	slices.Sort(holds)
	return accounts, holds, nil
}

// runnable says why sc cannot be run as it stands, if it cannot.
func runnable(sc, orig scenario.Scenario, dep *deploying) error {
	for i, st := range sc.Steps {
		if st.Deploy != nil && dep == nil {
			// A run builds and loads one version of the book.
			return fmt.Errorf("step %d: a deploy step cannot run on a backend: the run loads one version of the book", i+1)
		}
		if st.Deploy != nil && dep.byCopy[st.Deploy.Book] == nil {
			return fmt.Errorf("step %d: deploy %q: the scenario is not scaled to the test copy of that version", i+1, st.Deploy.File)
		}
		if isPass(st) && (st.Pass < 0 || st.Pass > maxPass) {
			return fmt.Errorf("step %d: a pass of %s would be waited out in real time: scale the scenario to the test copy first (conformance.Scale)", i+1, st.PassText)
		}
	}
	if len(orig.Steps) != len(sc.Steps) {
		return fmt.Errorf("the scenario as written has %d steps, scaled %d", len(orig.Steps), len(sc.Steps))
	}
	return nil
}

// run is one scenario on its way through a backend. The callers of a
// together share it, hence the lock.
type run struct {
	ctx    context.Context
	be     Backend
	bulk   BulkCaller // set when runs of calls go as bulk calls
	tenant string

	mu    sync.Mutex
	clock int64     // the copy's time, in seconds: the passes so far
	base  time.Time // when the backend's time stood at clock
	holds []madeHold
	late  bool
	// broken is the first error that says the driver, not the book,
	// failed: counted as failed calls, it would read as a difference.
	broken error
	// marks are the ends of the passes so far, and at is the scenario's
	// time, as written, they brought.
	marks Marks
	at    int64
}

// read makes a read step through the backend and keeps what it read by
// step. A backend that reads no history, or a statement that cannot
// continue the one before it, is noted in the answer; a broken driver
// stops the run.
func (r *run) read(rd *scenario.ReadStep, reads map[int]*ReadAnswer, step int) error {
	r.mu.Lock()
	marks := slices.Clone(r.marks)
	r.mu.Unlock()
	req, err := readRequest(rd, r.tenant, marks, time.Now(), reads)
	ans := &ReadAnswer{Request: req, Err: err}
	reads[step] = ans
	if err != nil {
		return nil
	}
	hr, ok := r.be.(HistoryReader)
	if !ok {
		ans.Err = errNoReader
		return nil
	}
	ans.Response, ans.Err = hr.ReadHistory(r.ctx, req)
	var de *DriverError
	if errors.As(ans.Err, &de) || r.ctx.Err() != nil {
		return ans.Err
	}
	return nil
}

// madeHold is a hold made on the backend that may expire and that no
// pass has reached yet.
type madeHold struct {
	at         int64     // the clock when it was made
	sent, back time.Time // when its call went out and when the answer came
}

func (r *run) brokenErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.broken
}

// checkLate notes whether a step comes near the deadline of a hold that
// no pass has reached, which the interpreter (whose clock moves only
// with pass) would not see. The deadline is counted from when the
// hold's call went out: the backend's is no earlier.
func (r *run) checkLate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lateAt(time.Now(), margin)
}

// lateAt notes whether t is within m of the deadline of a hold that no
// pass has reached, or past it. Before a step it is asked with the
// margin; after an answer, with none: an answer that comes back after a
// deadline may have been made after it on a busy machine, however early
// the call went out. r.mu must be held.
func (r *run) lateAt(t time.Time, m time.Duration) {
	for _, h := range r.holds {
		if !t.Before(h.sent.Add(Lifetime - m)) {
			r.late = true
		}
	}
}

// one makes one call and returns its result.
func (r *run) one(c *scenario.Call) scenario.OpResult {
	if c.Bad != "" {
		return scenario.OpResult{Failed: c.Bad, FailedJa: c.BadJa} // a client refuses to send it
	}
	r.checkLate()
	sent := time.Now()
	res, err := r.be.Call(r.ctx, c.Call, r.tenant)
	back := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.answer(c, res, err, sent, back)
}

// answer is what a call sent at sent and answered at back got, as the
// run records it: a failure, or the result and, for a hold that may
// expire, when it was made. r.mu must be held.
func (r *run) answer(c *scenario.Call, res interp.Result, err error, sent, back time.Time) scenario.OpResult {
	r.lateAt(back, 0)
	var de *DriverError
	if (errors.As(err, &de) || r.ctx.Err() != nil) && r.broken == nil {
		r.broken = err
	}
	if err != nil {
		msg := err.Error()
		if msg == "" {
			msg = "failed"
		}
		return scenario.OpResult{Failed: msg}
	}
	if p := c.Transfer.Pending; c.Op == book.Hold && res.Outcome == interp.Done && p != nil && p.Expires {
		r.holds = append(r.holds, madeHold{at: r.clock, sent: sent, back: back})
	}
	return scenario.OpResult{Result: res}
}

// BulkCaller is a backend that can send many calls as one bulk call and
// answer each as it would be answered alone: results and errors, one per
// call. The error stops the scenario, as a *DriverError does.
type BulkCaller interface {
	CallBulk(ctx context.Context, calls []interp.Call, tenant string) ([]interp.Result, []error, error)
}

// many makes calls as one bulk call and returns their results in order.
// A call the client refuses to send is answered without being sent.
func (r *run) many(calls []*scenario.Call) []scenario.OpResult {
	out := make([]scenario.OpResult, len(calls))
	var send []interp.Call
	var at []int
	for i, c := range calls {
		if c.Bad != "" {
			out[i] = scenario.OpResult{Failed: c.Bad, FailedJa: c.BadJa}
			continue
		}
		send = append(send, c.Call)
		at = append(at, i)
	}
	if len(send) == 0 {
		return out
	}
	r.checkLate()
	sent := time.Now()
	res, errs, err := r.bulk.CallBulk(r.ctx, send, r.tenant)
	back := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if r.broken == nil {
			r.broken = err
		}
		for _, i := range at {
			out[i] = scenario.OpResult{Failed: err.Error()}
		}
		return out
	}
	for n, i := range at {
		out[i] = r.answer(calls[i], res[n], errs[n], sent, back)
	}
	return out
}

// keyOf is a call's key values, as the ids hash them.
func keyOf(c interp.Call) []string {
	var out []string
	for _, p := range c.Transfer.Key {
		if p.IsAmount() {
			out = append(out, fmt.Sprint(c.Amounts[p.Name]))
		} else {
			out = append(out, c.Strings[p.Name])
		}
	}
	return out
}

// together runs each caller's calls in order, the callers at once, and
// lists the results caller by caller.
func (r *run) together(callers [][]*scenario.Call) []scenario.OpResult {
	out := make([][]scenario.OpResult, len(callers))
	var wg sync.WaitGroup
	for ci, calls := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range calls {
				out[ci] = append(out[ci], r.one(c))
			}
		}()
	}
	wg.Wait()
	var results []scenario.OpResult
	for _, rs := range out {
		results = append(results, rs...)
	}
	return results
}

// pass moves the copy's clock by secs: it lasts that long on the
// backend, and at least until every hold whose deadline the clock now
// reaches has reached it there too; then the backend gives holds back.
// The backend's time keeps to the copy's (base), so that holds made in
// different periods stay as far apart as the interpreter has them.
func (r *run) pass(secs, written int64, step int) error {
	r.mu.Lock()
	r.clock += secs
	until := r.base.Add(time.Duration(secs) * time.Second)
	keep := r.holds[:0]
	var split time.Time // the earliest a hold the pass reaches can expire
	for _, h := range r.holds {
		if r.clock-h.at < copyLifetime {
			keep = append(keep, h)
			continue
		}
		if d := h.back.Add(Lifetime + settle); d.After(until) {
			until = d
		}
		if e := h.sent.Add(Lifetime); split.IsZero() || e.Before(split) {
			split = e
		}
	}
	r.holds = keep
	r.base = until
	r.mu.Unlock()
	if wait := time.Until(until); wait > 0 {
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-time.After(wait):
		}
	}
	// The mark is taken before the backend gives holds back: what it
	// writes for them is at the pass's time, as in the interpreter. No
	// entry is written within markGuard of it on either side, so that a
	// client whose times are coarser than the backend's (a Date holds
	// milliseconds) still tells which side of the mark an entry is on.
	time.Sleep(markGuard)
	r.mu.Lock()
	r.at += written
	r.marks = append(r.marks, Mark{T: r.at, At: time.Now().Truncate(time.Microsecond), Split: split.Truncate(time.Microsecond), Step: step})
	r.mu.Unlock()
	time.Sleep(markGuard)
	for try := 0; ; try++ {
		remaining, err := r.be.Expire(r.ctx, r.tenant)
		if err != nil {
			return err
		}
		if !remaining {
			break
		}
		if try == 50 {
			return fmt.Errorf("holds of %s past their deadline were not given back", r.tenant)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.mu.Lock()
	r.marks[len(r.marks)-1].Done = time.Now()
	r.mu.Unlock()
	return nil
}

// Matches reports whether the backend's run is one of the reference's
// outcomes.
func Matches(got Observed, refs []scenario.Outcome) bool {
	g := got.String()
	for _, r := range refs {
		if FromOutcome(r).String() == g {
			return true
		}
	}
	return false
}
