package api

import (
	"encoding/json"

	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Run is what `chobo run --format json` prints: the outcomes of every
// scenario of one file.
type Run struct {
	V         int           `json:"v"`
	File      string        `json:"file"`
	Scenarios []RunScenario `json:"scenarios"`
}

// RunScenario is one scenario's possible outcomes.
type RunScenario struct {
	Name     string       `json:"name"`
	Outcomes []RunOutcome `json:"outcomes"`
	// Failures lists the expectations the run does not meet; left out
	// when there are none.
	Failures []string `json:"failures,omitempty"`
	// Deploys lists the scenario's deploy steps, in step order; left
	// out when it has none. The results of the calls after one are
	// answers under the version it put in place.
	Deploys []RunDeploy `json:"deploys,omitempty"`
}

// RunDeploy is one deploy step: the file it names, or the bounds it
// changes in the version before, and the version of the book it puts in
// place.
type RunDeploy struct {
	Step int    `json:"step"` // 1-based
	File string `json:"file,omitempty"`
	// Bounds is the step's "bounds" object as the scenario format writes
	// it, for a version derived from the one before.
	Bounds  json.RawMessage `json:"bounds,omitempty"`
	Book    string          `json:"book"`
	Version int             `json:"version"`
}

// RunOutcome is one way a scenario can end.
type RunOutcome struct {
	Results  []RunResult  `json:"results"`
	Accounts []RunAccount `json:"accounts"`
	Holds    []RunHold    `json:"holds"`
	// Reads holds what the read steps read, in step order; left out when
	// the scenario has none.
	Reads []RunRead `json:"reads,omitempty"`
}

// RunRead is what one read step read. Amounts are in the unit's
// smallest step, times in seconds from the start of the scenario.
type RunRead struct {
	Step int    `json:"step"` // 1-based
	Read string `json:"read"` // statement, entries, holds or balance
	// Entries, for a statement and the entries of a call.
	Entries []RunEntry `json:"entries,omitempty"`
	// Holds, for the open holds.
	Holds []RunOpenHold `json:"holds,omitempty"`
	// Balance, for a balance at a time.
	Balance *RunBalance `json:"balance,omitempty"`
	// More and Next, for a statement: whether more entries follow, and
	// the cursor to continue from, opaque.
	More  bool   `json:"more,omitempty"`
	Next  string `json:"next,omitempty"`
	Error string `json:"error,omitempty"`
}

// RunEntry is one entry: one side of one move of a call.
type RunEntry struct {
	Account  string     `json:"account"`
	Time     int64      `json:"time"`
	Transfer string     `json:"transfer"`
	Op       string     `json:"op"` // do, hold, post, void or expire
	Call     string     `json:"call"`
	Move     int        `json:"move"`
	Side     string     `json:"side"` // out or in
	Posted   int64      `json:"posted"`
	HeldOut  int64      `json:"held_out"`
	HeldIn   int64      `json:"held_in"`
	After    RunBalance `json:"after"`
}

// RunBalance is a balance's three amounts.
type RunBalance struct {
	Posted  int64 `json:"posted"`
	HeldOut int64 `json:"held_out"`
	HeldIn  int64 `json:"held_in"`
}

// RunOpenHold is a hold still held.
type RunOpenHold struct {
	Hold    string        `json:"hold"`
	Created int64         `json:"created"`
	Expires *int64        `json:"expires,omitempty"` // the deadline; absent for one that never expires
	Moves   []RunHoldMove `json:"moves"`
}

// RunHoldMove is what one move of a hold holds.
type RunHoldMove struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Amount int64  `json:"amount"`
}

