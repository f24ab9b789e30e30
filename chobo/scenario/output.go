package scenario

import (
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/syntax"
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
	text := r.Result.Text().In(lang)
	if r.Move > 0 {
		text = diag.Paren(lang, text, diag.T(fmt.Sprintf("move %d: %s", r.Move, r.Bound),
			fmt.Sprintf("移動 %d: %s", r.Move, r.Bound)).In(lang))
	}
	return diag.Printable(text)
}

// balanceText writes a balance at the unit's scale of its account, as
// the book writes amounts.
func balanceText(a interp.AccountBalance, lang diag.Lang) string {
	v := func(n int64) string { return book.FormatAmount(n, a.Account.Kind.Unit.Scale) }
	b := a.Balance
	return diag.T(
		fmt.Sprintf("posted %s, held out %s, held in %s", v(b.Posted), v(b.HeldOut), v(b.HeldIn)),
		fmt.Sprintf("確定 %s、出ていく仮押さえ %s、入ってくる仮押さえ %s", v(b.Posted), v(b.HeldOut), v(b.HeldIn))).In(lang)
}

// PassText is a pass step as the listings write it: the scenario's own
// words, and in Japanese what they mean beside them ("pass 31
// minutes(31 分経過)").
func PassText(text string, lang diag.Lang) string {
	s := "pass " + diag.Printable(text)
	if lang != diag.Japanese {
		return s
	}
	f := strings.Fields(text)
	if len(f) != 2 {
		return s
	}
	unit, ok := syntax.TimeWordJa(f[1])
	if !ok {
		return s
	}
	return diag.Paren(lang, s, diag.Printable(f[0])+" "+unit+"経過")
}

func pad(s string, w int) string { return s + strings.Repeat(" ", max(0, w-diag.Width(s))) }

// row is one line of the step listing before it is aligned. A loose
// row, the long lines a read prints under its step, does not widen the
// column the answers are aligned to.
type row struct {
	left, right string
	loose       bool
}

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
			if !r.loose {
				width = max(width, diag.Width(r.left))
			}
		}
		for _, r := range rows {
			if r.right == "" {
				fmt.Fprintf(&b, "%s%s\n", indent, r.left)
			} else {
				fmt.Fprintf(&b, "%s%s  %s\n", indent, pad(r.left, width), r.right)
			}
		}
		if len(o.Accounts) == 0 {
			// A header with nothing under it reads as if the list were cut off.
			fmt.Fprintf(&b, "%s%s\n", sub, diag.T("accounts: none", "勘定: なし").In(lang))
		} else {
			fmt.Fprintf(&b, "%s%s\n", sub, diag.T("accounts:", "勘定:").In(lang))
		}
		aw := 0
		for _, a := range o.Accounts {
			aw = max(aw, diag.Width(diag.Printable(a.Account.String())))
		}
		for _, a := range o.Accounts {
			fmt.Fprintf(&b, "%s%s  %s\n", list, pad(diag.Printable(a.Account.String()), aw), balanceText(a, lang))
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
			rows = append(rows, row{left: n + diag.Printable(st.Call.Display()), right: resultText(o.Results[k], lang)})
			k++
		case st.Together != nil:
			rows = append(rows, row{left: n + "together", right: ""})
			for ci, calls := range st.Together {
				for _, c := range calls {
					who := diag.T(fmt.Sprintf("caller %d: ", ci+1), fmt.Sprintf("呼び出し元 %d: ", ci+1)).In(lang)
					rows = append(rows, row{left: "       " + who + diag.Printable(c.Display()), right: resultText(o.Results[k], lang)})
					k++
				}
			}
		case st.Read != nil:
			rows = append(rows, readRows(n, st.Read, o.Reads[i], lang)...)
		case st.Deploy != nil:
			rows = append(rows, row{left: n + DeployText(st.Deploy, lang)})
		default:
			var note string
			if names := o.Expired[i]; len(names) > 0 {
				note = diag.Printable(ExpiredText(names, lang))
			}
			rows = append(rows, row{left: n + PassText(st.PassText, lang), right: note})
		}
	}
	return rows
}

// DeployText is a deploy step as the listings write it, in lang: the
// file and the version it holds, or for a version derived from the one
// in place, the version and the bounds it changes.
func DeployText(d *Deploy, lang diag.Lang) string {
	if d.File == "" {
		return diag.T(fmt.Sprintf("deploy %s v%d: ", diag.Printable(d.Book.Name), d.Book.Version),
			fmt.Sprintf("デプロイ %s v%d: ", diag.Printable(d.Book.Name), d.Book.Version)).In(lang) + boundsText(d.Book, d.Bounds, lang)
	}
	f := diag.Printable(d.File)
	return diag.T(fmt.Sprintf("deploy %s (%s v%d)", f, diag.Printable(d.Book.Name), d.Book.Version),
		fmt.Sprintf("デプロイ %s(%s v%d)", f, diag.Printable(d.Book.Name), d.Book.Version)).In(lang)
}

// ResultText is an answer as the listings write it, in lang.
func ResultText(r OpResult, lang diag.Lang) string { return resultText(r, lang) }

// HoldStateText is a hold's state as the listings write it, in lang.
func HoldStateText(s interp.HoldState, lang diag.Lang) string { return holdState(s, lang) }

// ExpiredText says which holds a pass expired, as the listings write it.
func ExpiredText(names []string, lang diag.Lang) string {
	return diag.T(strings.Join(names, ", ")+" expired", strings.Join(names, "、")+" が期限切れになる").In(lang)
}

// readRows are the lines of a read step: its label, then what it read,
// each line under it.
func readRows(n string, rd *ReadStep, res *ReadResult, lang diag.Lang) []row {
	const under = "       "
	note := ReadNote(rd, res, lang)
	rows := []row{{left: n + rd.Label(lang), right: note}}
	for _, e := range res.Entries {
		rows = append(rows, row{left: under + diag.Printable(EntryLine(e, lang)), loose: true})
	}
	for _, h := range res.Holds {
		rows = append(rows, row{left: under + diag.Printable(HoldLine(h, lang)), loose: true})
	}
	return rows
}

// ReadNote says in a few words what a read step read: how many entries
// or holds, or the balance, or why it failed.
func ReadNote(rd *ReadStep, res *ReadResult, lang diag.Lang) string {
	if res.Failed != "" {
		return diag.T("failed: ", "失敗: ").In(lang) + diag.Printable(diag.T(res.Failed, res.FailedJa).In(lang))
	}
	var note string
	switch rd.Kind {
	case ReadStatement, ReadEntries:
		note = diag.T(fmt.Sprintf("%d entries", len(res.Entries)), fmt.Sprintf("%d 件", len(res.Entries))).In(lang)
		if len(res.Entries) == 1 {
			note = diag.T("1 entry", "1 件").In(lang)
		}
		if rd.Kind == ReadStatement && res.More {
			note += diag.T(", more follow", "、続きあり").In(lang)
		}
	case ReadHolds:
		note = diag.T(fmt.Sprintf("%d open", len(res.Holds)), fmt.Sprintf("%d 件", len(res.Holds))).In(lang)
	case ReadBalance:
		note = BalanceLine(res.Balance, rd.Account.Kind.Unit.Scale, lang)
	}
	return note
}
