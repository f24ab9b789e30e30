package chobo_test

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// depsRules says, for every package of chobo and of the Go runtime, which
// packages of this module it may import, in the order of the pipeline.
// It is the architecture written down where a test can hold it: an import
// the table does not allow fails, and so does a package the table does
// not name, so that a new package is placed on purpose.
//
// A line is a package and what it may import. A name is a folder under
// chobo/, except those starting with runtime/, tests/, gazelle/ or lang/,
// which are folders of the module root. "x/..." is x and every folder below it;
// on the left, the longest name that matches a package is its rule. A
// folder named "*" is any one folder: lang/* is every language's folder
// (lang/<language>), and a "*" in what such a line allows is that same
// language, so that one line places every language's package of that
// kind and no language reaches into another's. "*" alone
// is every package of chobo/ and runtime/ (not tests/..., gazelle/... or lang/...),
// "!x" takes x back out of what comes before it, and "-" is nothing. Only
// the imports of a package's own files count, not those of its tests.
const depsRules = `
# The leaves: they import nothing of chobo, so every layer may use them.
diag              -
ids               -
secrets           -
version           -

# The front end, in pipeline order. Nothing here knows a backend, a
# client language or the command line.
syntax            diag
# The model has its own Pos and Tax, so that a generator, which reads
# only the model, never depends on the parser.
book              -
resolve           syntax book diag
interp            book diag
search            syntax book diag interp
report            book diag search
scenario          syntax book diag interp search
scenario/gen      syntax book diag interp search scenario
analysis          book diag interp search
check             syntax resolve book diag secrets interp search report analysis
# Books for the tests and benchmarks of time: text alone.
check/checktest   -
codes             diag

# What chobo build writes. A generator reads the book model and the
# client model, never the syntax tree, the interpreter, the scenario
# runner, the search or the checker.
gen               book diag version
backend/...       book ids diag gen version client/model runtime/go/chobotb
# The client model is where the backends meet the languages: it alone
# reads a backend, so that a language generator reads the model only and
# a new language never learns a backend's internals.
client/model      book ids backend/... runtime/go/chobotb
client/lit        runtime/go/chobotb
client/...        book ids diag gen version client client/model client/lit
target            book diag codes gen backend/... client/... lang/*

# Scenarios shown in a backend's terms and run against what was built.
show              book diag ids interp scenario backend/... client/model runtime/go/...
conformance/pgtest    -
conformance/tbtest    ids runtime/go/chobotb/...
conformance/protocol  -
# What a client language provides to be driven: the runner and the tests
# name it, each language's driver implements it, and it names nothing.
conformance/driverkit -
# The runner opens a driver with the names chobo api gives its client,
# so the conformance packages come after api, which must not know them.
conformance/...       book diag ids version interp scenario search check evolve show gen backend/... client/... target api conformance/... runtime/go/...

# The JSON shapes, the command line and the binary. The comparison with
# the deployed version reads that version back from the JSON of chobo
# api as well as from a book, so it comes after api; the checker does
# not know it, the command line puts the two together.
api               * !cli !cmd/... !evolve !conformance/...
evolve            syntax resolve book diag api
# The page for people who run the ledger: what api says, the scenarios
# traced on the interpreter, drawn by its own SVG package.
doc/draw          -
doc               syntax book diag interp search report scenario api doc/draw
cli               * !cmd/...
cmd/...           cli

# The Go client runtime: generated code imports it, so it stands alone,
# but for the ID scheme, which every backend and language shares. It is
# not in lang/go because the compiler itself imports it (backend/...,
# show, the conformance packages) and users' programs import it by this
# path.
runtime/go/...    runtime/go/... ids
# The list of every language's kit, which the runner and the tests range
# over.
runtime/driverkits         conformance/driverkit lang/*/driver

# A client language's folder, lang/<language>. Its root package is the
# generator, which stands where client/... does; runtime/ carries the
# sources of the runtime that it writes into each client; driver/ is the
# language's driver kit, linked by the runner and the tests only;
# gazelle/ is what chobo's Gazelle language knows of its clients, and
# runs inside a user's gazelle_binary, so it links nothing of chobo but
# the shape of what a language tells Gazelle (gazelle/clientlang).
lang/*            book ids diag gen version client client/model client/lit lang/*/runtime
lang/*/runtime    -
lang/*/driver     conformance/driverkit
lang/*/gazelle    gazelle/clientlang
# The Go driver calls the client it has compiled in by the names the
# protocol hands it, reading the history reads' answers as the Go
# runtime's types, which stays in runtime/go (see above); it reaches
# TigerBeetle through the wire, and asks its generator for the names.
lang/go/driver             runtime/go/chobo runtime/go/chobotb ids lang/go conformance/protocol conformance/tbwire conformance/driverkit
lang/go/driver/drivermain  lang/go/driver

# The Gazelle language: it writes BUILD files from file names and a book's
# first line, and runs inside a user's gazelle_binary, so it links none of
# the compiler; what it knows of a language of lang/ is that language's
# gazelle package, of the shape gazelle/clientlang says, which
# gazelle/registry lists.
gazelle/...        gazelle/clientlang gazelle/registry lang/*/gazelle
gazelle/clientlang -
`

