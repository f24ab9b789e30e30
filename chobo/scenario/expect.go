package scenario

import "fmt"

// Short writes a result the way Step.Expect does.
func (r OpResult) Short() string {
	if r.Failed != "" {
		return "failed"
	}
	return r.Result.Short()
}

// Failures lists the expectations of sc its outcomes do not meet: a call
// whose answer differs from its Expect in some outcome, or a number of
// outcomes other than sc.Outcomes.
func Failures(sc Scenario, outcomes []Outcome) []string {
	var out []string
	if sc.Outcomes > 0 && len(outcomes) != sc.Outcomes {
		out = append(out, fmt.Sprintf("expected %d outcomes, got %d", sc.Outcomes, len(outcomes)))
	}
	k := 0
	for i, st := range sc.Steps {
		switch {
		case st.Call != nil:
			if st.Expect != "" {
				for oi, o := range outcomes {
					if got := o.Results[k].Short(); got != st.Expect {
						where := ""
						if len(outcomes) > 1 {
							where = fmt.Sprintf(" in outcome %d", oi+1)
						}
						out = append(out, fmt.Sprintf("step %d: expected %s, got %s%s", i+1, st.Expect, got, where))
						break
					}
				}
			}
			k++
		case st.Together != nil:
			for _, calls := range st.Together {
				k += len(calls)
			}
		}
	}
	return out
}
