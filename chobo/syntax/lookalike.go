package syntax

import (
	"fmt"
	"unicode"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Look-alike letters are letters of the Latin, Greek and Cyrillic scripts
// that most fonts draw the same as a letter of another of the three: the
// Cyrillic а and the Latin a. A name that mixes these scripts can look
// like a name it is not (`cаrd`, with a Cyrillic а, beside `card`), so a
// book that declares one is warned (W108), and a name not found that
// differs from a declared one only by such letters is told so (E002).
// Names in one script, and names that mix Latin with Japanese or any
// other script, are as they are.

// lookalike maps each Greek and Cyrillic look-alike to the Latin letter
// it passes for.
var lookalike = map[rune]rune{
	// Cyrillic
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j',
	'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'ӏ': 'l', 'ү': 'y', 'ᴠ': 'v',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ү': 'Y', 'Ԛ': 'Q', 'Ԝ': 'W',
	// Greek
	'ο': 'o', 'ν': 'v', 'ρ': 'p', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'α': 'a', 'γ': 'y',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
}

// script names the script of the three that r is a letter of, "" for
// any other character.
func script(r rune) string {
	switch {
	case unicode.Is(unicode.Latin, r):
		return "Latin"
	case unicode.Is(unicode.Greek, r):
		return "Greek"
	case unicode.Is(unicode.Cyrillic, r):
		return "Cyrillic"
	}
	return ""
}

// Lookalike is a letter of a name that passes for a letter of another
// script the name also holds.
type Lookalike struct {
	Letter rune   // as written
	Script string // its script: Greek or Cyrillic
	Looks  rune   // the Latin letter it looks like
}

// MixedLookalike reports the first look-alike letter of a name that holds
// letters of more than one of Latin, Greek and Cyrillic.
func MixedLookalike(name string) (Lookalike, bool) {
	scripts := map[string]bool{}
	for _, r := range name {
		if s := script(r); s != "" {
			scripts[s] = true
		}
	}
	if len(scripts) < 2 {
		return Lookalike{}, false
	}
	for _, r := range name {
		if l, ok := lookalike[r]; ok {
			return Lookalike{Letter: r, Script: script(r), Looks: l}, true
		}
	}
	return Lookalike{}, false
}

// MixedNote says what MixedLookalike found, for a warning on the name.
func MixedNote(name string, l Lookalike) diag.Text {
	return diag.T(
		fmt.Sprintf("the name `%s` mixes scripts: its `%c` (U+%04X) is a %s letter that looks like the Latin `%c`, so the name looks like `%s`, and is not", name, l.Letter, l.Letter, l.Script, l.Looks, skeleton(name)),
		fmt.Sprintf("名前 `%s` は文字体系が混ざっています。`%c`(U+%04X)は%sで、ラテン文字の `%c` と同じに見えるので、名前は `%s` に見えますが、別の名前です", name, l.Letter, l.Letter, scriptJa(l.Script), l.Looks, skeleton(name)))
}

func scriptJa(s string) string {
	switch s {
	case "Greek":
		return "ギリシャ文字"
	case "Cyrillic":
		return "キリル文字"
	}
	return "ラテン文字"
}

// skeleton writes a name with each look-alike letter replaced by the
// Latin letter it passes for.
func skeleton(name string) string {
	out := []rune(name)
	for i, r := range out {
		if l, ok := lookalike[r]; ok {
			out[i] = l
		}
	}
	return string(out)
}

// LookalikeTwin returns the name among declared that differs from name
// only by look-alike letters (`cаrd` for `card`), if there is exactly one.
func LookalikeTwin(name string, declared []string) (string, bool) {
	return onlyTwin(name, declared, skeleton)
}

// LookalikeNote says why the declared name twin was not taken for
// written, which differs from it only by look-alike letters: the first
// letter where they differ, its script and what it looks like. It is a
// sentence to add after "there is no account named …".
func LookalikeNote(written, twin string) diag.Text {
	w, t := []rune(written), []rune(twin)
	for i := range w {
		if i < len(t) && w[i] != t[i] {
			a, b := w[i], t[i]
			sa, sb := script(a), script(b)
			return diag.T(
				fmt.Sprintf("`%s` is declared, and here the name holds the %s `%c` (U+%04X) where it has the %s `%c` (U+%04X), which looks the same; names are compared as written", twin, sa, a, a, sb, b, b),
				fmt.Sprintf("`%s` がありますが、ここでは名前の%s `%c`(U+%04X)のところに、同じに見える%s `%c`(U+%04X)を書いています。名前は書いたとおりに比べます", twin, scriptJa(sb), b, b, scriptJa(sa), a, a))
		}
	}
	return diag.T("`"+twin+"` differs only in letters that look the same, and names are compared as written",
		"同じに見える文字だけが違う `"+twin+"` がありますが、名前は書いたとおりに比べます")
}
