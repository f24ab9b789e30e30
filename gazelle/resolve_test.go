package gazelle

import (
	"reflect"
	"sort"
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	"github.com/bazelbuild/bazel-gazelle/repo"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"

	gogazelle "github.com/chobo-lang/chobo/lang/go/gazelle"
)

func TestImports(t *testing.T) {
	const build = `
chobo_client(name = "a", book = ":b", importpath = "x/a")
chobo_client(name = "t", book = ":b", importpath = "x/at", target = "tigerbeetle-go")
chobo_client(name = "p", book = ":b", importpath = "x/ap", target = "postgres-go")
chobo_client(name = "none", book = ":b")
chobo_client(name = "ts", book = ":b", importpath = "x/ts", target = "postgres-typescript")
chobo_client(name = "tbts", book = ":b", importpath = "x/tbts", target = "tigerbeetle-typescript")
chobo_client(name = "py", book = ":b", target = "postgres-python")
chobo_client(name = "tbpy", book = ":b", importpath = "x/tbpy", target = "tigerbeetle-python")
chobo_client(name = "unknown", book = ":b", importpath = "x/u", target = "nosuch-go")
chobo_client(name = "pyout", book = ":b", target = "postgres-python", out = "b_tb.py")
chobo_client(name = "pyoutbad", book = ":b", target = "postgres-python", out = "b-tb.py")
chobo_client(name = "pyelsewhere", book = "//other:b", target = "postgres-python")
chobo_client(name = "pynobook", book = ":gone", target = "postgres-python")
chobo_client(name = "pydots", book = ":v2", target = "tigerbeetle-python")
chobo_client(name = "pydash", book = ":dash", target = "postgres-python")
chobo_client(name = "pyoutdir", book = ":b", target = "postgres-python", out = "sub/b.py")
chobo_client(name = "pykeyword", book = ":class", target = "postgres-python")
chobo_book(name = "class", src = "class.book")
chobo_book(name = "b", src = "b.book")
chobo_book(name = "v2", src = ":stock.v2.book")
chobo_book(name = "dash", src = "my-stock.book")
chobo_sql(name = "s", book = ":b")
`
	f, err := rule.LoadData("BUILD.bazel", "ledger", []byte(build))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]resolve.ImportSpec{
		"a": {{Lang: "go", Imp: "x/a"}},
		"t": {{Lang: "go", Imp: "x/at"}},
		"p": {{Lang: "go", Imp: "x/ap"}},
		// A Python client, by the module chobo_client writes: after the
		// .book file up to its first dot, or its out.
		"py":     {{Lang: "py", Imp: "b"}},
		"tbpy":   {{Lang: "py", Imp: "b"}},
		"pyout":  {{Lang: "py", Imp: "b_tb"}},
		"pydots": {{Lang: "py", Imp: "stock"}},
		// Not importable by that name, or a book whose file is not in
		// this BUILD file: not indexed.
	}
	c := config.New()
	for _, r := range f.Rules {
		if got := NewLanguage().Imports(c, r, f); !reflect.DeepEqual(got, want[r.Name()]) {
			t.Errorf("%s: imports %v, want %v", r.Name(), got, want[r.Name()])
		}
	}
}

