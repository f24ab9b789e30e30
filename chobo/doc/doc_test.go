package doc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/check/checktest"
	"github.com/chobo-lang/chobo/chobo/diag"
)

func TestMarkdownText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"out_of_stock", "out_of_stock"},
		{"_lead and trail_", `\_lead and trail\_`},
		{"a|b", `a\|b`},
		{"<script>", `\<script\>`},
		{"$5 and *bold*", `\$5 and \*bold\*`},
		{"[link](x)", `\[link\](x)`},
		{"在庫_数", "在庫_数"},
		{"tab\there", `tab\\there`}, // shown as \t, as every listing of chobo does
	} {
		if got := md(c.in); got != c.want {
			t.Errorf("md(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := cell("two\nlines"); strings.Contains(got, "\n") {
		t.Errorf("cell keeps a line break: %q", got)
	}
}

func TestMermaidText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"stock(sku)", "stock(sku)"},
		{`say "hi"`, "say #34;hi#34;"},
		{"a|b", "a#124;b"},
		{"<br>", "#60;br#62;"},
		{"在庫(sku)", "在庫(sku)"},
		{"50%", "50#37;"},
	} {
		if got := mermaidText(c.in); got != c.want {
			t.Errorf("mermaidText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

var dataBlock = regexp.MustCompile(`<script type="application/json" id="chobo-data">([^<]*)</script>`)

// checkPage holds what every page must be, whatever the book: one data
// block that parses, no other script than the stepper, and Markdown
// whose fences pair up.
func checkPage(t *testing.T, src []byte) {
	t.Helper()
	res := check.Check("fuzz.book", src)
	if res.Book == nil {
		return
	}
	for _, lang := range []diag.Lang{diag.English, diag.Japanese} {
		p, err := Build(res.Book, res.Diags, *res.Report, nil, lang)
		if err != nil {
			t.Fatal(err)
		}
		page, err := HTML(p)
		if err != nil {
			t.Fatal(err)
		}
		html := string(page)
		m := dataBlock.FindAllStringSubmatch(html, -1)
		if len(m) != 1 {
			t.Fatalf("%d data blocks", len(m))
		}
		if !json.Valid([]byte(m[0][1])) {
			t.Fatal("the data block is not JSON")
		}
		if n := strings.Count(html, "</script>"); n != 2 {
			t.Fatalf("%d script elements end on the page, want the data and the stepper", n)
		}
		text, err := Markdown(p)
		if err != nil {
			t.Fatal(err)
		}
		fences := 0
		for _, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(line, "```") {
				fences++
			}
		}
		if fences%2 != 0 {
			t.Fatal("a code fence is left open")
		}
	}
}

func TestPagesOfTheCases(t *testing.T) {
	paths, _ := filepath.Glob("../../tests/testdata/*/*.book")
	if len(paths) == 0 {
		t.Fatal("no books")
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) { checkPage(t, src) })
	}
}

// FuzzPage builds both pages of arbitrary books, of any number of moves:
// never a panic, and what checkPage holds.
func FuzzPage(f *testing.F) {
	for _, glob := range []string{"../../tests/testdata/*/*.book", "../../examples/*/*.book"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
	}
	for _, b := range checktest.Hostile() {
		if b.Seed {
			f.Add(b.Src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkPage(t, src) })
}

func TestLifetimeText(t *testing.T) {
	for _, c := range []struct {
		secs int64
		lang diag.Lang
		want string
	}{
		{1800, diag.English, "30 minutes"},
		{1800, diag.Japanese, "30 分"},
		{3600, diag.Japanese, "1 時間"},
		{86400 * 7, diag.Japanese, "7 日"},
		{90, diag.Japanese, "90 秒"},
		{1, diag.English, "1 second"},
	} {
		if got := lifetimeText(c.secs, c.lang); got != c.want {
			t.Errorf("lifetimeText(%d, %v) = %q, want %q", c.secs, c.lang, got, c.want)
		}
	}
}

func TestGroup(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0", "0"},
		{"999", "999"},
		{"1000", "1,000"},
		{"-1000", "-1,000"},
		{"1000000", "1,000,000"},
		{"123456.78", "123,456.78"},
		{"-0.01", "-0.01"},
		{"12345678901234567.890", "12,345,678,901,234,567.890"},
		{"-9223372036854775808", "-9,223,372,036,854,775,808"},
	} {
		if got := group(c.in); got != c.want {
			t.Errorf("group(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
