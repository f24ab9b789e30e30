package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
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
	// Pair names the backend and the client in messages, such as
	// "postgres-go" or "tigerbeetle-go (real replica)"; empty: "the backend".
	Pair   string
	Tenant string // the scenario's tenant; a try after a late one adds "-again" and its number
	// Bulk sends each run of calls that do not read a hold made among
	// them as one bulk call; Backend must be a BulkCaller.
	Bulk bool
	// Done, when set, is called once the job has ended, late tries
	// included: a test that starts a driver per book ends it there, so
	// that the drivers of finished books hold no connections while the
	// rest run.
	Done func()
	// Versions are the versions of the book the scenario may deploy, by
	// the book as read, the first among them (Loaded.Versions).
	Versions map[*book.Book]*Version
}

// where names the book and, when there is one, the pair.
func (j Job) where() string {
	if j.Pair == "" {
		return j.Where
	}
	return j.Where + " on " + j.Pair
}

func (j Job) pair() string {
	if j.Pair == "" {
		return "the backend"
	}
	return j.Pair
}

// Stats counts what RunAll ran.
type Stats struct {
	Total    int // scenarios run
	Together int // of them, with a together
	Again    int // runs again because a step came late
	Failed   int // of them, reported: not run, a difference or an expectation not met
	// Wide counts the scenarios run on a backend that lets a balance leave
	// 64 bits, up to the call where it does (see pastSixtyFourBits);
	// NotRun those that could not be, each named in the log.
	Wide, NotRun int
	// Reads counts the read steps compared with the interpreter's;
	// ReadsSkipped those that were not, each with a SKIP line in the log.
	Reads, ReadsSkipped int
	// Deploys counts the deploy steps run on a backend; DeploysSkipped
	// the scenarios with deploy steps a backend could not run, each with
	// a SKIP line in the log naming why.
	Deploys, DeploysSkipped int
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
// step came too near a hold's deadline (a slow machine) is tried again,
// up to lateTries runs in all, each on a tenant of its own; late every
// time, it fails. A broken driver is
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
	var deploying []Job
	for _, j := range jobs {
		if hasDeploys(j.Scenario) && all.deployRefused(j) == "" {
			deploying = append(deploying, j)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			all.job(ctx, j)
			if j.Done != nil {
				j.Done()
			}
		}()
	}
	wg.Wait()
	// A deploy puts a version in place for every tenant of the book: the
	// scenarios that deploy run once the others have ended, one at a time
	// for each book name (a backend keeps a book's versions under its
	// name), the books side by side.
	byName := map[string][]Job{}
	var names []string
	for _, j := range deploying {
		name := j.Book.Name
		if byName[name] == nil {
			names = append(names, name)
		}
		byName[name] = append(byName[name], j)
	}
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, j := range byName[name] {
				sem <- struct{}{}
				all.job(ctx, j)
				<-sem
				if j.Done != nil {
					j.Done()
				}
			}
		}()
	}
	wg.Wait()
	return all.stats
}

// deployingOf is what j needs to run its deploy steps, nil when it has
// none; ok is false when j is not to run, which it has said.
func (a *runAll) deployingOf(j Job, orig *book.Book) (dep *deploying, ok bool) {
	if !hasDeploys(j.Scenario) {
		return nil, true
	}
	if why := a.deployRefused(j); why != "" {
		// Never a silent skip: the log says which scenario and why.
		a.t.Logf("SKIP: %s %q: not run: it deploys new versions of the book: %s", j.where(), j.Scenario.Name, why)
		a.skippedDeploy()
		return nil, false
	}
	dep = &deploying{be: j.Backend.(Deployer), first: j.Versions[orig], byCopy: map[*book.Book]*Version{}}
	if dep.first == nil {
		a.t.Errorf("%s %q: not run: no test copy of the book's first version (conformance.LoadDeploys makes one)", j.where(), j.Scenario.Name)
		a.fail()
		return nil, false
	}
	for _, v := range j.Versions {
		dep.byCopy[v.Copy] = v
	}
	return dep, true
}

// skippedDeploy counts a scenario a deploy kept from running.
func (a *runAll) skippedDeploy() {
	a.mu.Lock()
	a.stats.DeploysSkipped++
	a.mu.Unlock()
}

