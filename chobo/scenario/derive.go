package scenario

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// A deploy step may give the next version instead of naming its file:
// {"deploy": {"bounds": {KIND: {"at_least": …, "at_most": …}}}} is the
// version in place with those bounds changed and its version one higher.
// Only bounds change, which is what a deployment may change on accounts
// that exist; the version is written as text (Derive) and goes through
// the checks a file would, so that it is one a person could have written.

// BoundChange is what a derived deploy step does to the bounds of one
// account kind; a side left nil stays as it is.
type BoundChange struct {
	Kind         string
	Lower, Upper *SideChange
}

// SideChange is one side of an account kind in the derived version:
// removed, or at Value (in the unit's smallest step), with Reason, or
// with the reason the side had when Reason is "".
type SideChange struct {
	Remove bool
	Value  int64
	Reason string
}

// text writes the side as the step writes it: an amount in the unit's
// notation, then "refused as REASON" when the step gives one.
func (s *SideChange) text(scale int) string {
	t := book.FormatAmount(s.Value, scale)
	if s.Reason != "" {
		t += " refused as " + s.Reason
	}
	return t
}

var aDerived = diag.T(`the "deploy" object`, `"deploy" のオブジェクト`)

// readDerived reads the object of a deploy step that derives the next
// version from cur by changing bounds. Whatever the reader can tell from
// cur alone is refused here; the rest (an upper bound below a lower one,
// a lower bound across 0) is the checker's, as for a file.
func readDerived(cur *book.Book, v *value) ([]BoundChange, *Error) {
	if err := fields(v, aDerived, "bounds"); err != nil {
		return nil, err
	}
	bv := v.field("bounds")
	if bv == nil {
		return nil, fail(`"bounds" is missing: a deploy step derives the next version by changing the bounds of account kinds`,
			`"bounds" がありません。deploy のステップは、勘定の種類の境界を変えて次のバージョンを作ります`)
	}
	if bv.kind != jsonObject || len(bv.keys) == 0 {
		return nil, fail(`"bounds" is an object of account kinds, each with the sides it changes, not %s`,
			`"bounds" には勘定の種類ごとに変える側を書いたオブジェクトを書きます(ここは%sです)`, bv.kind.what())
	}
	var out []BoundChange
	for i, kind := range bv.keys {
		a := cur.Account(kind)
		if a == nil {
			var names []string
			for _, a := range cur.Accounts {
				names = append(names, a.Name)
			}
			return nil, fail("bounds: %s v%d has no account kind %q; its kinds are %s", "bounds: %s v%d に %q という勘定の種類はありません。種類は %s です",
				cur.Name, cur.Version, kind, diag.T(strings.Join(names, ", "), strings.Join(names, "、")))
		}
		if a.Outside {
			return nil, fail("bounds: %s is outside the book, and an account outside has no bounds", "bounds: %s は帳簿の外の勘定で、外の勘定には境界がありません", kind)
		}
		ch, err := readKindChange(a, bv.elems[i])
		if err != nil {
			return nil, within("bounds: "+kind, "bounds: "+kind, err)
		}
		out = append(out, ch)
	}
	return out, nil
}

func readKindChange(a *book.Account, v *value) (BoundChange, *Error) {
	ch := BoundChange{Kind: a.Name}
	if err := fields(v, diag.T("an account kind's change", "勘定の種類の変更"), "at_least", "at_most"); err != nil {
		return ch, err
	}
	if len(v.keys) == 0 {
		return ch, fail(`give "at_least", "at_most" or both`, `"at_least" か "at_most"、またはその両方を書きます`)
	}
	for i, k := range v.keys {
		lower := k == "at_least"
		old := a.Upper
		side := diag.T("upper bound", "上限")
		if lower {
			old, side = a.Lower, diag.T("lower bound", "下限")
		}
		s, err := readSide(a, v.elems[i], old, side)
		if err != nil {
			return ch, within(k, k, err)
		}
		if lower {
			ch.Lower = s
		} else {
			ch.Upper = s
		}
	}
	return ch, nil
}

// sideText is "AMOUNT" or "AMOUNT refused as REASON".
var sideText = regexp.MustCompile(`^(\S+)(?: refused as (\S+))?$`)

