package conformance

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// twoLifetimes gives its holds two lifetimes, which the test copy makes
// one: the case a pass cannot simply be multiplied for.
const twoLifetimes = `book counter v1
unit pcs
account shelf(sku: string) : pcs
  at least 0 refused as sold_out
account vendors : pcs outside
account buyers : pcs outside
transfer restock(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from vendors to shelf(sku)
transfer cart(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 10 minutes
  move qty from shelf(sku) to buyers
transfer layaway(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 1 hour
  move qty from shelf(sku) to buyers
`

// books checks src and makes its test copy.
func books(t *testing.T, src string) (orig, cp *book.Book) {
	t.Helper()
	res := check.Check("counter.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("the test book does not check: %+v", res.Diags)
	}
	_, cp, err := Shorten(res.Book, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return res.Book, cp
}

func read(t *testing.T, b *book.Book, js string) scenario.Scenario {
	t.Helper()
	scs, err := scenario.Read(b, []byte(js))
	if err != nil || len(scs) != 1 {
		t.Fatalf("reading the scenario: %v (%d read)", err, len(scs))
	}
	return scs[0]
}

// passes lists the lengths of a scenario's passes, in seconds.
func passes(sc scenario.Scenario) []int64 {
	var out []int64
	for _, st := range sc.Steps {
		if st.Call == nil && st.Together == nil {
			out = append(out, st.Pass)
		}
	}
	return out
}

// A pass shorter than a hold's lifetime must leave it held on the copy,
// a later one that reaches its deadline must expire it, and a hold made
// in between must outlive the first: the passes become 1, 2 and 0
// seconds against the copy's 3, not "every pass past every deadline".
func TestScaleKeepsWhichDeadlinesEachPassReaches(t *testing.T) {
	orig, cp := books(t, twoLifetimes)
	const js = `{"name": "a later cart outlives an earlier one", "steps": [
	  {"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
	  {"op": "cart.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
	  {"pass": "4 minutes"},
	  {"op": "cart.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
	  {"op": "cart.hold", "args": {"order": "o-3", "sku": "s-1", "qty": 1}, "expect": "refused: sold_out"},
	  {"pass": "6 minutes"},
	  {"op": "cart.post", "args": {"order": "o-1", "sku": "s-1"}, "expect": "refused: expired"},
	  {"op": "cart.post", "args": {"order": "o-2", "sku": "s-1"}, "expect": "done"},
	  {"op": "cart.hold", "args": {"order": "o-4", "sku": "s-1", "qty": 1}, "expect": "done"},
	  {"pass": "5 minutes"},
	  {"op": "cart.void", "args": {"order": "o-4", "sku": "s-1"}, "expect": "done"}
	]}`
	sc := read(t, orig, js)
	got, err := Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	if p := passes(got); !slices.Equal(p, []int64{1, 2, 0}) {
		t.Errorf("scaled passes: %v seconds, want [1 2 0]", p)
	}
	for _, st := range got.Steps {
		if st.Call != nil && st.Call.Transfer != cp.Transfer(st.Call.Transfer.Name) {
			t.Fatalf("%s is not bound to the test copy", st.Call)
		}
	}
	// The expectations hold on the copy as on the book: what chobo run
	// says of the file, the scaled scenario says on the copy.
	if f := scenario.Failures(got, scenario.Run(cp, got)); len(f) > 0 {
		t.Errorf("on the copy: %v", f)
	}
	// The same file read against the copy (as the runners once did)
	// scales the same: the passes are read in the book's time either way.
	again, err := Scale(orig, cp, read(t, cp, js))
	if err != nil || !slices.Equal(passes(again), passes(got)) {
		t.Errorf("read against the copy: %v, %v", passes(again), err)
	}
}

// Holds of two lifetimes fit when they are made at different times and
// the copy can keep their deadlines apart.
func TestScaleTwoLifetimesApart(t *testing.T) {
	orig, cp := books(t, twoLifetimes)
	sc := read(t, orig, `{"name": "a layaway, then a cart near its end", "steps": [
	  {"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
	  {"op": "layaway.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
	  {"pass": "55 minutes"},
	  {"op": "cart.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
	  {"pass": "5 minutes"},
	  {"op": "layaway.post", "args": {"order": "o-1", "sku": "s-1"}, "expect": "refused: expired"},
	  {"op": "cart.post", "args": {"order": "o-2", "sku": "s-1"}, "expect": "done"}
	]}`)
	got, err := Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	if p := passes(got); !slices.Equal(p, []int64{1, 2}) {
		t.Errorf("scaled passes: %v seconds, want [1 2]", p)
	}
}

// Two holds made together whose lifetimes differ, and a pass that ends
// one but not the other: on the copy they share one deadline, so no
// length of the pass is faithful, and the scenario is refused by name.
func TestScaleRefusesWhatTheCopyCannotTime(t *testing.T) {
	orig, cp := books(t, twoLifetimes)
	sc := read(t, orig, `{"name": "a cart and a layaway together", "steps": [
	  {"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
	  {"op": "cart.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
	  {"op": "layaway.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
	  {"pass": "30 minutes"},
	  {"op": "layaway.post", "args": {"order": "o-2", "sku": "s-1"}}
	]}`)
	_, err := Scale(orig, cp, sc)
	if err == nil {
		t.Fatal("scaled a scenario the copy cannot time")
	}
	t.Log(err)
	for _, want := range []string{"cannot run this scenario", "cart(o-1, s-1), held at step 2, expires at the pass of step 4",
		"layaway(o-2, s-1), held at step 3, is still held after the pass of step 4"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q:\n%v", want, err)
		}
	}
}

