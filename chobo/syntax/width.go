package syntax

import (
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Width variants are what a Japanese input method types when it is left
// in full-width mode (ＳＫＵ, ２, （), or what an older system stored as
// half-width katakana (ｶｰﾄﾞ). Names keep them as written: folding here is
// only for telling the user why a name or a keyword was not found.
//
// The fold is the part of Unicode's compatibility mapping (NFKC) that
// concerns width: the full-width ASCII block, the ideographic space and
// the half-width katakana with their voicing marks. The rest of NFKC
// (circled digits, ligatures, squared words) is not what a keyboard
// produces by accident, and would take the normalisation tables along.

// halfKana maps U+FF61..U+FF9F, in order, to the characters they are the
// half-width forms of.
var halfKana = []rune("。「」、・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン゛゜")

// width is the kind of width variant a character is.
type width int

const (
	// plain characters are their own fold.
	plain width = iota
	// fullWidth is the full-width form of an ASCII character, or the
	// ideographic space.
	fullWidth
	// halfWidth is a half-width katakana or its voicing mark.
	halfWidth
)

// foldRune returns the character r is a width variant of, and which kind
// of variant it is.
func foldRune(r rune) (rune, width) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFF01 + '!', fullWidth
	case r == 0x3000:
		return ' ', fullWidth
	case r >= 0xFF61 && r <= 0xFF9F:
		return halfKana[r-0xFF61], halfWidth
	}
	return r, plain
}

// voiced returns kana with the voicing mark m (゛ or ゜) joined to it,
// as NFKC joins a half-width kana and the half-width mark after it.
func voiced(kana, m rune) (rune, bool) {
	if m == '゛' {
		switch {
		case strings.ContainsRune("カキクケコサシスセソタチツテトハヒフヘホ", kana):
			return kana + 1, true
		case kana == 'ウ':
			return 'ヴ', true
		case kana == 'ワ':
			return 'ヷ', true
		case kana == 'ヲ':
			return 'ヺ', true
		}
		return 0, false
	}
	if strings.ContainsRune("ハヒフヘホ", kana) {
		return kana + 2, true
	}
	return 0, false
}

// FoldWidth writes s with every width variant replaced by the character
// it stands for: `ＳＫＵ２` becomes `SKU2`, and `ｶｰﾄﾞ` becomes `カード`,
// its kana and voicing mark joined into one character.
func FoldWidth(s string) string {
	out := make([]rune, 0, len(s))
	joinable := false // the last rune came from a half-width kana
	for _, r := range s {
		f, w := foldRune(r)
		if w == halfWidth && (f == '゛' || f == '゜') && joinable {
			if v, ok := voiced(out[len(out)-1], f); ok {
				out[len(out)-1] = v
				joinable = false
				continue
			}
		}
		joinable = w == halfWidth
		out = append(out, f)
	}
	return string(out)
}

// variantRuns returns the runs of width variants in s, each with its kind:
// for `在庫ＳＫＵ２` one full-width run `ＳＫＵ２`.
func variantRuns(s string) (runs []string, kinds []width) {
	var cur strings.Builder
	kind := plain
	flush := func() {
		if cur.Len() > 0 {
			runs, kinds = append(runs, cur.String()), append(kinds, kind)
			cur.Reset()
		}
	}
	for _, r := range s {
		_, w := foldRune(r)
		if w != kind {
			flush()
			kind = w
		}
		if w != plain {
			cur.WriteRune(r)
		}
	}
	flush()
	return runs, kinds
}

// describeVariants names the width variants of s, when they are all of
// one kind: "a full-width `２`" and "全角の「２」", or "full-width
// characters" and "全角" when s is made of them alone.
func describeVariants(s string) (d diag.Text, whole, ok bool) {
	runs, kinds := variantRuns(s)
	if len(runs) == 0 {
		return diag.Text{}, false, false
	}
	for _, k := range kinds[1:] {
		if k != kinds[0] {
			return diag.Text{}, false, false
		}
	}
	en, ja := "full-width", "全角"
	if kinds[0] == halfWidth {
		en, ja = "half-width", "半角"
	}
	if len(runs) == 1 && runs[0] == s {
		return diag.T(en+" characters", ja), true, true
	}
	var qs, js []string
	for _, r := range runs {
		qs = append(qs, "`"+r+"`")
		js = append(js, "「"+r+"」")
	}
	return diag.T("a "+en+" "+strings.Join(qs, " and "), ja+"の"+strings.Join(js, "")), false, true
}

// WidthTwin returns the name among declared that differs from name only
// in width variants (`在庫２` for `在庫2`), if there is exactly one.
func WidthTwin(name string, declared []string) (string, bool) {
	return onlyTwin(name, declared, FoldWidth)
}

// onlyTwin returns the one name among declared, other than name, that
// fold makes the same as name; false when there is none, or more than one.
func onlyTwin(name string, declared []string, fold func(string) string) (string, bool) {
	folded := fold(name)
	twin, found := "", 0
	for _, d := range declared {
		if d != name && fold(d) == folded {
			twin, found = d, found+1
		}
	}
	return twin, found == 1
}

// WidthNote says why the declared name twin was not taken for written,
// which differs from it only in width variants. It is a sentence to add
// after "there is no account named …".
func WidthNote(written, twin string) diag.Text {
	q := "`" + twin + "`"
	if d, whole, ok := describeVariants(twin); ok && !hasVariants(written) {
		if whole {
			return diag.T(q+" is the same name in "+d.En+", and names are compared as written",
				d.Ja+"で書いた "+q+" がありますが、名前は書いたとおりに比べます")
		}
		return diag.T(q+" differs only in "+d.En+", and names are compared as written",
			d.Ja+"で書いた "+q+" がありますが、名前は書いたとおりに比べます")
	}
	if d, whole, ok := describeVariants(written); ok && !hasVariants(twin) {
		if whole {
			return diag.T(q+" is declared, but here the name is in "+d.En+", and names are compared as written",
				q+" がありますが、ここでは"+d.Ja+"で書いています。名前は書いたとおりに比べます")
		}
		return diag.T(q+" is declared, but here it is written with "+d.En+", and names are compared as written",
			q+" がありますが、ここでは"+d.Ja+"で書いています。名前は書いたとおりに比べます")
	}
	return diag.T(q+" differs only in the width of some characters, and names are compared as written",
		"文字の幅だけが違う "+q+" がありますが、名前は書いたとおりに比べます")
}

// WidthHint is the hint for a name found only through WidthNote.
func WidthHint(twin string) diag.Text {
	q := "`" + twin + "`"
	return diag.T("write it as declared, "+q+", or change the declaration to match",
		"宣言のとおり "+q+" と書くか、宣言のほうを書き直してください")
}

func hasVariants(s string) bool {
	for _, r := range s {
		if _, w := foldRune(r); w != plain {
			return true
		}
	}
	return false
}
