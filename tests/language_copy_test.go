package tests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
)

// The language copied and the name of the copy.
const (
	copiedLanguage = "python"
	newLanguage    = "snake"
)

// folderRenames are what names the language all through its folder:
// its import paths, Bazel labels and paths, and its targets' names.
var folderRenames = []struct {
	re *regexp.Regexp
	to string
}{
	{regexp.MustCompile(`lang/python\b`), "lang/snake"},
	{regexp.MustCompile(`(postgres|tigerbeetle|")-python\b`), "${1}-snake"},
	// The names Gazelle gives its clients' rules in the folder's goldens,
	// after the short names the folder declares (below).
	{regexp.MustCompile(`_(tb_)?py_client\b`), "_${1}snake_client"},
}

// declarations are where the folder declares the language's name, each
// expected the number of times given: a copy that leaves one as it was
// would be a second Python, which the registries' tests refuse.
var declarations = []struct {
	file string
	re   *regexp.Regexp
	to   string
	n    int
}{
	{"build.go", regexp.MustCompile(`(Name:\s+)"python"`), `${1}"snake"`, 1},
	{"driver/kit.go", regexp.MustCompile(`(Language\(\) string \{ return )"python"`), `${1}"snake"`, 1},
	// Where the kit finds its runtime's virtual environment in a checkout.
	{"driver/kit.go", regexp.MustCompile(`"lang", "python", "runtime"`), `"lang", "snake", "runtime"`, 1},
	{"gazelle/gazelle.go", regexp.MustCompile(`(Name:\s+)"python"`), `${1}"snake"`, 1},
	// The short names of its rules and the Gazelle language that resolves
	// its imports, which no two languages may share.
	{"gazelle/gazelle.go", regexp.MustCompile(`(:\s+)"(tb_)?py"`), `${1}"${2}snake"`, 3},
	{"defs.bzl", regexp.MustCompile(`language = "python"`), `language = "snake"`, 2},
	{"defs.bzl", regexp.MustCompile(`(?m)^(\s+name = )"python",`), `${1}"snake",`, 1},
}

// registryLines are what the new language adds outside its folder, each
// after a line that must be in its file exactly once, so that the test
// fails when a registry changes its shape rather than add nothing.
var registryLines = []struct{ file, after, add string }{
	{"chobo/target/languages.go", "\t\"github.com/chobo-lang/chobo/lang/python\"\n", "\tsnake \"github.com/chobo-lang/chobo/lang/snake\"\n"},
	{"chobo/target/languages.go", "\t&python.Language,\n", "\t&snake.Language,\n"},
	{"runtime/driverkits/driverkits.go", "\tpydriver \"github.com/chobo-lang/chobo/lang/python/driver\"\n", "\tsnakedriver \"github.com/chobo-lang/chobo/lang/snake/driver\"\n"},
	{"runtime/driverkits/driverkits.go", "\tpydriver.Kit{},\n", "\tsnakedriver.Kit{},\n"},
	{"gazelle/registry/registry.go", "\tpygazelle \"github.com/chobo-lang/chobo/lang/python/gazelle\"\n", "\tsnakegazelle \"github.com/chobo-lang/chobo/lang/snake/gazelle\"\n"},
	{"gazelle/registry/registry.go", "\tpygazelle.Language,\n", "\tsnakegazelle.Language,\n"},
	{"rules/private/targets.bzl", "load(\"//lang/python:defs.bzl\", python = \"LANGUAGE\")\n", "load(\"//lang/snake:defs.bzl\", snake = \"LANGUAGE\")\n"},
	{"rules/private/targets.bzl", "    python,\n", "    snake,\n"},
	// The copied extension still makes @python_toolchains, under a name
	// of its own here.
	{"MODULE.bazel", "register_toolchains(\"@python_toolchains//:all\")\n", `
snake = use_extension("//lang/snake/toolchain:extensions.bzl", "python")
use_repo(snake, snake_toolchains = "python_toolchains")

register_toolchains("@snake_toolchains//:all")
`},
}

// copiedBooks are the books the copy's clients are held to the
// interpreter on, with their hand-written scenarios, if any.
var copiedBooks = []struct{ book, scenarios string }{
	{"examples/inventory/inventory.book", ""},
	{"examples/refunds/refunds.book", "examples/refunds/refunds.more.json"},
}

