package golang

// Book names become Go identifiers: exported names in CamelCase, with an
// X in front of names that start with a letter Go cannot export (X在庫),
// and a suffix for the second of two names that would come out the same.

import (
	"fmt"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/client/model"
)

// Exported returns the exported Go name of a book name: stock_level ->
// StockLevel, sku -> Sku, 在庫 -> X在庫, éclair -> Xéclair.
func Exported(name string) string {
	// Only ASCII letters are raised: a name starting with any other
	// letter keeps it as written and gets an X in front.
	s := goRunes(model.Joined(name))
	r, _ := utf8.DecodeRuneInString(s)
	if s == "" || !(r < utf8.RuneSelf && unicode.IsUpper(r)) {
		s = "X" + s
	}
	return s
}

// goRunes writes each character of a book name that a Go identifier
// cannot hold as U and its code point: a book name may hold the marks of
// scripts such as Thai or Devanagari (Unicode's Mn and Mc), which Go's
// identifiers, made of letters, digits and _, do not take. กั
// (U+0E01 U+0E31) becomes กU0E31.
func goRunes(name string) string {
	if !strings.ContainsFunc(name, notGo) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if notGo(r) {
			fmt.Fprintf(&b, "U%04X", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func notGo(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }

// Local returns a name fit for a local variable or a parameter: the book
// name itself unless it is a Go keyword or clashes with reserved, in
// which case an underscore is added.
func Local(name string, reserved map[string]bool) string {
	name = goRunes(name)
	for token.IsKeyword(name) || reserved[name] {
		name += "_"
	}
	return name
}
