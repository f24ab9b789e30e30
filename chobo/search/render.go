package search

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// Duration writes seconds in the largest time word that divides them:
// "30 minutes", "1 day", "90 seconds".
func Duration(secs int64) string {
	for _, u := range []struct {
		per  int64
		word string
	}{{86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}} {
		if secs%u.per == 0 {
			n := secs / u.per
			if n == 1 {
				return "1 " + u.word
			}
			return fmt.Sprintf("%d %ss", n, u.word)
		}
	}
	return fmt.Sprintf("%d seconds", secs)
}

// ResultText says what a call answered, with where a bound was met.
func ResultText(c interp.Call, r interp.Result) diag.Text {
	switch r.Outcome {
	case interp.Done:
		return diag.T("done", "通る")
	case interp.DoneBefore:
		return diag.T("done_before", "前に済んでいる (done_before)")
	}
	d := r.Detail
	if d == nil {
		return diag.T("refused: "+r.Reason, r.Reason+" で拒否される")
	}
	b := d.Balance
	hold := c.Op == book.Hold
	if d.Lower {
		en := fmt.Sprintf("refused: %s (move %d takes %d from %s: posted %d, held out %d", r.Reason, d.Move, d.Amount, d.Account, b.Posted, b.HeldOut)
		ja := fmt.Sprintf("%s で拒否される(%d つ目の移動が %s から %d を取ろうとしたときの残高は、確定 %d、出ていく仮押さえ %d", r.Reason, d.Move, d.Account, d.Amount, b.Posted, b.HeldOut)
		if hold {
			en += fmt.Sprintf(", held in %d", b.HeldIn)
			ja += fmt.Sprintf("、入ってくる仮押さえ %d", b.HeldIn)
		}
		return diag.T(en+")", ja+")")
	}
	en := fmt.Sprintf("refused: %s (move %d puts %d into %s: posted %d, held in %d", r.Reason, d.Move, d.Amount, d.Account, b.Posted, b.HeldIn)
	ja := fmt.Sprintf("%s で拒否される(%d つ目の移動が %s へ %d を入れようとしたときの残高は、確定 %d、入ってくる仮押さえ %d", r.Reason, d.Move, d.Account, d.Amount, b.Posted, b.HeldIn)
	if hold {
		en += fmt.Sprintf(", held out %d", b.HeldOut)
		ja += fmt.Sprintf("、出ていく仮押さえ %d", b.HeldOut)
	}
	return diag.T(en+")", ja+")")
}

// Operations turns an example into the steps a diagnostic prints.
func (e Example) Operations() []diag.Operation {
	var out []diag.Operation
	for i, st := range e.Steps {
		if st.IsPass() {
			out = append(out, diag.Operation{Step: i + 1, Call: "pass " + Duration(st.Pass)})
			continue
		}
		out = append(out, diag.Operation{Step: i + 1, Call: st.Call.String(), Outcome: ResultText(st.Call, st.Result)})
	}
	return out
}