// The Go resolver asks the index for Go rules; a chobo_client is indexed
// under chobo, and CrossResolve is what finds it.
func TestCrossResolve(t *testing.T) {
	lang := NewLanguage()
	c := config.New()
	c.RepoName = ""
	c.ModuleToApparentName = func(m string) string { return map[string]string{"chobo": "chobo"}[m] }
	ix := resolve.NewRuleIndex(func(r *rule.Rule, pkgRel string) resolve.Resolver {
		if _, ok := choboKinds[r.Kind()]; ok {
			return lang
		}
		return nil
	}, lang)
	f, err := rule.LoadData("ledger/BUILD.bazel", "ledger", []byte(`chobo_client(name = "stock_go_client", book = ":stock", importpath = "example.com/w/ledger/stock")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Rules {
		ix.AddRule(c, r, f)
	}
	ix.Finish()
	for _, tc := range []struct {
		imp, lang string
		want      []string
	}{
		{"example.com/w/ledger/stock", "go", []string{"//ledger:stock_go_client"}},
		{"example.com/w/ledger/other", "go", nil},
		{"example.com/w/ledger/stock", "proto", nil},
		{"github.com/chobo-lang/chobo/runtime/go/chobotb", "go", []string{"@chobo//runtime/go/chobotb"}},
		{"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo", "go", []string{"@chobo//runtime/go/chobotb/tbgo"}},
		{"github.com/chobo-lang/chobo/chobo/book", "go", nil},
		{"github.com/tigerbeetle/tigerbeetle-go", "go", []string{"@chobo//runtime/go/chobotb/tbgo:tigerbeetle-go"}},
		{"github.com/tigerbeetle/tigerbeetle-go/native", "go", nil},
	} {
		var got []string
		for _, r := range ix.FindRulesByImportWithConfig(c, resolve.ImportSpec{Lang: "go", Imp: tc.imp}, tc.lang) {
			got = append(got, r.Label.String())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s from %s: %v, want %v", tc.imp, tc.lang, got, tc.want)
		}
	}
	// In chobo's own repository the runtime is local.
	c.RepoName = "chobo"
	got := lang.(resolve.CrossResolver).CrossResolve(c, ix, resolve.ImportSpec{Lang: "go", Imp: gogazelle.RuntimePrefix + "/chobo"}, "go")
	if len(got) != 1 || !got[0].Label.Equal(label.New("", "runtime/go/chobo", "chobo")) {
		t.Errorf("in chobo: %v", got)
	}
}

// pyStub stands for rules_python's Gazelle language ("py") in the index:
// it indexes its own py_library by module name, as that language does.
type pyStub struct{}

func (pyStub) Name() string { return "py" }
func (pyStub) Imports(c *config.Config, r *rule.Rule, f *rule.File) []resolve.ImportSpec {
	return []resolve.ImportSpec{{Lang: "py", Imp: r.Name()}}
}
func (pyStub) Embeds(r *rule.Rule, from label.Label) []label.Label { return nil }
func (pyStub) Resolve(c *config.Config, ix *resolve.RuleIndex, rc *repo.RemoteCache, r *rule.Rule, imports interface{}, from label.Label) {
}

// rules_python's resolver looks an import up as
// FindRulesByImportWithConfig(c, ImportSpec{Lang: "py", Imp: module}, "py")
// (after its gazelle:resolve directives and its manifest of pip
// packages): a chobo_client is indexed under chobo, so only CrossResolve
// finds it, by the module the client is imported as. Two clients of one
// book both import as the book's name, and both are found: the Python
// language then asks for a gazelle:resolve directive.
func TestCrossResolvePython(t *testing.T) {
	lang := NewLanguage()
	c := config.New()
	ix := resolve.NewRuleIndex(func(r *rule.Rule, pkgRel string) resolve.Resolver {
		if _, ok := choboKinds[r.Kind()]; ok {
			return lang
		}
		if r.Kind() == "py_library" {
			return pyStub{}
		}
		return nil
	}, lang)
	files := map[string]string{
		"ledger": `
chobo_book(name = "stock", src = "stock.book")
chobo_client(name = "stock_py_client", book = ":stock", target = "postgres-python")
chobo_client(name = "stock_ts_client", book = ":stock", target = "postgres-typescript")
chobo_client(name = "stock_go_client", book = ":stock", importpath = "example.com/w/ledger/stock")
chobo_book(name = "orders", src = "orders.book")
chobo_client(name = "orders_py_client", book = ":orders", target = "postgres-python")
chobo_client(name = "orders_tb_py_client", book = ":orders", target = "tigerbeetle-python")
`,
		"lib": `py_library(name = "helpers")`,
	}
	for _, pkg := range []string{"ledger", "lib"} {
		f, err := rule.LoadData(pkg+"/BUILD.bazel", pkg, []byte(files[pkg]))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Rules {
			ix.AddRule(c, r, f)
		}
	}
	ix.Finish()
	for _, tc := range []struct {
		spec, imp, from string
		want            []string
	}{
		{"py", "stock", "py", []string{"//ledger:stock_py_client"}},
		{"py", "orders", "py", []string{"//ledger:orders_py_client", "//ledger:orders_tb_py_client"}},
		{"py", "helpers", "py", []string{"//lib:helpers"}},
		{"py", "other", "py", nil},
		// The Go language's questions are not answered with Python
		// clients, nor a question whose spec is of another language.
		{"py", "stock", "go", nil},
		{"go", "stock", "py", nil},
		{"go", "example.com/w/ledger/stock", "go", []string{"//ledger:stock_go_client"}},
		{"py", "example.com/w/ledger/stock", "py", nil},
		// No Gazelle language here resolves TypeScript clients.
		{"js", "ledger/stock_ts_client_srcs/stock", "js", nil},
	} {
		var got []string
		for _, r := range ix.FindRulesByImportWithConfig(c, resolve.ImportSpec{Lang: tc.spec, Imp: tc.imp}, tc.from) {
			got = append(got, r.Label.String())
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q asked by %s: %v, want %v", tc.spec, tc.imp, tc.from, got, tc.want)
		}
	}
}
