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
		{10081 * 60, diag.English, "10,081 minutes"},
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

func TestGroupNumbers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"receive.do one above at most 4611686018427387904", "receive.do one above at most 4,611,686,018,427,387,904"},
		{"ends 1 inside its lower bound -50000", "ends 1 inside its lower bound -50,000"},
		{"amount 12345.6789 then 1000", "amount 12,345.6789 then 1,000"},
		{"sku-12345 and v20000 and a_10000", "sku-12345 and v20000 and a_10000"},
		{"注文-12345 と 12345円", "注文-12345 と 12,345円"},
		{"already 1,000,000", "already 1,000,000"},
		{"(10000)", "(10,000)"},
	} {
		if got := groupNumbers(c.in); got != c.want {
			t.Errorf("groupNumbers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPassLabel(t *testing.T) {
	for _, c := range []struct {
		text string
		lang diag.Lang
		want string
	}{
		{"5 minutes", diag.English, "pass 5 minutes"},
		{"5 minutes", diag.Japanese, "5 分経過"},
		{"1 day", diag.Japanese, "1 日経過"},
		{"31 seconds", diag.Japanese, "31 秒経過"},
		{"10081 minutes", diag.English, "pass 10,081 minutes"},
		{"10081 minutes", diag.Japanese, "10,081 分経過"},
	} {
		if got := passLabel(c.text, c.lang); got != c.want {
			t.Errorf("passLabel(%q, %v) = %q, want %q", c.text, c.lang, got, c.want)
		}
	}
}

// pageOf builds the page of a book given as text.
func pageOf(t *testing.T, src string, lang diag.Lang) *Page {
	t.Helper()
	res := check.Check("t.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("the book does not check: %v", res.Diags)
	}
	p, err := Build(res.Book, res.Diags, *res.Report, nil, lang)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const bigBook = `book big v1
unit pcs
account shelf(sku: string) : pcs
  at least 0 refused as out_of_stock
  at most 5000000 refused as full
account world : pcs outside
transfer spread(id: string, sku: string, qty: pcs)
  key id
  move qty from world to shelf(sku)
  move qty from world to shelf(sku)
transfer pair(id: string, sku: string, a: pcs, b: pcs)
  key id
  move a from world to shelf(sku)
  move b from world to shelf(sku)
`

// TestPageGroupsEveryAmount: the calls of the steps and of the refusals'
// examples, and the titles, write their amounts grouped.
func TestPageGroupsEveryAmount(t *testing.T) {
	p := pageOf(t, bigBook, diag.English)
	plain := regexp.MustCompile(`(^|[ (:-])[0-9]{4,}`)
	seen := 0
	for _, sc := range p.Scenarios {
		texts := []string{sc.Title}
		for _, st := range sc.Steps {
			texts = append(texts, st.Label)
			texts = append(texts, st.Calls...)
		}
		for _, s := range texts {
			if m := plain.FindString(s); m != "" {
				t.Errorf("scenario %d: %q writes %q ungrouped", sc.Number, s, m)
			}
			if strings.Contains(s, "5,000,00") {
				seen++
			}
		}
	}
	for _, tr := range p.Transfers {
		for _, op := range tr.Ops {
			for _, rf := range op.Refusals {
				for _, st := range rf.Steps {
					if m := plain.FindString(st.Call); m != "" {
						t.Errorf("%s: %q writes %q ungrouped", op.Op, st.Call, m)
					}
				}
			}
		}
	}
	if seen == 0 {
		t.Error("no scenario reaches the upper bound: the test reads nothing grouped")
	}
}

// TestFlowNumbersMovesThatReadAlike: two moves of one transfer that carry
// the same amount say which move they are; moves that carry different
// amounts say their amount, as before.
func TestFlowNumbersMovesThatReadAlike(t *testing.T) {
	for _, c := range []struct {
		lang diag.Lang
		want []string
	}{
		{diag.English, []string{"spread (move 1: qty)", "spread (move 2: qty)", "pair (a)", "pair (b)"}},
		{diag.Japanese, []string{"spread (移動 1: qty)", "spread (移動 2: qty)", "pair (a)", "pair (b)"}},
	} {
		p := pageOf(t, bigBook, c.lang)
		var got []string
		for _, e := range p.Flow.Edges {
			got = append(got, e.Label)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%v: the arrows read %q, want %q", c.lang, got, c.want)
		}
	}
}

// TestBareStyleAndScript: the page's style and script lose their
// comments and indentation, the style its spaces around punctuation,
// and both keep every rule and statement.
func TestBareStyleAndScript(t *testing.T) {
	css := "/* why */\na { b: c; }\n  /* two\n  lines */\n  d { e: f; } /* after */\n"
	if got := string(bareStyle([]byte(css))); got != "a{b:c}\nd{e:f}\n" {
		t.Errorf("bareStyle = %q", got)
	}
	// The spaces inside a value or a selector that mean something stay.
	css = "h1, h2 > a:hover { font: 15px/1.5 \"Segoe UI\", sans-serif; margin: 0 auto; }\n@media (max-width: 47.99rem) {\n  td { x: y; }\n}\n"
	if got, want := string(bareStyle([]byte(css))), "h1,h2 > a:hover{font:15px/1.5 \"Segoe UI\",sans-serif;margin:0 auto}\n@media (max-width:47.99rem){\ntd{x:y}\n}\n"; got != want {
		t.Errorf("bareStyle = %q, want %q", got, want)
	}
	js := "// why\n(function () {\n  var a = 1; // kept\n\n  // gone\n  return a;\n})();\n"
	if got := string(bareScript([]byte(js))); got != "(function () {\nvar a = 1; // kept\nreturn a;\n})();\n" {
		t.Errorf("bareScript = %q", got)
	}
}

// The words of chobo's own text between backticks are code on both
// pages: a sentence that starts with one (`post` moves them) would
// otherwise read as one without its capital.
func TestCodeSpans(t *testing.T) {
	for _, c := range []struct{ in, html, md string }{
		{"`post` moves them; `void` <back>", "<code>post</code> moves them; <code>void</code> &lt;back&gt;", "`post` moves them; `void` \\<back\\>"},
		{"(`hold`)", "(<code>hold</code>)", "(`hold`)"},
		{"`a<b`", "<code>a&lt;b</code>", "`a<b`"},
		{"one ` alone", "one ` alone", "one \\` alone"},
		{"none", "none", "none"},
	} {
		if got := string(codeHTML(c.in)); got != c.html {
			t.Errorf("codeHTML(%q) = %q, want %q", c.in, got, c.html)
		}
		if got := funcs(diag.English)["mdCode"].(func(string) string)(c.in); got != c.md {
			t.Errorf("mdCode(%q) = %q, want %q", c.in, got, c.md)
		}
	}
}
