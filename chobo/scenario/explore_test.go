package scenario_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// everyOrder is the runner as it was before ledgers were merged: every
// order of every `together`, one by one, merged only on what an outcome
// shows. Explore must give exactly its outcomes, in its order.
func everyOrder(b *book.Book, sc scenario.Scenario) []scenario.Outcome {
	type branch struct {
		state   *interp.State
		results []scenario.OpResult
		expired map[int][]string
	}
	apply := func(s *interp.State, c *scenario.Call) scenario.OpResult {
		if c.Bad != "" {
			return scenario.OpResult{Failed: c.Bad}
		}
		r, err := s.Apply(c.Call)
		if err != nil {
			return scenario.OpResult{Failed: err.Error()}
		}
		r.Detail = nil
		return scenario.OpResult{Result: r}
	}
	fingerprint := func(br branch) string {
		return fmt.Sprintf("%v|%v|%v|%v", br.results, br.state.Accounts(), br.expired, holdsOf(br.state))
	}
	dedupe := func(bs []branch) []branch {
		seen := map[string]bool{}
		var out []branch
		for _, br := range bs {
			if k := fingerprint(br); !seen[k] {
				seen[k] = true
				out = append(out, br)
			}
		}
		return out
	}
	branches := []branch{{state: interp.New(b), expired: map[int][]string{}}}
	for i, st := range sc.Steps {
		var next []branch
		for _, br := range branches {
			switch {
			case st.Call != nil:
				s := br.state.Clone()
				next = append(next, branch{s, append(append([]scenario.OpResult{}, br.results...), apply(s, st.Call)), br.expired})
			case st.Together != nil:
				offset, total := make([]int, len(st.Together)), 0
				for ci, calls := range st.Together {
					offset[ci] = total
					total += len(calls)
				}
				pos := make([]int, len(st.Together))
				slot := make([]scenario.OpResult, total)
				var walk func(s *interp.State, done int)
				walk = func(s *interp.State, done int) {
					if done == total {
						next = append(next, branch{s, append(append([]scenario.OpResult{}, br.results...), slot...), br.expired})
						return
					}
					for ci, calls := range st.Together {
						if pos[ci] == len(calls) {
							continue
						}
						s2 := s.Clone()
						slot[offset[ci]+pos[ci]] = apply(s2, calls[pos[ci]])
						pos[ci]++
						walk(s2, done+1)
						pos[ci]--
					}
				}
				walk(br.state, 0)
			default:
				s := br.state.Clone()
				hs, _ := s.Pass(st.Pass)
				nb := branch{s, br.results, br.expired}
				if len(hs) > 0 {
					nb.expired = map[int][]string{}
					for k, v := range br.expired {
						nb.expired[k] = v
					}
					for _, h := range hs {
						nb.expired[i] = append(nb.expired[i], h.Name())
					}
				}
				next = append(next, nb)
			}
		}
		branches = dedupe(next)
	}
	var out []scenario.Outcome
	for _, br := range branches {
		o := scenario.Outcome{Results: br.results, Expired: br.expired, Accounts: br.state.Accounts()}
		for _, h := range br.state.Holds() {
			o.Holds = append(o.Holds, scenario.HoldView{Name: h.Name(), State: h.State})
		}
		out = append(out, o)
	}
	return out
}

func holdsOf(s *interp.State) []string {
	var out []string
	for _, h := range s.Holds() {
		out = append(out, h.Name()+"="+h.State.String())
	}
	return out
}

// randomScenario writes a scenario of races over few orders, two skus
// and little stock, so that keys collide, bounds are met, holds made in
// one step are posted in another, and holds expire.
func randomScenario(r *rand.Rand) string {
	call := func() string {
		order := fmt.Sprintf("o-%d", r.IntN(4))
		sku := fmt.Sprintf("s-%d", 1+r.IntN(2))
		switch r.IntN(5) {
		case 0:
			return fmt.Sprintf(`{"op": "receive.do", "args": {"delivery": "d-%d", "sku": %q, "qty": %d}}`, r.IntN(3), sku, r.IntN(3))
		case 1:
			return fmt.Sprintf(`{"op": "reserve.post", "args": {"order": %q, "sku": %q}}`, order, sku)
		case 2:
			return fmt.Sprintf(`{"op": "reserve.void", "args": {"order": %q, "sku": %q}}`, order, sku)
		}
		return fmt.Sprintf(`{"op": "reserve.hold", "args": {"order": %q, "sku": %q, "qty": %d}}`, order, sku, 1+r.IntN(2))
	}
	var steps []string
	for range 2 + r.IntN(4) {
		switch r.IntN(4) {
		case 0:
			steps = append(steps, call())
		case 1:
			steps = append(steps, fmt.Sprintf(`{"pass": "%d minutes"}`, 10+r.IntN(25)))
		default:
			var callers []string
			left := 2 + r.IntN(4)
			for left > 0 {
				n := 1 + r.IntN(min(left, 2))
				left -= n
				var calls []string
				for range n {
					calls = append(calls, call())
				}
				callers = append(callers, "["+strings.Join(calls, ",")+"]")
			}
			steps = append(steps, `{"together": [`+strings.Join(callers, ",")+`]}`)
		}
	}
	return `{"name": "random", "steps": [` + strings.Join(steps, ",") + `]}`
}

