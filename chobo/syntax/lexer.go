package syntax

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/diag"
)

type tokenKind int

const (
	tEOL tokenKind = iota
	tIdent
	tNumber
	tString
	tLParen
	tRParen
	tColon
	tComma
)

type token struct {
	kind tokenKind
	pos  Pos
	text string // identifier or number as written; string contents unescaped
}

// describe names a token for "expected X, found Y" messages.
func (t token) describe() diag.Text {
	switch t.kind {
	case tEOL:
		return diag.T("the end of the line", "行の終わり")
	case tString:
		return diag.T("a string", "文字列")
	case tLParen:
		return diag.T("`(`", "`(`")
	case tRParen:
		return diag.T("`)`", "`)`")
	case tColon:
		return diag.T("`:`", "`:`")
	case tComma:
		return diag.T("`,`", "`,`")
	}
	q := "`" + t.text + "`"
	return diag.T(q, q)
}

// lexError is a problem found while reading one line; the line is then
// dropped and the parser moves on to the next one.
type lexError struct {
	pos  Pos
	msg  diag.Text
	hint diag.Text
}

// IsCombining reports whether r is a character chobo refuses in names
// because it draws nothing of its own or only changes how the character
// before it is drawn: the combining marks that belong to no script (the
// combining diacritics and their supplements and extensions, the marks
// for symbols, the half marks, the kana voicing marks), the variation
// selectors, and the fillers that draw blank. Names are compared byte for
// byte, so "か" followed by U+3099 would differ from "が", and `wallet`
// followed by a filler from `wallet`, though each pair looks the same.
// The marks of a script's own spelling (Thai, Devanagari, Arabic vowel
// signs…) are letters' companions there and stay allowed.
func IsCombining(r rune) bool {
	switch {
	case r >= 0x0300 && r <= 0x036F, // combining diacritical marks
		r >= 0x1AB0 && r <= 0x1AFF, // their extension
		r >= 0x1DC0 && r <= 0x1DFF, // their supplement
		r >= 0x20D0 && r <= 0x20FF, // combining marks for symbols
		r >= 0xFE20 && r <= 0xFE2F, // combining half marks
		r == 0x3099 || r == 0x309A, // kana voicing marks
		r >= 0xFE00 && r <= 0xFE0F, // variation selectors
		r >= 0xE0100 && r <= 0xE01EF,
		r >= 0x180B && r <= 0x180F,                               // Mongolian variation selectors
		r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0: // Hangul fillers
		return true
	}
	return unicode.Is(unicode.Me, r) // enclosing marks draw around what comes before
}

func isNameStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r)
}

