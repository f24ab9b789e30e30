// Package conformance runs scenarios against a real backend and compares
// what it answers with the reference interpreter: every result, and the
// balances and hold states at the end. Inside a `together`, the backend's
// answer must be one of the outcomes the interpreter allows.
//
// Holds expire in real time on a backend, so scenarios run on a test copy
// of the book whose holds all last a few seconds (Shorten); a `pass` waits
// for the holds made before it to reach their deadlines, then gives them
// back. The reference is the interpreter on that same copy.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Lifetime is how long every hold of a test copy lasts.
const Lifetime = 3 * time.Second

// margin is how long past a deadline a runner waits before it asks the
// backend to give holds back.
const margin = 300 * time.Millisecond

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
}

func (o Observed) String() string {
	return fmt.Sprintf("results %v\n  accounts %v\n  holds %v", o.Results, o.Accounts, o.Holds)
}

// FromOutcome writes an interpreter outcome as Observed.
func FromOutcome(out scenario.Outcome) Observed {
	var o Observed
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
// and whether a step came after a hold's deadline without a pass in
// between (late): the backend then rightly answers expired where the
// interpreter, whose clock only moves with pass, does not.
func Run(ctx context.Context, be Backend, sc scenario.Scenario, tenant string) (Observed, bool, error) {
	r := &run{ctx: ctx, be: be, tenant: tenant}
	var o Observed
	for _, st := range sc.Steps {
		if err := r.brokenErr(); err != nil {
			return o, r.late, err
		}
		switch {
		case st.Call != nil:
			o.Results = append(o.Results, r.one(st.Call))
		case st.Together != nil:
			o.Results = append(o.Results, r.together(st.Together)...)
		default:
			if err := r.pass(); err != nil {
				return o, r.late, err
			}
		}
	}
	if err := r.brokenErr(); err != nil {
		return o, r.late, err
	}
	r.checkLate()
	accounts, holds, err := be.Ledger(ctx, tenant)
	if err != nil {
		return o, r.late, err
	}
	slices.Sort(accounts)
	slices.Sort(holds)
	o.Accounts, o.Holds = accounts, holds
	return o, r.late, nil
}

// run is one scenario on its way through a backend. The callers of a
// together share it, hence the lock.
type run struct {
	ctx    context.Context
	be     Backend
	tenant string

	mu        sync.Mutex
	deadlines []time.Time // of holds made since the last pass
	late      bool
	// broken is the first error that says the driver, not the book,
	// failed: counted as failed calls, it would read as a difference.
	broken error
}

func (r *run) brokenErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.broken
}

// checkLate notes whether a step comes after a hold's deadline, which the
// interpreter (whose clock moves only with pass) would not see.
func (r *run) checkLate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	for _, d := range r.deadlines {
		if now.After(d.Add(-margin)) {
			r.late = true
		}
	}
}

// one makes one call and writes its result as Observed does.
func (r *run) one(c *scenario.Call) string {
	if c.Bad != "" {
		return "failed" // a client refuses to send it
	}
	r.checkLate()
	res, err := r.be.Call(r.ctx, c.Call, r.tenant)
	r.mu.Lock()
	defer r.mu.Unlock()
	var de *DriverError
	if (errors.As(err, &de) || r.ctx.Err() != nil) && r.broken == nil {
		r.broken = err
	}
	if err == nil && c.Op == book.Hold && res.Outcome == interp.Done {
		r.deadlines = append(r.deadlines, time.Now().Add(Lifetime))
	}
	return ShortResult(res, err)
}

// together runs each caller's calls in order, the callers at once, and
// lists the results caller by caller.
func (r *run) together(callers [][]*scenario.Call) []string {
	out := make([][]string, len(callers))
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
	var results []string
	for _, rs := range out {
		results = append(results, rs...)
	}
	return results
}

// pass waits for every hold made so far to reach its deadline, then has
// the backend give them back.
func (r *run) pass() error {
	r.mu.Lock()
	var last time.Time
	for _, d := range r.deadlines {
		if d.After(last) {
			last = d
		}
	}
	r.mu.Unlock()
	if wait := time.Until(last.Add(margin)); wait > 0 {
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-time.After(wait):
		}
	}
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
	r.deadlines = nil
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
