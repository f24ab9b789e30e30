package scenario

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Short writes a result the way Step.Expect does.
func (r OpResult) Short() string {
	if r.Failed != "" {
		return "failed"
	}
	return r.Result.Short()
}

// Failures lists, in English, the expectations of sc its outcomes do not
// meet: what JSON output and the conformance tests read.
func Failures(sc Scenario, outcomes []Outcome) []string {
	var out []string
	for _, f := range FailureTexts(sc, outcomes) {
		out = append(out, f.En)
	}
	return out
}

// gotJa says in Japanese what a call got, for a mismatch: the expected
// answer is printed as the file writes it.
func gotJa(got string) string {
	if reason, ok := strings.CutPrefix(got, "refused: "); ok {
		return reason + " で拒否されました"
	}
	return "結果は " + got + " でした"
}

// FailureTexts lists the expectations of sc its outcomes do not meet, in
// both languages: a call whose answer differs from its Expect in some
// outcome, or a number of outcomes other than sc.Outcomes.
func FailureTexts(sc Scenario, outcomes []Outcome) []diag.Text {
	var out []diag.Text
	if sc.Outcomes > 0 && len(outcomes) != sc.Outcomes {
		out = append(out, diag.T(fmt.Sprintf("expected %d outcomes, got %d", sc.Outcomes, len(outcomes)),
			fmt.Sprintf("とりうる結果は %d 通りのはずが、%d 通りでした", sc.Outcomes, len(outcomes))))
	}
	k := 0
	for i, st := range sc.Steps {
		switch {
		case st.Call != nil:
			if st.Expect != "" {
				for oi, o := range outcomes {
					if got := o.Results[k].Short(); got != st.Expect {
						where, whereJa := "", ""
						if len(outcomes) > 1 {
							where = fmt.Sprintf(" in outcome %d", oi+1)
							whereJa = fmt.Sprintf("結果 %d で、", oi+1)
						}
						out = append(out, diag.T(fmt.Sprintf("step %d: expected %s, got %s%s", i+1, st.Expect, got, where),
							fmt.Sprintf("ステップ %d: %s%s のはずが、%s", i+1, whereJa, st.Expect, gotJa(got))))
						break
					}
				}
			}
			k++
		case st.Together != nil:
			for _, calls := range st.Together {
				k += len(calls)
			}
		case st.Read != nil && st.Read.Expect != nil:
			for _, o := range outcomes {
				if f, ok := readFailure(i, st.Read, o.Reads[i]); ok {
					out = append(out, f)
					break
				}
			}
		}
	}
	return out
}

// readFailure says how a read's result differs from what it expects:
// the first line that differs, or a count, or whether more follow.
func readFailure(i int, rd *ReadStep, got *ReadResult) (diag.Text, bool) {
	if got == nil {
		// An outcome from elsewhere than the interpreter (a backend that
		// reads no history) may hold no result for the read.
		return diag.T(fmt.Sprintf("step %d: the read was not made", i+1),
			fmt.Sprintf("ステップ %d: 読んでいません", i+1)), true
	}
	if got.Failed != "" {
		return diag.T(fmt.Sprintf("step %d: the read failed: %s", i+1, got.Failed),
			fmt.Sprintf("ステップ %d: 読めませんでした: %s", i+1, got.FailedJa)), true
	}
	lines, want := got.Lines(rd), rd.Expect.Lines
	for j := range min(len(lines), len(want)) {
		if lines[j] != want[j] {
			return diag.T(fmt.Sprintf("step %d: line %d: expected %q, got %q", i+1, j+1, want[j], lines[j]),
				fmt.Sprintf("ステップ %d: %d 行目: %q のはずが、%q でした", i+1, j+1, want[j], lines[j])), true
		}
	}
	if len(lines) != len(want) {
		return diag.T(fmt.Sprintf("step %d: expected %d lines, got %d", i+1, len(want), len(lines)),
			fmt.Sprintf("ステップ %d: %d 行のはずが、%d 行でした", i+1, len(want), len(lines))), true
	}
	if m := rd.Expect.More; m != nil && *m != got.More {
		return diag.T(fmt.Sprintf("step %d: expected more %v, got %v", i+1, *m, got.More),
			fmt.Sprintf("ステップ %d: more は %v のはずが、%v でした", i+1, *m, got.More)), true
	}
	return diag.Text{}, false
}
