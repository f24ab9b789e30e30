package syntax

import (
	"fmt"
	"unicode"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Forbidden reports whether r is a character no part of a book may hold,
// in a name, a string or a comment: a control character (NUL, tab, ESC,
// DEL, the C1 controls), a format character (the bidi marks, embeddings,
// overrides and isolates, the zero-width spaces and joiners, a byte order
// mark), the line and paragraph separators, a private-use character, or a
// noncharacter. Each is invisible, or shows as something it is not, or
// ends a line, a comment or a string early in some language a book is
// written into; none has a use in a book that a visible character would
// not serve. Everything else a UTF-8 file can hold is allowed, and every
// generator escapes it for its own output.
func Forbidden(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co) || noncharacter(r)
}

// noncharacter reports the 66 code points Unicode sets aside as never to
// be interchanged: U+FDD0 to U+FDEF, and the last two of every plane.
func noncharacter(r rune) bool {
	return (r >= 0xFDD0 && r <= 0xFDEF) || (r&0xFFFE == 0xFFFE && r <= unicode.MaxRune)
}

// forbiddenError explains a forbidden character at pos, found in what
// (a string, a comment, between words).
func forbiddenError(pos Pos, r rune, where diag.Text) *lexError {
	return &lexError{pos,
		diag.T(fmt.Sprintf("%s holds `%s` (U+%04X), a character a book may not hold: controls, format characters (bidi marks, zero-width characters, the byte order mark), line and paragraph separators, private-use characters and noncharacters are refused anywhere in a book", where.En, printable(r), r),
			fmt.Sprintf("%sに `%s`(U+%04X)があります。制御文字、書式文字(双方向の制御、幅の無い文字、バイト順マーク)、行と段落の区切り、私用の文字、非文字は、帳簿のどこにも書けません", where.Ja, printable(r), r)),
		diag.T("delete the character; if it stands for something, write that in visible characters",
			"その文字を消してください。何かを表しているなら、目に見える文字で書いてください")}
}