// deployRefused is why j's backend cannot run the deploy steps of its
// scenario, or "" when it can.
func (a *runAll) deployRefused(j Job) string {
	var versions []*book.Book
	for _, st := range j.Scenario.Steps {
		if st.Deploy != nil {
			versions = append(versions, st.Deploy.Book)
		}
	}
	first := j.Original
	if first == nil {
		first = j.Book
	}
	r, ok := j.Backend.(deployRefuser)
	if !ok {
		return j.pair() + " cannot put another version of the book in place between two calls"
	}
	why := r.DeployRefusal(first, versions)
	if _, can := j.Backend.(Deployer); why == "" && !can {
		why = j.pair() + " cannot put another version of the book in place between two calls"
	}
	return why
}

// runAll is what the jobs of one RunAll share.
type runAll struct {
	t     Reporter
	mu    sync.Mutex
	stats Stats
	told  map[*DriverError]bool // drivers whose failure was shown in full
}

// lateTries is how many times in all a scenario that came near a
// deadline and differs is run, each time on a new tenant: on a busy
// machine the same steps can be slow twice in a row, and a late run says
// nothing of the backend. One that differs without being late fails at
// once.
const lateTries = 3

// job scales one scenario to the test copy and runs it, again when it
// came late, and reports a difference from the interpreter and the
// expectations it does not meet.
func (a *runAll) job(ctx context.Context, j Job) {
	orig := j.Original
	if orig == nil {
		orig = j.Book
	}
	dep, ok := a.deployingOf(j, orig)
	if !ok {
		return
	}
	sc, err := scale(orig, j.Book, j.Versions, j.Scenario)
	if err != nil {
		a.t.Errorf("%s %q: not run: %v", j.where(), j.Scenario.Name, err)
		a.fail()
		return
	}
	refs := scenario.Run(j.Book, sc)
	if lets64(j.Backend) && LeavesSixtyFourBits(refs) {
		a.pastSixtyFourBits(ctx, j, sc, refs)
		return
	}
	var bulk BulkCaller
	if j.Bulk {
		if bulk, _ = j.Backend.(BulkCaller); bulk == nil {
			a.failed(j, fmt.Errorf("the backend cannot take bulk calls"))
			return
		}
	}
	// The reads are compared with the interpreter's on the book as
	// written, in whose time the read steps give theirs.
	// Its expectations are checked there too: the copy's clock would not
	// read what they hold. A read cannot come after a together, so every
	// outcome read the same.
	var readRef map[int]*scenario.ReadResult
	written, writtenRefs := sc, refs
	if hasReads(sc) {
		if written, err = bind(orig, j.Scenario); err != nil {
			a.failed(j, err)
			return
		}
		writtenRefs = scenario.Run(orig, written)
		readRef = writtenRefs[0].Reads
	}
	got, bad, ended := a.attempts(ctx, j, sc, bulk, dep, refs, readRef)
	if ended {
		return
	}
	if a.expectations(j, written, writtenRefs, got) {
		bad = true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stats.Total++
	a.stats.Deploys += got.Deploys
	if bad {
		a.stats.Failed++
	}
	for _, st := range j.Scenario.Steps {
		if st.Together != nil {
			a.stats.Together++
			break
		}
	}
}

// attempts runs sc on j's backend, again on a new tenant when it came
// late and differs, and reports how it differs from the interpreter
// (refs, and readRef for its reads). ended: the job was reported as not
// run or failed already, and has nothing more to check.
func (a *runAll) attempts(ctx context.Context, j Job, sc scenario.Scenario, bulk BulkCaller, dep *deploying,
	refs []scenario.Outcome, readRef map[int]*scenario.ReadResult) (got Observed, bad, ended bool) {
	tenant := j.Tenant
	var readsBad []string
	for attempt := 1; ; attempt++ {
		var late bool
		var err error
		got, late, err = run1(ctx, j.Backend, sc, j.Scenario, tenant, bulk, dep)
		var notRun *DeployNotRun
		if errors.As(err, &notRun) {
			a.t.Logf("SKIP: %s %q: not run to its end: %v", j.where(), j.Scenario.Name, err)
			a.skippedDeploy()
			return got, false, true
		}
		if err != nil {
			a.failed(j, err)
			return got, false, true
		}
		var readsSkipped []string
		var compared int
		readsBad, readsSkipped, compared = a.reads(j, sc, readRef, got, tenant)
		same := matchesOn(j.Backend, got, refs)
		if same && len(readsBad) == 0 {
			a.readStats(j, compared, readsSkipped)
			break
		}
		if late && attempt < lateTries {
			a.mu.Lock()
			a.stats.Again++
			a.mu.Unlock()
			a.t.Logf("run again: %s %q (a step came near a deadline no pass had reached)", j.where(), j.Scenario.Name)
			tenant = fmt.Sprintf("%s-again%d", j.Tenant, attempt)
			continue
		}
		a.readStats(j, compared, readsSkipped)
		if len(readsBad) > 0 {
			word := ""
			if late {
				word = " (late again)"
			}
			a.t.Errorf("%s %q reads the history otherwise than the interpreter%s:\n %s", j.where(), j.Scenario.Name, word,
				strings.Join(readsBad, "\n "))
			bad = true
		}
		if same {
			break
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
			j.where(), j.Scenario.Name, word, got, strings.Join(want, "\n  "), failures(got))
		bad = true
		break
	}
	return got, bad, false
}

// expectations reports the `expect` and `outcomes` of a scenario that
// do not hold, checked by scenario.Failures as `chobo run` checks them:
// on the interpreter's outcomes, so that a file `chobo run` fails fails
// here too, and on the one run of the backend, whose answers must meet
// every `expect` (the count of outcomes is the interpreter's to meet).
func (a *runAll) expectations(j Job, sc scenario.Scenario, refs []scenario.Outcome, got Observed) bool {
	var lines []string
	for _, f := range scenario.Failures(sc, refs) {
		lines = append(lines, "the interpreter: "+f)
	}
	one := sc
	one.Outcomes = 0
	// The backend's reads are held to the interpreter's, which are held
	// to their expectations above.
	one.Steps = slices.Clone(sc.Steps)
	for i, st := range one.Steps {
		if st.Read != nil && st.Read.Expect != nil {
			rd := *st.Read
			rd.Expect = nil
			one.Steps[i].Read = &rd
		}
	}
	for _, f := range scenario.Failures(one, []scenario.Outcome{{Results: got.Answers}}) {
		lines = append(lines, j.pair()+": "+f)
	}
	if len(lines) > 0 {
		a.t.Errorf("%s %q does not meet its expectations:\n  %s", j.where(), j.Scenario.Name, strings.Join(lines, "\n  "))
	}
	return len(lines) > 0
}

func (a *runAll) fail() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stats.Failed++
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
			a.t.Errorf("%s %q: not run: driver: %s (its stderr is shown above)", j.where(), j.Scenario.Name, de.Msg)
			a.fail()
			return
		}
	}
	a.t.Errorf("%s %q: %v", j.where(), j.Scenario.Name, err)
	a.fail()
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

