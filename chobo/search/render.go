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
	// Amounts and balances at the unit's scale, as the book writes its
	// bounds: 3.00, not 300.
	v := func(n int64) string { return book.FormatAmount(n, d.Account.Kind.Unit.Scale) }
	if d.Lower {
		en := fmt.Sprintf("refused: %s (move %d takes %s from %s: posted %s, held out %s", r.Reason, d.Move, v(d.Amount), d.Account, v(b.Posted), v(b.HeldOut))
		ja := fmt.Sprintf("%s で拒否される(%dつ目の移動が %s から %s を取ろうとしたときの残高は、確定 %s、出ていく仮押さえ %s", r.Reason, d.Move, d.Account, v(d.Amount), v(b.Posted), v(b.HeldOut))
		if hold {
			en += fmt.Sprintf(", held in %s", v(b.HeldIn))
			ja += fmt.Sprintf("、入ってくる仮押さえ %s", v(b.HeldIn))
		}
		return diag.T(en+")", ja+")")
	}
	en := fmt.Sprintf("refused: %s (move %d puts %s into %s: posted %s, held in %s", r.Reason, d.Move, v(d.Amount), d.Account, v(b.Posted), v(b.HeldIn))
	ja := fmt.Sprintf("%s で拒否される(%dつ目の移動が %s へ %s を入れようとしたときの残高は、確定 %s、入ってくる仮押さえ %s", r.Reason, d.Move, d.Account, v(d.Amount), v(b.Posted), v(b.HeldIn))
	if hold {
		en += fmt.Sprintf(", held out %s", v(b.HeldOut))
		ja += fmt.Sprintf("、出ていく仮押さえ %s", v(b.HeldOut))
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
		out = append(out, diag.Operation{Step: i + 1, Call: st.Call.Display(), Outcome: ResultText(st.Call, st.Result)})
	}
	return out
}
