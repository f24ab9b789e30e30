// Package resolve turns a parsed book into the typed model: it looks up
// every name, checks units and types, converts literals by their unit's
// scale, and reports the diagnostics that need no running (E002 to E041).
package resolve

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// Resolve builds the book model from f, which must have parsed without
// errors. It returns nil and the errors when the book has name or type
// errors: later analyses would only guess.
func Resolve(f *syntax.File) (*book.Book, diag.List) {
	r := &resolver{file: f.Name, b: &book.Book{File: f.Name},
		badScale: map[*book.Unit]bool{}, untyped: map[*book.Param]bool{}}
	if f.Book != nil {
		r.b.Pos = book.Pos(f.Book.Pos)
		r.b.Name = f.Book.Name.Name
		r.b.Version = f.Book.Version
		r.mixedScripts(f.Book.Name)
	}
	for _, extra := range f.ExtraBooks {
		r.report("E003", extra.Pos,
			diag.T(fmt.Sprintf("a second `book` line; the book is declared on line %d and a file holds one book", f.Book.Pos.Line),
				fmt.Sprintf("二つ目の `book` の行があります。帳簿は %d 行目で宣言してあり、一つのファイルには帳簿が一つです", f.Book.Pos.Line)),
			diag.T("remove this line, or move what follows into a file of its own", "この行を消すか、続きを別のファイルにしてください"))
	}
	r.b.Description = r.description(f.Descriptions, diag.T("the book", "帳簿"))
	r.units(f.Units)
	r.b.Index()
	r.accounts(f.Accounts)
	r.b.Index()
	r.transfers(f.Transfers)
	r.b.Index()
	if r.diags.Errors() > 0 {
		return nil, r.diags
	}
	return r.b, r.diags
}

type resolver struct {
	file  string
	b     *book.Book
	diags diag.List
	// badScale holds units whose scale was refused: they stay declared,
	// so their uses resolve, but literals in them are not judged.
	badScale map[*book.Unit]bool
	// untyped holds parameters whose unit is unknown: reported once, and
	// neither a string nor an amount afterwards.
	untyped map[*book.Param]bool
}

func (r *resolver) report(code string, pos syntax.Pos, msg, hint diag.Text) {
	r.diags.Add(diag.Diagnostic{
		Code: code, Severity: diag.Error, File: r.file,
		Line: pos.Line, Col: pos.Col, Message: msg, Hint: hint,
	})
}

func (r *resolver) twice(pos syntax.Pos, what diag.Text, first syntax.Pos) {
	r.report("E003", pos,
		diag.T(fmt.Sprintf("%s is declared a second time; the first is on line %d", what.En, first.Line),
			fmt.Sprintf("%s が二度宣言されています。一度目は %d 行目です", what.Ja, first.Line)),
		diag.T("keep one of the two", "どちらか一つにしてください"))
}

// once records the declaration of id in seen and reports whether it is
// the first; a second one is reported against the first and left out.
func (r *resolver) once(seen map[string]syntax.Pos, id syntax.Ident, what diag.Text) bool {
	if first, ok := seen[id.Name]; ok {
		r.twice(id.Pos, what, first)
		return false
	}
	seen[id.Name] = id.Pos
	return true
}

// declare is once for a name the book declares: it also warns when the
// name mixes scripts with a letter that passes for one of another (W108).
func (r *resolver) declare(seen map[string]syntax.Pos, id syntax.Ident, what diag.Text) bool {
	if !r.once(seen, id, what) {
		return false
	}
	r.mixedScripts(id)
	return true
}

// mixedScripts warns about a declared name that looks like a name
// written in one script and is not (W108).
func (r *resolver) mixedScripts(id syntax.Ident) {
	l, ok := syntax.MixedLookalike(id.Name)
	if !ok {
		return
	}
	r.diags.Add(diag.Diagnostic{Code: "W108", Severity: diag.Warning, File: r.file, Line: id.Pos.Line, Col: id.Pos.Col,
		Message: syntax.MixedNote(id.Name, l),
		Hint: diag.T(fmt.Sprintf("write the name in one script: `%c` rather than `%c`, if it is meant to read as Latin", l.Looks, l.Letter),
			fmt.Sprintf("名前は一つの文字体系で書いてください。ラテン文字として読ませるなら `%c` ではなく `%c` です", l.Letter, l.Looks))})
}

// named says what a declaration is in both languages: "the unit `pcs`".
func named(en, ja, name string) diag.Text { return diag.T(en+" "+quote(name), ja+" "+quote(name)) }

func (r *resolver) description(ds []*syntax.Description, owner diag.Text) string {
	if len(ds) == 0 {
		return ""
	}
	for _, d := range ds[1:] {
		r.twice(d.Pos, diag.T("the description of "+owner.En, owner.Ja+" の description"), ds[0].Pos)
	}
	return ds[0].Text
}

