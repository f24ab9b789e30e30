package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

const shelfV1 = `book shelves v1
unit pcs
account shelf(id: string) : pcs
  at least 0 refused as empty
  at most 5 refused as full
account world : pcs outside
transfer fill(order: string, id: string, qty: pcs)
  key order
  move qty from world to shelf(id)
transfer keep(order: string, id: string, qty: pcs)
  key order
  pending expires after 1 hour
  move qty from world to shelf(id)
`

// shelfV2 widens the shelves' upper bound.
var shelfV2 = strings.NewReplacer("v1", "v2", "at most 5", "at most 10").Replace(shelfV1)

const deploys = `{"name": "a wider shelf", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 5}, "expect": "done"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 1}, "expect": "refused: full"},
  {"op": "keep.hold", "args": {"order": "h-1", "id": "b", "qty": 2}, "expect": "done"},
  {"deploy": "v2.book"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 1}, "expect": "refused: already_refused"},
  {"op": "fill.do", "args": {"order": "o-3", "id": "a", "qty": 4}, "expect": "done"},
  {"op": "keep.post", "args": {"order": "h-1"}, "expect": "done"}
]}`

// loadDeploys loads shelfV1 and the scenario that deploys shelfV2.
func loadDeploys(t *testing.T) *Loaded {
	t.Helper()
	l, err := Load(File{Name: "shelves.book", Data: []byte(shelfV1)})
	if err != nil {
		t.Fatal(err)
	}
	read := func(cur *book.Book, file string) (*book.Book, []byte, error) {
		if file != "v2.book" {
			return nil, nil, fmt.Errorf("no %s", file)
		}
		res := check.Check(file, []byte(shelfV2))
		if res.Book == nil {
			return nil, nil, fmt.Errorf("%s does not check: %+v", file, res.Diags)
		}
		return res.Book, []byte(shelfV2), nil
	}
	if err := l.LoadDeploys(File{Name: "deploys.json", Data: []byte(deploys)}, read); err != nil {
		t.Fatal(err)
	}
	return l
}

// onInterp is a backend that is the interpreter, one ledger per tenant:
// it answers as the reference does only if the versions it is given are
// put in place when the scenario deploys them.
type onInterp struct {
	mu       sync.Mutex
	cur      *book.Book
	ledgers  map[string]*interp.State
	deployed []string // the test copies put in place, by version
}

func (f *onInterp) ledger(tenant string) *interp.State {
	if f.ledgers[tenant] == nil {
		f.ledgers[tenant] = interp.New(f.cur)
	}
	return f.ledgers[tenant]
}

func (f *onInterp) Call(_ context.Context, c interp.Call, tenant string) (interp.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// The backend knows only the version in place, as a server does.
	c.Transfer = f.cur.Transfer(c.Transfer.Name)
	return f.ledger(tenant).Apply(c)
}

func (f *onInterp) Expire(context.Context, string) (bool, error) { return false, nil }

func (f *onInterp) Ledger(_ context.Context, tenant string) ([]string, []string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var accounts, holds []string
	s := f.ledger(tenant)
	for _, a := range s.Accounts() {
		accounts = append(accounts, AccountLine(a.Account.String(), a.Balance))
	}
	for _, h := range s.Holds() {
		holds = append(holds, h.Name()+" "+h.State.String())
	}
	return accounts, holds, nil
}

func (f *onInterp) DeployRefusal(*book.Book, []*book.Book) string { return "" }

func (f *onInterp) Deploy(_ context.Context, v *Version) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cur = v.Copy
	for _, s := range f.ledgers {
		s.Deploy(v.Copy)
	}
	f.deployed = append(f.deployed, fmt.Sprintf("%s v%d", v.File, v.Copy.Version))
	return nil
}

