package gazelle

import (
	"path"
	"strings"
	"unicode"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	golang "github.com/bazelbuild/bazel-gazelle/language/go"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

// clientLanguage is what Gazelle knows of the clients of one language of
// the registry (clientTargets' language): what it writes on the rule, and
// how a program of another Gazelle language finds the client by its
// import. The rest of the package asks this table and never names a
// language, so a language is one row.
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
	// The library is the .ts file itself, a source of the user's own
	// rule; no Gazelle language that can run beside this one here
	// resolves it (docs/bazel.md, "Gazelle").
	"typescript": {},
	// chobo_client makes a py_library whose one module is imported by
	// its file name; rules_python's Gazelle language is "py".
	"python": {
		importLang: "py",
		importOf:   pythonModuleOf,
	},
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

// pythonModuleOf is the name a Python program imports the client r by:
// chobo_client writes one module named by its out, else after the .book
// file up to its first dot (stock.book, stock.v2.book: stock), so the
// book's chobo_book must be in f to be read. A name Python could not
// import (a file name that is no identifier) is "".
func pythonModuleOf(r *rule.Rule, f *rule.File) string {
	var name string
	if out := r.AttrString("out"); out != "" {
		// An out in a folder of its own ("sub/stock.py") is not on the
		// path chobo_client's library adds; no identifier has a slash.
		name = strings.TrimSuffix(out, ".py")
	} else {
		target, local := localTarget(r.AttrString("book"))
		if !local || f == nil {
			return ""
		}
		for _, b := range f.Rules {
			if b.Kind() == bookKind && b.Name() == target {
				src := b.AttrString("src")
				src = src[strings.LastIndexAny(src, ":/")+1:]
				if !strings.HasSuffix(src, bookExt) {
					return ""
				}
				name, _, _ = strings.Cut(strings.TrimSuffix(src, bookExt), ".")
				break
			}
		}
	}
	if !isPythonIdentifier(name) {
		return ""
	}
	return name
}

// pythonKeywords cannot be imported, though they are identifiers.
var pythonKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true,
	"def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true,
	"not": true, "or": true, "pass": true, "raise": true, "return": true,
	"try": true, "while": true, "with": true, "yield": true,
}

// isPythonIdentifier reports whether s can follow `import`.
func isPythonIdentifier(s string) bool {
	if s == "" || pythonKeywords[s] {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}
