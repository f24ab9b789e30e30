package resolve

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// move resolves one move line. It returns nil when any part of it could
// not be resolved; the diagnostics say why.
func (r *resolver) move(tr *book.Transfer, index int, m *syntax.Move) *book.Move {
	mv := &book.Move{Pos: book.Pos(m.Pos), Index: index}
	from, okFrom := r.accountRef(tr, m.From)
	to, okTo := r.accountRef(tr, m.To)
	mv.From, mv.To = from, to
	ok := okFrom && okTo
	if m.Amount.Name != nil {
		p, okAmount := r.amountParam(tr, *m.Amount.Name)
		mv.Amount.Param = p
		ok = ok && okAmount
	}
	if !ok {
		return nil
	}
	var amountUnit *book.Unit
	if mv.Amount.Param != nil {
		amountUnit = mv.Amount.Param.Unit
	}
	fromUnit, toUnit := from.Account.Unit, to.Account.Unit
	if fromUnit == nil || toUnit == nil || (mv.Amount.Param != nil && amountUnit == nil) {
		return nil // the unknown unit is reported already
	}
	if fromUnit != toUnit || (amountUnit != nil && amountUnit != fromUnit) {
		r.unitMismatch(m, mv)
		return nil
	}
	if m.Amount.Literal != nil {
		v, ok := r.number(*m.Amount.Literal, fromUnit, false)
		if !ok {
			return nil
		}
		mv.Amount.Literal = v
	}
	return mv
}

// amountParam resolves the parameter a move carries; false when it is
// unknown, untyped or a string.
func (r *resolver) amountParam(tr *book.Transfer, id syntax.Ident) (*book.Param, bool) {
	p := tr.Param(id.Name)
	switch {
	case p == nil:
		r.unknownParam(tr, id)
		return nil, false
	case r.untyped[p]:
		return nil, false
	case !p.IsAmount():
		r.report("E005", id.Pos,
			diag.T(fmt.Sprintf("%s is a string, so it cannot be the amount of a move", quote(id.Name)),
				fmt.Sprintf("%s は string なので、移動の額にはできません", quote(id.Name))),
			diag.T(fmt.Sprintf("give %s a unit as its type, or move a parameter that has one", quote(id.Name)),
				fmt.Sprintf("%s の型を単位にするか、単位を型に持つ引数を動かしてください", quote(id.Name))))
		return nil, false
	}
	return p, true
}

// unitMismatch reports E010 for a move whose accounts, or whose amount,
// count in different units.
func (r *resolver) unitMismatch(m *syntax.Move, mv *book.Move) {
	fromUnit, toUnit := mv.From.Account.Unit, mv.To.Account.Unit
	en := fmt.Sprintf("the units of move %d do not match: from %s is in %s, to %s is in %s",
		mv.Index, refText(m.From), quote(fromUnit.Name), refText(m.To), quote(toUnit.Name))
	ja := fmt.Sprintf("%dつ目の移動の単位が合いません。元の勘定 %s は %s、先の勘定 %s は %s",
		mv.Index, refText(m.From), quote(fromUnit.Name), refText(m.To), quote(toUnit.Name))
	if p := mv.Amount.Param; p != nil {
		en += fmt.Sprintf(", the amount %s is in %s", quote(p.Name), quote(p.Unit.Name))
		ja += fmt.Sprintf("、額 %s は %s", quote(p.Name), quote(p.Unit.Name))
	}
	ja += " です"
	hint := diag.T("a move stays within one unit; to exchange, move out to an outside account of one unit and in from an outside account of the other",
		"移動は一つの単位の中で行います。両替は、単位ごとの外の勘定を置き、二つの移動で書いてください")
	if fromUnit == toUnit {
		hint = diag.T(fmt.Sprintf("give %s the type %s, the unit of both accounts", quote(mv.Amount.Param.Name), quote(fromUnit.Name)),
			fmt.Sprintf("%s の型を、二つの勘定の単位 %s にしてください", quote(mv.Amount.Param.Name), quote(fromUnit.Name)))
	}
	r.report("E010", m.Pos, diag.T(en, ja), hint)
}

// refText writes an account as the move line has it, before resolution
// knows whether its names are right.
func refText(a syntax.AccountRef) string {
	var args []string
	for _, x := range a.Args {
		args = append(args, x.Name)
	}
	return book.KindArgs(a.Name.Name, args)
}

func (r *resolver) unknownParam(tr *book.Transfer, id syntax.Ident) {
	r.missing("E002", id, paramList(tr),
		diag.T(fmt.Sprintf("%s is not a parameter of %s", quote(id.Name), quote(tr.Name)),
			fmt.Sprintf("%s は %s の引数にありません", quote(id.Name), quote(tr.Name))),
		diag.T("the parameters of "+quote(tr.Name)+" are: "+paramNames(tr),
			quote(tr.Name)+" の引数: "+jaList(paramNames(tr))))
}

func (r *resolver) accountRef(tr *book.Transfer, a syntax.AccountRef) (book.AccountRef, bool) {
	ref := book.AccountRef{Pos: book.Pos(a.Name.Pos)}
	acc := r.b.Account(a.Name.Name)
	if acc == nil {
		var names []string
		for _, x := range r.b.Accounts {
			names = append(names, x.Name)
		}
		hint := diag.T(fmt.Sprintf("declare it with `account %s : UNIT`", a.Name.Name),
			fmt.Sprintf("`account %s : <単位>` と宣言してください", a.Name.Name))
		if len(names) > 0 {
			hint = diag.T(hint.En+", or use one of: "+strings.Join(names, ", "),
				fmt.Sprintf("`account %s : <単位>` と宣言するか、次のどれかを使ってください: %s", a.Name.Name, strings.Join(names, "、")))
		}
		r.missing("E002", a.Name, names,
			diag.T(fmt.Sprintf("there is no account named %s", quote(a.Name.Name)), fmt.Sprintf("勘定 %s はありません", quote(a.Name.Name))),
			hint)
		return ref, false
	}
	ref.Account = acc
	if len(a.Args) != len(acc.Params) {
		r.report("E004", a.Name.Pos,
			diag.T(fmt.Sprintf("%s takes %s, but %s given here", quote(acc.Name), count(len(acc.Params), "argument"), isAre(len(a.Args))),
				fmt.Sprintf("%s の引数は %d 個ですが、ここでは %d 個渡しています", quote(acc.Name), len(acc.Params), len(a.Args))),
			diag.T("write it as "+acc.Shape(), acc.Shape()+" の形で書いてください"))
		return ref, false
	}
	ok := true
	for _, x := range a.Args {
		p := tr.Param(x.Name)
		switch {
		case p == nil:
			r.unknownParam(tr, x)
			ok = false
		case r.untyped[p]:
			ok = false
		case p.IsAmount():
			r.report("E005", x.Pos,
				diag.T(fmt.Sprintf("%s is an amount in %s, so it cannot pick an account of %s", quote(x.Name), quote(p.Unit.Name), quote(acc.Name)),
					fmt.Sprintf("%s は %s の額なので、%s の勘定を選ぶ引数にはできません", quote(x.Name), quote(p.Unit.Name), quote(acc.Name))),
				diag.T("pass a string parameter that names the account", "勘定を指す string の引数を渡してください"))
			ok = false
		default:
			ref.Args = append(ref.Args, p)
		}
	}
	return ref, ok
}

func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func isAre(n int) string {
	if n == 1 {
		return "1 is"
	}
	return fmt.Sprintf("%d are", n)
}
