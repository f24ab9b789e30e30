package api

import "github.com/chobo-lang/chobo/chobo/scenario"

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
}

// RunOutcome is one way a scenario can end.
type RunOutcome struct {
	Results  []RunResult  `json:"results"`
	Accounts []RunAccount `json:"accounts"`
	Holds    []RunHold    `json:"holds"`
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
		for _, o := range runs[i] {
			rs.Outcomes = append(rs.Outcomes, RunOutcomeOf(o))
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