func readSide(a *book.Account, v *value, old *book.Bound, side diag.Text) (*SideChange, *Error) {
	if v.kind == jsonNull {
		if old == nil {
			return nil, fail("%s has no %s to remove", "%s には取り除く%sがありません", a.Name, side)
		}
		return &SideChange{Remove: true}, nil
	}
	if v.kind != jsonString {
		return nil, fail(`write the new bound as a string, "AMOUNT" or "AMOUNT refused as REASON", or null to remove the side, not %s`,
			`新しい境界は文字列("額" か "額 refused as 理由")で書くか、その側を取り除くなら null を書きます(ここは%sです)`, v.kind.what())
	}
	m := sideText.FindStringSubmatch(v.str)
	if m == nil {
		return nil, fail(`%q: write "AMOUNT" or "AMOUNT refused as REASON", the amount in the unit's notation`,
			`%q: "額" か "額 refused as 理由" の形で、額は単位の書き方で書きます`, v.str)
	}
	n, err := unitAmount(m[1], a.Unit)
	if err != nil {
		return nil, err
	}
	s := &SideChange{Value: n, Reason: m[2]}
	if s.Reason != "" && strings.ContainsFunc(s.Reason, func(r rune) bool { return syntax.Forbidden(r) || unicode.IsControl(r) || r == '#' }) {
		return nil, fail("%q: a reason is a name", "%q: 理由には名前を書きます", v.str)
	}
	if s.Reason == "" && old == nil {
		return nil, fail(`%s has no %s to move: a new side takes its reason, as in "%s refused as REASON"`,
			`%s には動かす%sがありません。新しく加える側には理由を書きます("%s refused as 理由" のように)`, a.Name, side, m[1])
	}
	return s, nil
}

