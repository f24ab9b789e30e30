package syntax

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// distance is the optimal string alignment distance between a and b, in
// characters: a letter added, dropped, changed, or two neighbours swapped
// each count one, which is how keywords are mistyped.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// closest returns the one candidate that word is most likely a typo of:
// within one edit of a keyword of up to four letters, two of a longer
// one, and nearer than any other candidate. A phrase (`at least`) is
// also matched written as one word (`atleast`).
func closest(word string, cands []string) (string, bool) {
	w := strings.ToLower(FoldWidth(word))
	if utf8.RuneCountInString(w) < 2 || len(w) > 40 {
		return "", false
	}
	best, bestD, tie := "", 0, false
	for _, c := range cands {
		d := distance(w, strings.ReplaceAll(c, " ", ""))
		if first, _, ok := strings.Cut(c, " "); ok {
			d = min(d, distance(w, first))
		}
		reach := 2
		if utf8.RuneCountInString(c) <= 4 {
			reach = 1
		}
		if d > reach || word == c {
			continue
		}
		switch {
		case best == "" || d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	return best, best != "" && !tie
}

// Nearest returns the one name of names that word is most likely a
// misspelling of, by the measure keywords are matched with: within one
// edit of a name of up to four characters, two of a longer one, and
// nearer than any other. A name wanted by a book is matched this way.
func Nearest(word string, names []string) (string, bool) { return closest(word, names) }

// didYouMean is the hint for word, close to the keyword kw, which is
// shown as phrase (`refuse` is close to `refused`, and `refused as` is
// what to write). A keyword typed in full-width letters is told apart:
// it is spelled right, in the wrong characters.
func didYouMean(word, kw, phrase string) diag.Text {
	if strings.ToLower(FoldWidth(word)) == strings.ReplaceAll(kw, " ", "") && hasVariants(word) {
		return diag.T(fmt.Sprintf("write keywords in half-width letters: `%s`", phrase),
			fmt.Sprintf("キーワードは半角で書きます: `%s`", phrase))
	}
	return diag.T(fmt.Sprintf("did you mean `%s`?", phrase), fmt.Sprintf("`%s` のことですか", phrase))
}

// suggest returns the hint for t when it looks like one of cands.
func suggest(t token, cands []string) (diag.Text, bool) {
	if t.kind != tIdent {
		return diag.Text{}, false
	}
	kw, ok := closest(t.text, cands)
	if !ok {
		return diag.Text{}, false
	}
	return didYouMean(t.text, kw, kw), true
}

// timeWordHint is the hint for w, found where the time word after the
// number n must stand: a unit written in Japanese (`30 分`), or a
// mistyped one.
func timeWordHint(n string, w token) (diag.Text, bool) {
	if w.kind != tIdent {
		return diag.Text{}, false
	}
	for _, u := range timeUnits {
		if w.text == u.ja || w.text == u.ja+"間" || (u.ja == "時間" && w.text == "時") {
			word := u.many
			if n == "1" {
				word = u.one
			}
			return diag.T(fmt.Sprintf("time units are written in English: `%s %s`", n, word),
				fmt.Sprintf("時間の単位は英語で書きます(`%s %s`)", n, word)), true
		}
	}
	// One form of each, so that `minuts` is not as near `minute` as
	// `minutes` and left without a suggestion.
	var words []string
	for _, u := range timeUnits {
		if n == "1" {
			words = append(words, u.one)
		} else {
			words = append(words, u.many)
		}
	}
	if h, ok := suggest(w, words); ok {
		return h, true
	}
	for _, r := range w.text {
		if r >= utf8.RuneSelf {
			return diag.T(fmt.Sprintf("time units are written in English: %s", TimeWordChoice().En),
				fmt.Sprintf("時間の単位は英語で書きます(%s)", TimeWords("・"))), true
		}
	}
	return diag.Text{}, false
}

// insteadOf holds the words written in place of a keyword rather than
// mistyped, the English a reader would say (`into`, `in`), which no edit
// distance finds; each with the line shape that shows the keyword.
var insteadOf = map[string]struct {
	words []string
	shape diag.Text
}{
	"to":    {[]string{"into", "onto"}, diag.T("move AMOUNT from ACCOUNT to ACCOUNT", "move <額> from <勘定> to <勘定>")},
	"after": {[]string{"in", "within"}, diag.T("pending expires after 30 minutes", "pending expires after 30 minutes")},
}

// keywordHint is the hint for t found where the keyword kw must stand.
func keywordHint(t token, kw string) (diag.Text, bool) {
	if t.kind != tIdent {
		return diag.Text{}, false
	}
	if shape, ok := insteadOfWord(t.text, kw); ok {
		return wordHere(kw, shape), true
	}
	return suggest(t, []string{kw})
}

// wordHere is the hint that names the keyword kw to write in place of
// another word, with a line that shows it.
func wordHere(kw string, shape diag.Text) diag.Text {
	return diag.T(fmt.Sprintf("the word here is `%s`: `%s`", kw, shape.En),
		fmt.Sprintf("ここは `%s` と書きます: `%s`", kw, shape.Ja))
}

// insteadOfWord reports whether word is one said in place of kw, and the
// line shape that shows kw.
func insteadOfWord(word, kw string) (diag.Text, bool) {
	alt, ok := insteadOf[kw]
	if ok && slices.Contains(alt.words, strings.ToLower(word)) {
		return alt.shape, true
	}
	return diag.Text{}, false
}

// The words that may open a line, at the top and in each block; a typo
// is matched against these.
var (
	topStarts      = []string{"book", "description", "unit", "account", "transfer", "key", "pending", "move", "at least", "at most"}
	accountStarts  = []string{"description", "at least", "at most"}
	transferStarts = []string{"description", "key", "pending", "move"}
)