// TestRunAllDeploys: a backend that can deploy runs the scenario's
// deploy steps, the first version put back first, each with the test
// copy of its version (holds of 3 seconds), and they are counted.
func TestRunAllDeploys(t *testing.T) {
	l := loadDeploys(t)
	f := &onInterp{cur: l.Copy, ledgers: map[string]*interp.State{}}
	r := &pairReporter{errs: map[string][]string{}}
	var jobs []Job
	for _, j := range l.Jobs("shelves.book", f, func(i int) string { return fmt.Sprintf("t%d", i) }) {
		if j.Scenario.Name == "a wider shelf" {
			j.Pair = "interp"
			jobs = append(jobs, j)
		}
	}
	if len(jobs) != 1 {
		t.Fatalf("%d scenarios deploy, want 1", len(jobs))
	}
	st := RunAll(r, jobs)
	if len(r.errs) > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
	if st.Deploys != 1 || st.DeploysSkipped != 0 || st.Total != 1 {
		t.Errorf("stats %+v, want 1 deploy run of 1 scenario", st)
	}
	if got := strings.Join(f.deployed, ", "); got != "shelves.book v1, v2.book v2" {
		t.Errorf("deployed %s", got)
	}
	if p := f.cur.Transfer("keep").Pending; f.cur.Version != 2 || p == nil || p.Seconds != copyLifetime {
		t.Errorf("the version in place is not the test copy of v2: v%d, keep's hold lasts %+v", f.cur.Version, p)
	}
}

// TestGeneratedBoundChangesRun: Load writes the bound-change families,
// each deploying a version derived from the book with a test copy of its
// own, and a backend that deploys runs every one of them as the
// interpreter does.
func TestGeneratedBoundChangesRun(t *testing.T) {
	l, err := Load(File{Name: "shelves.book", Data: []byte(shelfV1)})
	if err != nil {
		t.Fatal(err)
	}
	f := &onInterp{cur: l.Copy, ledgers: map[string]*interp.State{}}
	r := &pairReporter{errs: map[string][]string{}}
	var jobs []Job
	var names []string
	for _, j := range l.Jobs("shelves.book", f, func(i int) string { return fmt.Sprintf("t%d", i) }) {
		if hasDeploys(j.Scenario) {
			j.Pair = "interp"
			jobs = append(jobs, j)
			names = append(names, j.Scenario.Name)
		}
	}
	for _, want := range []string{
		"fill.do: the upper bound of shelf(id) widens from 5 to 7: a call its old bound refused is done",
		"fill.do: the upper bound of shelf(id) narrows from 5 to 3, the account inside: 1 past it is refused with full",
		"keep.hold: holds made before the upper bound of shelf(id) narrows from 5 to 3 past them are posted and voided after",
		"fill.do again after the upper bound of shelf(id) widens from 5 to 7: the key refused with full answers already_refused",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("no scenario %q among %q", want, names)
		}
	}
	st := RunAll(r, jobs)
	if len(r.errs) > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
	if st.Deploys != len(jobs) || st.DeploysSkipped != 0 || st.Total != len(jobs) {
		t.Errorf("stats %+v, want %d scenarios each deploying once", st, len(jobs))
	}
	for v := range l.Versions {
		if v != l.Book && (v.Version != 2 || l.Versions[v].File != "shelves.book v2 (derived)" || l.Versions[v].Copy.Transfer("keep").Pending.Seconds != copyLifetime) {
			t.Errorf("version %d (%q) is not a derived v2 with its test copy", v.Version, l.Versions[v].File)
		}
	}
}

// TestLoadDeploysDerives: a hand-written file's deploy step that changes
// bounds gets a version derived from the one in place, with its test
// copy, one after another; one the checks refuse (a lower bound across 0)
// is refused with its code.
func TestLoadDeploysDerives(t *testing.T) {
	l, err := Load(File{Name: "shelves.book", Data: []byte(shelfV1)})
	if err != nil {
		t.Fatal(err)
	}
	const twice = `{"name": "twice", "steps": [
  {"deploy": {"bounds": {"shelf": {"at_most": "7"}}}},
  {"deploy": {"bounds": {"shelf": {"at_most": null}}}}
]}`
	if err := l.LoadDeploys(File{Name: "twice.json", Data: []byte(twice)}, nil); err != nil {
		t.Fatal(err)
	}
	steps := l.Scenarios[len(l.Scenarios)-1].Steps
	v2, v3 := l.Versions[steps[0].Deploy.Book], l.Versions[steps[1].Deploy.Book]
	if v2 == nil || v3 == nil || v2.Copy.Account("shelf").Upper.Value != 7 || v3.Copy.Account("shelf").Upper != nil || v3.Book.Version != 3 {
		t.Fatalf("versions %+v and %+v", v2, v3)
	}
	if v3.File != "shelves.book v3 (derived)" || !strings.Contains(string(v3.CopySrc), "pending expires after 3 seconds") {
		t.Errorf("v3 is %q, its copy:\n%s", v3.File, v3.CopySrc)
	}
	err = l.LoadDeploys(File{Name: "cross.json", Data: []byte(`{"name": "cross", "steps": [{"deploy": {"bounds": {"shelf": {"at_least": "-1"}}}}]}`)}, nil)
	if err == nil || !strings.Contains(err.Error(), "E050") {
		t.Errorf("error %v, want E050", err)
	}
}

