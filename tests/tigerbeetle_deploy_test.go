package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbwire"
	"github.com/chobo-lang/chobo/chobo/interp"
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

// racksV1 has a hold out of a rack with a lower bound of 0 and an upper
// bound: a room_give follows its move.
const racksV1 = `book racks v1

unit pcs

account rack(id: string) : pcs
  at least 0 refused as empty
  at most 9 refused as full
account world : pcs outside

transfer fill(order: string, id: string, qty: pcs)
  key order
  move qty from world to rack(id)

transfer lend(order: string, id: string, qty: pcs)
  key order
  pending expires after 1 hour
  move qty from rack(id) to world
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
	// racks has no deploys of its own: its bound-change families narrow
	// the lower bound of 0 to 2, which puts a probe before the room_give
	// of a hold out of a rack, so the holds made before are ended after
	// by another chain.
	racks, err := conformance.Load(conformance.File{Name: "racks.book", Data: []byte(racksV1)})
	if err != nil {
		t.Fatal(err)
	}
	books := []*conformance.Loaded{l, changed[0].Loaded, changed[1].Loaded, fromZero, counters, racks}
	// Every deploy step of the scenarios run: shelves' one and
	// from_zero's, the three of each bound_change case's first scenario
	// (its section left outside the room narrowed by the second, which
	// the migration keeps as a shortfall), the two of its second and the
	// one of its third (the room removed under holds made before), and
	// counters' two.
	const wantRun = 16

	run := func(t *testing.T, what string, calls, raw chobotb.Client, replica bool, pulse func()) {
		pair := "tigerbeetle-go in this process (" + what + ")"
		var jobs, families []conformance.Job
		for n, l := range books {
			rt := &conformance.Runtime{Client: calls, Def: tigerbeetle.Def(l.Copy), Book: l.Copy}
			tb := &conformance.TigerBeetle{Calls: rt, Raw: raw, Book: l.Copy, Replica: replica, Pulse: pulse}
			for _, j := range l.Jobs(l.Name, tb, func(i int) string { return fmt.Sprintf("deploy%d-%d", n, i) }) {
				if !slices.ContainsFunc(j.Scenario.Steps, func(st scenario.Step) bool { return st.Deploy != nil }) {
					continue // the book's other scenarios run in the conformance tests
				}
				j.Pair = pair
				if j.Scenario.Derives() {
					families = append(families, j)
					continue
				}
				jobs = append(jobs, j)
			}
		}
		r := &logged{T: t}
		st := conformance.RunAll(r, jobs)
		skippedDeploys(pair, st)
		if st.Deploys != wantRun || st.DeploysSkipped != 0 {
			t.Errorf("%d deploy steps run, %d scenarios with them skipped; want %d run (shelves.book's and from_zero.book's 1, 3, 2 and 1 of each bound_change case, counters.book's 2), none skipped",
				st.Deploys, st.DeploysSkipped, wantRun)
		}
		t.Logf("%d scenarios on %s, %d deploy steps run", st.Total, pair, st.Deploys)
		// The generated bound-change families, after the rest as a
		// deploy is: they run and answer as the interpreter does, or are
		// skipped aloud.
		fst := conformance.RunAll(&logged{T: t}, families)
		skippedDeploys(pair+", the bound-change families", fst)
		if fst.Deploys == 0 || fst.DeploysSkipped != 0 {
			t.Errorf("%d of the %d bound-change families ran on %s, %d skipped; want every one", fst.Deploys, len(families), pair, fst.DeploysSkipped)
		}
		const relaid = "lend.hold: holds made before the lower bound of rack(id) narrows from 0 to 2"
		if !slices.ContainsFunc(families, func(j conformance.Job) bool { return strings.HasPrefix(j.Scenario.Name, relaid) }) {
			t.Errorf("no bound-change family %q", relaid)
		}
		t.Logf("%d bound-change families on %s, %d deploy steps run", fst.Total, pair, fst.Deploys)
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

// TestTigerBeetleClientsDeploy puts the versions of the bound_change
// case's book in place under each language's TigerBeetle client, as an
// operator deploys one: the migration runs from this process against the
// same TigerBeetle, then the driver of the new version's client takes the
// calls. Every answer is the interpreter's, deployed alike: the room
// widened and narrowed by the migration (the first version's client
// would refuse at its old bound, or pass the new one), the reason renamed
// by the new client (the old one would give the old reason); holds made
// under the fourth version, whose chains take from the room, posted in
// part, voided and sent again under the fifth, which has no room. On the model
// for a language whose driver reaches it, and on a real replica, one for
// every language, each under tenants of its own.
func TestTigerBeetleClientsDeploy(t *testing.T) {
	l := withDeploys(t, []loaded{loadForBackends(t, caseByName(t, "bound_change"))})[0]
	var replica string
	var raw *tbwire.Client
	if _, err := tbtest.Bin(); err == nil {
		replica, raw = startProxy(t, realTigerBeetle(t))
	}
	for _, tg := range targetsOn("tigerbeetle") {
		t.Run(tg, func(t *testing.T) {
			_, lang := languageOf(t, tg)
			driversOf(t, tg)
			if lang.ViaWire() {
				t.Run("model", func(t *testing.T) {
					m := tbmodel.New()
					m.FollowWallClock()
					addr, stop, err := tbwire.Listen(m)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(stop)
					clientsDeploy(t, tg, l, "wire:"+addr, &conformance.TigerBeetle{Raw: m, Book: l.Copy, Pulse: m.Pulse})
				})
			}
			t.Run("replica", func(t *testing.T) {
				realTigerBeetle(t)
				clientsDeploy(t, tg, l, replica, &conformance.TigerBeetle{Raw: raw, Book: l.Copy, Replica: true})
			})
		})
	}
}

// clientsDeploy makes the calls of TestTigerBeetleClientsDeploy through
// tg's client of l's book on the TigerBeetle at address, which tb reads.
func clientsDeploy(t *testing.T, tg string, l loaded, address string, tb *conformance.TigerBeetle) {
	at := protocol.Request{TigerBeetle: address}
	first := startClient(t, tg, l, at, tb, "")
	d := clientDrivers(t, tg, l, first, at, func(*conformance.Version) conformance.Reader { return tb }, nil)
	be := conformance.NewTigerBeetleDrivers(tb, d)
	ctx := context.Background()
	// The versions the case's first scenario deploys, by their files.
	var vs []*conformance.Version
	for _, file := range []string{"versions/v2.book", "versions/v3.book", "versions/v4.book", "versions/v5.book"} {
		i := slices.IndexFunc(laterVersions(l), func(v *conformance.Version) bool { return v.File == file })
		if i < 0 {
			t.Fatalf("bound_change deploys no %s", file)
		}
		vs = append(vs, laterVersions(l)[i])
	}
	cur := l.Copy
	refs := map[string]*interp.State{}
	var call func(tenant string, c interp.Call, want string)
	sell := func(tenant, order string, qty int64, want string) {
		t.Helper()
		call(tenant, interp.Call{Transfer: cur.Transfer("sell"), Op: book.Do,
			Strings: map[string]string{"order": order, "id": "s-1"}, Amounts: map[string]int64{"qty": qty}}, want)
	}
	// reserve holds into section(s-1), or posts (in part, when qty is
	// not 0) or voids the hold of order.
	reserve := func(tenant string, op book.Op, order string, qty int64, want string) {
		t.Helper()
		c := interp.Call{Transfer: cur.Transfer("reserve"), Op: op, Strings: map[string]string{"order": order}}
		switch {
		case op == book.Hold:
			c.Strings["id"], c.Amounts = "s-1", map[string]int64{"qty": qty}
		case qty != 0:
			c.Amounts = map[string]int64{"qty": qty}
		}
		call(tenant, c, want)
	}
	call = func(tenant string, c interp.Call, want string) {
		t.Helper()
		tenant = tg + "-" + tenant
		order, qty := c.Strings["order"], c.Amounts["qty"]
		if refs[tenant] == nil {
			refs[tenant] = interp.New(cur)
		}
		if ref := conformance.ShortResult(refs[tenant].Apply(c)); ref != want {
			t.Fatalf("%s: the interpreter answers %s to %s %s %d, not %s", cur.File, ref, c.Op, order, qty, want)
		}
		if got := conformance.ShortResult(be.Call(ctx, c, tenant)); got != want {
			t.Errorf("%s, tenant %s: %s %s %d answered %s; the interpreter %s", cur.File, tenant, c.Op, order, qty, got, want)
		}
	}
	deploy := func(v *conformance.Version) {
		t.Helper()
		if err := be.Deploy(ctx, v); err != nil {
			t.Fatal(err)
		}
		for _, s := range refs {
			s.Deploy(v.Copy)
		}
		cur = v.Copy
	}
	sell("a", "o-1", 500, "done")
	sell("a", "o-2", 1, "refused: section_full")
	deploy(vs[0]) // at most 600
	if d.Current() == first {
		t.Errorf("the driver of the first version still takes the calls")
	}
	sell("a", "o-3", 100, "done")
	sell("a", "o-4", 1, "refused: section_full")
	sell("a", "o-1", 500, "done_before")
	// The version after narrows the room to 350, where tenant a's stands
	// outside; a tenant whose section stands inside it is migrated.
	sell("b", "o-1", 300, "done")
	deploy(vs[1]) // at most 350
	sell("b", "o-2", 51, "refused: section_full")
	sell("b", "o-3", 50, "done")
	deploy(vs[2]) // at most 350, refused as sold_out
	sell("b", "o-4", 1, "refused: sold_out")
	sell("b", "o-2", 51, "refused: already_refused")
	// Holds made under the fourth version, each chain a move and its
	// room_take, ended under the fifth, which has no room: the post and
	// void end both events, and one ended before is sent again after.
	// The last tenant called before a deploy is the one it migrates, and
	// the holds of the test copy last 3 seconds: they are made just
	// before it.
	sell("h", "o-1", 100, "done")
	for _, h := range []struct {
		order string
		qty   int64
	}{{"h-1", 40}, {"h-2", 10}, {"h-3", 30}, {"h-4", 20}} {
		reserve("h", book.Hold, h.order, h.qty, "done")
	}
	reserve("h", book.Post, "h-3", 5, "done")
	reserve("h", book.Void, "h-4", 0, "done")
	deploy(vs[3]) // no upper bound
	// The open holds and the entries of a call, read through the new
	// client: each hold whole, though its chain is longer than the new
	// version lays one out.
	read := func(req protocol.Request) protocol.Response {
		t.Helper()
		req.Tenant = tg + "-h"
		resp, err := d.ReadHistory(ctx, req)
		if err == nil && resp.Error != "" {
			err = errors.New(resp.Error)
		}
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		return resp
	}
	var open []string
	if hs := read(protocol.Request{Op: protocol.Holds, Transfer: "reserve"}).Holds; hs != nil {
		for _, h := range *hs {
			for _, m := range h.Moves {
				open = append(open, fmt.Sprintf("%d %s->%s %s", m.Move, m.From, m.To, m.Amount))
			}
		}
	}
	if want := []string{"1 box_office->section 40", "1 box_office->section 10"}; !slices.Equal(open, want) {
		t.Errorf("%s: open holds %q, want %q", cur.File, open, want)
	}
	if es := read(protocol.Request{Op: protocol.Entries, Transfer: "reserve", Args: map[string]string{"order": "h-3"}}).Entries; es == nil || len(*es) != 4 {
		t.Errorf("%s: the entries of h-3 are %v, want its hold's and its post's, two sides each", cur.File, es)
	}
	reserve("h", book.Post, "h-1", 41, "refused: over_hold")
	reserve("h", book.Post, "h-1", 25, "done")
	reserve("h", book.Post, "h-1", 25, "done_before")
	reserve("h", book.Post, "h-1", 24, "refused: key_conflict")
	reserve("h", book.Void, "h-2", 0, "done")
	reserve("h", book.Void, "h-2", 0, "done_before")
	reserve("h", book.Post, "h-2", 0, "refused: already_voided")
	reserve("h", book.Post, "h-3", 5, "done_before")
	reserve("h", book.Void, "h-4", 0, "done_before")
	reserve("h", book.Void, "h-3", 0, "refused: already_posted")
	sell("h", "o-2", 1000, "done")
	if n := d.Started(); n != 4 {
		t.Errorf("%d drivers started by the deploys, want 4", n)
	}
}