// rule is one line of depsRules, its names made module-relative.
type rule struct {
	pkg   string
	allow []string
}

func parseRules(t *testing.T) []rule {
	t.Helper()
	var out []rule
	for i, line := range strings.Split(depsRules, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 2 {
			t.Fatalf("depsRules line %d: %q names no imports; write - for none", i, line)
		}
		r := rule{pkg: rooted(f[0])}
		for _, name := range f[1:] {
			switch {
			case name == "-" || name == "*":
				r.allow = append(r.allow, name)
			case strings.HasPrefix(name, "!"):
				r.allow = append(r.allow, "!"+rooted(name[1:]))
			default:
				r.allow = append(r.allow, rooted(name))
			}
		}
		out = append(out, r)
	}
	return out
}

// rooted turns a name of the table into a path from the module root.
func rooted(name string) string {
	for _, top := range []string{"runtime", "tests", "gazelle", "lang"} {
		if name == top || strings.HasPrefix(name, top+"/") {
			return name
		}
	}
	return "chobo/" + name
}

// matches reports whether pattern (a path or "x/...", whose folders
// may be "*") covers pkg, and how closely: the length of what it names,
// 0 for no match.
func matches(pattern, pkg string) int {
	base, below := strings.CutSuffix(pattern, "/...")
	want, have := strings.Split(base, "/"), strings.Split(pkg, "/")
	if len(have) < len(want) || !below && len(have) != len(want) {
		return 0
	}
	for i, w := range want {
		if w != "*" && w != have[i] {
			return 0
		}
	}
	if !below {
		return len(pattern) + 1 // a name beats a pattern of the same folder
	}
	return len(base)
}

// bind writes into r's list the folder that a "*" of r's name matched in
// pkg, so that lang/*/runtime allowed to lang/* is the same language's.
func (r rule) bind(pkg string) rule {
	name, have := strings.Split(strings.TrimSuffix(r.pkg, "/..."), "/"), strings.Split(pkg, "/")
	star := ""
	for i, n := range name {
		if n == "*" {
			star = have[i]
		}
	}
	if star == "" {
		return r
	}
	out := rule{pkg: r.pkg}
	for _, a := range r.allow {
		out.allow = append(out.allow, strings.ReplaceAll(a, "/*/", "/"+star+"/"))
	}
	return out
}

// ruleFor returns the rule of pkg: the one whose name matches it best.
func ruleFor(rules []rule, pkg string) (rule, bool) {
	best, score := rule{}, 0
	for _, r := range rules {
		if s := matches(r.pkg, pkg); s > score {
			best, score = r, s
		}
	}
	return best.bind(pkg), score > 0
}

// covered reports whether pkg is one of the packages the table speaks of,
// which is what "*" stands for.
func covered(pkg string) bool {
	return strings.HasPrefix(pkg, "chobo/") || strings.HasPrefix(pkg, "runtime/")
}

// allows reads r's list from left to right, so that a "!x" after "*"
// takes x back.
func (r rule) allows(imp string) bool {
	ok := false
	for _, a := range r.allow {
		switch {
		case a == "*":
			ok = covered(imp)
		case strings.HasPrefix(a, "!"):
			if matches(a[1:], imp) > 0 {
				ok = false
			}
		case matches(a, imp) > 0:
			ok = true
		}
	}
	return ok
}