// RunResult is the answer to one call.
type RunResult struct {
	Result string `json:"result"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

// RunAccount is one account's balance at the end.
type RunAccount struct {
	Account string `json:"account"`
	Posted  int64  `json:"posted"`
	HeldOut int64  `json:"held_out"`
	HeldIn  int64  `json:"held_in"`
}

// RunHold is one hold's state at the end.
type RunHold struct {
	Hold  string `json:"hold"`
	State string `json:"state"`
}

// RunOf converts the runs of scenarios read from file; runs[i] holds the
// outcomes of scs[i].
func RunOf(file string, scs []scenario.Scenario, runs [][]scenario.Outcome) Run {
	rep := Run{V: Version, File: file, Scenarios: []RunScenario{}}
	for i, sc := range scs {
		rs := RunScenario{Name: sc.Name, Outcomes: []RunOutcome{}, Failures: scenario.Failures(sc, runs[i])}
		for j, st := range sc.Steps {
			if d := st.Deploy; d != nil {
				rd := RunDeploy{Step: j + 1, File: d.File, Book: d.Book.Name, Version: d.Book.Version}
				if d.File == "" {
					rd.Bounds = json.RawMessage(d.EncodeBounds())
				}
				rs.Deploys = append(rs.Deploys, rd)
			}
		}
		for _, o := range runs[i] {
			ro := RunOutcomeOf(o)
			ro.Reads = readsOf(sc, o)
			rs.Outcomes = append(rs.Outcomes, ro)
		}
		rep.Scenarios = append(rep.Scenarios, rs)
	}
	return rep
}

// RunOutcomeOf converts one outcome.
func RunOutcomeOf(o scenario.Outcome) RunOutcome {
	ro := RunOutcome{Results: []RunResult{}, Accounts: []RunAccount{}, Holds: []RunHold{}}
	for _, r := range o.Results {
		if r.Failed != "" {
			ro.Results = append(ro.Results, RunResult{Result: "failed", Error: r.Failed})
			continue
		}
		ro.Results = append(ro.Results, RunResult{Result: r.Outcome.String(), Reason: r.Reason})
	}
	for _, a := range o.Accounts {
		ro.Accounts = append(ro.Accounts, RunAccount{a.Account.String(), a.Balance.Posted, a.Balance.HeldOut, a.Balance.HeldIn})
	}
	for _, h := range o.Holds {
		ro.Holds = append(ro.Holds, RunHold{h.Name, h.State.String()})
	}
	return ro
}

// readsOf converts what the read steps of sc read in o.
func readsOf(sc scenario.Scenario, o scenario.Outcome) []RunRead {
	var out []RunRead
	for i, st := range sc.Steps {
		res := o.Reads[i]
		if st.Read == nil || res == nil {
			continue
		}
		r := RunRead{Step: i + 1, Read: st.Read.Kind, Error: res.Failed}
		if res.Failed == "" {
			for _, e := range res.Entries {
				side := "in"
				if e.Out {
					side = "out"
				}
				r.Entries = append(r.Entries, RunEntry{Account: e.Account.String(), Time: e.Time, Transfer: e.Call.Transfer.Name,
					Op: string(e.Op), Call: e.CallText(), Move: e.Move, Side: side, Posted: e.Posted, HeldOut: e.HeldOut, HeldIn: e.HeldIn,
					After: RunBalance{e.After.Posted, e.After.HeldOut, e.After.HeldIn}})
			}
			for _, h := range res.Holds {
				oh := RunOpenHold{Hold: h.Name(), Created: h.Created, Moves: []RunHoldMove{}}
				if h.Transfer.Pending.Expires {
					d := h.Deadline
					oh.Expires = &d
				}
				for j, a := range h.Amounts {
					oh.Moves = append(oh.Moves, RunHoldMove{h.From[j].String(), h.To[j].String(), a})
				}
				r.Holds = append(r.Holds, oh)
			}
			if st.Read.Kind == scenario.ReadBalance {
				b := res.Balance
				r.Balance = &RunBalance{b.Posted, b.HeldOut, b.HeldIn}
			}
			r.More, r.Next = res.More, res.Next
		}
		out = append(out, r)
	}
	return out
}
