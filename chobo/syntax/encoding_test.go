package syntax

import (
	"strings"
	"testing"
)

// TestNotUTF8: a file in another encoding gets one error for the whole
// file, which quotes no line; a UTF-8 file with a stray byte keeps its
// error on the line.
func TestNotUTF8(t *testing.T) {
	// 在庫 and 個 in Shift_JIS and in EUC-JP.
	sjis := "book \x8d\xdd\x8c\xc9 v1\n# \x8d\xdd\x8c\xc9\x82\xcc\x92\xa0\nunit \x8c\xc2\n"
	euc := "book \xba\xdf\xb8\xcb v1\n# \xba\xdf\xb8\xcb\xa4\xce\xc4\xa2\nunit \xb8\xc4\n"
	utf16 := func(s string, bom bool) string {
		var b strings.Builder
		if bom {
			b.WriteString("\xff\xfe")
		}
		for _, r := range s {
			b.WriteByte(byte(r))
			b.WriteByte(byte(r >> 8))
		}
		return b.String()
	}
	book := "book zaiko v1\nunit pcs\naccount stock : pcs outside\n"
	for _, c := range []struct {
		name, src, enc string
	}{
		{"Shift_JIS", sjis, "Shift_JIS"},
		{"EUC-JP", euc, "EUC-JP"},
		{"UTF-16 with a byte order mark", utf16(book, true), "UTF-16"},
		{"UTF-16 without one", utf16(book, false), "UTF-16"},
		{"UTF-16 of Japanese", utf16("book 在庫 v1\nunit 個\naccount 在庫 : 個 outside\n", false), "UTF-16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("t.book", []byte(c.src))
			if len(ds) != 1 {
				t.Fatalf("want one error, got %+v", ds)
			}
			d := ds[0]
			if d.Code != "E001" || d.Line != 1 || d.Col != 1 || !d.NoExcerpt {
				t.Errorf("got %+v", d)
			}
			if want := "it looks like " + c.enc; !strings.Contains(d.Message.En, want) {
				t.Errorf("%q does not say %q", d.Message.En, want)
			}
			if want := c.enc + " のようです"; !strings.Contains(d.Message.Ja, want) {
				t.Errorf("%q does not say %q", d.Message.Ja, want)
			}
		})
	}
	for _, src := range []string{
		"book 在庫 v1\nunit \xff個\n",
		"book b v1\nunit pcs # \x00\n",
	} {
		_, ds := Parse("t.book", []byte(src))
		if len(ds) != 1 || ds[0].Line != 2 {
			t.Errorf("%q: want one error on line 2, got %+v", src, ds)
		}
	}
}
