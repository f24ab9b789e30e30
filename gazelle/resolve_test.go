package gazelle

import (
	"reflect"
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"

	"github.com/chobo-lang/chobo/gazelle/gazelletest"
	gogazelle "github.com/chobo-lang/chobo/lang/go/gazelle"
)

func TestImports(t *testing.T) {
	const build = `
chobo_client(name = "a", book = ":b", importpath = "x/a")
chobo_client(name = "t", book = ":b", importpath = "x/at", target = "tigerbeetle-go")
chobo_client(name = "p", book = ":b", importpath = "x/ap", target = "postgres-go")
chobo_client(name = "none", book = ":b")
chobo_client(name = "unknown", book = ":b", importpath = "x/u", target = "nosuch-go")
chobo_book(name = "b", src = "b.book")
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
		// Each client language's own are held in its folder
		// (lang/<language>/gazelle).
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
	ix, _ := gazelletest.Index(t, c, lang, nil, map[string]string{
		"ledger": `chobo_client(name = "stock_go_client", book = ":stock", importpath = "example.com/w/ledger/stock")`,
	})
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
		got := gazelletest.Find(c, ix, resolve.ImportSpec{Lang: "go", Imp: tc.imp}, tc.lang)
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
