package gazelle

import (
	"sort"
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
// language, so a language is one row: the one its folder's gazelle
// package gives (lang/<language>/gazelle, listed in gazelle/registry),
// which folded makes.
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
	setAttrs func(r *rule.Rule, c *config.Config, rel string, b book, t string)
	// builtin answers an import of importLang that no client provides
	// but that the clients' own code makes programs write (chobo's
	// runtime), or nil.
	builtin func(c *config.Config, imp string) []resolve.FindResult
}

// clientTargets and clientLanguages are the client targets and the rows
// of the languages of the registry, whose rows are data of their own
// packages; a test holds the two together.
var clientTargets, clientLanguages = fromRegistry()

func fromRegistry() (map[string]clientTarget, map[string]clientLanguage) {
	targets, langs := map[string]clientTarget{}, map[string]clientLanguage{}
	for _, l := range registry.Folders {
		for name, short := range l.Targets {
			targets[name] = clientTarget{short: short, language: l.Name}
		}
		langs[l.Name] = folded(l)
	}
	return targets, langs
}

// folded is the row of a language of lang/.
func folded(l clientlang.Language) clientLanguage {
	row := clientLanguage{importLang: l.ImportLang}
	switch {
	case l.ImportAttr != "":
		row.importOf = func(r *rule.Rule, _ *rule.File) string { return r.AttrString(l.ImportAttr) }
	case l.ImportOf != nil:
		row.importOf = func(r *rule.Rule, f *rule.File) string {
			return l.ImportOf(r.AttrString("out"), bookFileOf(r, f))
		}
	}
	if l.Attrs != nil {
		row.setAttrs = func(r *rule.Rule, c *config.Config, rel string, b book, t string) {
			attrs := l.Attrs(baseImportPath(c, rel), b.name, t)
			names := make([]string, 0, len(attrs))
			for name := range attrs {
				names = append(names, name)
			}
			sort.Strings(names) // a BUILD file's bytes follow no map's order
			for _, name := range names {
				r.SetAttr(name, attrs[name])
			}
		}
	}
	if l.Builtin != nil {
		row.builtin = func(c *config.Config, imp string) []resolve.FindResult {
			pkg, name, ok := l.Builtin(imp)
			if !ok {
				return nil
			}
			repo := apparentRepo(c.ModuleToApparentName)
			if c.RepoName == repo {
				repo = "" // in chobo's own repository the package is local
			}
			return []resolve.FindResult{{Label: label.New(repo, pkg, name)}}
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

// goGazelleLang is the name of Gazelle's own Go language, whose import
// path for a directory is the base of the import paths a language's
// Attrs write (a Go client's).
const goGazelleLang = "go"

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
