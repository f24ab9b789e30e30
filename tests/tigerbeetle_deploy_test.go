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
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
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

// countersV1 is a book without holds whose one-move chains its next
// versions lay out otherwise: the upper bound goes and the lower bound
// moves from 0 to 1 (counters_v2.book), then the upper bound comes back
// (counters_v3.book).
const countersV1 = `book counters v1

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

var (
	countersV2 = strings.NewReplacer("v1", "v2", "at least 0", "at least 1", "  at most 5 refused as full\n", "").Replace(countersV1)
	countersV3 = strings.NewReplacer("v1", "v3", "at least 0", "at least 1").Replace(countersV1)
)

// countersRetries are the calls before the deploys, sent again after
// each: done_before, already_refused, and key_conflict for other content.
const countersRetries = `
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 3}, "expect": "done_before"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 3}, "expect": "refused: already_refused"},
  {"op": "take.do", "args": {"order": "t-1", "id": "a", "qty": 1}, "expect": "done_before"},
  {"op": "take.do", "args": {"order": "t-2", "id": "a", "qty": 5}, "expect": "refused: already_refused"},
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 2}, "expect": "refused: key_conflict"},`

const countersDeploys = `[{"name": "retried across chains laid out otherwise", "steps": [
  {"op": "fill.do", "args": {"order": "o-1", "id": "a", "qty": 3}, "expect": "done"},
  {"op": "fill.do", "args": {"order": "o-2", "id": "a", "qty": 3}, "expect": "refused: full"},
  {"op": "take.do", "args": {"order": "t-1", "id": "a", "qty": 1}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-2", "id": "a", "qty": 5}, "expect": "refused: empty"},
  {"deploy": "counters_v2.book"},` + countersRetries + `
  {"op": "fill.do", "args": {"order": "o-3", "id": "b", "qty": 4}, "expect": "done"},
  {"op": "take.do", "args": {"order": "t-3", "id": "b", "qty": 4}, "expect": "refused: empty"},
  {"deploy": "counters_v3.book"},` + countersRetries + `
  {"op": "fill.do", "args": {"order": "o-3", "id": "b", "qty": 4}, "expect": "done_before"},
  {"op": "take.do", "args": {"order": "t-3", "id": "b", "qty": 4}, "expect": "refused: already_refused"}
]}]`

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

// TestTigerBeetleDeploysInProcess runs scenarios that deploy new
// versions through chobotb in this process, on the model and on a real
// replica: after a deploy step the chains are the new version's
// definition's, the floors and rooms are migrated (chobotb.Migrate
// through the client the calls use), and every answer, balance and hold
// is the interpreter's. The bound_change cases widen a room, then narrow
// it: their scenario with every section inside runs both deploys; the
// one that leaves a section outside the narrowed room is skipped at that
// step, in a SKIP line naming the account. Calls made before deploys
// that lay their chains out otherwise (a lower bound from 0 to above 0,
// an upper bound removed and added) and sent again after them answer as
// they did: from_zero.book and counters.book.
func TestTigerBeetleDeploysInProcess(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"shelves.book": shelvesV1, "v2.book": shelvesV2, "deploys.json": shelvesDeploys,
		"counters_v2.book": countersV2, "counters_v3.book": countersV3} {
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
	changed := withDeploys(t, []loaded{loadForBackends(t, caseByName(t, "bound_change")), loadForBackends(t, caseByName(t, "bound_change_ja"))})
	// From a lower bound of 0 the chains are laid out otherwise.
	fromZero, err := conformance.Load(conformance.File{Name: "from_zero.book", Data: []byte(strings.Replace(shelvesV1, "at least 1", "at least 0", 1))})
	if err != nil {
		t.Fatal(err)
	}
	if err := fromZero.LoadDeploys(conformance.File{Name: "deploys.json", Data: []byte(shelvesDeploys)}, readVersion(dir)); err != nil {
		t.Fatal(err)
	}
	counters, err := conformance.Load(conformance.File{Name: "counters.book", Data: []byte(countersV1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := counters.LoadDeploys(conformance.File{Name: "counters.json", Data: []byte(countersDeploys)}, readVersion(dir)); err != nil {
		t.Fatal(err)
	}
	books := []*conformance.Loaded{l, changed[0].Loaded, changed[1].Loaded, fromZero, counters}
	// Every deploy step of the scenarios run: shelves' one and
	// from_zero's, the two of each bound_change case's scenario with every
	// section inside, and counters' two.
	const wantRun, wantSkipped = 8, 2

	run := func(t *testing.T, what string, calls, raw chobotb.Client, replica bool, pulse func()) {
		pair := "tigerbeetle-go in this process (" + what + ")"
		var jobs []conformance.Job
		for n, l := range books {
			rt := &conformance.Runtime{Client: calls, Def: tigerbeetle.Def(l.Copy), Book: l.Copy}
			tb := &conformance.TigerBeetle{Calls: rt, Raw: raw, Book: l.Copy, Replica: replica, Pulse: pulse}
			for _, j := range l.Jobs(l.Name, tb, func(i int) string { return fmt.Sprintf("deploy%d-%d", n, i) }) {
				if !slices.ContainsFunc(j.Scenario.Steps, func(st scenario.Step) bool { return st.Deploy != nil }) {
					continue // the book's other scenarios run in the conformance tests
				}
				j.Pair = pair
				jobs = append(jobs, j)
			}
		}
		r := &logged{T: t}
		st := conformance.RunAll(r, jobs)
		skippedDeploys(pair, st)
		if st.Deploys != wantRun || st.DeploysSkipped != wantSkipped {
			t.Errorf("%d deploy steps run, %d scenarios with them skipped; want %d run (shelves.book's and from_zero.book's 1, 2 of each bound_change case, counters.book's 2), %d skipped (bound_change's section left outside, twice)",
				st.Deploys, st.DeploysSkipped, wantRun, wantSkipped)
		}
		for _, want := range []string{
			`SKIP: venue.book on ` + pair + ` "bounds changed under accounts in use": not run past a deploy step: deploying versions/v3.book, ` +
				"`chobo migrate` left 1 floor or room accounts on the bound they had, which answer by it on TigerBeetle and not as the interpreter: section ",
		} {
			if !slices.ContainsFunc(r.logs, func(l string) bool { return strings.HasPrefix(l, want) }) {
				t.Errorf("no line %q in the log", want)
			}
		}
		t.Logf("%d scenarios on %s, %d deploy steps run", st.Total, pair, st.Deploys)
	}
	t.Run("model", func(t *testing.T) {
		m := tbmodel.New()
		m.FollowWallClock()
		run(t, "model", m, m, false, m.Pulse)
	})
	t.Run("replica", func(t *testing.T) {
		realTigerBeetle(t)
		srv := tbtest.Replica(t)
		run(t, "real replica", conformance.ShortenTimeouts(srv.Client), srv.Client, true, nil)
	})
}