// unitAmount reads an amount written in u's notation: a whole number, or
// one with at most u.Scale decimals, within 64 bits once counted in the
// smallest step.
func unitAmount(s string, u *book.Unit) (int64, *Error) {
	if !regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`).MatchString(s) {
		return 0, fail("%q is not an amount: write a number in the unit's notation, such as %s", "%q は額ではありません。%s のように単位の書き方で書きます",
			s, diag.T(book.FormatAmount(350, u.Scale), book.FormatAmount(350, u.Scale)))
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > u.Scale {
		if u.Scale == 0 {
			return 0, fail("%s: the unit %s has no decimals", "%s: 単位 %s には小数がありません", s, u.Name)
		}
		return 0, fail("%s: the unit %s has %d decimals", "%s: 単位 %s の小数は %d 桁です", s, u.Name, u.Scale)
	}
	digits := whole + frac + strings.Repeat("0", u.Scale-len(frac))
	n, _ := new(big.Int).SetString(digits, 10)
	if !n.IsInt64() || n.Int64() < -book.MaxAmount || n.Int64() > book.MaxAmount {
		return 0, fail("%s is outside what a bound of %s can be", "%s は %s の境界にできる範囲の外です", s, u.Name)
	}
	return n.Int64(), nil
}

// bookLine finds the version on the line that names the book.
var bookLine = regexp.MustCompile(`^(\x{FEFF}?\s*book\s+\S+\s+)v([0-9]+)`)

// Derive writes the text of the version bounds derive from cur, whose
// text is src: cur's text with the version one higher and each changed
// bound's line written anew (a side removed loses its line, a side added
// gets one under the account's declaration). A comment that ends a
// changed line stays at its end; one on a removed side's line goes with
// the line. The text is not checked here: the caller checks it as it
// checks a version read from a file.
func Derive(cur *book.Book, src []byte, bounds []BoundChange) ([]byte, error) {
	f, ds := syntax.Parse(cur.File, src)
	if ds.Errors() > 0 || f == nil || f.Book == nil {
		return nil, fmt.Errorf("%s does not parse", cur.File)
	}
	d := &deriver{lines: strings.Split(string(src), "\n"), replace: map[int]string{}, insert: map[int][]string{}}
	m := bookLine.FindStringSubmatchIndex(d.at(f.Book.Pos.Line))
	if m == nil {
		return nil, fmt.Errorf("%s: no version on the line of the book", cur.File)
	}
	l := d.at(f.Book.Pos.Line)
	d.replace[f.Book.Pos.Line] = l[:m[3]] + fmt.Sprintf("v%d", cur.Version+1) + l[m[5]:] + d.eol(f.Book.Pos.Line)
	for _, ch := range bounds {
		a := cur.Account(ch.Kind)
		var decl *syntax.AccountDecl
		for _, ad := range f.Accounts {
			if ad.Name.Name == ch.Kind {
				decl = ad
			}
		}
		if a == nil || decl == nil {
			return nil, fmt.Errorf("%s has no account kind %s", cur.File, ch.Kind)
		}
		if err := d.account(a, decl, ch); err != nil {
			return nil, err
		}
	}
	var out []string
	for i, l := range d.lines {
		if r, ok := d.replace[i+1]; ok {
			if r != "\x00" {
				out = append(out, r)
			}
		} else {
			out = append(out, l)
		}
		out = append(out, d.insert[i+1]...)
	}
	return []byte(strings.Join(out, "\n")), nil
}

// deriver is the text of a version being derived: its lines, those
// written anew by line number ("\x00": removed), and those added after a
// line.
type deriver struct {
	lines   []string
	replace map[int]string
	insert  map[int][]string
}

// at is the text of a line, without its carriage return. The parser
// counts lines as they are split here, between line feeds: every place
// it gives is one of them.
func (d *deriver) at(line int) string { return strings.TrimSuffix(d.lines[line-1], "\r") }

// eol is the carriage return that ends a line, if it has one.
func (d *deriver) eol(line int) string {
	if strings.HasSuffix(d.lines[line-1], "\r") {
		return "\r"
	}
	return ""
}

// account writes the changes ch makes to the bounds of the account kind
// a, declared by decl.
func (d *deriver) account(a *book.Account, decl *syntax.AccountDecl, ch BoundChange) error {
	// A side added goes under the account's last line, indented as its
	// block is.
	indent, last := "  ", decl.Pos.Line
	for _, ds := range decl.Descriptions {
		t := d.at(ds.Pos.Line)
		indent, last = t[:len(t)-len(strings.TrimLeft(t, " \t"))], max(last, ds.Pos.Line)
	}
	for _, b := range decl.Bounds {
		t := d.at(b.Pos.Line)
		indent, last = t[:len(t)-len(strings.TrimLeft(t, " \t"))], max(last, b.Pos.Line)
	}
	for _, side := range []struct {
		kind syntax.BoundKind
		ch   *SideChange
		old  *book.Bound
	}{{syntax.AtLeast, ch.Lower, a.Lower}, {syntax.AtMost, ch.Upper, a.Upper}} {
		if side.ch == nil {
			continue
		}
		var line int
		for _, b := range decl.Bounds {
			if b.Kind == side.kind {
				line = b.Pos.Line
			}
		}
		reason := side.ch.Reason
		if reason == "" && side.old != nil {
			reason = side.old.Reason
		}
		text := fmt.Sprintf("%s%s %s refused as %s", indent, side.kind, book.FormatAmount(side.ch.Value, a.Unit.Scale), reason)
		switch {
		case line == 0 && side.ch.Remove:
			return fmt.Errorf("%s has no %s to remove", ch.Kind, side.kind)
		case line == 0:
			d.insert[last] = append(d.insert[last], text+d.eol(last))
		case side.ch.Remove:
			d.replace[line] = "\x00"
		default:
			// The line's comment says something of the bound, which the
			// new version keeps reading beside it.
			d.replace[line] = text + trailingComment(d.at(line)) + d.eol(line)
		}
	}
	return nil
}

// trailingComment is the comment that ends line, with the blanks before
// it, or "": what follows the first # outside a string.
func trailingComment(line string) string {
	quoted := false
	for i, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '#' && !quoted:
			return line[len(strings.TrimRight(line[:i], " \t")):]
		}
	}
	return ""
}

// DerivedName names the text Derive writes for the version after cur,
// in diagnostics: no file holds it, so it is the first version's file
// and the version.
func DerivedName(cur *book.Book) string {
	return fmt.Sprintf("%s v%d (derived)", derivedSuffix.ReplaceAllString(cur.File, ""), cur.Version+1)
}

var derivedSuffix = regexp.MustCompile(` v[0-9]+ \(derived\)$`)

// encodeBounds writes the "bounds" object of a derived step, kinds in
// the step's order, the lower side first.
func encodeBounds(b *book.Book, bounds []BoundChange) string {
	var kinds []string
	for _, ch := range bounds {
		scale := 0
		if a := b.Account(ch.Kind); a != nil {
			scale = a.Unit.Scale
		}
		var sides []string
		for _, s := range []struct {
			key string
			ch  *SideChange
		}{{"at_least", ch.Lower}, {"at_most", ch.Upper}} {
			switch {
			case s.ch == nil:
			case s.ch.Remove:
				sides = append(sides, str(s.key)+": null")
			default:
				sides = append(sides, str(s.key)+": "+str(s.ch.text(scale)))
			}
		}
		kinds = append(kinds, str(ch.Kind)+": {"+strings.Join(sides, ", ")+"}")
	}
	return "{" + strings.Join(kinds, ", ") + "}"
}

// EncodeBounds is the "bounds" object of a derived deploy step as the
// scenario file writes it, for the JSON of a run.
func (d *Deploy) EncodeBounds() string { return encodeBounds(d.Book, d.Bounds) }

// boundsText writes the changes of a derived step for the listings.
func boundsText(b *book.Book, bounds []BoundChange, lang diag.Lang) string {
	var parts []string
	for _, ch := range bounds {
		scale := 0
		if a := b.Account(ch.Kind); a != nil {
			scale = a.Unit.Scale
		}
		for _, s := range []struct {
			word string
			none diag.Text
			ch   *SideChange
		}{{"at least", diag.T("no lower bound", "下限なし"), ch.Lower}, {"at most", diag.T("no upper bound", "上限なし"), ch.Upper}} {
			switch {
			case s.ch == nil:
			case s.ch.Remove:
				parts = append(parts, diag.Printable(ch.Kind)+" "+s.none.In(lang))
			default:
				parts = append(parts, diag.Printable(ch.Kind+" "+s.word+" "+s.ch.text(scale)))
			}
		}
	}
	return strings.Join(parts, diag.T(", ", "、").In(lang))
}
