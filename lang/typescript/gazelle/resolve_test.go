package gazelle_test

import (
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/resolve"

	"github.com/chobo-lang/chobo/gazelle"
	"github.com/chobo-lang/chobo/gazelle/gazelletest"
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
	lang := gazelle.NewLanguage()
	c := config.New()
	ix, files := gazelletest.Index(t, c, lang, nil, map[string]string{"ledger": build})
	for _, f := range files {
		for _, r := range f.Rules {
			if got := lang.Imports(c, r, f); got != nil {
				t.Errorf("%s: imports %v, want none", r.Name(), got)
			}
		}
	}
	for _, spec := range []resolve.ImportSpec{{Lang: "js", Imp: "ledger/ts_srcs/b"}, {Lang: "go", Imp: "x/ts"}} {
		if got := gazelletest.Find(c, ix, spec, spec.Lang); len(got) > 0 {
			t.Errorf("%v found %v", spec, got)
		}
	}
}
