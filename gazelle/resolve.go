package gazelle

import (
	"strings"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	"github.com/bazelbuild/bazel-gazelle/repo"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

// goLang is the name of Gazelle's Go language, and of the import specs
// of Go packages.
const goLang = "go"

// runtimePrefix is the import path of chobo's Go runtime, which generated
// clients and the programs using them import.
const runtimePrefix = "github.com/chobo-lang/chobo/runtime/go"

// officialTigerBeetle is the import path of TigerBeetle's official Go
// client, which a program hands to a tigerbeetle-go book's TigerBeetle.
// It resolves to chobo's build of it (officialTigerBeetleLabel in the
// chobo module), which links the client's native library; the build
// go_deps would make of the module does not.
const (
	officialTigerBeetle      = "github.com/tigerbeetle/tigerbeetle-go"
	officialTigerBeetlePkg   = "runtime/go/chobotb/tbgo"
	officialTigerBeetleLabel = "tigerbeetle-go"
)

// Imports indexes each chobo_client by its Go import path, as a Go import
// spec: chobo_client makes a go_library of the same name with that import
// path. Other chobo rules are not imported by Go code and are not indexed.
func (*choboLang) Imports(c *config.Config, r *rule.Rule, f *rule.File) []resolve.ImportSpec {
	if r.Kind() != clientKind {
		return nil
	}
	if clientTargets[clientTargetOf(r)].language != goLang {
		return nil
	}
	imp := r.AttrString("importpath")
	if imp == "" {
		return nil
	}
	return []resolve.ImportSpec{{Lang: goLang, Imp: imp}}
}

func (*choboLang) Embeds(r *rule.Rule, from label.Label) []label.Label { return nil }

// Resolve has nothing to do: the rules this language writes name their
// book and clients by labels of their own package.
func (*choboLang) Resolve(c *config.Config, ix *resolve.RuleIndex, rc *repo.RemoteCache, r *rule.Rule, imports interface{}, from label.Label) {
}

// CrossResolve answers the Go language's questions about imports that
// no Go rule provides. The index records a chobo_client under this
// language, so the Go resolver's own lookup (for Go rules) misses it;
// here a Go import of a client's import path finds the chobo_client.
// An import of chobo's Go runtime, outside chobo's own repository,
// resolves to the runtime's package in the chobo module, and one of
// TigerBeetle's official client to chobo's build of it.
func (*choboLang) CrossResolve(c *config.Config, ix *resolve.RuleIndex, imp resolve.ImportSpec, lang string) []resolve.FindResult {
	if lang != goLang || imp.Lang != goLang {
		return nil
	}
	if found := ix.FindRulesByImport(imp, languageName); len(found) > 0 {
		return found
	}
	repo := apparentRepo(c.ModuleToApparentName)
	if c.RepoName == repo {
		repo = ""
	}
	if imp.Imp == runtimePrefix || strings.HasPrefix(imp.Imp, runtimePrefix+"/") {
		pkg := "runtime/go" + strings.TrimPrefix(imp.Imp, runtimePrefix)
		return []resolve.FindResult{{Label: label.New(repo, pkg, pkg[strings.LastIndex(pkg, "/")+1:])}}
	}
	if imp.Imp == officialTigerBeetle {
		return []resolve.FindResult{{Label: label.New(repo, officialTigerBeetlePkg, officialTigerBeetleLabel)}}
	}
	return nil
}
