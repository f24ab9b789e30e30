package gazelle_test

import (
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"

	"github.com/chobo-lang/chobo/gazelle"
)

// TestNotIndexed: no Gazelle language that runs beside chobo's resolves
// a TypeScript import, so chobo's indexes no TypeScript client, with an
// importpath or without, and finds none when asked.
func TestNotIndexed(t *testing.T) {
	const build = `
chobo_book(name = "b", src = "b.book")
chobo_client(name = "ts", book = ":b", importpath = "x/ts", target = "postgres-typescript")
chobo_client(name = "tbts", book = ":b", target = "tigerbeetle-typescript")
`
	f, err := rule.LoadData("ledger/BUILD.bazel", "ledger", []byte(build))
	if err != nil {
		t.Fatal(err)
	}
	lang := gazelle.NewLanguage()
	kinds := lang.Kinds()
	c := config.New()
	ix := resolve.NewRuleIndex(func(r *rule.Rule, pkgRel string) resolve.Resolver {
		if _, ok := kinds[r.Kind()]; ok {
			return lang
		}
		return nil
	}, lang)
	for _, r := range f.Rules {
		if got := lang.Imports(c, r, f); got != nil {
			t.Errorf("%s: imports %v, want none", r.Name(), got)
		}
		ix.AddRule(c, r, f)
	}
	ix.Finish()
	for _, spec := range []resolve.ImportSpec{{Lang: "js", Imp: "ledger/ts_srcs/b"}, {Lang: "go", Imp: "x/ts"}} {
		if got := ix.FindRulesByImportWithConfig(c, spec, spec.Lang); len(got) > 0 {
			t.Errorf("%v found %v", spec, got)
		}
	}
}