// TestRunAllSkipsDeploysAloud: a backend that cannot deploy does not run
// the scenario, and says so in a SKIP line naming it and why.
func TestRunAllSkipsDeploysAloud(t *testing.T) {
	l := loadDeploys(t)
	r := &pairReporter{errs: map[string][]string{}}
	var jobs []Job
	for _, j := range l.Jobs("shelves.book", &fakeLedger{}, func(i int) string { return fmt.Sprintf("t%d", i) }) {
		if j.Scenario.Name == "a wider shelf" {
			j.Pair = "fake"
			jobs = append(jobs, j)
		}
	}
	st := RunAll(r, jobs)
	if st.Deploys != 0 || st.DeploysSkipped != 1 || st.Total != 0 || len(r.errs) > 0 {
		t.Errorf("stats %+v, errors %v; want the scenario skipped", st, r.errs)
	}
	want := `SKIP: shelves.book on fake "a wider shelf": not run: it deploys new versions of the book: fake cannot put another version of the book in place between two calls`
	if len(r.logs) != 1 || r.logs[0] != want {
		t.Errorf("logs %q, want %q", r.logs, want)
	}
}

// TestTigerBeetleRunsHoldsLaidOutOtherwise: the TigerBeetle pair in
// this process runs deploys that change a bound a floor or room holds
// (the migration moves them) or lay a do or hold chain out otherwise,
// and a client driven as a process refuses every deploy. On the model, a
// hold made before a deploy that removes its room, or adds a probe before
// the room of a hold out of a shelf, is posted in part, voided, and each
// sent again after it, as the interpreter answers.
func TestTigerBeetleRunsHoldsLaidOutOtherwise(t *testing.T) {
	l := loadDeploys(t)
	var v2 *book.Book
	for b := range l.Versions {
		if b != l.Book {
			v2 = b
		}
	}
	in := &TigerBeetle{Calls: &Runtime{}}
	if why := (&TigerBeetle{}).DeployRefusal(l.Book, []*book.Book{v2}); !strings.Contains(why, "process") {
		t.Errorf("a wider room, the client a process: got %q", why)
	}
	lend := shelfV1 + `transfer lend(order: string, id: string, qty: pcs)
  key order
  pending expires after 1 hour
  move qty from shelf(id) to world
`
	for name, next := range map[string]string{
		"a lower bound from 0 to 2": strings.NewReplacer("v1", "v2", "at least 0", "at least 2").Replace(lend),
		"the upper bound removed":   strings.NewReplacer("v1", "v2", "  at most 5 refused as full\n", "").Replace(lend),
	} {
		nb := check.Check("v2.book", []byte(next)).Book
		if nb == nil {
			t.Fatalf("%s: the book does not check", name)
		}
		if why := in.DeployRefusal(check.Check("v1.book", []byte(lend)).Book, []*book.Book{nb}); why != "" {
			t.Errorf("%s: got %q", name, why)
		}
		st, r := deployOn(t, lend, map[string]string{"v2.book": next}, `{"name": "holds across", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 5}, "expect": "done"},
  {"op": "lend.hold", "args": {"order": "l-1", "id": "a", "qty": 2}, "expect": "done"},
  {"op": "lend.hold", "args": {"order": "l-2", "id": "a", "qty": 1}, "expect": "done"},
  {"op": "keep.hold", "args": {"order": "k-1", "id": "b", "qty": 4}, "expect": "done"},
  {"op": "keep.hold", "args": {"order": "k-2", "id": "b", "qty": 1}, "expect": "done"},
  {"op": "keep.void", "args": {"order": "k-2"}, "expect": "done"},
  {"deploy": "v2.book"},
  {"read": "holds"},
  {"read": "entries", "transfer": "lend", "key": {"order": "l-1"}},
  {"op": "lend.post", "args": {"order": "l-1"}, "amounts": {"qty": 3}, "expect": "refused: over_hold"},
  {"op": "lend.post", "args": {"order": "l-1"}, "amounts": {"qty": 1}, "expect": "done"},
  {"op": "lend.post", "args": {"order": "l-1"}, "amounts": {"qty": 1}, "expect": "done_before"},
  {"op": "lend.void", "args": {"order": "l-2"}, "expect": "done"},
  {"op": "lend.void", "args": {"order": "l-2"}, "expect": "done_before"},
  {"op": "keep.post", "args": {"order": "k-1"}, "amounts": {"qty": 2}, "expect": "done"},
  {"op": "keep.void", "args": {"order": "k-1"}, "expect": "refused: already_posted"},
  {"op": "keep.void", "args": {"order": "k-2"}, "expect": "done_before"},
  {"op": "keep.post", "args": {"order": "k-2"}, "expect": "refused: already_voided"},
  {"read": "holds"},
  {"read": "entries", "transfer": "lend", "key": {"order": "l-1"}},
  {"read": "entries", "transfer": "keep", "key": {"order": "k-1"}}
]}`)
		if len(r.errs) > 0 || st.Failed > 0 {
			t.Fatalf("%s: errors: %v; logs %q", name, r.errs, r.logs)
		}
		if st.Deploys != 1 || st.DeploysSkipped != 0 || st.Total != 1 {
			t.Errorf("%s: stats %+v, want the deploy step of 1 scenario run; logs %q", name, st, r.logs)
		}
	}
}

