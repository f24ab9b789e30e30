package gazelle

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	bzl "github.com/bazelbuild/buildtools/build"
)

// bookExt is the extension of a book's source.
const bookExt = ".book"

// defaultLang is the language chobo_doc writes a page in when it is not
// told otherwise.
const defaultLang = "en"

// bookLang is the language of the page Gazelle asks for a book: ja for a
// file whose name ends in .ja.book (inventory.ja.book), else en. The
// book's text is not read for it.
func bookLang(file string) string {
	if strings.HasSuffix(file, ".ja"+bookExt) {
		return "ja"
	}
	return defaultLang
}

// bookName is the base of every target name of a book, made from its file
// name so that it is known without reading the book:
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
// source is the book's text, or nil when it cannot be read.
func bookName(file string, source []byte) string {
	stem := strings.TrimSuffix(file, bookExt)
	if isASCII(stem) {
		return identifier(stem)
	}
	if d := declaredName(source); d != "" && isASCII(d) {
		return identifier(d)
	}
	sum := sha256.Sum256([]byte(stem))
	return "book_" + hex.EncodeToString(sum[:4])
}

// renameWarning says why a book whose file name is not ASCII will not
// build, and the name to give the file: Bazel 7 reads such a name in a
// BUILD file differently from the name on disk and stops at "missing input
// file". The name offered is the book's target name, so renaming keeps
// every target as it is.
func renameWarning(dir, file, name string) string {
	return fmt.Sprintf("%s: chobo: Bazel 7 cannot take a file name that is not ASCII as a source, so the build of %s would stop at `missing input file`; rename the file to %s%s (the book keeps the name on its book line, and its targets keep theirs)",
		filepath.Join(dir, file), file, name, bookExt)
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

// declaredName is the name on a book's `book <name> v<N>` line: the first
// line that is neither blank nor a comment. "" when there is none.
func declaredName(source []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(source))
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

// goPackage is the package name chobo_client writes by default for an
// import path: its last element, lower case, each character that is not a
// letter or digit made "_" (rules/private/client.bzl, _default_package).
func goPackage(importPath string) string {
	p := strings.TrimRight(importPath, "/")
	last := p[strings.LastIndex(p, "/")+1:]
	var b strings.Builder
	for _, r := range last {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return strings.ToLower(b.String())
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
