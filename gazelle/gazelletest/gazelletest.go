// Package gazelletest runs Gazelle in a test, as gazelle_binary runs
// it, on a copy of a repository laid out as Gazelle's own generation
// tests lay one out, and holds the BUILD files it writes to goldens. It
// takes the languages to run, so that chobo's Gazelle language and the
// Gazelle part of each client language (lang/<language>/gazelle) test
// with it alike.
package gazelletest

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	"github.com/bazelbuild/bazel-gazelle/language"
	golang "github.com/bazelbuild/bazel-gazelle/language/go"
	"github.com/bazelbuild/bazel-gazelle/merger"
	"github.com/bazelbuild/bazel-gazelle/repo"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"
	"github.com/bazelbuild/bazel-gazelle/walk"
)

// Goldens runs the generation goldens of testdata: each folder of it is a
// repository, laid out as for Gazelle's gazelle_generation_test: BUILD.in
// is a BUILD file before Gazelle runs, BUILD.out the one expected after,
// every other file is there before and after (a README.md is left out).
// Gazelle (Go, then langs) runs on a copy, twice: the second run must
// change nothing. With CHOBO_UPDATE_GOLDENS set, the .out files are
// written instead.
func Goldens(t *testing.T, testdata string, langs ...language.Language) {
	cases, err := os.ReadDir(testdata)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, tc := range cases {
		if !tc.IsDir() {
			continue
		}
		ran++
		t.Run(tc.Name(), func(t *testing.T) {
			src := filepath.Join(testdata, tc.Name())
			dir := t.TempDir()
			want := CopyCase(t, src, dir)
			Run(t, dir, langs...)
			got := ReadBuildFiles(t, dir)
			if os.Getenv("CHOBO_UPDATE_GOLDENS") != "" {
				UpdateGoldens(t, src, got, want)
				return
			}
			CompareBuildFiles(t, got, want)
			Run(t, dir, langs...)
			CompareBuildFiles(t, ReadBuildFiles(t, dir), got)
		})
	}
	if ran == 0 {
		t.Errorf("%s holds no case", testdata)
	}
}

// CopyCase copies a case's input tree to dir and returns its expected
// BUILD files by path.
func CopyCase(t testing.TB, src, dir string) map[string]string {
	t.Helper()
	want := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(rel, ".out"):
			want[strings.TrimSuffix(rel, ".out")+".bazel"] = string(data)
			return nil
		case strings.HasSuffix(rel, ".in"):
			rel = strings.TrimSuffix(rel, ".in") + ".bazel"
		case rel == "README.md":
			return nil
		}
		out := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// ReadBuildFiles reads every BUILD.bazel file under dir, by path.
func ReadBuildFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "BUILD.bazel" {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// CompareBuildFiles fails t for every BUILD file got and want differ on.
func CompareBuildFiles(t testing.TB, got, want map[string]string) {
	t.Helper()
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		g, gok := got[p]
		w, wok := want[p]
		switch {
		case !gok:
			t.Errorf("%s: not written; want:\n%s", p, w)
		case !wok:
			t.Errorf("%s: written but not expected (add a .out file):\n%s", p, g)
		case g != w:
			t.Errorf("%s: got:\n%s\nwant:\n%s", p, g, w)
		}
	}
}

// UpdateGoldens writes got as the .out files of the case at src, and
// removes those of files no longer written.
func UpdateGoldens(t testing.TB, src string, got, want map[string]string) {
	for p, content := range got {
		out := filepath.Join(src, filepath.FromSlash(strings.TrimSuffix(p, ".bazel")+".out"))
		if err := os.WriteFile(out, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			os.Remove(filepath.Join(src, filepath.FromSlash(strings.TrimSuffix(p, ".bazel")+".out")))
		}
	}
}

