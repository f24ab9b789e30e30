package gazelle

import (
	"path"
	"strings"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	golang "github.com/bazelbuild/bazel-gazelle/language/go"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"

	"github.com/chobo-lang/chobo/gazelle/clientlang"
	"github.com/chobo-lang/chobo/gazelle/registry"
)

// clientLanguage is what Gazelle knows of the clients of one language of
// the registry (clientTargets' language): what it writes on the rule, and
// how a program of another Gazelle language finds the client by its
// import. The rest of the package asks this table and never names a
// language, so a language is one row: here for the languages not yet in a
// folder of their own, and, for one of lang/<language>, the row that its
// gazelle package gives (gazelle/registry), which folded adds.
type clientLanguage struct {
	// importLang is the name of the Gazelle language whose programs
	// import these clients, which is also the Lang of the import specs
	// the clients are indexed under; "" when no Gazelle language that
	// this one can work beside resolves them (see docs/bazel.md).
	importLang string
	// importOf is the import the client r of the BUILD file f is found
	// by, "" when it cannot be told from f.
	importOf func(r *rule.Rule, f *rule.File) string
	// setAttrs sets on the client r of book b for target t the
	// attributes the language needs besides book and target; c and rel
	// are the directory's configuration and path.
	setAttrs func(r *rule.Rule, c *config.Config, rel string, b book, t clientTarget)
	// builtin answers an import of importLang that no client provides
	// but that the clients' own code makes programs write (chobo's
	// runtime), or nil.
	builtin func(c *config.Config, imp string) []resolve.FindResult
}

// clientLanguages has a row per language of clientTargets; a test holds
// the two together.
var clientLanguages = map[string]clientLanguage{
	// chobo_client makes a go_library with the importpath Gazelle writes.
	"go": {
		importLang: goGazelleLang,
		importOf:   func(r *rule.Rule, _ *rule.File) string { return r.AttrString("importpath") },
		setAttrs:   setGoAttrs,
		builtin:    goBuiltin,
	},
}

// The languages of lang/ join clientTargets and clientLanguages as the
// package starts: their rows are data of their own packages, which a
// literal here cannot name.
func init() {
	for _, l := range registry.Folders {
		for name, short := range l.Targets {
			clientTargets[name] = clientTarget{short: short, language: l.Name}
		}
		clientLanguages[l.Name] = folded(l)
	}
}

// folded is the row of a language of lang/.
func folded(l clientlang.Language) clientLanguage {
	row := clientLanguage{importLang: l.ImportLang}
	if l.ImportOf != nil {
		row.importOf = func(r *rule.Rule, f *rule.File) string {
			return l.ImportOf(r.AttrString("out"), bookFileOf(r, f))
		}
	}
	return row
}

// bookFileOf is the file name of the .book file of the client r's book,
// "" unless its chobo_book is a rule of f.
func bookFileOf(r *rule.Rule, f *rule.File) string {
	target, local := localTarget(r.AttrString("book"))
	if !local || f == nil {
		return ""
	}
	for _, b := range f.Rules {
		if b.Kind() == bookKind && b.Name() == target {
			src := b.AttrString("src")
			return src[strings.LastIndexAny(src, ":/")+1:]
		}
	}
	return ""
}

// languageOf is the row of client target t, false for a target Gazelle
// does not know.
func languageOf(t string) (clientLanguage, bool) {
	ct, ok := clientTargets[t]
	if !ok {
		return clientLanguage{}, false
	}
	l, ok := clientLanguages[ct.language]
	return l, ok
}

// languageImportedBy is the row whose clients programs of the Gazelle
// language lang import.
func languageImportedBy(lang string) (clientLanguage, bool) {
	if lang == "" {
		return clientLanguage{}, false
	}
	for _, l := range clientLanguages {
		if l.importLang == lang {
			return l, true
		}
	}
	return clientLanguage{}, false
}

// goGazelleLang is the name of Gazelle's Go language, whose import path
// for a directory the Go clients' import paths follow.
const goGazelleLang = "go"

// setGoAttrs gives a Go client its import path, <base>/<book><suffix>,
// and the package name of the book when the path's last element would
// make another.
func setGoAttrs(r *rule.Rule, c *config.Config, rel string, b book, t clientTarget) {
	imp := path.Join(baseImportPath(c, rel), b.name+t.importSuffix)
	r.SetAttr("importpath", imp)
	if pkg := goPackage(b.name); pkg != goPackage(imp) {
		r.SetAttr("package", pkg)
	}
}

// baseImportPath is the import path of the directory rel, under which
// its Go clients are placed: from chobo_importpath when set above rel,
// else the Go language's (the prefix and the directory), else rel itself.
func baseImportPath(c *config.Config, rel string) string {
	cc := getConfig(c)
	if cc.importPathSet {
		return joinBelow(cc.importPath, cc.importPathRel, rel)
	}
	if _, ok := c.Exts[goGazelleLang]; ok {
		return golang.InferImportPath(c, rel)
	}
	return rel
}

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

// goBuiltin resolves an import of chobo's Go runtime, outside chobo's
// own repository, to the runtime's package in the chobo module, and one
// of TigerBeetle's official client to chobo's build of it.
func goBuiltin(c *config.Config, imp string) []resolve.FindResult {
	repo := apparentRepo(c.ModuleToApparentName)
	if c.RepoName == repo {
		repo = ""
	}
	if imp == runtimePrefix || strings.HasPrefix(imp, runtimePrefix+"/") {
		pkg := "runtime/go" + strings.TrimPrefix(imp, runtimePrefix)
		return []resolve.FindResult{{Label: label.New(repo, pkg, pkg[strings.LastIndex(pkg, "/")+1:])}}
	}
	if imp == officialTigerBeetle {
		return []resolve.FindResult{{Label: label.New(repo, officialTigerBeetlePkg, officialTigerBeetleLabel)}}
	}
	return nil
}
