package conformance

import (
	"context"
	"fmt"
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
		if hasDeploys(j.Scenario) {
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

// TestRunAllSkipsDeploysAloud: a backend that cannot deploy does not run
// the scenario, and says so in a SKIP line naming it and why.
func TestRunAllSkipsDeploysAloud(t *testing.T) {
	l := loadDeploys(t)
	r := &pairReporter{errs: map[string][]string{}}
	var jobs []Job
	for _, j := range l.Jobs("shelves.book", &fakeLedger{}, func(i int) string { return fmt.Sprintf("t%d", i) }) {
		if hasDeploys(j.Scenario) {
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

// TestTigerBeetleRefusesHoldsLaidOutOtherwise: the TigerBeetle pair in
// this process runs deploys that change a bound a floor or room holds
// (the migration moves them) or lay a do chain out otherwise; it
// refuses, naming the transfer kinds, those after which a hold made
// before would be ended by another chain, and a client driven as a
// process refuses every deploy.
func TestTigerBeetleRefusesHoldsLaidOutOtherwise(t *testing.T) {
	l := loadDeploys(t)
	var v2 *book.Book
	for b := range l.Versions {
		if b != l.Book {
			v2 = b
		}
	}
	in := &TigerBeetle{Calls: &Runtime{}}
	if why := in.DeployRefusal(l.Book, []*book.Book{v2}); why != "" {
		t.Errorf("a wider room, calls in this process: got %q", why)
	}
	if why := (&TigerBeetle{}).DeployRefusal(l.Book, []*book.Book{v2}); !strings.Contains(why, "process") || strings.Contains(why, "keep") {
		t.Errorf("a wider room, the client a process: got %q", why)
	}
	const holdsText = "the holds of keep are ended by another chain after the deploy"
	for name, c := range map[string]struct {
		next    string
		refused bool
	}{
		// keep moves into a shelf: a probe on the shelf's side out is no
		// event of a hold of keep.
		"a lower bound from 0 to 2": {strings.NewReplacer("v1", "v3", "at least 0", "at least 2").Replace(shelfV1), false},
		"the upper bound removed":   {strings.NewReplacer("v1", "v3", "  at most 5 refused as full\n", "").Replace(shelfV1), true},
		"a floor added below 0":     {strings.NewReplacer("v1", "v3", "at least 0", "at least -3").Replace(shelfV1), true},
	} {
		nb := check.Check("v3.book", []byte(c.next)).Book
		if nb == nil {
			t.Fatalf("%s: the book does not check", name)
		}
		if why := in.DeployRefusal(l.Book, []*book.Book{v2, nb}); strings.Contains(why, holdsText) != c.refused || !c.refused && why != "" {
			t.Errorf("%s: got %q", name, why)
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
		if hasDeploys(j.Scenario) {
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

// TestTigerBeetleDeploySkipsAnAccountLeftOutside: a narrowed room that
// leaves a shelf outside is left where it was by the migration, so the
// scenario is skipped at that deploy step, in a SKIP line naming the
// account, rather than failed.
func TestTigerBeetleDeploySkipsAnAccountLeftOutside(t *testing.T) {
	st, r := deployOnModel(t, `{"name": "narrower than a shelf", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 5}, "expect": "done"},
  {"deploy": "v2.book"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 3}, "expect": "done"},
  {"deploy": "v3.book"},
  {"op": "fill.do", "args": {"order": "o-3", "id": "a", "qty": 1}, "expect": "refused: full"}
]}`)
	if len(r.errs) > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
	if st.DeploysSkipped != 1 || st.Total != 0 {
		t.Errorf("stats %+v, want the scenario skipped", st)
	}
	want := `SKIP: shelves.book on model "narrower than a shelf": not run past a deploy step: deploying v3.book, ` +
		"`chobo migrate` left 1 floor or room accounts on the bound they had, which answer by it on TigerBeetle and not as the interpreter: shelf "
	if len(r.logs) != 1 || !strings.HasPrefix(r.logs[0], want) || !strings.Contains(r.logs[0], `: the book says at most 4, the account stands at 8 (more)`) {
		t.Errorf("logs %q, want one line starting %q", r.logs, want)
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