// Run is `gazelle update` on the repository dir with Gazelle's Go
// language and then langs, as cmd/gazelle does it (fix-update.go): configure and
// generate each directory, merge into its BUILD file, index, resolve,
// merge again, fix the loads, write.
func Run(t testing.TB, dir string, langs ...language.Language) {
	t.Helper()
	langs = append([]language.Language{golang.NewLanguage()}, langs...)
	cexts := []config.Configurer{&config.CommonConfigurer{}, &walk.Configurer{}, &resolve.Configurer{}}
	for _, l := range langs {
		cexts = append(cexts, l)
	}
	c := config.New()
	c.WorkDir = dir
	fs := flag.NewFlagSet("gazelle", flag.ContinueOnError)
	for _, cext := range cexts {
		cext.RegisterFlags(fs, "update", c)
	}
	if err := fs.Parse([]string{"-repo_root=" + dir, "-go_repository_mode=false"}); err != nil {
		t.Fatal(err)
	}
	for _, cext := range cexts {
		if err := cext.CheckFlags(fs, c); err != nil {
			t.Fatal(err)
		}
	}
	c.IndexLibraries = true

	kinds := map[string]rule.KindInfo{}
	kindLang := map[string]language.Language{}
	var loads []rule.LoadInfo
	exts := []interface{}{}
	for _, l := range langs {
		for k, info := range l.Kinds() {
			kinds[k] = info
			kindLang[k] = l
		}
		if m, ok := l.(language.ModuleAwareLanguage); ok {
			loads = append(loads, m.ApparentLoads(c.ModuleToApparentName)...)
		} else {
			loads = append(loads, l.Loads()...)
		}
		exts = append(exts, l)
	}
	resolverOf := func(r *rule.Rule, pkgRel string) resolve.Resolver {
		if l, ok := kindLang[r.Kind()]; ok {
			return l
		}
		return nil
	}
	ix := resolve.NewRuleIndex(resolverOf, exts...)

	type visit struct {
		rel     string
		c       *config.Config
		file    *rule.File
		gen     []*rule.Rule
		empty   []*rule.Rule
		imports []interface{}
	}
	var visits []visit
	walk.Walk(c, cexts, []string{dir}, walk.VisitAllUpdateSubdirsMode, func(d, rel string, c *config.Config, update bool, f *rule.File, subdirs, regularFiles, genFiles []string) {
		if !update {
			return
		}
		var empty, gen []*rule.Rule
		var imports []interface{}
		for _, l := range langs {
			res := l.GenerateRules(language.GenerateArgs{
				Config: c, Dir: d, Rel: rel, File: f,
				Subdirs: subdirs, RegularFiles: regularFiles, GenFiles: genFiles,
				OtherEmpty: empty, OtherGen: gen,
			})
			if len(res.Gen) != len(res.Imports) {
				t.Fatalf("%s: %s generated %d rules and %d imports", rel, l.Name(), len(res.Gen), len(res.Imports))
			}
			empty = append(empty, res.Empty...)
			gen = append(gen, res.Gen...)
			imports = append(imports, res.Imports...)
		}
		if f == nil && len(gen) == 0 {
			return
		}
		if f == nil {
			f = rule.EmptyFile(filepath.Join(d, "BUILD.bazel"), rel)
			for _, r := range gen {
				r.Insert(f)
			}
		} else {
			merger.MergeFile(f, empty, gen, merger.PreResolve, kinds)
		}
		visits = append(visits, visit{rel: rel, c: c, file: f, gen: gen, empty: empty, imports: imports})
		for _, r := range f.Rules {
			ix.AddRule(c, r, f)
		}
	})
	ix.Finish()
	rc, cleanup := repo.NewRemoteCache(nil)
	defer cleanup()
	for _, v := range visits {
		for i, r := range v.gen {
			if l := resolverOf(r, v.rel); l != nil {
				l.Resolve(v.c, ix, rc, r, v.imports[i], label.New(c.RepoName, v.rel, r.Name()))
			}
		}
		merger.MergeFile(v.file, v.empty, v.gen, merger.PostResolve, kinds)
		merger.FixLoads(v.file, loads)
		if err := os.MkdirAll(filepath.Dir(v.file.Path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(v.file.Path, v.file.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Index is a finished rule index of the BUILD files builds (each file's
// content by its package), in which lang resolves the rules of its own
// kinds and others, by kind, the rest; and the files as loaded, in the
// order of their packages.
func Index(t testing.TB, c *config.Config, lang language.Language, others map[string]resolve.Resolver, builds map[string]string) (*resolve.RuleIndex, []*rule.File) {
	t.Helper()
	kinds := lang.Kinds()
	ix := resolve.NewRuleIndex(func(r *rule.Rule, pkgRel string) resolve.Resolver {
		if _, ok := kinds[r.Kind()]; ok {
			return lang
		}
		return others[r.Kind()]
	}, lang)
	pkgs := make([]string, 0, len(builds))
	for pkg := range builds {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	var files []*rule.File
	for _, pkg := range pkgs {
		f, err := rule.LoadData(pkg+"/BUILD.bazel", pkg, []byte(builds[pkg]))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Rules {
			ix.AddRule(c, r, f)
		}
		files = append(files, f)
	}
	ix.Finish()
	return ix, files
}

// Find are the labels of the rules ix finds for spec when the language
// from asks, sorted.
func Find(c *config.Config, ix *resolve.RuleIndex, spec resolve.ImportSpec, from string) []string {
	var got []string
	for _, r := range ix.FindRulesByImportWithConfig(c, spec, from) {
		got = append(got, r.Label.String())
	}
	sort.Strings(got)
	return got
}