// docs/formats.md ("Adding a client language") says that a client
// language is its folder, lang/<language>, and one line in each of a few
// registries outside it. TestCopiedLanguageFolder holds that to the code:
// in a copy of the checkout it copies lang/python to lang/snake, renames
// in the copy only what names the language, adds the registry lines, and
// checks that the files it touched outside the folder are the ones the
// page names, no more and no fewer. Then the copy must work as a language
// of its own: it builds and vets, the tests of its folder and of the
// registries pass (which hold the Go registries to targets.bzl and the
// defs.bzl files it loads, and the Gazelle rows to one another; the
// folder's own run its runtime's tests, which replay the shared vectors
// and catch the mutations, and type-check every case's client, on the
// tools the copied setup.sh would install, linked from the checkout's),
// and the conformance
// runner of the Bazel rules (rules/private/runner, built from the copy)
// holds its clients of two example books to the interpreter on
// PostgreSQL and on a real TigerBeetle replica (a Python driver reaches
// no model of TigerBeetle, so without a tigerbeetle binary that part is
// skipped aloud). Bazel then runs the rules' analysis tests in the copy,
// which make a client, its driver and a conformance test of every target
// of every language of the rules' registry, the new one with them.
//
// What it does not do: build and run the copy's clients with Bazel (too
// slow for the suite: the conformance runner above runs them as the rule
// would); run Gazelle, which writes the deps of the registries' BUILD
// files; bless the goldens and generated pages (tests/testdata,
// docs/cli.md) a new language's targets change; or write its section of
// docs/targets.md, whose example the folder's TestExampleInDocs runs
// (skipped in the copy, aloud).
func TestCopiedLanguageFolder(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the checkout is not at hand; go test runs this test")
	}
	// The interpreter of the Python runtime's environment, with psycopg
	// and tigerbeetle: it skips aloud without one, and fails under CI.
	py := venvPython(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dst := copyCheckout(t, root)
	folder := filepath.Join(dst, "lang", newLanguage)
	copyFolder(t, filepath.Join(dst, "lang", copiedLanguage), folder)
	renameLanguage(t, folder)
	// The copy's other languages get theirs too: the rules' analysis in
	// the copy finds every language's toolchain.
	langs, err := os.ReadDir(filepath.Join(root, "lang"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		if l.IsDir() {
			linkInstalled(t, root, "lang/"+l.Name(), filepath.Join(dst, "lang", l.Name()))
		}
	}
	linkInstalled(t, root, "lang/"+copiedLanguage, folder)
	touched := addToRegistries(t, dst)
	named := docsRegistries(t, root)
	if !slices.Equal(touched, named) {
		t.Fatalf("a new language touched %v outside its folder; docs/formats.md (Adding a client language) names %v", touched, named)
	}
	t.Logf("outside lang/%s the copy touched %s", newLanguage, strings.Join(touched, ", "))

	env := []string{"GOWORK=off"}
	inCopy(t, dst, env, "go", "build", "./...")
	pkgs := []string{"./lang/" + newLanguage + "/...", "./chobo/target", "./runtime/driverkits", "./gazelle/...", "./rules/private/runner"}
	inCopy(t, dst, env, "go", append([]string{"vet"}, pkgs...)...)
	// The new language's section of docs/targets.md, whose example its
	// TestExampleInDocs runs, is not written here.
	fmt.Printf("SKIP: lang/%s's TestExampleInDocs: docs/targets.md has no section for the copy\n", newLanguage)
	t.Log(inCopy(t, dst, env, "go", append([]string{"test", "-count=1", "-skip", "^TestExampleInDocs$"}, pkgs...)...))
	bin := t.TempDir()
	inCopy(t, dst, env, "go", "build", "-o", bin, "./chobo/cmd/chobo", "./rules/private/runner")

	tb, err := tbtest.Bin()
	switch {
	case errors.Is(err, tbtest.ErrNoBinary):
		fmt.Println(tbtest.SkipMessage)
	case err != nil:
		t.Fatal(err)
	}
	for _, b := range copiedBooks {
		copiedConformance(t, dst, bin, py, tb, b.book, b.scenarios)
	}
	copiedAnalysis(t, root, dst, py)
}

// copiedAnalysis runs the Bazel rules' analysis tests in the copy, where
// the registry of the rules has the new language among its FOLDERS: its
// defs.bzl makes the library, driver and toolchain parts of a client and
// a conformance test of every target of it, as the other languages'
// do. Bazel runs on an output base of the test's own, the new language's
// toolchain on the interpreter py (as a user's module names one with
// CHOBO_PYTHON); without bazel on PATH this part is skipped aloud.
func copiedAnalysis(t *testing.T, root, dst, py string) {
	t.Helper()
	bazel, err := exec.LookPath("bazel")
	if err != nil {
		fmt.Printf("SKIP: no bazel: the rules' analysis tests were not run in the copy with lang/%s\n", newLanguage)
		return
	}
	base := t.TempDir()
	// Bazel leaves its output base read-only; the temporary folder is
	// removed after this, which needs it writable.
	t.Cleanup(func() {
		_ = exec.Command(bazel, "--output_base="+base, "shutdown").Run()
		_ = exec.Command("chmod", "-R", "u+w", base).Run()
	})
	// The copy's installed tools are links into the checkout: a Bazel that
	// runs in a chroot (tests/setup/bazel.sh's) is told to mount it too,
	// as tests/run.sh tells it of TigerBeetle's folder.
	bind := root
	if b := os.Getenv("CHOBO_BAZEL_BIND"); b != "" {
		bind = b + ":" + root
	}
	out := inCopy(t, dst, []string{"CHOBO_BAZEL_BIND=" + bind}, bazel, "--output_base="+base, "test", "--repo_env=CHOBO_PYTHON="+py, "--test_output=errors", "//rules/tests:all")
	if !strings.Contains(out, "tests pass") {
		t.Errorf("bazel test //rules/tests:all in the copy:\n%s", out)
	}
	t.Logf("the rules' analysis tests pass in the copy with lang/%s", newLanguage)
}

// copyFolder copies the files under from to to.
func copyFolder(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(to, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// renameLanguage makes the copied folder a language of its own: its
// folderRenames in every file, and its declarations where they are.
func renameLanguage(t *testing.T, folder string) {
	t.Helper()
	renamed := make([]int, len(folderRenames))
	err := filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := data
		for i, r := range folderRenames {
			renamed[i] += len(r.re.FindAllIndex(out, -1))
			out = r.re.ReplaceAll(out, []byte(r.to))
		}
		return os.WriteFile(p, out, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range renamed {
		if n == 0 {
			t.Fatalf("nothing in the copied folder matches %s", folderRenames[i].re)
		}
	}
	for _, d := range declarations {
		p := filepath.Join(folder, filepath.FromSlash(d.file))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(d.re.FindAllIndex(data, -1)); n != d.n {
			t.Fatalf("lang/%s/%s matches %s %d times, want %d: the test's renames need to follow the folder", copiedLanguage, d.file, d.re, n, d.n)
		}
		if err := os.WriteFile(p, d.re.ReplaceAll(data, []byte(d.to)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// addToRegistries adds registryLines to the copy at dst and returns the
// files it changed, sorted.
func addToRegistries(t *testing.T, dst string) []string {
	t.Helper()
	var touched []string
	for _, l := range registryLines {
		p := filepath.Join(dst, filepath.FromSlash(l.file))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), l.after); n != 1 {
			t.Fatalf("%s holds %q %d times, want once: the registry changed its shape, and the test's line for a new language must follow it", l.file, l.after, n)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(data), l.after, l.after+l.add, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(touched, l.file) {
			touched = append(touched, l.file)
		}
	}
	slices.Sort(touched)
	return touched
}

// docsRegistries are the files of the checkout at root that the numbered
// list of "Adding a client language" in docs/formats.md names, sorted.
func docsRegistries(t *testing.T, root string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n### Adding a client language\n")
	section, _, _ = strings.Cut(section, "\n#")
	_, list, ok2 := strings.Cut(section, "\n1. ")
	if !ok || !ok2 {
		t.Fatal("docs/formats.md has no numbered list under ### Adding a client language")
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list, -1) {
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(m[1])))
		if err == nil && info.Mode().IsRegular() && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	if len(out) < 5 {
		t.Fatalf("docs/formats.md names only %v among the registries of a new language", out)
	}
	slices.Sort(out)
	return out
}

// inCopy runs a program in the copy and returns what it printed; it
// ends t if the program fails.
func inCopy(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s, in the copy with lang/%s: %v\n%s", name, strings.Join(args, " "), newLanguage, err, out)
	}
	return string(out)
}

// linkInstalled puts in the folder to of the copy what a language's
// setup.sh installed in its folder from of the checkout (what git ignores
// there: its virtual environment, say), as links to the checkout's: the
// copy's tests, which find their tools through the copied driver kit, run
// on the same pinned tools, as they would after tests/setup.sh in a fresh
// clone.
func linkInstalled(t *testing.T, root, from, folder string) {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--", from)
	cmd.Dir = root
	list, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		rel = strings.TrimSuffix(rel, "/")
		if rel == "" {
			continue
		}
		to := filepath.Join(folder, strings.TrimPrefix(filepath.FromSlash(rel), filepath.FromSlash(from)+string(filepath.Separator)))
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, filepath.FromSlash(rel)), to); err != nil {
			t.Fatal(err)
		}
	}
}

// copiedConformance builds the copy's clients of a book with the copy's
// chobo and holds them to the interpreter with the copy's conformance
// runner, handed what the Bazel rule would hand it, as absolute paths
// under a runfiles folder of /: on a real TigerBeetle replica when tb
// names its binary.
func copiedConformance(t *testing.T, dst, bin, py, tb, bookFile, scenarios string) {
	t.Helper()
	book := filepath.Join(dst, filepath.FromSlash(bookFile))
	var drivers []string
	for _, backend := range []string{"postgres", "tigerbeetle"} {
		tg := backend + "-" + newLanguage
		out := filepath.Join(t.TempDir(), tg)
		inCopy(t, dst, nil, filepath.Join(bin, "chobo"), "build", book, "--target", tg, "--out", out)
		want := filepath.Join(out, strings.TrimSuffix(filepath.Base(book), ".book")+".py")
		if got, _ := filepath.Glob(filepath.Join(out, "*")); !slices.Equal(got, []string{want}) {
			t.Fatalf("chobo build --target %s wrote %v, want %s", tg, got, want)
		}
		drivers = append(drivers, tg+"="+want)
	}
	pgBin, err := pgtest.Bin()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"RUNFILES_DIR=/",
		"TEST_TMPDIR=" + t.TempDir(),
		"CHOBO_CONFORMANCE_BOOK=" + book,
		"CHOBO_CONFORMANCE_INITDB=" + filepath.Join(pgBin, "initdb"),
		"CHOBO_CONFORMANCE_DRIVERS=" + strings.Join(drivers, " "),
		pydriver.PythonEnv + "=" + py,
		pydriver.PythonVersionEnv + "=the Python runtime's virtual environment",
	}
	if scenarios != "" {
		env = append(env, "CHOBO_CONFORMANCE_SCENARIOS="+filepath.Join(dst, filepath.FromSlash(scenarios)))
	}
	if tb != "" {
		env = append(env, "CHOBO_CONFORMANCE_TIGERBEETLE="+tb)
	} else {
		env = append(env, "CHOBO_CONFORMANCE_TIGERBEETLE_MISSING="+strings.TrimPrefix(tbtest.SkipMessage, "SKIP: real TigerBeetle: "))
	}
	out := inCopy(t, dst, env, filepath.Join(bin, "runner"))
	name := filepath.Base(book)
	want := []string{"PASS: " + name + " on postgres-" + newLanguage + ": "}
	if tb != "" {
		want = append(want, "PASS: "+name+" on tigerbeetle-"+newLanguage+" (real replica): ")
	}
	for _, w := range want {
		if !strings.Contains(out, "\n"+w) {
			t.Fatalf("the copy's conformance runner does not say %q:\n%s", w, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "PASS: ") || strings.HasPrefix(l, "SKIP: real") {
			t.Log(l)
		}
	}
}

// venvPython is the interpreter of the Python runtime's virtual
// environment, as the Python driver kit finds it, or skips t (failing
// under CI) without it: the copy's runner drives its clients with it.
func venvPython(t *testing.T) string {
	t.Helper()
	_, kit := languageOf(t, "postgres-"+copiedLanguage)
	return useLanguage(t, kit).(*pydriver.Venv).Python
}