// shelfNarrow narrows the shelves' room from 10 to 4 after shelfV2.
var shelfNarrow = strings.NewReplacer("v1", "v3", "at most 5", "at most 4").Replace(shelfV1)

// deployOnModel runs the scenario sc (its deploy steps naming v2.book,
// shelfV2, and v3.book, shelfNarrow) on the model of TigerBeetle through
// chobotb in this process.
func deployOnModel(t *testing.T, sc string) (Stats, *pairReporter) {
	t.Helper()
	return deployOn(t, shelfV1, map[string]string{"v2.book": shelfV2, "v3.book": shelfNarrow}, sc)
}

// deployOn runs the scenario sc of the book first, its deploy steps
// naming the versions by file, on the model of TigerBeetle through
// chobotb in this process.
func deployOn(t *testing.T, first string, versions map[string]string, sc string) (Stats, *pairReporter) {
	t.Helper()
	l, err := Load(File{Name: "shelves.book", Data: []byte(first)})
	if err != nil {
		t.Fatal(err)
	}
	read := func(cur *book.Book, file string) (*book.Book, []byte, error) {
		src := versions[file]
		res := check.Check(file, []byte(src))
		if res.Book == nil {
			return nil, nil, fmt.Errorf("%s does not check: %+v", file, res.Diags)
		}
		return res.Book, []byte(src), nil
	}
	if err := l.LoadDeploys(File{Name: "deploys.json", Data: []byte(sc)}, read); err != nil {
		t.Fatal(err)
	}
	m := tbmodel.New()
	m.FollowWallClock()
	rt := &Runtime{Client: m, Def: tigerbeetle.Def(l.Copy), Book: l.Copy}
	be := &TigerBeetle{Calls: rt, Raw: m, Book: l.Copy, Pulse: m.Pulse}
	r := &pairReporter{errs: map[string][]string{}}
	var jobs []Job
	for _, j := range l.Jobs("shelves.book", be, func(i int) string { return fmt.Sprintf("t%d", i) }) {
		// sc alone: the generated families deploy too.
		if hasDeploys(j.Scenario) && !j.Scenario.Derives() {
			j.Pair = "model"
			jobs = append(jobs, j)
		}
	}
	return RunAll(r, jobs), r
}

