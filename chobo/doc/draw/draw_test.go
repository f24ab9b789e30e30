package draw

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// bless reports whether the golden files are being rewritten, the
// project's switch for all its goldens.
func bless() bool { return os.Getenv("CHOBO_BLESS") == "1" }

// checkGolden compares got with testdata/name, or writes it there.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if bless() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (CHOBO_BLESS=1 writes it)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Errorf("%s differs from the output (CHOBO_BLESS=1 rewrites it; review the diff)\n--- got ---\n%s", path, got)
	}
}

// parseXML fails t unless s is well-formed XML.
func parseXML(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader([]byte(s)))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, s)
		}
	}
}

func TestTextWidth(t *testing.T) {
	tests := []struct {
		s    string
		want float64
	}{
		{"", 0},
		{"stock", 5 * charWidth},
		{"在庫", 4 * charWidth},
		{"ｶﾅ", 2 * charWidth}, // half-width kana are narrow
		{"ＡＢ", 4 * charWidth}, // full-width forms are wide
		{"かな(sku)", 9 * charWidth},
		{"\xff", charWidth},
	}
	for _, tt := range tests {
		if got := textWidth(tt.s, false); got != tt.want {
			t.Errorf("textWidth(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{`a & b < c > d "e" 'f'`, "a &amp; b &lt; c &gt; d &#34;e&#34; &#39;f&#39;"},
		{"nul\x00 bad\xff", "nul\uFFFD bad\uFFFD"},
		{"在庫", "在庫"},
	}
	for _, tt := range tests {
		var b svg
		b.text(tt.in)
		if got := b.String(); got != tt.want {
			t.Errorf("text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNum(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {12, "12"}, {12.25, "12.3"}, {-3.75, "-3.8"}, {0.04, "0"}, {99.96, "100"},
	}
	for _, tt := range tests {
		if got := num(tt.in); got != tt.want {
			t.Errorf("num(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
