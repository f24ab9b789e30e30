package api

import "github.com/chobo-lang/chobo/chobo/show"

// Show is `chobo run --show <backend> --format json`: what a client sends
// for each step of each scenario, instead of the answers.
type Show struct {
	V         int            `json:"v"`
	File      string         `json:"file"`
	Target    string         `json:"target"`
	Scenarios []ShowScenario `json:"scenarios"`
}

// ShowScenario is one scenario's statements, in step order.
type ShowScenario struct {
	Name  string     `json:"name"`
	Steps []ShowStep `json:"steps"`
}

// ShowStep is one statement and its arguments. Caller numbers the callers
// of a together from 1; Pass is set for the expire call that stands for a
// pass of time.
type ShowStep struct {
	Step   int    `json:"step"`
	Caller int    `json:"caller,omitempty"`
	Pass   string `json:"pass,omitempty"`
	SQL    string `json:"sql"`
	Args   []any  `json:"args"`
}

// ShowOf converts the steps of each scenario, named in order by names.
func ShowOf(file, target string, names []string, steps [][]show.Step) Show {
	out := Show{V: Version, File: file, Target: target, Scenarios: []ShowScenario{}}
	for i, name := range names {
		sc := ShowScenario{Name: name, Steps: []ShowStep{}}
		for _, st := range steps[i] {
			sc.Steps = append(sc.Steps, ShowStep{Step: st.Step, Caller: st.Caller, Pass: st.Pass, SQL: st.SQL, Args: st.Args})
		}
		out.Scenarios = append(out.Scenarios, sc)
	}
	return out
}
