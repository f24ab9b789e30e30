package search

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// ResultText says what a call answered, with where a bound was met.
func ResultText(c interp.Call, r interp.Result) diag.Text {
	d := r.Detail
	if r.Outcome != interp.Refused || d == nil {
		return r.Text()
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
			out = append(out, diag.Operation{Step: i + 1, Call: "pass " + syntax.FormatDuration(st.Pass)})
			continue
		}
		out = append(out, diag.Operation{Step: i + 1, Call: st.Call.String(), Outcome: ResultText(st.Call, st.Result)})
	}
	return out
}
