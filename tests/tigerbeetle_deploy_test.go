package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

const shelvesV1 = `book shelves v1

unit pcs

account shelf(id: string) : pcs
  at least 1 refused as empty
account world : pcs outside

transfer fill(order: string, id: string, qty: pcs)
  key order
  move qty from world to shelf(id)

transfer take(order: string, id: string, qty: pcs)
  key order
  move qty from shelf(id) to world

transfer keep(order: string, id: string, qty: pcs)
  key order
  pending expires after 1 hour
  move qty from shelf(id) to world
`

// shelvesV2 raises the shelves' lower bound from 0 to 2, under another
// reason: on TigerBeetle a bound of 0 or more lives in the chains.
var shelvesV2 = strings.NewReplacer("v1", "v2", "at least 1 refused as empty", "at least 2 refused as low").Replace(shelvesV1)

const shelvesDeploys = `[{"name": "a raised floor", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 3}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-1", "id": "a", "qty": 2}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-2", "id": "a", "qty": 2}, "expect": "refused: empty"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "b", "qty": 5}, "expect": "done"},
  {"op": "keep.hold", "args": {"order": "h-1", "id": "b", "qty": 2}, "expect": "done"},
  {"op": "keep.hold", "args": {"order": "h-2", "id": "b", "qty": 2}, "expect": "done"},
  {"deploy": "v2.book"},
  {"op": "take.do", "args": {"order": "t-3", "id": "a", "qty": 1}, "expect": "refused: low"},
  {"op": "take.do", "args": {"order": "t-2", "id": "a", "qty": 2}, "expect": "refused: already_refused"},
  {"op": "take.do", "args": {"order": "t-1", "id": "a", "qty": 2}, "expect": "done_before"},
  {"op": "fill.do", "args": {"order": "o-3", "id": "a", "qty": 4}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-4", "id": "a", "qty": 3}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-5", "id": "a", "qty": 1}, "expect": "refused: low"},
  {"op": "keep.post", "args": {"order": "h-1"}, "expect": "done"},
  {"op": "keep.void", "args": {"order": "h-2"}, "expect": "done"},
  {"op": "keep.hold", "args": {"order": "h-3", "id": "b", "qty": 1}, "expect": "done"},
  {"op": "keep.hold", "args": {"order": "h-4", "id": "b", "qty": 1}, "expect": "refused: low"},
  {"pass": "2 hours"},
  {"op": "keep.post", "args": {"order": "h-3"}, "expect": "refused: expired"}
]}]`

// derivesVersions reports whether sc deploys a version derived from the
// one in place, as the generated bound-change families do.
func derivesVersions(sc scenario.Scenario) bool {
	return slices.ContainsFunc(sc.Steps, func(st scenario.Step) bool { return st.Deploy != nil && st.Deploy.File == "" })
}

// logged is t, with what is logged kept.
type logged struct {
	*testing.T
	logs []string
}

func (r *logged) Logf(format string, args ...any) {
	r.T.Helper()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
	r.T.Logf(format, args...)
}

// TestTigerBeetleModelDeploysInProcess runs a scenario that deploys a
// new version through chobotb in this process, on the model: after the
// deploy step the chains are the new version's definition's, and every
// answer, balance and hold is the interpreter's. A deploy that changes
// a bound a floor or room account holds (the bound_change case) is
// refused, in a SKIP line saying so.
func TestTigerBeetleModelDeploysInProcess(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"shelves.book": shelvesV1, "v2.book": shelvesV2, "deploys.json": shelvesDeploys} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := conformance.Load(conformance.File{Name: "shelves.book", Data: []byte(shelvesV1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.LoadDeploys(conformance.File{Name: "deploys.json", Data: []byte(shelvesDeploys)}, readVersion(dir)); err != nil {
		t.Fatal(err)
	}
	changed := withDeploys(t, []loaded{loadForBackends(t, caseByName(t, "bound_change"))})[0]
	// From a lower bound of 0 the chains are laid out otherwise.
	fromZero, err := conformance.Load(conformance.File{Name: "from_zero.book", Data: []byte(strings.Replace(shelvesV1, "at least 1", "at least 0", 1))})
	if err != nil {
		t.Fatal(err)
	}
	if err := fromZero.LoadDeploys(conformance.File{Name: "deploys.json", Data: []byte(shelvesDeploys)}, readVersion(dir)); err != nil {
		t.Fatal(err)
	}

	m := tbmodel.New()
	m.FollowWallClock()
	var jobs, families []conformance.Job
	for n, l := range []*conformance.Loaded{l, changed.Loaded, fromZero} {
		rt := &conformance.Runtime{Client: m, Def: tigerbeetle.Def(l.Copy), Book: l.Copy}
		tb := &conformance.TigerBeetle{Calls: rt, Raw: m, Book: l.Copy, Pulse: m.Pulse}
		for _, j := range l.Jobs(l.Name, tb, func(i int) string { return fmt.Sprintf("deploy%d-%d", n, i) }) {
			j.Pair = "tigerbeetle-go in this process (model)"
			if derivesVersions(j.Scenario) {
				families = append(families, j)
				continue
			}
			jobs = append(jobs, j)
		}
	}
	r := &logged{T: t}
	st := conformance.RunAll(r, jobs)
	skippedDeploys("tigerbeetle-go in this process (model)", st)
	if st.Deploys != 1 || st.DeploysSkipped != 2 {
		t.Errorf("%d deploy steps run, %d scenarios with them skipped; want shelves.book's 1 run, bound_change's and from_zero.book's skipped", st.Deploys, st.DeploysSkipped)
	}
	for _, want := range []string{
		`SKIP: venue.book on tigerbeetle-go in this process (model) "bounds changed under accounts in use": not run: it deploys new versions of the book: the bounds of section change where a floor or room account holds them`,
		`SKIP: from_zero.book on tigerbeetle-go in this process (model) "a raised floor": not run: it deploys new versions of the book: the lower bound of shelf moves between 0 (the account's flag) and above 0`,
	} {
		if !slices.ContainsFunc(r.logs, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("no line %q in the log", want)
		}
	}
	t.Logf("%d scenarios on the model through chobotb in this process, %d deploy steps run", st.Total, st.Deploys)
	// The generated bound-change families, after the rest as a deploy
	// is: those whose deploys the pair takes (a lower bound above 0
	// moved, on shelves.book) run and answer as the interpreter does; the
	// others are skipped aloud.
	fst := conformance.RunAll(&logged{T: t}, families)
	skippedDeploys("tigerbeetle-go in this process (model), the bound-change families", fst)
	if fst.Deploys == 0 {
		t.Errorf("none of the %d bound-change families ran on the model", len(families))
	}
	t.Logf("%d bound-change families on the model, %d deploy steps run", fst.Total, fst.Deploys)
}
