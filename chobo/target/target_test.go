package target

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// bzlTarget is one entry of TARGETS in rules/private/targets.bzl.
type bzlTarget struct {
	backend, language string
	files             []string
}

var (
	bzlEntry  = regexp.MustCompile(`(?s)"([a-z0-9-]+)": struct\((.*?)\n    \),`)
	bzlString = regexp.MustCompile(`(?m)^\s+(backend|language) = "([^"]*)",`)
	bzlFiles  = regexp.MustCompile(`files = \[([^\]]*)\]`)
	quoted    = regexp.MustCompile(`"([^"]*)"`)
)

// bzlFolder is the load of a language's own defs.bzl in targets.bzl, by
// the name FOLDERS lists it under.
var bzlFolder = regexp.MustCompile(`(?m)^load\("//(lang/[a-z]+):defs\.bzl", ([a-z_]+) = "LANGUAGE"\)`)

// registryBzl reads the registry of the Bazel rules, targets.bzl, and the
// defs.bzl of each language of lang/ it loads, which has its targets: by
// path from the module root, each file's text.
func registryBzl(t *testing.T) map[string]string {
	t.Helper()
	read := func(path string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	registry := read("rules/private/targets.bzl")
	out := map[string]string{"rules/private/targets.bzl": registry}
	folders, _, _ := strings.Cut(registry[strings.Index(registry, "\nFOLDERS = [")+1:], "]")
	for _, m := range bzlFolder.FindAllStringSubmatch(registry, -1) {
		if !strings.Contains(folders, "\n    "+m[2]+",\n") {
			t.Errorf("targets.bzl loads %s/defs.bzl as %s, which FOLDERS does not list", m[1], m[2])
		}
		path := m[1] + "/defs.bzl"
		out[path] = read(path)
	}
	return out
}

// readTargetsBzl reads the TARGETS tables of the Bazel rules. They are
// plain Starlark data, so a pattern reads them; a change of their shape
// makes this test fail rather than pass by reading nothing.
func readTargetsBzl(t *testing.T) map[string]bzlTarget {
	t.Helper()
	out := map[string]bzlTarget{}
	for path, text := range registryBzl(t) {
		start := strings.Index(text, "TARGETS = {")
		if start < 0 {
			t.Fatalf("%s has no TARGETS table", path)
		}
		n := len(out)
		for _, m := range bzlEntry.FindAllStringSubmatch(text[start:], -1) {
			out[m[1]] = readBzlTarget(m[2])
		}
		// The registry's own table starts empty and takes the folders'
		// entries as it loads; a language's table has its targets.
		if len(out) == n && path != "rules/private/targets.bzl" {
			t.Fatalf("read no entry from the TARGETS of %s", path)
		}
	}
	if len(out) == 0 {
		t.Fatal("read no entry from any TARGETS table")
	}
	return out
}

// readBzlTarget reads the fields of one entry of TARGETS.
func readBzlTarget(fields string) bzlTarget {
	var bt bzlTarget
	for _, f := range bzlString.FindAllStringSubmatch(fields, -1) {
		if f[1] == "backend" {
			bt.backend = f[2]
		} else {
			bt.language = f[2]
		}
	}
	if fm := bzlFiles.FindStringSubmatch(fields); fm != nil {
		for _, q := range quoted.FindAllStringSubmatch(fm[1], -1) {
			bt.files = append(bt.files, q[1])
		}
	}
	return bt
}

// TestBazelTargetsAgree checks that every client target of the registry
// is in the Bazel rules' TARGETS with the same backend, language and
// files, and that TARGETS has nothing else.
func TestBazelTargetsAgree(t *testing.T) {
	bzl := readTargetsBzl(t)
	clients := map[string]bool{}
	for _, tg := range All {
		if tg.Language == "sql" {
			continue // chobo_sql, not chobo_client
		}
		clients[tg.Name] = true
		bt, ok := bzl[tg.Name]
		if !ok {
			t.Errorf("targets.bzl lacks %s", tg.Name)
			continue
		}
		var files []string
		for _, f := range tg.Files {
			files = append(files, strings.TrimPrefix(f, "<package>/"))
		}
		if bt.backend != tg.Backend || bt.language != tg.Language || !slices.Equal(bt.files, files) {
			t.Errorf("%s: targets.bzl has backend %q, language %q, files %v; the registry %q, %q, %v",
				tg.Name, bt.backend, bt.language, bt.files, tg.Backend, tg.Language, files)
		}
	}
	for name := range bzl {
		if !clients[name] {
			t.Errorf("targets.bzl has %s, which the registry does not", name)
		}
	}
}

// TestSQLRuleTarget checks that the target chobo_sql asks for is the
// registry's SQL target.
func TestSQLRuleTarget(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "rules", "private", "sql.bzl"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`--target ([a-z0-9-]+)`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("sql.bzl names no --target")
	}
	tg, ok := Lookup(m[1])
	if !ok || tg.Language != "sql" {
		t.Errorf("sql.bzl builds --target %s, not an SQL target of the registry", m[1])
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, tg := range All {
		if seen[tg.Name] {
			t.Errorf("%s twice", tg.Name)
		}
		seen[tg.Name] = true
		if tg.Backend == "" || tg.Language == "" || len(tg.Files) == 0 || tg.build == nil || tg.Summary.En == "" || tg.Summary.Ja == "" {
			t.Errorf("%s is incomplete: %+v", tg.Name, tg)
		}
		if got, ok := Lookup(tg.Name); !ok || got.Name != tg.Name {
			t.Errorf("Lookup(%s) = %v, %v", tg.Name, got.Name, ok)
		}
	}
	for name := range summaries {
		if !seen[name] {
			t.Errorf("a summary for %s, which is no target", name)
		}
	}
	if _, ok := Lookup("nothing"); ok {
		t.Error("Lookup found a target that does not exist")
	}
	// The SQL alone, then each language on each backend, in the order of
	// languages: a target is named backend-language.
	want := []string{"postgres"}
	for _, l := range languages {
		want = append(want, "postgres-"+l.Name, "tigerbeetle-"+l.Name)
	}
	if !slices.Equal(Names(), want) {
		t.Errorf("Names() = %v, want %v", Names(), want)
	}
}

// TestValidPackage: --package is checked by the rules of the target's
// language, and only a language with package names checks it at all.
func TestValidPackage(t *testing.T) {
	type packageCase struct {
		target, pkg string
		ok          bool
	}
	cases := []packageCase{
		{"postgres-go", "stock", true},
		{"tigerbeetle-go", "在庫", true},
		{"postgres-go", "stock-2", false},
		{"tigerbeetle-go", "2stock", false},
		{"postgres-go", "book.go", false},
		{"postgres", "stock-2", true},
	}
	// A client whose files no package names (a module named by its file)
	// takes any.
	others := 0
	for _, tg := range All {
		if tg.Client() != nil && !slices.ContainsFunc(tg.Files, func(f string) bool { return strings.Contains(f, "<package>") }) {
			cases = append(cases, packageCase{tg.Name, "stock-2", true}, packageCase{tg.Name, "book", true})
			others++
		}
	}
	if others == 0 {
		t.Log("every client target of the registry is named by a package")
	}
	for _, tc := range cases {
		tg, found := Lookup(tc.target)
		if !found {
			t.Fatalf("no target %s", tc.target)
		}
		why := tg.ValidPackage(tc.pkg)
		if why.IsZero() != tc.ok {
			t.Errorf("%s: ValidPackage(%q) = %q, want ok %v", tc.target, tc.pkg, why.En, tc.ok)
		}
		if !why.IsZero() && why.Ja == "" {
			t.Errorf("%s: ValidPackage(%q) says why in English only", tc.target, tc.pkg)
		}
	}
}

// TestBuildNeverPanics: a generator that panics is an error of Build that
// names the target and the book's file, and no file is returned.
func TestBuildNeverPanics(t *testing.T) {
	tg := Target{Name: "broken", Backend: "none", Language: "go",
		build: func(*book.Book, gen.Source, gen.Options) ([]gen.File, diag.List, error) {
			panic("generated Go does not parse")
		}}
	files, ds, err := tg.Build(&book.Book{Name: "shop"}, gen.Source{File: "shop.book"}, gen.Options{})
	if err == nil || files != nil || ds != nil {
		t.Fatalf("Build = %v, %v, %v; want only an error", files, ds, err)
	}
	for _, want := range []string{"broken", "shop.book", "does not parse"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
}
