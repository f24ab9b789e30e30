package diag

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"在庫(sku-1)、全角スペース\u3000も", "在庫(sku-1)、全角スペース\u3000も"},
		{`a backslash \ and a quote " stay`, `a backslash \ and a quote " stay`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"nul\x00", `nul\x00`},
		{"two\nlines\r\n", `two\nlines\r\n`},
		{"a\ttab", `a\ttab`},
		{"bell\a del\x7f", `bell\x07 del\x7f`},
		{"c1 \u0085 \u009b", `c1 \u0085 \u009b`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"\u2066isolate\u2069 \u200e\u200f\u061c", `\u2066isolate\u2069 \u200e\u200f\u061c`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"zero\u200bwidth\u200d \ufeffbom \u00adsoft", `zero\u200bwidth\u200d \ufeffbom \u00adsoft`},
		{"tag \U000e0041", `tag \U000e0041`},
		{"bad \xff\xfe bytes", `bad \xff\xfe bytes`},
		{"cut \xe3\x81", `cut \xe3\x81`},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// What comes out is text, and escaping it again changes nothing.
		if again := Printable(Printable(tt.in)); again != tt.want {
			t.Errorf("Printable twice on %q = %q", tt.in, again)
		}
	}
}

// TestWriteTextEscapes: every part of a diagnostic that can come from a
// book or a value is escaped; the layout's own line breaks stay.
func TestWriteTextEscapes(t *testing.T) {
	d := Diagnostic{
		Code: "E001", File: "evil\x1b]0;title\a.book", Line: 3, Col: 1,
		Message:    T("bad \x1b[2J name", "悪い \x1b[2J 名前"),
		Notes:      []Text{T("note \u202e", "注 \u202e")},
		Excerpt:    "account \x1b[31mstock\x00 : pcs",
		Operations: []Operation{{Step: 1, Call: "a.do(x: \n)", Outcome: T("refused: r\r", "r\r で拒否される")}},
		Hint:       T("hint \u009b", "ヒント \u009b"),
	}
	for _, lang := range []Lang{English, Japanese} {
		var b bytes.Buffer
		WriteText(&b, d, lang)
		out := b.String()
		if strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && hidden(r) }) {
			t.Errorf("raw control in:\n%q", out)
		}
		for _, want := range []string{`evil\x1b]0;title\x07.book:3:1`, `\x1b[2J`, `\u202e`, `account \x1b[31mstock\x00 : pcs`, `a.do(x: \n)`, `\r`, `\u009b`} {
			if !strings.Contains(out, want) {
				t.Errorf("%q lacks %q", out, want)
			}
		}
		if n := strings.Count(out, "\n"); n != 6 {
			t.Errorf("%d lines, want 6:\n%s", n, out)
		}
	}
	if s := Summary("x\x1b.book", nil, English); s != `x\x1b.book: ok` {
		t.Errorf("Summary: %q", s)
	}
}
