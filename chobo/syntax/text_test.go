package syntax

import "testing"

func TestForbidden(t *testing.T) {
	for r, want := range map[rune]bool{
		0x00: true, '\t': true, '\r': true, 0x1b: true, 0x7f: true, 0x85: true, // controls
		0xad: true, 0x200b: true, 0x200e: true, 0x202e: true, 0x2067: true, 0xfeff: true, // format
		0x2028: true, 0x2029: true, // separators
		0xe000: true, 0xf8ff: true, 0xf0000: true, // private use
		0xfdd0: true, 0xfdef: true, 0xfffe: true, 0xffff: true, 0x1fffe: true, 0x10ffff: true, // noncharacters
		'a': false, ' ': false, '"': false, '\\': false, '$': false, '`': false, '*': false,
		0xa0: false, 0x3000: false, 'é': false, '在': false, 0x0e31: false, 0x05e9: false, 0x0646: false,
		0x1f600: false, 0xfdcf: false, 0xfdf0: false, 0xfffd: false,
	} {
		if got := Forbidden(r); got != want {
			t.Errorf("Forbidden(U+%04X) = %v, want %v", r, got, want)
		}
	}
}

// TestForbiddenWhereverItStands: the rule holds in a string, a comment
// and between words alike, at the character's own column.
func TestForbiddenWhereverItStands(t *testing.T) {
	for _, c := range []struct {
		line string
		col  int
	}{
		{"book b v1 # a\u202eb", 14},
		{"description \"x\u200by\"", 15},
		{"book b\u2028 v1", 7},
		{"unit pcs  # \x00", 13},
	} {
		_, ds := Parse("t.book", []byte(c.line+"\n"))
		if len(ds) == 0 || ds[0].Code != "E001" || ds[0].Line != 1 || ds[0].Col != c.col {
			t.Errorf("%q: %+v; want E001 at 1:%d", c.line, ds, c.col)
		}
	}
}
