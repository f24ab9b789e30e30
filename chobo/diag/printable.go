package diag

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s with every character that could act on a terminal
// or hide in it written out as an escape: C0 and C1 controls (ESC, NUL,
// newlines, tabs, DEL, CSI…), format characters (the bidi marks,
// embeddings, overrides and isolates; zero-width spaces and joiners; a
// byte order mark), the line and paragraph separators, and bytes that
// are not UTF-8. A book or a value can hold any of these; printed raw,
// they could recolour a terminal, move its cursor, show a line in
// another order than it is read, or make two names look the same.
//
// `\t`, `\n` and `\r` keep their short forms, other ASCII controls and bad
// bytes become `\xHH`, the rest `\uHHHH` (`\UHHHHHHHH` past U+FFFF), as
// in a Go string. A backslash is left as it is, so that text without such
// characters comes out unchanged. Every text chobo prints for people goes
// through here; JSON output has its own escaping.
func Printable(s string) string {
	if plainASCII(s) || !strings.ContainsFunc(s, hidden) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && hidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden reports whether r is one of the characters Printable escapes:
// a control (Cc: C0, DEL, C1), a format character (Cf: the bidi marks,
// embeddings, overrides and isolates, and the zero-width characters
// that make two equal-looking names differ), or a line or paragraph
// separator.
func hidden(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// plainASCII reports whether s is printable ASCII alone, which Printable
// leaves as it is: the common case, answered without decoding runes.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
