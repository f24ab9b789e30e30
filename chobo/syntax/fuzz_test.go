package syntax

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser alone, which FuzzCheck
// reaches only slowly behind the analyses: it never panics, every
// diagnostic is an E001 in both languages, at a place inside
// the file, and a file it finds in another encoding gets that one error.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"../../tests/testdata/*/*.book", "../../examples/*/*.book"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
	}
	for _, s := range []string{
		"book ｂ ｖ1\nunit 個（\n", "account a : pcs\n\u3000at lest ０\n", "tranfer t\n  mov ｶﾞ from a into b\n",
		"\xff\xfeb\x00", "book \x8d\xdd v1\n", "  pending expires in 3 分\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, ds := Parse("fuzz.book", src)
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, d := range ds {
			if d.Code != "E001" || d.Message.En == "" || d.Message.Ja == "" || (d.Hint.En == "") != (d.Hint.Ja == "") {
				t.Fatalf("incomplete diagnostic: %+v", d)
			}
			if d.Line < 1 || d.Line > lines || d.Col < 1 {
				t.Fatalf("%d:%d is outside the %d lines of the file", d.Line, d.Col, lines)
			}
		}
		if guessEncoding(src) != "" && len(ds) != 1 {
			t.Fatalf("a file in another encoding gets %d diagnostics", len(ds))
		}
	})
}
