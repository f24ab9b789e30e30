package scenario

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// OpResult is the answer to one call of a scenario. Failed holds the
// message when the call failed (and changed nothing).
type OpResult struct {
	interp.Result
	Failed string
}

// Outcome is one way a scenario can end: the answer to every call, in
// file order, what each pass expired, and the final ledger.
type Outcome struct {
	Results  []OpResult
	Expired  map[int][]string // step index → holds that expired at that pass
	Accounts []interp.AccountBalance
	Holds    []HoldView
}

// HoldView is a hold as reported: its name and state.
type HoldView struct {
	Name  string
	State interp.HoldState
}

// branch is one path through the scenario so far.
type branch struct {
	state   *interp.State
	results []OpResult
	expired map[int][]string
}

// Run runs sc on a fresh ledger. Without `together` there is one outcome;
// with it, every order that keeps each caller's own order is tried, and
// orders that end the same way are merged, in the order first found.
func Run(b *book.Book, sc Scenario) []Outcome {
	branches := []branch{{state: interp.New(b), expired: map[int][]string{}}}
	for i, st := range sc.Steps {
		var next []branch
		for _, br := range branches {
			switch {
			case st.Call != nil:
				br.results = append(br.results, apply(br.state, st.Call))
				next = append(next, br)
			case st.Together != nil:
				next = append(next, interleave(br, st.Together)...)
			default:
				hs, _ := br.state.Pass(st.Pass)
				if len(hs) > 0 {
					var names []string
					for _, h := range hs {
						names = append(names, h.Name())
					}
					// Branches share the map until one writes to it.
					m := make(map[int][]string, len(br.expired)+1)
					for k, v := range br.expired {
						m[k] = v
					}
					m[i] = names
					br.expired = m
				}
				next = append(next, br)
			}
		}
		branches = dedupe(next)
	}
	out := make([]Outcome, 0, len(branches))
	for _, br := range branches {
		out = append(out, outcomeOf(br))
	}
	return out
}

func apply(s *interp.State, c *Call) OpResult {
	if c.Bad != "" {
		return OpResult{Failed: c.Bad}
	}
	r, err := s.Apply(c.Call)
	if err != nil {
		return OpResult{Failed: err.Error()}
	}
	r.Detail = nil // where a bound was met is for diagnostics, not outcomes
	return OpResult{Result: r}
}

// interleave runs every order of the callers' calls that keeps each
// caller's own order. Results are stored in file order: caller by caller.
func interleave(br branch, callers [][]*Call) []branch {
	offset := make([]int, len(callers))
	total := 0
	for i, c := range callers {
		offset[i] = total
		total += len(c)
	}
	var out []branch
	pos := make([]int, len(callers))
	slot := make([]OpResult, total)
	var walk func(s *interp.State, done int)
	walk = func(s *interp.State, done int) {
		if done == total {
			nb := branch{state: s, expired: br.expired}
			nb.results = append(append([]OpResult{}, br.results...), slot...)
			out = append(out, nb)
			return
		}
		for ci, calls := range callers {
			if pos[ci] == len(calls) {
				continue
			}
			s2 := s.Clone()
			r := apply(s2, calls[pos[ci]])
			slot[offset[ci]+pos[ci]] = r
			pos[ci]++
			walk(s2, done+1)
			pos[ci]--
		}
	}
	walk(br.state, 0)
	return dedupe(out)
}

// dedupe keeps the first branch of each group that ends the same way.
func dedupe(bs []branch) []branch {
	seen := map[string]bool{}
	var out []branch
	for _, b := range bs {
		k := fingerprint(b)
		if !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	return out
}

func fingerprint(b branch) string {
	var sb strings.Builder
	for _, r := range b.results {
		fmt.Fprintf(&sb, "%d/%s/%s;", r.Outcome, r.Reason, r.Failed)
	}
	sb.WriteString("|")
	for _, a := range b.state.Accounts() {
		fmt.Fprintf(&sb, "%s=%d/%d/%d;", a.Account, a.Balance.Posted, a.Balance.HeldOut, a.Balance.HeldIn)
	}
	fmt.Fprintf(&sb, "|%v|", b.expired)
	for _, h := range b.state.Holds() {
		fmt.Fprintf(&sb, "%s=%s;", h.Name(), h.State)
	}
	return sb.String()
}

func outcomeOf(br branch) Outcome {
	o := Outcome{Results: br.results, Expired: br.expired, Accounts: br.state.Accounts()}
	for _, h := range br.state.Holds() {
		o.Holds = append(o.Holds, HoldView{h.Name(), h.State})
	}
	return o
}
