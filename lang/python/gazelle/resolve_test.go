package gazelle_test

import (
	"reflect"
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	"github.com/bazelbuild/bazel-gazelle/repo"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"

	"github.com/chobo-lang/chobo/gazelle"
	"github.com/chobo-lang/chobo/gazelle/gazelletest"
	pygazelle "github.com/chobo-lang/chobo/lang/python/gazelle"
)

// py is the Gazelle language that resolves a Python import: rules_python's.
var py = pygazelle.Language.ImportLang

// TestImports: chobo's Gazelle language indexes a Python client by the
// module chobo_client writes, after the .book file up to its first dot,
// or its out; one not importable by a name, or whose book is not in the
// BUILD file, is not indexed.
func TestImports(t *testing.T) {
	const build = `
chobo_client(name = "py", book = ":b", target = "postgres-python")
chobo_client(name = "tbpy", book = ":b", importpath = "x/tbpy", target = "tigerbeetle-python")
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
`
	f, err := rule.LoadData("BUILD.bazel", "ledger", []byte(build))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]resolve.ImportSpec{
		"py":     {{Lang: py, Imp: "b"}},
		"tbpy":   {{Lang: py, Imp: "b"}},
		"pyout":  {{Lang: py, Imp: "b_tb"}},
		"pydots": {{Lang: py, Imp: "stock"}},
	}
	c := config.New()
	for _, r := range f.Rules {
		if got := gazelle.NewLanguage().Imports(c, r, f); !reflect.DeepEqual(got, want[r.Name()]) {
			t.Errorf("%s: imports %v, want %v", r.Name(), got, want[r.Name()])
		}
	}
}

// pyStub stands for rules_python's Gazelle language ("py") in the index:
// it indexes its own py_library by module name, as that language does.
type pyStub struct{}

func (pyStub) Name() string { return py }
func (pyStub) Imports(c *config.Config, r *rule.Rule, f *rule.File) []resolve.ImportSpec {
	return []resolve.ImportSpec{{Lang: py, Imp: r.Name()}}
}
func (pyStub) Embeds(r *rule.Rule, from label.Label) []label.Label { return nil }
func (pyStub) Resolve(c *config.Config, ix *resolve.RuleIndex, rc *repo.RemoteCache, r *rule.Rule, imports interface{}, from label.Label) {
}

// rules_python's resolver looks an import up as
// FindRulesByImportWithConfig(c, ImportSpec{Lang: py, Imp: module}, "py")
// (after its gazelle:resolve directives and its manifest of pip
// packages): a chobo_client is indexed under chobo, so only CrossResolve
// finds it, by the module the client is imported as. Two clients of one
// book both import as the book's name, and both are found: the Python
// language then asks for a gazelle:resolve directive.
func TestCrossResolvePython(t *testing.T) {
	c := config.New()
	ix, _ := gazelletest.Index(t, c, gazelle.NewLanguage(), map[string]resolve.Resolver{"py_library": pyStub{}}, map[string]string{
		"ledger": `
chobo_book(name = "stock", src = "stock.book")
chobo_client(name = "stock_py_client", book = ":stock", target = "postgres-python")
chobo_client(name = "stock_go_client", book = ":stock", importpath = "example.com/w/ledger/stock")
chobo_book(name = "orders", src = "orders.book")
chobo_client(name = "orders_py_client", book = ":orders", target = "postgres-python")
chobo_client(name = "orders_tb_py_client", book = ":orders", target = "tigerbeetle-python")
`,
		"lib": `py_library(name = "helpers")`,
	})
	for _, tc := range []struct {
		spec, imp, from string
		want            []string
	}{
		{py, "stock", py, []string{"//ledger:stock_py_client"}},
		{py, "orders", py, []string{"//ledger:orders_py_client", "//ledger:orders_tb_py_client"}},
		{py, "helpers", py, []string{"//lib:helpers"}},
		{py, "other", py, nil},
		// The Go language's questions are not answered with Python
		// clients, nor a question whose spec is of another language.
		{py, "stock", "go", nil},
		{"go", "stock", py, nil},
		{"go", "example.com/w/ledger/stock", "go", []string{"//ledger:stock_go_client"}},
		{py, "example.com/w/ledger/stock", py, nil},
	} {
		got := gazelletest.Find(c, ix, resolve.ImportSpec{Lang: tc.spec, Imp: tc.imp}, tc.from)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q asked by %s: %v, want %v", tc.spec, tc.imp, tc.from, got, tc.want)
		}
	}
}
