package gazelle

import (
	"log"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/language"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

// Files found next to a book by convention, <stem> being its file name
// without .book.
const (
	// The `chobo api` JSON of the deployed version: the chobo_book's baseline.
	baselineSuffix = ".deployed.api.json"
)

// scenarioSuffixes name the hand-written scenario files of a book, which
// its chobo_conformance_test runs besides the generated ones.
var scenarioSuffixes = []string{docScenarioSuffix, ".scenarios.json"}

// docScenarioSuffix names the scenario file the team writes by hand
// beside a book, which its pages show too.
const docScenarioSuffix = ".more.json"

// versionRE is the name of a file that holds another version of a book:
// <stem>.v<N>.book, beside <stem>.book.
var versionRE = regexp.MustCompile(`^(.+)\.v[0-9]+\` + bookExt + `$`)

// versionOf is the stem of the book whose version f holds, when f is
// named as a version (versionRE) and that book is among files; else "".
// A scenario's deploy step names such a file, which the book's
// conformance test is given (versions) rather than made a book of its
// own.
func versionOf(f string, files map[string]bool) string {
	m := versionRE.FindStringSubmatch(f)
	if m == nil || !files[m[1]+bookExt] {
		return ""
	}
	return m[1]
}

// soleConformanceName is the name of the conformance test of a directory
// that holds one book; with more, each is <book>_conformance.
const soleConformanceName = "conformance"

// book is one .book file of a directory, the names of its targets and
// the language of its pages.
type book struct {
	file, stem, name, lang string
}

// GenerateRules writes, for every .book file of the directory, a
// chobo_book, a chobo_sql, one chobo_client per configured client target,
// one chobo_doc per configured page format and (unless turned off) a
// chobo_conformance_test; and empty rules for the chobo targets of books
// that are gone, so that Gazelle deletes them.
func (*choboLang) GenerateRules(args language.GenerateArgs) language.GenerateResult {
	var res language.GenerateResult
	cc := getConfig(args.Config)
	if !cc.enabled {
		return res
	}
	files := map[string]bool{}
	for _, f := range args.RegularFiles {
		files[f] = true
	}
	books := findBooks(args.Dir, args.RegularFiles, files)
	for _, b := range books {
		for _, r := range bookRules(b, cc, args.Config, args.Rel, files, len(books) == 1) {
			res.Gen = append(res.Gen, r)
			res.Imports = append(res.Imports, nil)
		}
	}
	res.Empty = emptyRules(args.File, res.Gen, books, cc, files)
	return res
}

// findBooks lists the books among a directory's files, sorted by file
// name. A book whose name another book already took is left out, with a
// message. Each book is read up to its `book` line, for the language of
// its pages and, when its file name is not ASCII, for its target name.
func findBooks(dir string, regularFiles []string, files map[string]bool) []book {
	var names []string
	for _, f := range regularFiles {
		if strings.HasSuffix(f, bookExt) && len(f) > len(bookExt) && versionOf(f, files) == "" {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	taken := map[string]string{}
	var out []book
	for _, f := range names {
		stem := strings.TrimSuffix(f, bookExt)
		declared := readDeclaredName(filepath.Join(dir, f))
		name := bookName(f, declared)
		if !isASCII(f) {
			log.Print(renameWarning(dir, f, name, declared, files))
		}
		if other, ok := taken[name]; ok {
			log.Printf("%s: chobo: %s and %s both make targets named %s; %s gets none (rename one)", dir, other, f, name, f)
			continue
		}
		taken[name] = f
		out = append(out, book{file: f, stem: stem, name: name, lang: bookLang(f, declared)})
	}
	return out
}

// conformanceName is the name of b's conformance test.
func conformanceName(b book, sole bool) string {
	if sole && b.name != soleConformanceName {
		return soleConformanceName
	}
	return b.name + "_conformance"
}

// clientName is the name of b's client for target t.
func clientName(b book, t string) string {
	return b.name + "_" + clientTargets[t].short + "_client"
}

// docName is the name of the page in format f of the book named book.
func docName(book, f string) string {
	if short := docFormats[f].short; short != "" {
		return book + "_" + short + "_doc"
	}
	return book + "_doc"
}

// bookRules are the targets of one book.
func bookRules(b book, cc *choboConfig, c *config.Config, rel string, files map[string]bool, sole bool) []*rule.Rule {
	bk := rule.NewRule(bookKind, b.name)
	bk.SetAttr("src", str(b.file))
	if f := b.stem + baselineSuffix; files[f] {
		bk.SetAttr("baseline", str(f))
	}
	out := []*rule.Rule{bk}

	sql := rule.NewRule(sqlKind, b.name+"_sql")
	sql.SetAttr("book", ":"+b.name)
	out = append(out, sql)

	var clients []string
	for _, t := range cc.clients {
		cl := rule.NewRule(clientKind, clientName(b, t))
		cl.SetAttr("book", ":"+b.name)
		if l, ok := languageOf(t); ok && l.setAttrs != nil {
			l.setAttrs(cl, c, rel, b, t)
		}
		cl.SetAttr("target", t)
		cl.SetAttr("visibility", []string{"//visibility:public"})
		out = append(out, cl)
		clients = append(clients, ":"+cl.Name())
	}

	for _, f := range cc.docs {
		d := rule.NewRule(docKind, docName(b.name, f))
		d.SetAttr("book", ":"+b.name)
		d.SetAttr("format", f)
		if l := b.lang; l != defaultLang {
			d.SetAttr("lang", l)
		}
		// The page shows the team's scenarios, not a list that chobo
		// scenarios wrote: those are on it already.
		if f := b.stem + docScenarioSuffix; files[f] {
			d.SetAttr("scenarios", strList([]string{f}))
		}
		out = append(out, d)
	}

	if cc.conformance {
		t := rule.NewRule(conformanceKind, conformanceName(b, sole))
		t.SetAttr("book", ":"+b.name)
		if len(clients) > 0 {
			t.SetAttr("clients", clients)
		}
		var scenarios []string
		for _, s := range scenarioSuffixes {
			if f := b.stem + s; files[f] {
				scenarios = append(scenarios, f)
			}
		}
		sort.Strings(scenarios)
		if len(scenarios) > 0 {
			t.SetAttr("scenarios", strList(scenarios))
		}
		var versions []string
		for f := range files {
			if versionOf(f, files) == b.stem {
				versions = append(versions, f)
			}
		}
		sort.Strings(versions)
		if len(versions) > 0 {
			t.SetAttr("versions", strList(versions))
		}
		out = append(out, t)
	}
	return out
}

// emptyRules are the chobo rules of f that Gazelle wrote for a book and
// would not write now: the targets of a book that was renamed or deleted,
// a client whose target the directives no longer name, a page of a format
// they no longer name, a conformance test turned off. Gazelle merges each
// with the rule of the same name and deletes what is left empty. Rules a
// user added (another chobo_book of a book that is there, a client or a
// page under another name) are not among them.
func emptyRules(f *rule.File, gen []*rule.Rule, books []book, cc *choboConfig, files map[string]bool) []*rule.Rule {
	if f == nil {
		return nil
	}
	generated := map[string]bool{}
	for _, r := range gen {
		generated[r.Kind()+" "+r.Name()] = true
	}
	w := wantedOf(f, books, cc, files)
	var empty []*rule.Rule
	for _, r := range f.Rules {
		if _, ok := choboKinds[r.Kind()]; !ok || generated[r.Kind()+" "+r.Name()] {
			continue
		}
		if w.gone(r) {
			empty = append(empty, rule.NewRule(r.Kind(), r.Name()))
		}
	}
	return empty
}

// wanted is what the directives and the package's files ask Gazelle for
// now, against which an old rule is judged.
type wanted struct {
	files   map[string]bool // the package's files
	alive   map[string]bool // book targets, by name
	clients map[string]bool // client targets the directives name
	docs    map[string]bool // page formats the directives name
	cc      *choboConfig
}

func wantedOf(f *rule.File, books []book, cc *choboConfig, files map[string]bool) wanted {
	w := wanted{files: files, alive: map[string]bool{}, clients: map[string]bool{}, docs: map[string]bool{}, cc: cc}
	// A book target is alive when it is written now or when its source is
	// there (a hand-written one).
	for _, b := range books {
		w.alive[b.name] = true
	}
	for _, r := range f.Rules {
		if r.Kind() == bookKind && files[r.AttrString("src")] {
			w.alive[r.Name()] = true
		}
	}
	for _, t := range cc.clients {
		w.clients[t] = true
	}
	for _, d := range cc.docs {
		w.docs[d] = true
	}
	return w
}

// gone reports whether r is a rule Gazelle wrote that it would not write
// now. Rules of a book of another package are never gone.
func (w wanted) gone(r *rule.Rule) bool {
	if r.Kind() == bookKind {
		src := r.AttrString("src")
		return isLocalFile(src) && strings.HasSuffix(src, bookExt) && !w.files[src]
	}
	target, local := localTarget(r.AttrString("book"))
	switch {
	case !local:
		return false
	case !w.alive[target]:
		return true
	case r.Kind() == clientKind:
		// A client Gazelle named (<book>_<short>_client) for a target it
		// no longer writes.
		t := clientTargetOf(r)
		ct, known := clientTargets[t]
		return known && !w.clients[t] && r.Name() == target+"_"+ct.short+"_client"
	case r.Kind() == docKind:
		// A page Gazelle named (<book>_doc, <book>_html_doc) in a format
		// it no longer writes.
		f := r.AttrString("format")
		if f == "" {
			f = "markdown"
		}
		_, known := docFormats[f]
		return known && !w.docs[f] && r.Name() == docName(target, f)
	case r.Kind() == conformanceKind:
		return !w.cc.conformance && (r.Name() == soleConformanceName || r.Name() == target+"_conformance")
	}
	return false
}

// isLocalFile reports whether a src attribute names a file of the
// package itself by a plain relative path.
func isLocalFile(src string) bool {
	return src != "" && !strings.ContainsAny(src, ":@") && !strings.HasPrefix(src, "//")
}

// localTarget returns the target name of a label of the same package
// (":x" or "x"), and false for any other label.
func localTarget(l string) (string, bool) {
	if l == "" || strings.HasPrefix(l, "@") || strings.HasPrefix(l, "//") {
		return "", false
	}
	return strings.TrimPrefix(l, ":"), true
}
