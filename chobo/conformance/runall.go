package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Job is one scenario to run on one backend.
type Job struct {
	Where string     // names the book in messages
	Book  *book.Book // the test copy: what the backend holds and the reference runs on
	// Original is the book as written, whose time the scenario's passes
	// are in (nil: Book itself). Its lifetimes say which holds each pass
	// expires; see Scale.
	Original *book.Book
	// Scenario is as written or generated, bound to either book.
	Scenario scenario.Scenario
	Backend  Backend
	Tenant   string // the scenario's tenant; a second try adds "-again"
}

// Stats counts what RunAll ran.
type Stats struct {
	Total    int // scenarios run
	Together int // of them, with a together
	Again    int // run a second time because a step came late
}

// Reporter is where RunAll reports: a *testing.T, or a program's own
// reporter (the conformance runner of the Bazel rules is a plain binary).
type Reporter interface {
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// RunAll runs the jobs, eight at a time, and reports through t every run
// that is not one of the interpreter's outcomes, and every scenario whose
// `expect` or `outcomes` is not met, as `chobo run` checks them: by the
// interpreter's outcomes, and by what the backend answered. Each
// scenario's passes are scaled to the test copy first (Scale); one that
// cannot be is reported instead of run. A run that differed because a
// step came too near a hold's deadline (a slow machine) gets one more
// try, on a tenant of its own; late again, it fails. A broken driver is
// reported in full once, then in one line per scenario.
func RunAll(t Reporter, jobs []Job) Stats {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	all := &runAll{t: t, told: map[*DriverError]bool{}}
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			all.job(ctx, j)
		}()
	}
	wg.Wait()
	return all.stats
}

// runAll is what the jobs of one RunAll share.
type runAll struct {
	t     Reporter
	mu    sync.Mutex
	stats Stats
	told  map[*DriverError]bool // drivers whose failure was shown in full
}

// job scales one scenario to the test copy and runs it, again when it
// came late, and reports a difference from the interpreter and the
// expectations it does not meet.
func (a *runAll) job(ctx context.Context, j Job) {
	orig := j.Original
	if orig == nil {
		orig = j.Book
	}
	sc, err := Scale(orig, j.Book, j.Scenario)
	if err != nil {
		a.t.Errorf("%s %q: not run: %v", j.Where, j.Scenario.Name, err)
		return
	}
	refs := scenario.Run(j.Book, sc)
	tenant := j.Tenant
	var got Observed
	for attempt := 1; ; attempt++ {
		var late bool
		got, late, err = Run(ctx, j.Backend, sc, tenant)
		if err != nil {
			a.failed(j, err)
			return
		}
		if matchesOn(j.Backend, got, refs) {
			break
		}
		if late && attempt == 1 {
			a.mu.Lock()
			a.stats.Again++
			a.mu.Unlock()
			a.t.Logf("run again: %s %q (a step came near a deadline no pass had reached)", j.Where, j.Scenario.Name)
			tenant = j.Tenant + "-again"
			continue
		}
		var want []string
		for _, r := range refs {
			want = append(want, observedOn(j.Backend, FromOutcome(r)).String())
		}
		word := ""
		if late {
			word = " (late again)"
		}
		a.t.Errorf("%s %q differs from the interpreter%s:\n got  %s\n want one of:\n  %s%s",
			j.Where, j.Scenario.Name, word, got, strings.Join(want, "\n  "), failures(got))
		break
	}
	a.expectations(j, sc, refs, got)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stats.Total++
	for _, st := range j.Scenario.Steps {
		if st.Together != nil {
			a.stats.Together++
			break
		}
	}
}

// expectations reports the `expect` and `outcomes` of a scenario that
// do not hold, checked by scenario.Failures as `chobo run` checks them:
// on the interpreter's outcomes, so that a file `chobo run` fails fails
// here too, and on the one run of the backend, whose answers must meet
// every `expect` (the count of outcomes is the interpreter's to meet).
func (a *runAll) expectations(j Job, sc scenario.Scenario, refs []scenario.Outcome, got Observed) {
	var lines []string
	for _, f := range scenario.Failures(sc, refs) {
		lines = append(lines, "the interpreter: "+f)
	}
	one := sc
	one.Outcomes = 0
	for _, f := range scenario.Failures(one, []scenario.Outcome{{Results: got.Answers}}) {
		lines = append(lines, "the backend: "+f)
	}
	if len(lines) > 0 {
		a.t.Errorf("%s %q does not meet its expectations:\n  %s", j.Where, j.Scenario.Name, strings.Join(lines, "\n  "))
	}
}

// failed reports a scenario that could not run. A broken driver fails
// every scenario sent to it: its stderr is shown with the first only.
func (a *runAll) failed(j Job, err error) {
	var de *DriverError
	if errors.As(err, &de) {
		a.mu.Lock()
		again := a.told[de]
		a.told[de] = true
		a.mu.Unlock()
		if again {
			a.t.Errorf("%s %q: not run: driver: %s (its stderr is shown above)", j.Where, j.Scenario.Name, de.Msg)
			return
		}
	}
	a.t.Errorf("%s %q: %v", j.Where, j.Scenario.Name, err)
}

// failures lists why each call of a run that failed failed: the result
// compared is only "failed", and the error is what tells a broken
// connection from a bug of the client.
func failures(o Observed) string {
	var b strings.Builder
	for i, r := range o.Answers {
		if r.Failed != "" {
			fmt.Fprintf(&b, "\n call %d failed: %s", i+1, r.Failed)
		}
	}
	return b.String()
}

// observedOn writes a reference outcome as backend be can show it.
func observedOn(be Backend, o Observed) Observed {
	if h, ok := be.(interface{ HidesZeroAccounts() bool }); ok && h.HidesZeroAccounts() {
		return withoutZeroAccounts(o)
	}
	return o
}

// matchesOn is Matches for what backend be can show.
func matchesOn(be Backend, got Observed, refs []scenario.Outcome) bool {
	g := observedOn(be, got).String()
	for _, r := range refs {
		if observedOn(be, FromOutcome(r)).String() == g {
			return true
		}
	}
	return false
}