// modulePackages reads every package under chobo/, runtime/, gazelle/ and lang/ and the
// module-internal imports of its own files, by module-relative path.
func modulePackages(t *testing.T, root, module string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	for _, top := range []string{"chobo", "runtime", "gazelle", "lang"} {
		if _, err := os.Stat(filepath.Join(root, top)); errors.Is(err, fs.ErrNotExist) {
			continue // runtime/ may not exist yet
		}
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			p, err := build.Default.ImportDir(path, 0)
			var none *build.NoGoError
			if errors.As(err, &none) || (err == nil && len(p.GoFiles)+len(p.CgoFiles) == 0) {
				return nil // no package, or only tests (like this one)
			}
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			var imports []string
			for _, imp := range p.Imports {
				if in, ok := strings.CutPrefix(imp, module+"/"); ok {
					imports = append(imports, in)
				}
			}
			pkgs[filepath.ToSlash(rel)] = imports
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return pkgs
}

// modulePath reads the module line of a go.mod; the module may not
// depend on golang.org/x/mod for one line.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

func TestDependencies(t *testing.T) {
	root := ".."
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := modulePath(gomod)
	if module == "" {
		t.Fatal("go.mod names no module")
	}
	rules := parseRules(t)
	pkgs := modulePackages(t, root, module)
	if len(pkgs) == 0 {
		t.Fatal("found no packages under chobo/")
	}
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, pkg := range names {
		r, ok := ruleFor(rules, pkg)
		if !ok {
			t.Errorf("%s is not in the table of chobo/deps_test.go: add a line saying what it may import", pkg)
			continue
		}
		for _, imp := range pkgs[pkg] {
			if !r.allows(imp) {
				t.Errorf("%s imports %s, which its line in chobo/deps_test.go (%s) does not allow", pkg, imp, r.pkg)
			}
		}
	}
}

// The notation itself, on cases that the real tree may not have yet.
func TestDependencyRules(t *testing.T) {
	rules := parseRules(t)
	for _, tc := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"chobo/backend/tigerbeetle", "chobo/book", true},
		{"chobo/backend/postgres", "chobo/syntax", false},
		{"chobo/backend/postgres", "chobo/interp", false},
		{"lang/go", "chobo/client/model", true},
		{"lang/go", "chobo/scenario", false},
		{"chobo/client/model", "chobo/backend/postgres", true},
		{"chobo/client/model", "chobo/diag", false},
		{"lang/go", "chobo/backend/tigerbeetle", false},
		{"lang/newt", "runtime/go/chobotb", false},
		{"lang/newt", "lang/newt/runtime", true},
		{"chobo/client/lit", "chobo/client/model", false},
		{"chobo/api", "chobo/scenario", true},
		{"chobo/api", "chobo/cli", false},
		{"chobo/cli", "chobo/api", true},
		{"chobo/cli", "chobo/cmd/chobo", false},
		{"chobo/cli", "tests/golden", false},
		{"chobo/conformance", "tests/golden", false},
		{"chobo/conformance", "chobo/conformance/pgtest", true},
		{"lang/go/driver", "chobo/conformance", false},
		{"lang/go/driver", "chobo/check", false},
		{"lang/go/driver", "chobo/conformance/protocol", true},
		{"lang/go/driver/drivermain", "lang/go/driver", true},
		{"runtime/go/chobopg", "lang/go/driver", false},
		{"chobo/conformance", "lang/go/driver", false},
		{"lang/newt/runtime", "lang/newt/driver", false},
		{"lang/snake/driver", "chobo/conformance/driverkit", true},
		{"lang/snake", "lang/snake/runtime", true},
		{"lang/snake", "lang/other/runtime", false},
		{"lang/snake", "lang/snake/driver", false},
		{"lang/snake", "chobo/client/model", true},
		{"lang/snake", "chobo/scenario", false},
		{"lang/snake/runtime", "chobo/diag", false},
		{"lang/snake/gazelle", "chobo/book", false},
		{"gazelle/registry", "lang/snake/gazelle", true},
		{"lang/snake/gazelle", "gazelle/clientlang", true},
		{"lang/snake/gazelle", "gazelle", false},
		{"gazelle/clientlang", "lang/snake/gazelle", false},
		{"gazelle", "lang/snake", false},
		{"chobo/target", "lang/snake", true},
		{"chobo/target", "lang/snake/driver", false},
		{"chobo/conformance/driverkit", "chobo/conformance/protocol", false},
		{"runtime/driverkits", "lang/snake/driver", true},
		{"runtime/driverkits", "lang/snake", false},
		{"runtime/driverkits", "chobo/check", false},
		{"chobo/conformance", "runtime/driverkits", false},
		{"lang/newt", "lang/newt/driver", false},
		{"chobo/conformance/pgtest", "chobo/book", false},
		{"runtime/go/chobopg", "runtime/go/chobo", true},
		{"runtime/go/chobo", "chobo/book", false},
		{"runtime/go/chobotb", "chobo/ids", true},
		{"runtime/go/chobotb/tbgo", "runtime/go/chobotb", true},
		{"runtime/go/chobotb", "chobo/conformance/tbtest", false},
		{"chobo/conformance/tbtest", "runtime/go/chobotb/tbgo", true},
		{"chobo/conformance/tbtest", "chobo/book", false},
		{"chobo/diag", "chobo/syntax", false},
		{"chobo/api", "chobo/evolve", false},
		{"chobo/evolve", "chobo/check", false},
		{"chobo/evolve", "chobo/api", true},
		{"gazelle", "chobo/syntax", false},
		{"gazelle", "runtime/go/chobo", false},
		{"chobo/cli", "gazelle", false},
	} {
		r, found := ruleFor(rules, tc.pkg)
		if !found {
			t.Errorf("%s: no rule", tc.pkg)
			continue
		}
		if got := r.allows(tc.imp); got != tc.ok {
			t.Errorf("%s importing %s: allowed %v, want %v (rule %s %v)", tc.pkg, tc.imp, got, tc.ok, r.pkg, r.allow)
		}
	}
	if _, ok := ruleFor(rules, "chobo/newthing"); ok {
		t.Error("chobo/newthing has a rule; a package nobody placed must have none")
	}
}