// TestTigerBeetleDeployMigrates: the room widened, then narrowed with
// every shelf inside, a hold in flight across both deploys, on the model:
// only a migration at each deploy step gives the interpreter's answers
// (the rooms kept at 5 would refuse the hold of 7, at 10 the fills the
// narrower room refuses).
func TestTigerBeetleDeployMigrates(t *testing.T) {
	st, r := deployOnModel(t, `{"name": "wider, then narrower", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 4}, "expect": "done"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 2}, "expect": "refused: full"},
  {"op": "keep.hold", "args": {"order": "h-1", "id": "b", "qty": 2}, "expect": "done"},
  {"deploy": "v2.book"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 2}, "expect": "refused: already_refused"},
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 4}, "expect": "done_before"},
  {"op": "keep.hold", "args": {"order": "h-2", "id": "c", "qty": 7}, "expect": "done"},
  {"op": "fill.do", "args": {"order": "o-3", "id": "c", "qty": 4}, "expect": "refused: full"},
  {"op": "keep.void", "args": {"order": "h-2"}, "expect": "done"},
  {"deploy": "v3.book"},
  {"op": "fill.do", "args": {"order": "o-4", "id": "b", "qty": 3}, "expect": "refused: full"},
  {"op": "fill.do", "args": {"order": "o-5", "id": "b", "qty": 2}, "expect": "done"},
  {"op": "keep.post", "args": {"order": "h-1"}, "expect": "done"},
  {"op": "fill.do", "args": {"order": "o-6", "id": "a", "qty": 1}, "expect": "refused: full"},
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 4}, "expect": "done_before"},
  {"op": "keep.hold", "args": {"order": "h-3", "id": "c", "qty": 4}, "expect": "done"}
]}`)
	if len(r.errs) > 0 || st.Failed > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
	if st.Deploys != 2 || st.DeploysSkipped != 0 || st.Total != 1 {
		t.Errorf("stats %+v, want the 2 deploy steps of 1 scenario run; logs %q", st, r.logs)
	}
}

// TestTigerBeetleDeployLeavesAnAccountOutside: a narrowed room that
// leaves a shelf outside is migrated with its shortfall, so the scenario
// runs past that deploy step on the model, as the interpreter answers it:
// the shelf takes nothing more.
func TestTigerBeetleDeployLeavesAnAccountOutside(t *testing.T) {
	st, r := deployOnModel(t, `{"name": "narrower than a shelf", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 5}, "expect": "done"},
  {"deploy": "v2.book"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 3}, "expect": "done"},
  {"deploy": "v3.book"},
  {"op": "fill.do", "args": {"order": "o-3", "id": "a", "qty": 1}, "expect": "refused: full"},
  {"op": "keep.hold", "args": {"order": "h-1", "id": "a", "qty": 1}, "expect": "refused: full"}
]}`)
	if len(r.errs) > 0 || st.Failed > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
	if st.Deploys != 2 || st.DeploysSkipped != 0 || st.Total != 1 {
		t.Errorf("stats %+v, want the 2 deploy steps of 1 scenario run; logs %q", st, r.logs)
	}
}

// counterV1 is a book without holds whose one-move chains a deploy lays
// out otherwise: the shelf's upper bound goes, its lower bound moves from
// 0 to 1, then the upper bound comes back.
const counterV1 = `book counter v1
unit pcs
account shelf(id: string) : pcs
  at least 0 refused as empty
  at most 5 refused as full
account world : pcs outside
transfer fill(order: string, id: string, qty: pcs)
  key order
  move qty from world to shelf(id)
transfer take(order: string, id: string, qty: pcs)
  key order
  move qty from shelf(id) to world
`