func quote(s string) string { return "`" + s + "`" }

func (r *resolver) units(us []*syntax.UnitDecl) {
	seen := map[string]syntax.Pos{}
	for _, u := range us {
		if !r.declare(seen, u.Name, named("the unit", "単位", u.Name.Name)) {
			continue
		}
		unit := &book.Unit{Pos: book.Pos(u.Pos), Name: u.Name.Name, Tax: book.Tax(u.Tax)}
		if u.Scale != nil {
			n, err := strconv.Atoi(u.Scale.Text)
			if err != nil || n < 0 || n > 18 {
				hint := diag.T("a scale counts decimals, 2 for cents; with more than 18, amounts of a few units no longer fit in 64 bits",
					"scale は小数の桁数です(セントなら 2)。18 を超えると、わずかな額でも 64 ビットに収まりません")
				switch {
				case strings.HasPrefix(u.Scale.Text, "-"):
					hint = diag.T("a scale counts decimals, 0 for whole numbers and 2 for cents, so it cannot be negative",
						"scale は小数の桁数なので(整数だけなら 0、セントなら 2)、負にはできません")
				case strings.Contains(u.Scale.Text, "."):
					hint = diag.T("a scale counts decimals, so it is a whole number: 0 for whole numbers, 2 for cents",
						"scale は小数の桁数なので、それ自体も整数です(整数だけなら 0、セントなら 2)")
				}
				r.report("E011", u.Scale.Pos,
					diag.T(fmt.Sprintf("the scale %s is not a whole number from 0 to 18", u.Scale.Text),
						fmt.Sprintf("scale %s は 0 から 18 までの整数ではありません", u.Scale.Text)),
					hint)
				r.badScale[unit] = true
			} else {
				unit.Scale = n
			}
		}

		if u.Tax != syntax.NoTax && !r.badScale[unit] && !book.IsMoney(unit.Name, unit.Scale) {
			r.report("E014", u.TaxPos,
				diag.T(fmt.Sprintf("%s is marked %s, but it is not a money unit", quote(unit.Name), u.Tax),
					fmt.Sprintf("%s に %s と書いていますが、お金の単位ではありません", quote(unit.Name), u.Tax)),
				diag.T(fmt.Sprintf("only money takes incl_tax or excl_tax: at scale 0 a currency code, 円, 銭 or a code with c for its hundredth (USDc); at scale 2 a currency code other than JPY (not 円); remove %s", u.Tax),
					fmt.Sprintf("incl_tax と excl_tax を書けるのはお金の単位だけです。scale 0 なら通貨コード、円、銭、百分の一を表す c 付きのコード(USDc)、scale 2 なら JPY・円 以外の通貨コードです。%s を消してください", u.Tax)))
		}
		r.b.Units = append(r.b.Units, unit)
	}
}

// unitNames lists the units declared so far.
func (r *resolver) unitNames() []string {
	var names []string
	for _, u := range r.b.Units {
		names = append(names, u.Name)
	}
	return names
}

// missing reports code (E002, or E030 for a key) for the name id, which
// msg says is not there. When a declared name differs from it only in
// full-width or half-width characters, which look alike in many fonts,
// the message says so and the hint names that name instead of hint; one
// a slip of the keyboard away (syntax.Nearest) is named in place of the
// list hint gives, which stays for a name near none.
func (r *resolver) missing(code string, id syntax.Ident, declared []string, msg, hint diag.Text) {
	if twin, ok := syntax.WidthTwin(id.Name, declared); ok {
		note := syntax.WidthNote(id.Name, twin)
		msg = diag.T(msg.En+"; "+note.En, msg.Ja+"。"+note.Ja)
		hint = syntax.WidthHint(twin)
	} else if twin, ok := syntax.LookalikeTwin(id.Name, declared); ok {
		note := syntax.LookalikeNote(id.Name, twin)
		msg = diag.T(msg.En+"; "+note.En, msg.Ja+"。"+note.Ja)
		hint = syntax.WidthHint(twin)
	} else if near, ok := syntax.Nearest(id.Name, declared); ok {
		hint = diag.T(fmt.Sprintf("did you mean %s?", quote(near)), fmt.Sprintf("%s のことですか", quote(near)))
	}
	r.report(code, id.Pos, msg, hint)
}

// jaList joins names the Japanese way.
func jaList(s string) string { return strings.ReplaceAll(s, ", ", "、") }

