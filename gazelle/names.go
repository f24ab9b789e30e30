package gazelle

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	bzl "github.com/bazelbuild/buildtools/build"
)

// bookExt is the extension of a book's source.
const bookExt = ".book"

// defaultLang is the language chobo_doc writes a page in when it is not
// told otherwise.
const defaultLang = "en"

// bookLang is the language of the page Gazelle asks for a book, from
// what the book says of itself: ja when the name on its `book` line has
// kana or kanji (book 在庫管理 v1), whatever the file is called; also ja
// for a file whose name ends in .ja.book, the mark of a Japanese twin of
// an English book (inventory.ja.book beside inventory.book), whatever its
// book line says; else en.
//
// A book's keywords are English in either language, so its names are
// what tell, and the one on the `book` line is read first and is the
// name of all: its SQL, its clients and its pages are called after it.
// The file name alone (注文.book holding `book orders v1`) does not make
// a page Japanese: the page is about the text, and Bazel 7 wants that
// file renamed to ASCII, which must not change the page's language.
func bookLang(file, declared string) string {
	if strings.HasSuffix(file, ".ja"+bookExt) || isJapanese(declared) {
		return "ja"
	}
	return defaultLang
}

// isJapanese reports whether s has a letter of a Japanese script:
// hiragana, katakana (half-width too) or kanji. chobo's pages come in
// English and Japanese only, so kanji alone count as Japanese.
func isJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

// bookName is the base of every target name of a book, made from its file
// name where that can be one, so that the targets are named as the file
// is:
//
//   - an ASCII stem is kept, each character that is not a letter, digit or
//     underscore made "_" (inventory.ja.book: inventory_ja);
//   - a stem with other characters (在庫.book) takes the name the book
//     declares on its `book` line when that is ASCII (book zaiko v1:
//     zaiko), and otherwise book_ and the first 8 hex digits of the
//     SHA-256 of the stem's UTF-8 bytes (book_1b4f0e98): the same on every
//     machine, and a different book file gets a different name;
//   - a name that would start with a digit starts with book_ instead, so
//     that it is a Go package name too.
//
// declared is the name on the book's `book` line, "" when it has none.
func bookName(file, declared string) string {
	stem := strings.TrimSuffix(file, bookExt)
	if isASCII(stem) {
		return identifier(stem)
	}
	if declared != "" && isASCII(declared) {
		return identifier(declared)
	}
	sum := sha256.Sum256([]byte(stem))
	return "book_" + hex.EncodeToString(sum[:4])
}

// renameWarning says why a book whose file name is not ASCII will not
// build, and how to rename it: Bazel 7 reads such a name in a BUILD file
// differently from the name on disk and stops at "missing input file".
// The files named after the book (its baseline, its scenarios) go with
// it, or Gazelle no longer finds them; files lists the directory's files.
//
// The name offered is the book's target name when that came from its
// `book` line, so that renaming keeps every target as it is. A book named
// in Japanese gives no name to offer: kanji have no one reading to spell
// them in ASCII, and the hash the targets are named after until then says
// nothing to a reader. The message then shows the command with NAME in
// its place and what NAME becomes.
func renameWarning(dir, file, name, declared string, files map[string]bool) string {
	stem := strings.TrimSuffix(file, bookExt)
	why := fmt.Sprintf("%s: chobo: Bazel 7 cannot take a file name that is not ASCII as a source, so the build of %s would stop at `missing input file`",
		filepath.Join(dir, file), file)
	// What follows the stem in each file to rename: the book first.
	tails := []string{bookExt}
	for _, s := range append([]string{baselineSuffix}, scenarioSuffixes...) {
		if files[stem+s] {
			tails = append(tails, s)
		}
	}
	mv := func(to string) string {
		var cmds []string
		for _, t := range tails {
			cmds = append(cmds, fmt.Sprintf("mv %s %s", shellWord(stem+t), shellWord(to+t)))
		}
		return strings.Join(cmds, " && ")
	}
	if declared != "" && isASCII(declared) && name == identifier(declared) && !files[name+bookExt] {
		return fmt.Sprintf("%s; rename it after the name on its book line: %s (its targets keep their names: %s, %s_sql, ...)",
			why, mv(name), name, name)
	}
	hint, instead := "", fmt.Sprintf(" instead of %s, %s_sql, ...", name, name)
	switch {
	case declared == "":
	case isASCII(declared):
		// Another book has the name; findBooks says this one gets none.
		hint, instead = fmt.Sprintf(" (%s, after its book line, is another file's)", name+bookExt), ""
	default:
		hint = fmt.Sprintf(" (%s in romaji, for one)", declared)
	}
	return fmt.Sprintf("%s; give it a name of ASCII letters, digits and _%s: %s, with that name for NAME. Its targets are then called NAME, NAME_sql, ...%s; the SQL, the clients and the pages keep the names they take from the book line",
		why, hint, mv("NAME"), instead)
}

// shellWord is s as one word of a shell command, quoted when it has a
// character the shell would read otherwise.
func shellWord(s string) string {
	if !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~=%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// identifier makes an ASCII string a target and Go package name.
func identifier(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "book_" + out
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// headLimit bounds what Gazelle reads of a book looking for its `book`
// line, which comes before every declaration: past the comments at the
// head of any book that is written by hand.
const headLimit = 1 << 20

// readDeclaredName is the name on the `book` line of the book at path,
// reading no further than that line; "" when the file cannot be read or
// has no such line, which the compiler reports when it builds the book.
func readDeclaredName(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	return declaredName(io.LimitReader(f, headLimit))
}

// declaredName is the name on a book's `book <name> v<N>` line: the first
// line that is neither blank nor a comment. "" when there is none.
func declaredName(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "book" {
			return f[1]
		}
		return ""
	}
	return ""
}

// str is a string for a BUILD file. Gazelle's printer writes every byte
// above 0x7f as an octal escape ("\345\234\250" for 在); a file name in
// Japanese is written as it is instead, which Bazel reads the same.
func str(s string) bzl.Expr {
	e := &bzl.StringExpr{Value: s}
	if !isASCII(s) && utf8.ValidString(s) && !strings.ContainsAny(s, "\"\\\n\r\t") {
		e.Token = `"` + s + `"`
	}
	return e
}

// strList is a list of strings for a BUILD file, each as str writes it.
func strList(ss []string) bzl.Expr {
	l := &bzl.ListExpr{}
	for _, s := range ss {
		l.List = append(l.List, str(s))
	}
	return l
}

// nearest is the one candidate that word most likely misspells: within one
// edit of a candidate of up to four letters and two of a longer one, case
// aside, and nearer than every other. The language has a measure of its
// own here rather than the compiler's, since Gazelle links none of it.
func nearest(word string, cands []string) (string, bool) {
	w := []rune(strings.ToLower(word))
	if len(w) < 2 || len(w) > 40 {
		return "", false
	}
	best, bestD, tie := "", 0, false
	for _, c := range cands {
		if word == c {
			continue
		}
		reach := 2
		if len(c) <= 4 {
			reach = 1
		}
		d := edits(w, []rune(strings.ToLower(c)))
		switch {
		case d > reach:
		case best == "" || d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	return best, best != "" && !tie
}

// edits counts the letters to add, drop, change or swap with a neighbour
// to turn a into b, keeping one row of the table per step.
func edits(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			same := 1
			if a[i-1] == b[j-1] {
				same = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+same)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
