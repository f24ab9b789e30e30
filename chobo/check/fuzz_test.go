package check

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// FuzzCheck feeds arbitrary text to the whole checker. Whatever the
// input, it must answer with diagnostics and never panic; a book is
// returned exactly when there are no errors; every place points into the
// file; and the answer is the same twice.
func FuzzCheck(f *testing.F) {
	for _, glob := range []string{"../../tests/testdata/*/*.book", "../../examples/*/*.book"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		res := Check("fuzz.book", src)
		if (res.Book != nil) != (res.Diags.Errors() == 0) {
			t.Fatalf("book returned: %v, errors: %d", res.Book != nil, res.Diags.Errors())
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, d := range res.Diags {
			if d.Code == "" || d.Message.En == "" || d.Message.Ja == "" {
				t.Fatalf("incomplete diagnostic: %+v", d)
			}
			if d.Line < 0 || d.Line > lines || (d.Line > 0 && d.Col < 1) {
				t.Fatalf("%s at %d:%d is outside the %d lines of the file", d.Code, d.Line, d.Col, lines)
			}
		}
		var a, b bytes.Buffer
		for _, d := range res.Diags {
			diag.WriteText(&a, d, diag.English)
			diag.WriteText(&a, d, diag.Japanese)
		}
		for _, d := range Check("fuzz.book", src).Diags {
			diag.WriteText(&b, d, diag.English)
			diag.WriteText(&b, d, diag.Japanese)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("two checks of the same text differ")
		}
	})
}