func (r *resolver) unknownUnit(id syntax.Ident) {
	hint := diag.T(fmt.Sprintf("declare it with `unit %s`", id.Name), fmt.Sprintf("`unit %s` と宣言してください", id.Name))
	declared := r.unitNames()
	if names := strings.Join(declared, ", "); names != "" {
		hint = diag.T(fmt.Sprintf("declare it with `unit %s`, or use one of: %s", id.Name, names),
			fmt.Sprintf("`unit %s` と宣言するか、次のどれかを使ってください: %s", id.Name, jaList(names)))
	}
	r.missing("E002", id, declared,
		diag.T(fmt.Sprintf("there is no unit named %s", quote(id.Name)), fmt.Sprintf("単位 %s はありません", quote(id.Name))),
		hint)
}

// boundText names a bound for messages: "at least 0".
func boundText(b *syntax.Bound) string { return b.Kind.String() + " " + b.Value.Text }

func (r *resolver) accounts(as []*syntax.AccountDecl) {
	seen := map[string]syntax.Pos{}
	for _, a := range as {
		what := named("the account", "勘定", a.Name.Name)
		if !r.declare(seen, a.Name, what) {
			continue
		}
		acc := &book.Account{Pos: book.Pos(a.Pos), Name: a.Name.Name, Outside: a.Outside}
		acc.Description = r.description(a.Descriptions, what)
		params := map[string]syntax.Pos{}
		for _, p := range a.Params {
			if !r.declare(params, p.Name, named("the parameter", "引数", p.Name.Name)) {
				continue
			}
			if p.Type.Name != "string" {
				r.report("E005", p.Type.Pos,
					diag.T(fmt.Sprintf("the account parameter %s has the type %s; account parameters are strings", quote(p.Name.Name), quote(p.Type.Name)),
						fmt.Sprintf("勘定の引数 %s の型が %s です。勘定の引数は string だけです", quote(p.Name.Name), quote(p.Type.Name))),
					diag.T(fmt.Sprintf("write `%s: string`; an amount cannot pick an account", p.Name.Name),
						fmt.Sprintf("`%s: string` と書いてください。額で勘定を選ぶことはできません", p.Name.Name)))
			}
			acc.Params = append(acc.Params, p.Name.Name)
			acc.ParamPos = append(acc.ParamPos, book.Pos(p.Name.Pos))
		}
		acc.Unit = r.b.Unit(a.Unit.Name)
		if acc.Unit == nil {
			r.unknownUnit(a.Unit)
		}
		r.bounds(a, acc)
		r.b.Accounts = append(r.b.Accounts, acc)
	}
}

func (r *resolver) bounds(a *syntax.AccountDecl, acc *book.Account) {
	name := quote(a.Name.Name)
	if a.Outside {
		for _, b := range a.Bounds {
			r.report("E021", b.Pos,
				diag.T(fmt.Sprintf("%s is outside, yet has the bound `%s`", name, boundText(b)),
					fmt.Sprintf("%s は外の勘定なのに、境界 `%s` があります", name, boundText(b))),
				diag.T("an outside account stands for the world beyond the book and may go either way: remove the bound, or drop `outside`",
					"外の勘定は帳簿の外の世界を表し、どちらへも動けます。境界を消すか、`outside` を外してください"))
		}
		return
	}
	if len(a.Bounds) == 0 {
		r.report("E020", a.Pos,
			diag.T(fmt.Sprintf("%s has no bound: an account inside the book needs `at least` or `at most`", name),
				fmt.Sprintf("%s に境界がありません。中の勘定には `at least` か `at most` が要ります", name)),
			diag.T("add a bound such as `at least 0 refused as <reason>`, or mark the account `outside` when it stands for the world beyond the book",
				"`at least 0 refused as <理由>` のような境界を足すか、帳簿の外を表す勘定なら `outside` を付けてください"))
		return
	}
	var lower, upper *syntax.Bound
	for _, b := range a.Bounds {
		slot := &lower
		if b.Kind == syntax.AtMost {
			slot = &upper
		}
		if *slot != nil {
			r.twice(b.Pos, diag.T(fmt.Sprintf("`%s` of %s", b.Kind, name), fmt.Sprintf("%s の `%s`", name, b.Kind)), (*slot).Pos)
			continue
		}
		*slot = b
		bound := r.bound(b, acc.Unit)
		if b.Kind == syntax.AtLeast {
			acc.Lower = bound
		} else {
			acc.Upper = bound
		}
	}
	if acc.Upper != nil && acc.Upper.Value < 0 {
		r.report("E022", upper.Value.Pos,
			diag.T(fmt.Sprintf("the upper bound of %s is below zero: %s", name, boundText(upper)),
				fmt.Sprintf("%s の上限が 0 より小さくなっています: %s", name, boundText(upper))),
			diag.T("every account starts at 0; write an upper bound of 0 or more",
				"勘定はどれも 0 から始まります。上限は 0 以上にしてください"))
	}
	if acc.Lower != nil && acc.Upper != nil && acc.Lower.Value > acc.Upper.Value {
		r.report("E022", lower.Value.Pos,
			diag.T(fmt.Sprintf("no balance of %s fits: the lower bound %s is above the upper bound %s", name, lower.Value.Text, upper.Value.Text),
				fmt.Sprintf("%s の境界に収まる残高がありません。下限 %s が上限 %s より大きくなっています", name, lower.Value.Text, upper.Value.Text)),
			diag.T("make the lower bound at most the upper bound", "下限を上限以下にしてください"))
	}
}