// lets64 reports whether be keeps balances past 64 bits, as TigerBeetle
// does (design 4.4): the call the interpreter fails passes there.
func lets64(be Backend) bool {
	w, ok := be.(interface{ LetsSixtyFourBitsThrough() bool })
	return ok && w.LetsSixtyFourBitsThrough()
}

// pastSixtyFourBits runs a scenario that takes a balance out of 64 bits
// on a backend that lets it through, up to the first call the interpreter
// fails for it, and holds the backend to what the design says it does
// there: every call before answers as on the interpreter, that call is
// done, and reading the balances afterwards is an error that says a
// balance is outside 64 bits. What comes after depends on a balance the
// interpreter never has, so it is not run. A scenario whose first such
// call is inside a together is not run at all, and said so.
func (a *runAll) pastSixtyFourBits(ctx context.Context, j Job, sc scenario.Scenario, refs []scenario.Outcome) {
	cut, ok := cutAtSixtyFourBits(sc, refs)
	if !ok {
		a.t.Logf("not run: %s %q: the call that takes a balance out of 64 bits is inside a together", j.where(), j.Scenario.Name)
		a.mu.Lock()
		a.stats.NotRun++
		a.mu.Unlock()
		return
	}
	before := scenario.Run(j.Book, cut)
	got, _, err := Run(ctx, j.Backend, cut, j.Tenant)
	var problems []string
	var be *chobotb.BalanceError
	if !errors.As(err, &be) {
		problems = append(problems, fmt.Sprintf("reading the balances afterwards gave %v, want an error that a balance is outside 64 bits", err))
	}
	n := len(got.Results)
	switch {
	case n == 0:
		problems = append(problems, "no call was answered")
	case got.Results[n-1] != "done":
		problems = append(problems, fmt.Sprintf("the call that leaves 64 bits answered %s, want done", got.Results[n-1]))
	}
	if n > 0 && !prefixOfOne(got.Results[:n-1], before) {
		var want []string
		for _, r := range before {
			want = append(want, fmt.Sprint(FromOutcome(r).Results[:n-1]))
		}
		problems = append(problems, fmt.Sprintf("the calls before answered %v, want one of %s", got.Results[:n-1], strings.Join(want, " ")))
	}
	a.mu.Lock()
	a.stats.Total++
	a.stats.Wide++
	if len(problems) > 0 {
		a.stats.Failed++
	}
	a.mu.Unlock()
	if len(problems) > 0 {
		a.t.Errorf("%s %q, where a balance leaves 64 bits, is not what TigerBeetle is said to do:\n  %s%s",
			j.where(), j.Scenario.Name, strings.Join(problems, "\n  "), failures(got))
	}
}