func isNamePart(r rune) bool {
	return isNameStart(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// isName reports whether s reads as one name that is not a keyword.
func isName(s string) bool {
	for i, r := range s {
		if (i == 0 && !isNameStart(r)) || !isNamePart(r) || IsCombining(r) {
			return false
		}
	}
	return s != "" && !Reserved(s)
}

// lexLine splits the text of one line, starting at column col, into
// tokens. It stops at a comment. It returns the first problem found.
func lexLine(line int, text string, col int) ([]token, *lexError) {
	var toks []token
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		pos := Pos{line, col}
		if k, ok := punctuation[r]; ok {
			toks = append(toks, token{kind: k, pos: pos})
			i += size
			col++
			continue
		}
		var t token
		var n int // bytes read
		var err *lexError
		switch {
		case r == ' ':
			i++
			col++
			continue
		case r == '#':
			// A comment reaches no output, but a control or a bidi mark in
			// it still changes what the reader of the book sees.
			c := col
			for _, r := range text[i:] {
				if Forbidden(r) {
					return nil, forbiddenError(Pos{line, c}, r, diag.T("the comment", "コメント"))
				}
				c++
			}
			i = len(text)
			continue
		case r == '"':
			var s string
			s, n, err = lexString(line, text[i:], col)
			t = token{kind: tString, pos: pos, text: s}
		case isDigit(r) || (r == '-' && i+1 < len(text) && isDigit(rune(text[i+1]))):
			t, err = lexNumber(pos, text[i:])
			n = len(t.text)
		case isNameStart(r):
			t, err = lexName(pos, text[i:])
			n = len(t.text)
		default:
			err = badCharacter(pos, r, text[i:])
		}
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		col += utf8.RuneCountInString(text[i : i+n])
		i += n
	}
	toks = append(toks, token{kind: tEOL, pos: Pos{line, col}})
	return toks, nil
}

// punctuation holds the characters that are a token on their own.
var punctuation = map[rune]tokenKind{'(': tLParen, ')': tRParen, ':': tColon, ',': tComma}

// lexNumber reads the number at the start of s, which starts with a digit
// or a minus sign and a digit.
func lexNumber(pos Pos, s string) (token, *lexError) {
	j := 1
	for j < len(s) && isDigit(rune(s[j])) {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		k := j
		for j < len(s) && isDigit(rune(s[j])) {
			j++
		}
		if j == k {
			return token{}, &lexError{pos,
				diag.T(fmt.Sprintf("the number `%s` has no digits after the point", s[:j]),
					fmt.Sprintf("数 `%s` の小数点のあとに数字がありません", s[:j])),
				diag.T("write digits after the point, or drop the point", "小数点のあとに数字を書くか、小数点を消してください")}
		}
	}
	return token{kind: tNumber, pos: pos, text: s[:j]}, nil
}

// lexName reads the name at the start of s.
func lexName(pos Pos, s string) (token, *lexError) {
	j := 0
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isNamePart(r) {
			break
		}
		j += size
	}
	word := s[:j]
	if c, at := firstCombining(word); c != 0 {
		return token{}, combiningError(Pos{pos.Line, pos.Col + at}, word, c)
	}
	return token{kind: tIdent, pos: pos, text: word}, nil
}

// badCharacter explains a character that starts no token. Tabs and lone
// combining marks get their own words: both look like something else.
func badCharacter(pos Pos, r rune, rest string) *lexError {
	switch {
	case r == '\t':
		return &lexError{pos,
			diag.T("a tab character; chobo reads only spaces between words and for indentation",
				"タブ文字があります。chobo は語の区切りにも字下げにも空白だけを使います"),
			diag.T("replace the tab with spaces", "タブを空白に替えてください")}
	case IsCombining(r):
		return combiningError(pos, string(r), r)
	case Forbidden(r):
		return forbiddenError(pos, r, diag.T("the line", "行"))
	}
	hint, ok := characterHint(r, rest)
	if !ok {
		hint = diag.T("names are letters, digits and `_`; text goes in double quotes; `#` starts a comment",
			"名前には文字、数字、`_` が使えます。文字列は二重引用符で囲み、コメントは `#` から書きます")
	}
	return &lexError{pos,
		diag.T(fmt.Sprintf("unexpected character `%s` (U+%04X)", printable(r), r),
			fmt.Sprintf("使えない文字 `%s`(U+%04X)があります", printable(r), r)),
		hint}
}

