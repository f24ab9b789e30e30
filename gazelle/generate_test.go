package gazelle

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/language"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

func generate(t *testing.T, files map[string]string, build string, directives ...string) language.GenerateResult {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	c := config.New()
	lang := NewLanguage()
	lang.RegisterFlags(nil, "update", c)
	cc := getConfig(c)
	for i := 0; i+1 < len(directives); i += 2 {
		if err := cc.apply(directives[i], directives[i+1], "ledger"); err != nil {
			t.Fatal(err)
		}
	}
	var f *rule.File
	if build != "" {
		var err error
		if f, err = rule.LoadData(filepath.Join(dir, "BUILD.bazel"), "ledger", []byte(build)); err != nil {
			t.Fatal(err)
		}
	}
	res := lang.GenerateRules(language.GenerateArgs{Config: c, Dir: dir, Rel: "ledger", File: f, RegularFiles: names})
	if len(res.Gen) != len(res.Imports) {
		t.Fatalf("%d rules, %d imports", len(res.Gen), len(res.Imports))
	}
	return res
}

func names(rules []*rule.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Kind()+" "+r.Name())
	}
	return out
}

func TestGenerateRules(t *testing.T) {
	for _, tc := range []struct {
		name       string
		files      map[string]string
		directives []string
		want       []string
	}{
		{name: "no book", files: map[string]string{"main.go": ""}},
		{name: "one book", files: map[string]string{"stock.book": "book stock v1"},
			want: []string{"chobo_book stock", "chobo_sql stock_sql", "chobo_client stock_go_client", "chobo_doc stock_doc", "chobo_conformance_test conformance"}},
		{name: "two books, sorted", files: map[string]string{"b.book": "", "a.book": ""},
			want: []string{
				"chobo_book a", "chobo_sql a_sql", "chobo_client a_go_client", "chobo_doc a_doc", "chobo_conformance_test a_conformance",
				"chobo_book b", "chobo_sql b_sql", "chobo_client b_go_client", "chobo_doc b_doc", "chobo_conformance_test b_conformance"}},
		{name: "a book called conformance", files: map[string]string{"conformance.book": ""},
			want: []string{"chobo_book conformance", "chobo_sql conformance_sql", "chobo_client conformance_go_client", "chobo_doc conformance_doc", "chobo_conformance_test conformance_conformance"}},
		{name: "clients and no test", files: map[string]string{"stock.book": ""},
			directives: []string{"chobo_client", "tigerbeetle-go postgres-go", "chobo_conformance", "off"},
			want:       []string{"chobo_book stock", "chobo_sql stock_sql", "chobo_client stock_tb_client", "chobo_client stock_go_client", "chobo_doc stock_doc"}},
		{name: "pages in two formats, no client", files: map[string]string{"stock.book": ""},
			directives: []string{"chobo_doc", "html markdown", "chobo_client", "none"},
			want:       []string{"chobo_book stock", "chobo_sql stock_sql", "chobo_doc stock_html_doc", "chobo_doc stock_doc", "chobo_conformance_test conformance"}},
		{name: "no pages", files: map[string]string{"stock.book": ""},
			directives: []string{"chobo_doc", "off"},
			want:       []string{"chobo_book stock", "chobo_sql stock_sql", "chobo_client stock_go_client", "chobo_conformance_test conformance"}},
		{name: "off", files: map[string]string{"stock.book": ""}, directives: []string{"chobo", "off"}},
		{name: "two files, one name", files: map[string]string{"a-b.book": "", "a_b.book": ""},
			want: []string{"chobo_book a_b", "chobo_sql a_b_sql", "chobo_client a_b_go_client", "chobo_doc a_b_doc", "chobo_conformance_test conformance"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := generate(t, tc.files, "", tc.directives...)
			if got := names(res.Gen); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGenerateAttrs(t *testing.T) {
	res := generate(t, map[string]string{
		"stock.book":              "book stock v1",
		"stock.more.json":         "[]",
		"stock.scenarios.json":    "[]",
		"stock.deployed.api.json": "{}",
		"other.more.json":         "[]",
		"stock.ja.book":           "book stock v1",
	}, "", "chobo_client", "postgres-go tigerbeetle-go", "chobo_importpath", "example.com/books", "chobo_doc", "markdown html")
	byName := map[string]*rule.Rule{}
	for _, r := range res.Gen {
		byName[r.Name()] = r
	}
	for _, tc := range []struct {
		rule, attr string
		want       interface{}
	}{
		{"stock", "src", "stock.book"},
		{"stock", "baseline", "stock.deployed.api.json"},
		{"stock_sql", "book", ":stock"},
		{"stock_go_client", "importpath", "example.com/books/stock"},
		{"stock_go_client", "target", "postgres-go"},
		{"stock_go_client", "package", ""},
		{"stock_tb_client", "importpath", "example.com/books/stocktb"},
		{"stock_tb_client", "package", "stock"},
		{"stock_tb_client", "visibility", []string{"//visibility:public"}},
		{"stock_conformance", "clients", []string{":stock_go_client", ":stock_tb_client"}},
		{"stock_doc", "book", ":stock"},
		{"stock_doc", "format", "markdown"},
		{"stock_doc", "lang", ""},
		{"stock_html_doc", "format", "html"},
		{"stock_ja_doc", "lang", "ja"},
		{"stock_ja_html_doc", "format", "html"},
		{"stock_ja_html_doc", "lang", "ja"},
		{"stock_conformance", "scenarios", []string{"stock.more.json", "stock.scenarios.json"}},
		// A page shows the hand-written file, not a generated list, and
		// a book without one (stock.ja) gets none.
		{"stock_doc", "scenarios", []string{"stock.more.json"}},
		{"stock_html_doc", "scenarios", []string{"stock.more.json"}},
		{"stock_ja_doc", "scenarios", []string(nil)},
	} {
		r := byName[tc.rule]
		if r == nil {
			t.Fatalf("no rule %s", tc.rule)
		}
		var got interface{}
		if _, ok := tc.want.([]string); ok {
			got = r.AttrStrings(tc.attr)
		} else {
			got = r.AttrString(tc.attr)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s.%s = %q, want %q", tc.rule, tc.attr, got, tc.want)
		}
	}
}

func TestEmptyRules(t *testing.T) {
	const build = `
chobo_book(name = "old", src = "old.book")
chobo_sql(name = "old_sql", book = ":old")
chobo_client(name = "old_go_client", book = ":old", importpath = "x/old")
chobo_conformance_test(name = "conformance", book = ":old")
chobo_book(name = "stock_by_hand", src = "stock.book", tags = ["manual"])
chobo_sql(name = "by_hand_sql", book = ":stock_by_hand")
chobo_client(name = "stock_tb_client", book = ":stock", importpath = "x/stocktb", target = "tigerbeetle-go")
chobo_client(name = "mine", book = ":stock", importpath = "x/mine", target = "tigerbeetle-go")
chobo_sql(name = "elsewhere_sql", book = "//other:book")
chobo_book(name = "generated_elsewhere", src = ":gen")
`
	res := generate(t, map[string]string{"stock.book": ""}, build)
	// conformance is written again (for stock), so it is merged, not
	// emptied: what was set on it by hand stays.
	want := []string{"chobo_book old", "chobo_sql old_sql", "chobo_client old_go_client", "chobo_client stock_tb_client"}
	if got := names(res.Empty); !reflect.DeepEqual(got, want) {
		t.Errorf("empty %q, want %q", got, want)
	}
	// Nothing to empty in a new file.
	if res := generate(t, map[string]string{"stock.book": ""}, ""); len(res.Empty) != 0 {
		t.Errorf("empty %q without a BUILD file", names(res.Empty))
	}
	// A test turned off goes.
	res = generate(t, map[string]string{"stock.book": ""}, `chobo_conformance_test(name = "conformance", book = ":stock", size = "large")`,
		"chobo_conformance", "off")
	if got := names(res.Empty); !reflect.DeepEqual(got, []string{"chobo_conformance_test conformance"}) {
		t.Errorf("conformance off: empty %q", got)
	}
	// A page of a format no longer named goes; one named otherwise stays.
	const pages = `
chobo_doc(name = "stock_doc", book = ":stock")
chobo_doc(name = "stock_html_doc", book = ":stock", format = "html")
chobo_doc(name = "stock_page", book = ":stock", format = "html")
chobo_doc(name = "old_doc", book = ":old")
`
	res = generate(t, map[string]string{"stock.book": ""}, pages, "chobo_doc", "markdown")
	if got, want := names(res.Empty), []string{"chobo_doc stock_html_doc", "chobo_doc old_doc"}; !reflect.DeepEqual(got, want) {
		t.Errorf("markdown pages only: empty %q, want %q", got, want)
	}
	res = generate(t, map[string]string{"stock.book": ""}, pages, "chobo_doc", "off")
	if got, want := names(res.Empty), []string{"chobo_doc stock_doc", "chobo_doc stock_html_doc", "chobo_doc old_doc"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pages off: empty %q, want %q", got, want)
	}
}

// A file named as a version of a book beside it (<stem>.v<N>.book) is
// given to that book's conformance test, not made a book; without the
// book beside it, it is a book like any other.
func TestVersionFiles(t *testing.T) {
	const v1, v2 = "book stock v1\n", "book stock v2\n"
	res := generate(t, map[string]string{"stock.book": v1, "stock.v2.book": v2, "stock.v10.book": v2, "stocks.v3.book": v2}, "")
	var books, versions []string
	for _, r := range res.Gen {
		switch r.Kind() {
		case bookKind:
			books = append(books, r.AttrString("src"))
		case conformanceKind:
			if r.AttrString("book") == ":stock" {
				versions = r.AttrStrings("versions")
			}
		}
	}
	if want := []string{"stock.book", "stocks.v3.book"}; !reflect.DeepEqual(books, want) {
		t.Errorf("books %q, want %q", books, want)
	}
	if want := []string{"stock.v10.book", "stock.v2.book"}; !reflect.DeepEqual(versions, want) {
		t.Errorf("versions of stock %q, want %q", versions, want)
	}
}