func (r *resolver) bound(b *syntax.Bound, unit *book.Unit) *book.Bound {
	out := &book.Bound{Pos: book.Pos(b.Pos)}
	if b.Reason == nil {
		r.report("E023", b.Pos,
			diag.T(fmt.Sprintf("the bound `%s` has no `refused as`: a refused call needs a reason to answer with", boundText(b)),
				fmt.Sprintf("境界 `%s` に `refused as` がありません。拒否した呼び出しに返す理由が要ります", boundText(b))),
			diag.T(fmt.Sprintf("name the reason: `%s refused as <reason>`", boundText(b)),
				fmt.Sprintf("理由に名前を付けてください: `%s refused as <理由>`", boundText(b))))
	} else if book.IsBuiltinReason(b.Reason.Name) {
		r.report("E023", b.Reason.Pos,
			diag.T(fmt.Sprintf("%s is a reason chobo gives on its own; a bound cannot use it", quote(b.Reason.Name)),
				fmt.Sprintf("%s は chobo が自分で返す理由なので、境界には使えません", quote(b.Reason.Name))),
			diag.T("choose a name that says which bound refused, such as out_of_stock; chobo's own reasons are "+strings.Join(book.BuiltinReasons, ", "),
				"どの境界で拒否したかが分かる名前(在庫切れ、与信超過 など)にしてください。chobo の理由は "+strings.Join(book.BuiltinReasons, "、")+" です"))
	} else {
		out.Reason = b.Reason.Name
	}
	if unit != nil {
		v, ok := r.number(b.Value, unit, true)
		if ok {
			out.Value = v
		}
	}
	return out
}

// number converts a literal by its unit's scale, reporting E011 when it
// does not fit.
func (r *resolver) number(n syntax.Number, unit *book.Unit, signed bool) (int64, bool) {
	if !signed && strings.HasPrefix(n.Text, "-") {
		r.report("E011", n.Pos,
			diag.T(fmt.Sprintf("the amount %s is negative; a move carries 0 or more", n.Text),
				fmt.Sprintf("額 %s が負です。移動の額は 0 以上です", n.Text)),
			diag.T("swap `from` and `to` to move the other way", "逆向きに動かすなら `from` と `to` を入れ替えてください"))
		return 0, false
	}
	if r.badScale[unit] {
		return 0, false
	}
	v, prob := scaled(n.Text, unit.Scale)
	switch prob {
	case tooManyDecimals:
		hint := diag.T(fmt.Sprintf("write at most %d decimals, or raise the unit's scale", unit.Scale),
			fmt.Sprintf("小数は %d 桁までにするか、単位の scale を上げてください", unit.Scale))
		if unit.Scale == 0 {
			hint = diag.T("this unit (scale 0) takes no decimals: write a whole number, or give the unit a scale",
				"この単位(scale 0)に小数は書けません。整数で書くか、単位に scale を付けてください")
		}
		r.report("E011", n.Pos,
			diag.T(fmt.Sprintf("%s has more decimals than the unit %s allows (scale %d)", n.Text, quote(unit.Name), unit.Scale),
				fmt.Sprintf("%s の小数の桁が、単位 %s の scale %d より多くなっています", n.Text, quote(unit.Name), unit.Scale)),
			hint)
		return 0, false
	case outOfRange:
		// The limit as the book writes amounts of this unit, not in the
		// smallest step no book line shows.
		limit := book.FormatAmount(book.MaxAmount, unit.Scale)
		hint := diag.T("use a smaller number", "小さい数にしてください")
		if strings.HasPrefix(n.Text, "-") {
			hint = diag.T("bring it closer to 0", "絶対値を小さくしてください")
		}
		r.report("E011", n.Pos,
			diag.T(fmt.Sprintf("%s %s does not fit in 64 bits: amounts and bounds in %s (scale %d) stay within ±%s", n.Text, unit.Name, unit.Name, unit.Scale, limit),
				fmt.Sprintf("%s %s は 64 ビットに収まりません。%s(scale %d)の額と境界は ±%s までです", n.Text, unit.Name, unit.Name, unit.Scale, limit)),
			hint)
		return 0, false
	}
	return v, true
}