// characterHint names what the user most likely meant by r, a character
// that starts no token, for the characters a Japanese input method types
// in place of the ASCII ones a book is written in. rest is the text from
// r on.
func characterHint(r rune, rest string) (diag.Text, bool) {
	if h, ok := comparisonHint(r, rest); ok {
		return h, true
	}
	switch r {
	case '\u3000':
		return diag.T("this is a full-width space; indent and separate words with half-width spaces",
			"全角スペースです。字下げと区切りは半角スペースで書きます"), true
	case '、', '，', '､':
		return diag.T("the separator is the half-width `,`", "区切りは半角の `,` です"), true
	case '・', '･':
		return diag.T("a name cannot hold `・`: write `_` in its place, or leave it out",
			"名前に「・」は使えません(`_` を使うか、取ってください)"), true
	case '「', '」', '『', '』', '“', '”', '｢', '｣':
		return diag.T("text goes in half-width double quotes: `\"…\"`",
			"文字列は半角の二重引用符で囲みます: `\"…\"`"), true
	case '。', '｡':
		return diag.T("a line needs no `。`; remove it", "行の終わりに「。」は要りません。消してください"), true
	}
	if r >= '０' && r <= '９' {
		run := rest
		for i, c := range rest {
			if !(c >= '０' && c <= '９' || c == '．' || isDigit(c) || c == '.') {
				run = rest[:i]
				break
			}
		}
		return diag.T(fmt.Sprintf("write numbers with half-width digits: `%s`, not `%s`; full-width digits may stand only in a name, and not as its first character", FoldWidth(run), run),
			fmt.Sprintf("数は半角の数字で書きます(`%s` ではなく `%s`)。全角の数字を書けるのは、名前の二文字目からだけです", run, FoldWidth(run))), true
	}
	if f, w := foldRune(r); w == fullWidth {
		return diag.T(fmt.Sprintf("use the half-width `%c`", f), fmt.Sprintf("半角の `%c` にしてください", f)), true
	}
	return diag.Text{}, false
}

// printable shows r as diag.Printable does everywhere else: a control
// or a mark that reorders text is written as its escape.
func printable(r rune) string { return diag.Printable(string(r)) }

func firstCombining(word string) (rune, int) {
	at := 0
	for _, r := range word {
		if IsCombining(r) {
			return r, at
		}
		at++
	}
	return 0, 0
}

func combiningError(pos Pos, word string, c rune) *lexError {
	if !(c >= 0x0300 && c <= 0x036F) && c != 0x3099 && c != 0x309A {
		return &lexError{pos,
			diag.T(fmt.Sprintf("the name `%s` holds U+%04X, which draws nothing of its own or only changes how the character before it draws; the name would look the same as one without it, and differ from it", word, c),
				fmt.Sprintf("名前 `%s` に U+%04X があります。それ自身は何も描かないか、前の文字の描き方を変えるだけの文字で、これの無い名前と同じに見えるのに、別の名前になります", word, c)),
			diag.T("delete the character: names hold only what they show", "その文字を消してください。名前には目に見える文字だけを書きます")}
	}
	return &lexError{pos,
		diag.T(fmt.Sprintf("the name `%s` holds the combining character U+%04X; names are compared as written, so it would differ from the same name written with one precomposed character", word, c),
			fmt.Sprintf("名前 `%s` に結合文字 U+%04X があります。名前は書いたとおりに比べるので、合成済みの一文字で書いた同じ名前とは別の名前になります", word, c)),
		diag.T("write the precomposed character instead (for example é, U+00E9, rather than e followed by U+0301; が rather than か followed by U+3099)",
			"合成済みの一文字で書いてください(たとえば「か」+ U+3099 ではなく「が」、「e」+ U+0301 ではなく「é」)")}
}

// lexString reads a double-quoted string at the start of s. It returns
// the unescaped contents and how many bytes it used.
func lexString(line int, s string, col int) (string, int, *lexError) {
	var b strings.Builder
	i := 1
	c := col + 1
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if Forbidden(r) {
			return "", 0, forbiddenError(Pos{line, c}, r, diag.T("the string", "文字列"))
		}
		switch r {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				b.WriteByte(s[i+1])
				i += 2
				c += 2
				continue
			}
			return "", 0, &lexError{Pos{line, c},
				diag.T("unknown escape in a string; only \\\" and \\\\ are read",
					"文字列に知らないエスケープがあります。使えるのは \\\" と \\\\ だけです"),
				diag.T("write \\\\ for a backslash", "バックスラッシュは \\\\ と書いてください")}
		}
		b.WriteRune(r)
		i += size
		c++
	}
	return "", 0, &lexError{Pos{line, col},
		diag.T("the string is not closed before the end of the line", "文字列が行の終わりまでに閉じていません"),
		diag.T("end the string with `\"` on the same line", "同じ行の中で `\"` で閉じてください")}
}
