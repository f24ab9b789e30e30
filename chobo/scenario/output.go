package scenario

import (
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
)

var stateJa = map[interp.HoldState]string{
	interp.Held: "押さえ中", interp.Posted: "確定", interp.Voided: "取消", interp.HoldExpired: "期限切れ",
}

func holdState(s interp.HoldState, lang diag.Lang) string {
	if lang == diag.Japanese {
		return stateJa[s]
	}
	return s.String()
}

func resultText(r OpResult, lang diag.Lang) string {
	if r.Failed != "" {
		return diag.T("failed: ", "失敗: ").In(lang) + diag.Printable(r.FailedText().In(lang))
	}
	return diag.Printable(r.Result.Text().In(lang))
}

func balanceText(b interp.Balance, lang diag.Lang) string {
	return diag.T(
		fmt.Sprintf("posted %d, held out %d, held in %d", b.Posted, b.HeldOut, b.HeldIn),
		fmt.Sprintf("確定 %d、出ていく仮押さえ %d、入ってくる仮押さえ %d", b.Posted, b.HeldOut, b.HeldIn)).In(lang)
}

func pad(s string, w int) string { return s + strings.Repeat(" ", max(0, w-diag.Width(s))) }

// row is one line of the step listing before it is aligned.
type row struct{ left, right string }

// WriteText prints one scenario's outcomes for people. Names, values and
// messages go through diag.Printable before they are measured and
// aligned: a scenario or a book may hold any character.
func WriteText(w io.Writer, file string, sc Scenario, outcomes []Outcome, lang diag.Lang) {
	var b strings.Builder
	steps := diag.T(fmt.Sprintf("%d steps", len(sc.Steps)), fmt.Sprintf("%d ステップ", len(sc.Steps))).In(lang)
	if len(sc.Steps) == 1 {
		steps = diag.T("1 step", "1 ステップ").In(lang)
	}
	if len(outcomes) > 1 {
		steps += diag.T(fmt.Sprintf(", %d possible outcomes", len(outcomes)), fmt.Sprintf("、とりうる結果は %d 通り", len(outcomes))).In(lang)
	}
	fmt.Fprintf(&b, "%s: %s\n", diag.Paren(lang, diag.Printable(file), diag.Printable(sc.Title(lang))), steps)
	// Steps keep one indentation; with several outcomes, the accounts and
	// holds of each move right under its heading.
	const indent = "  "
	sub, list := "", "  "
	for oi, o := range outcomes {
		if len(outcomes) > 1 {
			fmt.Fprintf(&b, "%s\n", diag.T(fmt.Sprintf("outcome %d:", oi+1), fmt.Sprintf("結果 %d:", oi+1)).In(lang))
			sub, list = "  ", "    "
		}
		rows := stepRows(sc, o, lang)
		width := 0
		for _, r := range rows {
			width = max(width, diag.Width(r.left))
		}
		for _, r := range rows {
			if r.right == "" {
				fmt.Fprintf(&b, "%s%s\n", indent, r.left)
			} else {
				fmt.Fprintf(&b, "%s%s  %s\n", indent, pad(r.left, width), r.right)
			}
		}
		fmt.Fprintf(&b, "%s%s\n", sub, diag.T("accounts:", "勘定:").In(lang))
		aw := 0
		for _, a := range o.Accounts {
			aw = max(aw, diag.Width(diag.Printable(a.Account.String())))
		}
		for _, a := range o.Accounts {
			fmt.Fprintf(&b, "%s%s  %s\n", list, pad(diag.Printable(a.Account.String()), aw), balanceText(a.Balance, lang))
		}
		if len(o.Holds) > 0 {
			fmt.Fprintf(&b, "%s%s\n", sub, diag.T("holds:", "仮押さえ:").In(lang))
			hw := 0
			for _, h := range o.Holds {
				hw = max(hw, diag.Width(diag.Printable(h.Name)))
			}
			for _, h := range o.Holds {
				fmt.Fprintf(&b, "%s%s  %s\n", list, pad(diag.Printable(h.Name), hw), holdState(h.State, lang))
			}
		}
	}
	for _, f := range FailureTexts(sc, outcomes) {
		fmt.Fprintf(&b, "%s %s\n", diag.T("FAILED:", "不一致:").In(lang), diag.Printable(f.In(lang)))
	}
	io.WriteString(w, b.String())
}

func stepRows(sc Scenario, o Outcome, lang diag.Lang) []row {
	var rows []row
	k := 0
	for i, st := range sc.Steps {
		n := fmt.Sprintf("%3d  ", i+1)
		switch {
		case st.Call != nil:
			rows = append(rows, row{n + diag.Printable(st.Call.String()), resultText(o.Results[k], lang)})
			k++
		case st.Together != nil:
			rows = append(rows, row{n + "together", ""})
			for ci, calls := range st.Together {
				for _, c := range calls {
					who := diag.T(fmt.Sprintf("caller %d: ", ci+1), fmt.Sprintf("呼び出し元 %d: ", ci+1)).In(lang)
					rows = append(rows, row{"       " + who + diag.Printable(c.String()), resultText(o.Results[k], lang)})
					k++
				}
			}
		default:
			var note string
			if names := o.Expired[i]; len(names) > 0 {
				note = diag.Printable(ExpiredText(names, lang))
			}
			rows = append(rows, row{n + "pass " + diag.Printable(st.PassText), note})
		}
	}
	return rows
}

// ResultText is an answer as the listings write it, in lang.
func ResultText(r OpResult, lang diag.Lang) string { return resultText(r, lang) }

// HoldStateText is a hold's state as the listings write it, in lang.
func HoldStateText(s interp.HoldState, lang diag.Lang) string { return holdState(s, lang) }

// ExpiredText says which holds a pass expired, as the listings write it.
func ExpiredText(names []string, lang diag.Lang) string {
	return diag.T(strings.Join(names, ", ")+" expired", strings.Join(names, "、")+" が期限切れになる").In(lang)
}