// TestExploreMatchesEveryOrder runs random scenarios both ways: merging
// ledgers must change how much work is done, never what comes out.
func TestExploreMatchesEveryOrder(t *testing.T) {
	b := load(t)
	r := rand.New(rand.NewPCG(1, 2))
	several := 0
	for i := range 500 {
		js := randomScenario(r)
		sc := read(t, b, js)[0]
		want := everyOrder(b, sc)
		got, _, err := scenario.Explore(b, sc, scenario.Budget)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: %s\ngot  %d outcomes: %+v\nwant %d outcomes: %+v", i, js, len(got), got, len(want), want)
		}
		if len(want) > 1 {
			several++
		}
	}
	if several < 50 {
		t.Errorf("only %d of the random scenarios have several outcomes; the test says little", several)
	}
}

// twoRaces is two `together` steps of 8 callers holding 1 each, after
// stock of stock units each time.
func twoRaces(stock int, sameKey bool) string {
	race := func(prefix string) string {
		var callers []string
		for i := range 8 {
			order := fmt.Sprintf("%s-%d", prefix, i)
			if sameKey {
				order = prefix
			}
			callers = append(callers, "["+hold(order, 1)+"]")
		}
		return `{"together": [` + strings.Join(callers, ",") + `]}`
	}
	receive := func(d string) string {
		return fmt.Sprintf(`{"op": "receive.do", "args": {"delivery": %q, "sku": "s-1", "qty": %d}}`, d, stock)
	}
	return `{"name": "two races", "steps": [` + receive("d-1") + "," + race("a") + "," + receive("d-2") + "," + race("b") + `]}`
}

// TestTogetherStepsStaySmall counts the ledgers two steps of 8 callers
// make. Walking every order made 2 × 109,600 (every prefix of 40,320
// orders) and kept each step's paths apart: a race for 4 units took a
// minute and a half.
func TestTogetherStepsStaySmall(t *testing.T) {
	b := load(t)
	tests := []struct {
		name      string
		js        string
		outcomes  int
		maxStates int
	}{
		// Every order ends alike: one ledger per set of callers done, 2,050
		// in all.
		{"plenty", twoRaces(100, false), 1, 3_000},
		// One caller of each step wins, the others are done_before: the
		// ledgers after a step are the same, the answers are not.
		{"same key", twoRaces(100, true), 64, 10_000},
		// Two win each race: 28 × 28 outcomes.
		{"race for 2 units", twoRaces(2, false), 784, 30_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outs, st, err := scenario.Explore(b, read(t, b, tt.js)[0], scenario.Budget)
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != tt.outcomes {
				t.Errorf("%d outcomes, want %d", len(outs), tt.outcomes)
			}
			t.Logf("%d ledgers made", st.States)
			if st.States > tt.maxStates {
				t.Errorf("%d ledgers made, want at most %d", st.States, tt.maxStates)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	b := load(t)
	sc := read(t, b, twoRaces(4, false))[0]
	outs, _, err := scenario.Explore(b, sc, 10_000)
	var be *scenario.BudgetError
	if !errors.As(err, &be) || outs != nil {
		t.Fatalf("got %d outcomes and %v, want a BudgetError", len(outs), err)
	}
	// The first race fits; the second does not.
	if be.Step != 4 || be.Budget != 10_000 {
		t.Errorf("%+v", be)
	}
	msg := be.Text()
	if !strings.Contains(msg.En, "step 4") || !strings.Contains(msg.Ja, "ステップ 4") {
		t.Errorf("%+v", msg)
	}
}

// BenchmarkTogetherTwoSteps8 is the run that used to take minutes: two
// `together` steps of 8 callers.
func BenchmarkTogetherTwoSteps8(b *testing.B) {
	bk := load(b)
	for _, v := range []struct {
		name  string
		stock int
	}{{"plenty", 100}, {"race_for_4", 4}} {
		b.Run(v.name, func(b *testing.B) {
			sc := read(b, bk, twoRaces(v.stock, false))[0]
			var outs []scenario.Outcome
			var st scenario.Stats
			for range b.N {
				outs, st, _ = scenario.Explore(bk, sc, scenario.Budget)
			}
			b.ReportMetric(float64(len(outs)), "outcomes")
			b.ReportMetric(float64(st.States), "ledgers")
		})
	}
}