// TestTigerBeetleRetriesAcrossARelaidDeploy: calls made before deploys
// that lay their chains out otherwise (the move alone, or linked to a
// room or a probe), retried after each, answer on the model as the
// interpreter does: done_before, already_refused, or key_conflict for
// the key sent with other content. Judged by the chain's layout, the
// retries of calls done answered key_conflict and a refused fill sent
// again was done.
func TestTigerBeetleRetriesAcrossARelaidDeploy(t *testing.T) {
	v2 := strings.NewReplacer("v1", "v2", "at least 0", "at least 1", "  at most 5 refused as full\n", "").Replace(counterV1)
	v3 := strings.NewReplacer("v1", "v3", "at least 0", "at least 1").Replace(counterV1)
	retries := `
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 3}, "expect": "done_before"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 3}, "expect": "refused: already_refused"},
  {"op": "take.do", "args": {"order": "t-1", "id": "a", "qty": 1}, "expect": "done_before"},
  {"op": "take.do", "args": {"order": "t-2", "id": "a", "qty": 5}, "expect": "refused: already_refused"},
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 2}, "expect": "refused: key_conflict"},`
	st, r := deployOn(t, counterV1, map[string]string{"v2.book": v2, "v3.book": v3}, `{"name": "retried across", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 3}, "expect": "done"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 3}, "expect": "refused: full"},
  {"op": "take.do", "args": {"order": "t-1", "id": "a", "qty": 1}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-2", "id": "a", "qty": 5}, "expect": "refused: empty"},
  {"deploy": "v2.book"},`+retries+`
  {"op": "fill.do", "args": {"order": "o-3", "id": "b", "qty": 4}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-3", "id": "b", "qty": 4}, "expect": "refused: empty"},
  {"deploy": "v3.book"},`+retries+`
  {"op": "fill.do", "args": {"order": "o-3", "id": "b", "qty": 4}, "expect": "done_before"},
  {"op": "take.do", "args": {"order": "t-3", "id": "b", "qty": 4}, "expect": "refused: already_refused"}
]}`)
	if len(r.errs) > 0 || st.Failed > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
	if st.Deploys != 2 || st.DeploysSkipped != 0 || st.Total != 1 {
		t.Errorf("stats %+v, want the 2 deploy steps of 1 scenario run; logs %q", st, r.logs)
	}
}

// leavesOutside is the interpreter as a backend whose deploy of any
// version but the first is not run, as a TigerBeetle migration that
// leaves an account on its old bound.
type leavesOutside struct{ *onInterp }

func (f leavesOutside) Deploy(ctx context.Context, v *Version) error {
	if v.Book.Version > 1 {
		return &DeployNotRun{Why: "shelf(a) left on its old bound"}
	}
	return f.onInterp.Deploy(ctx, v)
}

// TestRunAllSkipsADeployNotRun: a deploy the backend finds it cannot
// put in place as the scenario needs stops the scenario with a SKIP line
// saying where and why, counted as skipped and not as a failure.
func TestRunAllSkipsADeployNotRun(t *testing.T) {
	l := loadDeploys(t)
	r := &pairReporter{errs: map[string][]string{}}
	f := leavesOutside{&onInterp{cur: l.Copy, ledgers: map[string]*interp.State{}}}
	var jobs []Job
	for _, j := range l.Jobs("shelves.book", f, func(i int) string { return fmt.Sprintf("t%d", i) }) {
		// The file's own scenario; the generated families deploy too.
		if j.Scenario.Name == "a wider shelf" {
			j.Pair = "interp"
			jobs = append(jobs, j)
		}
	}
	st := RunAll(r, jobs)
	if st.Deploys != 0 || st.DeploysSkipped != 1 || st.Total != 0 || st.Failed != 0 || len(r.errs) > 0 {
		t.Errorf("stats %+v, errors %v; want the scenario skipped", st, r.errs)
	}
	want := `SKIP: shelves.book on interp "a wider shelf": not run to its end: step 4: deploy "v2.book": shelf(a) left on its old bound`
	if len(r.logs) != 1 || r.logs[0] != want {
		t.Errorf("logs %q, want %q", r.logs, want)
	}
}