// Four carts made a minute apart must expire one by one; the copy has
// only three whole seconds between a hold and its deadline.
func TestScaleRefusesTooManyDeadlinesInFlight(t *testing.T) {
	orig, cp := books(t, twoLifetimes)
	var steps []string
	steps = append(steps, `{"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 9}}`)
	for _, o := range []string{"o-1", "o-2", "o-3", "o-4"} {
		steps = append(steps, `{"op": "cart.hold", "args": {"order": "`+o+`", "sku": "s-1", "qty": 1}}`, `{"pass": "1 minute"}`)
	}
	steps = append(steps, `{"pass": "6 minutes"}`, `{"pass": "1 minute"}`, `{"pass": "1 minute"}`, `{"pass": "1 minute"}`)
	sc := read(t, orig, `{"name": "carts a minute apart", "steps": [`+strings.Join(steps, ",")+`]}`)
	if _, err := Scale(orig, cp, sc); err == nil || !strings.Contains(err.Error(), "cannot run this scenario") {
		t.Errorf("got %v, want a refusal", err)
	}
}

// Every generated scenario scales: their passes go past the deadlines
// they mean to reach and stop short of the others.
func TestScaleGenerated(t *testing.T) {
	orig, cp := books(t, twoLifetimes)
	for _, sc := range scenario.Generate(orig) {
		got, err := Scale(orig, cp, sc)
		if err != nil {
			t.Errorf("%q: %v", sc.Name, err)
			continue
		}
		// The reads' expectations hold the book's times, which the copy
		// scales: the runner holds reads to the book as written, so here
		// only the calls are held to theirs.
		got.Steps = slices.Clone(got.Steps)
		for i, st := range got.Steps {
			if st.Read != nil {
				rd := *st.Read
				rd.Expect = nil
				got.Steps[i].Read = &rd
			}
		}
		if f := scenario.Failures(got, scenario.Run(cp, got)); len(f) > 0 {
			t.Errorf("%q on the copy: %v", sc.Name, f)
		}
	}
}

// Run waits passes out in real time, so a pass in the book's time would
// stall it for minutes: it is refused before anything is sent.
func TestRunRefusesAnUnscaledPass(t *testing.T) {
	orig, _ := books(t, twoLifetimes)
	sc := read(t, orig, `{"name": "x", "steps": [{"pass": "31 minutes"}]}`)
	_, _, err := Run(context.Background(), nil, sc, "t")
	if err == nil || !strings.Contains(err.Error(), "Scale") {
		t.Errorf("got %v", err)
	}
}

// A hand-written scenario no test copy can time is refused when the book
// is loaded, before any server starts, in the words `chobo run` uses.
func TestLoadRefusesWhatTheCopyCannotTime(t *testing.T) {
	sc := []byte(`{"name": "a cart and a layaway together", "steps": [
	  {"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
	  {"op": "cart.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
	  {"op": "layaway.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
	  {"pass": "30 minutes"},
	  {"op": "layaway.post", "args": {"order": "o-2", "sku": "s-1"}}
	]}`)
	_, err := Load(File{Name: "counter.book", Data: []byte(twoLifetimes)}, File{Name: "more.json", Data: sc})
	want := `more.json: scenario 1: "a cart and a layaway together": the conformance test cannot run this scenario`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// Run refuses a deploy step of a scenario made without Load: the run
// loads one version of the book.
func TestRunRefusesADeployStep(t *testing.T) {
	orig, _ := books(t, twoLifetimes)
	same := func(cur *book.Book, _ *scenario.Deploy) (*book.Book, error) { return cur, nil }
	scs, err := scenario.ReadWith(orig, []byte(`{"name": "x", "steps": [{"deploy": "again.book"}]}`), same)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Run(context.Background(), nil, scs[0], "t")
	if err == nil || !strings.Contains(err.Error(), "step 1: a deploy step cannot run on a backend") {
		t.Errorf("got %v", err)
	}
}

// A scenario that deploys another version of the book is refused when
// the book is loaded: a run on a backend builds and loads one version.
func TestLoadRefusesADeployStep(t *testing.T) {
	sc := []byte(`{"name": "a new version", "steps": [
	  {"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
	  {"deploy": "v2.book"}
	]}`)
	_, err := Load(File{Name: "counter.book", Data: []byte(twoLifetimes)}, File{Name: "more.json", Data: sc})
	want := "more.json: scenario 1: \"a new version\": step 2: deploy \"v2.book\": this command runs no deploy steps"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestLoadKeepsReadSteps: a scenario that reads the history is loaded
// whole, its read steps in their places, for the runner to send.
func TestLoadKeepsReadSteps(t *testing.T) {
	calls := `{"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}}`
	for _, tc := range []struct {
		name, steps string
		read        int // the step that reads, from 0; -1 for none
	}{
		{"a statement", calls + `, {"read": "statement", "account": "shelf(s-1)"}`, 1},
		{"open holds", calls + `, {"read": "holds"}, {"pass": "1 minute"}`, 1},
		{"calls only", calls, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := []byte(`{"name": "x", "steps": [` + tc.steps + `]}`)
			l, err := Load(File{Name: "counter.book", Data: []byte(twoLifetimes)}, File{Name: "more.json", Data: sc})
			if err != nil {
				t.Fatal(err)
			}
			own := l.Scenarios[len(l.Scenarios)-1]
			for i, st := range own.Steps {
				if (st.Read != nil) != (i == tc.read) {
					t.Errorf("step %d: read %v, want a read at %d only", i, st.Read != nil, tc.read)
				}
			}
		})
	}
}
