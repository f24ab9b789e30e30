// Package gazelle is what chobo's Gazelle language knows of Python
// clients: chobo_client makes a py_library whose one module is imported
// by its file name, and rules_python's Gazelle language, "py", resolves
// a program's import of it.
package gazelle

import (
	"strings"
	"unicode"

	"github.com/chobo-lang/chobo/gazelle/clientlang"
)

// Language is the Python row of chobo's Gazelle language
// (gazelle/registry).
var Language = clientlang.Language{
	Name: "python",
	Targets: map[string]string{
		"postgres-python":    "py",
		"tigerbeetle-python": "tb_py",
	},
	ImportLang: "py",
	ImportOf:   ModuleOf,
}

// ModuleOf is the name a Python program imports a client by:
// chobo_client writes one module named by its out, else after the .book
// file up to its first dot (stock.book, stock.v2.book: stock). A name
// Python could not import (a file name that is no identifier) is "".
func ModuleOf(out, bookFile string) string {
	var name string
	if out != "" {
		// An out in a folder of its own ("sub/stock.py") is not on the
		// path chobo_client's library adds; no identifier has a slash.
		name = strings.TrimSuffix(out, ".py")
	} else {
		stem, ok := strings.CutSuffix(bookFile, ".book")
		if !ok {
			return ""
		}
		name, _, _ = strings.Cut(stem, ".")
	}
	if !isIdentifier(name) {
		return ""
	}
	return name
}

// keywords cannot be imported, though they are identifiers.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true,
	"def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true,
	"not": true, "or": true, "pass": true, "raise": true, "return": true,
	"try": true, "while": true, "with": true, "yield": true,
}

// isIdentifier reports whether s can follow `import`.
func isIdentifier(s string) bool {
	if s == "" || keywords[s] {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}