// TestDriversDeployThroughANewDriver: a deploy puts the version in place,
// ends the driver in place and starts the new version's, which takes the
// calls after it; deploying the version in place does nothing; a version
// that cannot be put in place leaves the driver as it was.
func TestDriversDeployThroughANewDriver(t *testing.T) {
	l := loadDeploys(t)
	first := l.Versions[l.Book]
	var v2 *Version
	for _, v := range l.Versions {
		if v.File == "v2.book" {
			v2 = v
		}
	}
	ctx := context.Background()
	p1 := startFake(t, "ok")
	var put []string
	putErr := error(nil)
	d := NewDrivers(p1, first, func(v *Version) (*Process, error) {
		mode := "echo" // answers refused: told apart from the first version's
		if v == first {
			mode = "ok"
		}
		p, err := tryFake(mode)
		if err == nil {
			t.Cleanup(func() { p.Close() })
		}
		return p, err
	}, func(_ context.Context, v *Version) error {
		if putErr != nil {
			return putErr
		}
		put = append(put, v.File)
		return nil
	})
	fill := interp.Call{Transfer: l.Copy.Transfer("fill"), Op: book.Do,
		Strings: map[string]string{"order": "o-1", "id": "a"}, Amounts: map[string]int64{"qty": 1}}
	outcome := func() string { return ShortResult(d.Call(ctx, fill, "t")) }

	if err := d.Deploy(ctx, first); err != nil || len(put) > 0 || d.Current() != p1 || d.Started() != 0 {
		t.Fatalf("deploying the version in place: %v, put %v, %d drivers started", err, put, d.Started())
	}
	if got := outcome(); got != "done" {
		t.Fatalf("through the first driver: %s", got)
	}
	if err := d.Deploy(ctx, v2); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(put, " "); got != "v2.book" || d.Current() == p1 || d.Started() != 1 {
		t.Errorf("deploying v2: put %q, %d drivers started, the first driver in place: %v", got, d.Started(), d.Current() == p1)
	}
	if !strings.HasPrefix(outcome(), "refused:") {
		t.Errorf("a call after the deploy did not go to the new driver")
	}
	if _, err := p1.Call(ctx, fill, "t"); err == nil {
		t.Errorf("the first driver still answers after the deploy")
	}
	putErr = fmt.Errorf("the SQL does not load")
	in := d.Current()
	if err := d.Deploy(ctx, first); err == nil || d.Current() != in {
		t.Errorf("a version that does not load: %v, driver changed %v", err, d.Current() != in)
	}
	putErr = nil
	if err := d.Deploy(ctx, first); err != nil || d.Started() != 2 || outcome() != "done" {
		t.Errorf("putting the first version back: %v, %d drivers started", err, d.Started())
	}
	// With the later versions named, putting the first in place starts
	// theirs ahead, and their deploys start none.
	d.Later = []*Version{v2}
	if err := d.Deploy(ctx, first); err != nil || d.Started() != 3 || outcome() != "done" {
		t.Errorf("the first version in place: %v, %d drivers started, want v2's started ahead", err, d.Started())
	}
	put = nil
	if err := d.Deploy(ctx, v2); err != nil || d.Started() != 3 || !strings.HasPrefix(outcome(), "refused:") || len(put) != 1 {
		t.Errorf("deploying v2 started ahead: %v, %d drivers started, put %v", err, d.Started(), put)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestWithoutDerived: the scenarios deploying a version derived by
// changing bounds go, with the versions only they deploy; a scenario
// deploying a file's version stays, with its version.
func TestWithoutDerived(t *testing.T) {
	l := loadDeploys(t)
	derived := 0
	for _, v := range l.Versions {
		if v.File != "v2.book" && v.Book != l.Book {
			derived++
		}
	}
	if derived == 0 {
		t.Fatalf("the shelves book's families derive no version: nothing to leave out")
	}
	w := l.WithoutDerived()
	if len(w.Versions) != 2 || w.Versions[l.Book] == nil {
		t.Errorf("%d versions kept, want the first and v2.book", len(w.Versions))
	}
	for _, v := range w.Versions {
		if v.Book != l.Book && v.File != "v2.book" {
			t.Errorf("version %s kept", v.File)
		}
	}
	kept := 0
	for _, sc := range w.Scenarios {
		if !hasDeploys(sc) {
			continue
		}
		kept++
		if sc.Name != "a wider shelf" {
			t.Errorf("scenario %q kept", sc.Name)
		}
	}
	if kept != 1 || len(w.Scenarios) >= len(l.Scenarios) {
		t.Errorf("%d deploying scenarios kept of %d scenarios (from %d)", kept, len(w.Scenarios), len(l.Scenarios))
	}
	if len(l.Versions) == len(w.Versions) {
		t.Errorf("WithoutDerived changed l")
	}
}
