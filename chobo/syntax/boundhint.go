package syntax

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// A newcomer writes a bound the way a program or a spreadsheet would:
// `>= 0` after the account, `balance >= 0`, `min 0`. The book writes it
// in words, on a line of its own under the account, with the reason a
// call crossing it is refused with. These hints show that line, built
// from what was written, so that it can be copied.

// boundShape is the bound line for a bound of kind (`at least`, `at
// most`) at value, with the reason left for the writer to choose.
func boundShape(kind, value string) diag.Text { return reasonShape(kind, value, "") }

// reasonShape is boundShape with the reason the line already gives, if
// any.
func reasonShape(kind, value, reason string) diag.Text {
	if reason != "" {
		line := fmt.Sprintf("%s %s refused as %s", kind, value, reason)
		return diag.T(line, line)
	}
	return diag.T(fmt.Sprintf("%s %s refused as <reason>", kind, value),
		fmt.Sprintf("%s %s refused as <理由>", kind, value))
}

// boundHint is the hint that shows the bound line to write.
func boundHint(kind, value string) diag.Text { return boundReasonHint(kind, value, "") }

// boundReasonHint is boundHint keeping the reason the line gives.
func boundReasonHint(kind, value, reason string) diag.Text {
	shape := reasonShape(kind, value, reason)
	return diag.T(
		fmt.Sprintf("a bound is written in words, on its own line under the account: `%s`; the reason is the name a call that would cross it is refused with", shape.En),
		fmt.Sprintf("境界は記号ではなく語で、勘定の下の行に書きます: `%s`。理由には、境界を越える呼び出しを拒否するときの名前を書きます", shape.Ja))
}

// comparisonHint is the hint for a comparison sign that starts no token
// (r, the first character of rest): the bound it means, when a number
// follows it. A strict comparison moves the number by one, since a bound
// holds its own value: `> 0` is `at least 1`.
func comparisonHint(r rune, rest string) (diag.Text, bool) {
	var kind string
	strict := false
	switch r {
	case '>', '＞', '≥', '≧', '⩾':
		kind = "at least"
	case '<', '＜', '≤', '≦', '⩽':
		kind = "at most"
	default:
		return diag.Text{}, false
	}
	after := strings.TrimPrefix(rest, string(r))
	switch {
	case r == '>' || r == '<' || r == '＞' || r == '＜':
		if t, ok := cutEquals(after); ok {
			after = t
		} else {
			strict = true
		}
	}
	n, ok := leadingNumber(strings.TrimLeft(after, " "))
	if !ok {
		return boundHint(kind, "0"), true
	}
	if strict {
		n = step(n, kind == "at least")
	}
	return boundReasonHint(kind, n, reasonIn(after)), true
}

// reasonIn is the reason a line gives after `refused as`, or "".
func reasonIn(s string) string {
	_, r, ok := strings.Cut(s, "refused as ")
	if !ok {
		return ""
	}
	r, _, _ = strings.Cut(strings.TrimLeft(r, " "), " ")
	if !isName(r) {
		return ""
	}
	return r
}

// cutEquals removes the `=` of `>=`, half-width or full-width.
func cutEquals(s string) (string, bool) {
	for _, eq := range []string{"=", "＝"} {
		if t, ok := strings.CutPrefix(s, eq); ok {
			return t, true
		}
	}
	return s, false
}

// leadingNumber reads the number s starts with: an optional minus sign,
// digits, and a fraction.
func leadingNumber(s string) (string, bool) {
	end := 0
	if strings.HasPrefix(s, "-") {
		end = 1
	}
	digits := 0
	for end < len(s) && (isDigit(rune(s[end])) || s[end] == '.' && digits > 0) {
		if s[end] != '.' {
			digits++
		}
		end++
	}
	n := strings.TrimRight(s[:end], ".")
	return n, digits > 0
}

// step is the amount one smallest step past n (up when up), written with
// as many decimals as n has: `> 0` is `at least 1`, `> 0.5` `at least
// 0.6`, `< 10` `at most 9`.
func step(n string, up bool) string {
	decimals := 0
	if _, frac, ok := strings.Cut(n, "."); ok {
		decimals = len(frac)
	}
	v, ok := new(big.Rat).SetString(n)
	if !ok {
		return n
	}
	one := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	if up {
		v.Add(v, one)
	} else {
		v.Sub(v, one)
	}
	return v.FloatString(decimals)
}

// boundWords are words that open a line under an account where a bound
// was meant, with the bound each means and the value it takes when none
// follows.
var boundWords = map[string]struct{ kind, value string }{
	"min": {"at least", "0"}, "minimum": {"at least", "0"}, "floor": {"at least", "0"}, "lower": {"at least", "0"},
	"nonnegative": {"at least", "0"}, "non_negative": {"at least", "0"}, "not_negative": {"at least", "0"},
	"positive": {"at least", "1"},
	"max":      {"at most", "100"}, "maximum": {"at most", "100"}, "ceiling": {"at most", "100"}, "cap": {"at most", "100"},
	"limit": {"at most", "100"}, "upper": {"at most", "100"},
	"balance": {"at least", "0"}, "not": {"at least", "0"},
}

// boundWordHint is the hint for a line under an account that starts with
// word, then next, when the word means a bound.
func boundWordHint(word string, next token) (diag.Text, bool) {
	w, ok := boundWords[strings.ToLower(FoldWidth(word))]
	if !ok {
		return diag.Text{}, false
	}
	value := w.value
	if next.kind == tNumber {
		value = next.text
	}
	return boundHint(w.kind, value), true
}

// boundSideWords are words written after `at` in place of `least` or
// `most`.
var boundSideWords = map[string]string{
	"min": "least", "minimum": "least", "lowest": "least", "low": "least",
	"max": "most", "maximum": "most", "highest": "most", "high": "most",
}

// reasonAfter is the reason written after `refused` without `as` (t, or
// next after a `:`), or "" when none is there.
func reasonAfter(t, next token) string {
	switch {
	case t.kind == tIdent && t.text != "as":
		return t.text
	case t.kind == tColon && next.kind == tIdent:
		return next.text
	}
	return ""
}