// SixtyFourBitsCut is what RunAll runs of a scenario (bound to b, scaled
// as RunAll scales it) on a backend that lets a balance leave 64 bits: sc
// itself when no call takes a balance out of 64 bits, else its steps up
// to that call. The bool is false when that call is inside a together and
// nothing is run.
func SixtyFourBitsCut(b *book.Book, sc scenario.Scenario) (scenario.Scenario, bool) {
	refs := scenario.Run(b, sc)
	if !LeavesSixtyFourBits(refs) {
		return sc, true
	}
	return cutAtSixtyFourBits(sc, refs)
}

// cutAtSixtyFourBits is sc up to the first call that takes a balance out
// of 64 bits, when that call is one of its own.
func cutAtSixtyFourBits(sc scenario.Scenario, refs []scenario.Outcome) (scenario.Scenario, bool) {
	step, ok := firstWideStep(sc, refs)
	if !ok {
		return sc, false
	}
	cut := sc
	cut.Steps = sc.Steps[:step+1]
	cut.Outcomes = 0
	return cut, true
}

// firstWideStep is the step of the first call an outcome fails because a
// balance would leave 64 bits, when it is a call of its own.
func firstWideStep(sc scenario.Scenario, refs []scenario.Outcome) (int, bool) {
	for _, o := range refs {
		k := 0 // the result of the step's first call
		for i, st := range sc.Steps {
			switch {
			case st.Call != nil:
				if k < len(o.Results) && leaves64(o.Results[k]) {
					return i, true
				}
				k++
			case st.Together != nil:
				for _, calls := range st.Together {
					for range calls {
						if k < len(o.Results) && leaves64(o.Results[k]) {
							return 0, false
						}
						k++
					}
				}
			}
		}
	}
	return 0, false
}

// prefixOfOne reports whether results are the first answers of one of the
// outcomes.
func prefixOfOne(results []string, outs []scenario.Outcome) bool {
	for _, o := range outs {
		r := FromOutcome(o).Results
		if len(r) >= len(results) && slices.Equal(r[:len(results)], results) {
			return true
		}
	}
	return false
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

func hasReads(sc scenario.Scenario) bool {
	return slices.ContainsFunc(sc.Steps, func(st scenario.Step) bool { return st.Read != nil })
}

// reads compares what each read step of a run read with the
// interpreter's reads (ref, by step): the reads that differ, written
// with both sides, those not compared and why, and how many were
// compared.
func (a *runAll) reads(j Job, sc scenario.Scenario, ref map[int]*scenario.ReadResult, got Observed, tenant string) (bad, skipped []string, compared int) {
	c := readCheck{marks: got.Marks, tenant: tenant}
	switch j.Backend.(type) {
	case *TigerBeetle, *TigerBeetleDrivers:
		c.def = tigerbeetle.Def(j.Book)
	}
	noReader := 0
	for i, st := range sc.Steps {
		if st.Read == nil {
			continue
		}
		ans := got.Reads[i]
		if ans != nil && errors.Is(ans.Err, errNoReader) {
			noReader++
			continue
		}
		g, w, skip := c.compare(st.Read, ref[i], ans)
		switch {
		case skip != "":
			skipped = append(skipped, fmt.Sprintf("step %d, %s: %s", i+1, st.Read.Label(diag.English), skip))
		case !slices.Equal(g, w):
			bad = append(bad, readFailure(i, st.Read, j.pair(), g, w))
			compared++
		default:
			compared++
		}
	}
	if noReader > 0 {
		skipped = append(skipped, fmt.Sprintf("its %d read steps: %s reads no history", noReader, j.pair()))
	}
	return bad, skipped, compared
}

// readStats counts the reads of a run and writes a SKIP line for each
// one not compared.
func (a *runAll) readStats(j Job, compared int, skipped []string) {
	for _, s := range skipped {
		a.t.Logf("SKIP: %s %q: not compared: %s", j.where(), j.Scenario.Name, s)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stats.Reads += compared
	a.stats.ReadsSkipped += len(skipped)
}
