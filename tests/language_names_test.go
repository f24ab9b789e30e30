package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// A client language lives in its folder, lang/<language>: outside it, a
// file that names the language is one more place a new language would
// have to be written into. namingAllowed are the files and folders (a
// trailing slash) that may name one anyway, each with why. Go is left
// out of the check: it is the language chobo is written in, and "go" is
// the go command everywhere.
var namingAllowed = []struct{ path, why string }{
	{"docs/", "the docs show every language"},
	{"examples/", "the examples use every language"},
	{"README.md", "the docs show every language"},
	{"README.ja.md", "the docs show every language"},
	{"runtime/testdata/README.md", "the vectors' docs name each runtime's replay of them"},
	{"tests/testdata/", "the cases' goldens hold every target's output"},
	{"tests/cli/", "the goldens of chobo's help, which lists every target"},
	// The registry: what a new language adds outside its folder
	// (docs/formats.md, "Adding a client language"), the BUILD files
	// Gazelle writes for it, and the tests of the registry of targets.
	{"chobo/target/languages.go", "the registry of targets"},
	{"chobo/target/BUILD.bazel", "written by Gazelle for the registry of targets"},
	{"chobo/target/names_test.go", "a test of the registry: each target refuses the names it alone cannot give"},
	{"runtime/driverkits/driverkits.go", "the registry of driver kits"},
	{"runtime/driverkits/BUILD.bazel", "written by Gazelle for the registry of driver kits"},
	{"gazelle/registry/registry.go", "the registry of chobo's Gazelle language"},
	{"gazelle/registry/BUILD.bazel", "written by Gazelle for that registry"},
	{"rules/private/targets.bzl", "the registry of the Bazel rules"},
	{"MODULE.bazel", "one extension of each language's toolchain"},
	{".bazelignore", "Bazel 7 reads the folders it ignores from this one file: the runtimes' installed packages"},
	// Tests that name a language by what they are.
	{"tests/language_copy_test.go", "the proof that a language is its folder copies one of them"},
	{"tests/BUILD.bazel", "written by Gazelle: the copy test reaches the copied language's driver kit"},
	{"tests/user_module_check.sh", "a user's module with a client in a second language"},
	{"tests/setup.sh", "BuildGrid, the CI's remote cache, runs on that language"},
	{"tests/remote_cache.sh", "BuildGrid runs on that language"},
}

// TestOnlyLanguageFoldersNameALanguage: no file of the checkout outside
// lang/ names a client language of the registry, but those
// namingAllowed lists; and each it lists still does, so that the list
// shrinks as the files stop.
func TestOnlyLanguageFoldersNameALanguage(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the checkout is not at hand; go test runs this test")
	}
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		langtest.Skip(t, "no git to list the checkout's files: "+err.Error())
	}
	var names []string
	for _, g := range target.All {
		if g.Client() != nil && g.Language != "go" && !slices.Contains(names, g.Language) {
			names = append(names, regexp.QuoteMeta(g.Language))
		}
	}
	if len(names) == 0 {
		t.Skip("SKIP: the registry has no client language but Go")
	}
	named := regexp.MustCompile(`(?i)\b(` + strings.Join(names, "|") + `)\b`)
	used := map[string]bool{}
	checked := 0
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if strings.HasPrefix(p, "lang/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(p)))
		if err != nil {
			continue // listed but gone from the work tree
		}
		checked++
		loc := named.FindIndex(data)
		if loc == nil {
			continue
		}
		if a := allowedBy(p); a != "" {
			used[a] = true
		} else {
			line := 1 + strings.Count(string(data[:loc[0]]), "\n")
			t.Errorf("%s:%d names %q: a language's code and tests go in its folder, lang/<language>; the shared code asks the registry", p, line, data[loc[0]:loc[1]])
		}
	}
	for _, a := range namingAllowed {
		if !used[a.path] {
			t.Errorf("%s is allowed to name a language (%s) but names none: take it off namingAllowed", a.path, a.why)
		}
	}
	t.Logf("%d files outside lang/ read; %d allowed to name a language", checked, len(namingAllowed))
}

// allowedBy is the entry of namingAllowed that allows the file p, or "".
func allowedBy(p string) string {
	for _, a := range namingAllowed {
		if p == a.path || strings.HasSuffix(a.path, "/") && strings.HasPrefix(p, a.path) {
			return a.path
		}
	}
	return ""
}
