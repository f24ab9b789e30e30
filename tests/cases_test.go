package tests

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/tests/golden"
)

// casesDir holds the test cases, one folder each: a book, optionally its
// hand-written scenarios (scenarios.json), optionally a scenario that
// deploys new versions of the book (deploys.json, beside the versions it
// names, which sit in a folder of their own), optionally the deployed version
// it is compared with (against.book, or the `chobo api` JSON of one as
// against.api.json: check then runs with --against), and under expected/
// everything chobo writes for it. Adding a case is adding a folder; the
// walker below decides from the files there which outputs there are.
const casesDir = "testdata"

// jaSuffix marks a case as the Japanese twin of the case without it.
const jaSuffix = "_ja"

// testCase is one folder under testdata.
type testCase struct {
	Name      string // the folder's name
	Dir       string
	Book      string // the book's file name in Dir
	Scenarios bool   // Dir has scenarios.json
	Deploys   bool   // Dir has deploys.json
	Against   string // the previous version's file name in Dir, or ""
}

// againstFiles are the names a previous version may have in a case.
var againstFiles = []string{"against.book", "against.api.json"}

// checkArgs is `chobo check` of the case with more arguments: with
// --against when the case has a previous version.
func (c testCase) checkArgs(args ...string) []string {
	out := append([]string{"check"}, args...)
	out = append(out, c.Book)
	if c.Against != "" {
		out = append(out, "--against", c.Against)
	}
	return out
}

func (c testCase) expected(name string) string { return filepath.Join(c.Dir, "expected", name) }

// path is the book's path from the tests' directory.
func (c testCase) path() string { return filepath.Join(c.Dir, c.Book) }

// cases lists every case, in folder order. A folder with no book or with
// more than one is an error: the walker could not tell what to test.
func cases(t *testing.T) []testCase {
	t.Helper()
	entries, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []testCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(casesDir, e.Name())
		all, _ := filepath.Glob(filepath.Join(dir, "*.book"))
		books := slices.DeleteFunc(all, func(p string) bool { return filepath.Base(p) == "against.book" })
		if len(books) != 1 {
			t.Errorf("%s holds %d books besides against.book; a case holds exactly one", dir, len(books))
			continue
		}
		_, err := os.Stat(filepath.Join(dir, "scenarios.json"))
		c := testCase{Name: e.Name(), Dir: dir, Book: filepath.Base(books[0]), Scenarios: err == nil}
		_, err = os.Stat(filepath.Join(dir, deploysFile))
		c.Deploys = err == nil
		for _, f := range againstFiles {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				if c.Against != "" {
					t.Errorf("%s holds both %s and %s; a case compares with one previous version", dir, c.Against, f)
				}
				c.Against = f
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatal("no test cases")
	}
	return out
}

// caseByName finds one case.
func caseByName(t *testing.T, name string) testCase {
	t.Helper()
	for _, c := range cases(t) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %s", name)
	return testCase{}
}

// outputs is what chobo writes for a case, by the path under expected/.
type outputs map[string][]byte

// runCase runs every command that applies to the case and collects what
// it prints and writes. Along the way it checks what no golden can: exit
// codes, determinism, and that scenarios show what they say.
func runCase(t *testing.T, c testCase) outputs {
	t.Helper()
	out := outputs{}
	code := checkOutputs(t, c, out)
	if code != cli.ExitOK {
		// A book with errors goes no further than check: it has no page.
		// (Errors that come from the comparison with a previous version
		// are not the book's.)
		if stdout, _, code := run(c.Dir, nil, "doc", c.Book); c.Against == "" && (code != cli.ExitError || stdout != "") {
			t.Errorf("chobo doc of a book with errors: exit %d, %d bytes written; want exit 1 and nothing", code, len(stdout))
		}
		return out
	}
	if doc := cliOut(t, c, out, "api.json", cli.ExitOK, "api", c.Book); doc != cliOut(t, c, outputs{}, "", cli.ExitOK, "api", c.Book) {
		t.Error("two runs of chobo api differ")
	}
	generatedOutputs(t, c, out)
	doc := []string{"doc", c.Book}
	if c.Scenarios {
		// The page of a case with scenarios of its own shows them first.
		doc = append(doc, "--scenario", "scenarios.json")
	}
	for name, args := range map[string][]string{
		"doc.md": nil, "doc.ja.md": {"--lang", "ja"},
		"doc.html": {"--format", "html"}, "doc.ja.html": {"--format", "html", "--lang", "ja"},
	} {
		cliOut(t, c, out, name, cli.ExitOK, append(slices.Clone(doc), args...)...)
	}
	if c.Scenarios {
		// Exit 0: every expectation written in the scenarios holds.
		for name, extra := range map[string][]string{"runs.txt": nil, "runs.ja.txt": {"--lang", "ja"}, "runs.json": {"--format", "json"}} {
			cliOut(t, c, out, name, cli.ExitOK, append([]string{"run", c.Book, "--scenario", "scenarios.json"}, extra...)...)
		}
	}
	if c.Deploys {
		deployOutputs(t, c, out)
	}
	buildOutputs(t, c, out)
	if c.Scenarios && out["build.postgres.txt"] == nil {
		for _, f := range []struct{ name, format string }{{"show.postgres.txt", "text"}, {"show.postgres.json", "json"}} {
			cliOut(t, c, out, f.name, cli.ExitOK, "run", c.Book, "--scenario", "scenarios.json", "--show", "postgres", "--format", f.format)
		}
	}
	if out["build.tigerbeetle-go.txt"] == nil {
		// What a client sends to TigerBeetle for every scenario chobo
		// generates, and for the hand-written ones in text and JSON. It
		// is shown for one version of the book: the families that deploy
		// another are left out, as --show refuses them.
		file := filepath.Join(t.TempDir(), "generated.json")
		if err := os.WriteFile(file, withoutDeploys(t, out["scenarios.json"]), 0o644); err != nil {
			t.Fatal(err)
		}
		cliOut(t, c, out, "scenarios.show.tigerbeetle.txt", cli.ExitOK, "run", c.Book, "--scenario", file, "--show", "tigerbeetle")
		if c.Scenarios {
			for _, f := range []struct{ name, format string }{{"show.tigerbeetle.txt", "text"}, {"show.tigerbeetle.json", "json"}} {
				cliOut(t, c, out, f.name, cli.ExitOK, "run", c.Book, "--scenario", "scenarios.json", "--show", "tigerbeetle", "--format", f.format)
			}
		}
	}
	return out
}

// withoutDeploys is the scenario file data without the scenarios that
// have a deploy step.
func withoutDeploys(t *testing.T, data []byte) []byte {
	t.Helper()
	var scs []struct {
		Steps []map[string]json.RawMessage `json:"steps"`
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &scs); err != nil {
		t.Fatal(err)
	}
	keep := []json.RawMessage{}
	for i, sc := range scs {
		if !slices.ContainsFunc(sc.Steps, func(st map[string]json.RawMessage) bool { return st["deploy"] != nil }) {
			keep = append(keep, raw[i])
		}
	}
	out, err := json.Marshal(keep)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// deploysFile is a case's scenario with deploy steps. It stands apart
// from scenarios.json, which every backend's conformance test runs: a
// deployment there is no call a client makes.
const deploysFile = "deploys.json"

// deployOutputs is `chobo run` of the case's deploys.json, whose
// expectations hold (exit 0), in English, Japanese and JSON; what cannot
// show a deployment, --show and the page, refuses it in words that say
// so, with exit 1 and nothing written.
func deployOutputs(t *testing.T, c testCase, out outputs) {
	t.Helper()
	for name, extra := range map[string][]string{"deploys.runs.txt": nil, "deploys.runs.ja.txt": {"--lang", "ja"}, "deploys.runs.json": {"--format", "json"}} {
		cliOut(t, c, out, name, cli.ExitOK, append([]string{"run", c.Book, "--scenario", deploysFile}, extra...)...)
	}
	for _, args := range [][]string{
		{"run", c.Book, "--scenario", deploysFile, "--show", "postgres"},
		{"run", c.Book, "--scenario", deploysFile, "--show", "tigerbeetle"},
		{"doc", c.Book, "--scenario", deploysFile},
	} {
		stdout, stderr, code := run(c.Dir, nil, args...)
		if code != cli.ExitError || stdout != "" || !strings.Contains(stderr, "this command runs no deploy steps") {
			t.Errorf("chobo %s: exit %d, %d bytes written, %q; want exit 1, nothing written and the deploy step refused", strings.Join(args, " "), code, len(stdout), stderr)
		}
	}
}

// cliOut runs chobo in the case's folder and keeps what it prints on
// standard output under name; the exit code must be want.
func cliOut(t *testing.T, c testCase, out outputs, name string, want int, args ...string) string {
	t.Helper()
	stdout, stderr, code := run(c.Dir, nil, args...)
	if code != want {
		t.Fatalf("chobo %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, stderr)
	}
	out[name] = []byte(stdout)
	return stdout
}

// checkOutputs is `chobo check` in English, Japanese and JSON.
func checkOutputs(t *testing.T, c testCase, out outputs) int {
	t.Helper()
	var codes []int
	for _, v := range []struct {
		name string
		args []string
	}{
		{"check.txt", c.checkArgs()},
		{"check.ja.txt", c.checkArgs("--lang", "ja")},
		{"check.json", c.checkArgs("--format", "json")},
	} {
		stdout, stderr, code := run(c.Dir, nil, v.args...)
		if code == cli.ExitUsage {
			t.Fatalf("%v: exit 2: %s", v.args, stderr)
		}
		out[v.name] = []byte(stdout)
		codes = append(codes, code)
	}
	if codes[0] != codes[1] || codes[0] != codes[2] {
		t.Errorf("check exits %v in English, Japanese and JSON", codes)
	}
	return codes[0]
}

// generatedOutputs is `chobo scenarios` and the run of what it writes:
// the same twice, distinct names, and every scenario shows what its name
// says (no expectation fails).
func generatedOutputs(t *testing.T, c testCase, out outputs) {
	t.Helper()
	gen := cliOut(t, c, out, "scenarios.json", cli.ExitOK, "scenarios", c.Book)
	if again, _, _ := run(c.Dir, nil, "scenarios", c.Book); again != gen {
		t.Error("two runs of chobo scenarios differ")
	}
	file := filepath.Join(t.TempDir(), "generated.json")
	if err := os.WriteFile(file, []byte(gen), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := cliOut(t, c, out, "scenarios.runs.json", cli.ExitOK, "run", c.Book, "--scenario", file, "--format", "json")
	var rep api.Run
	if err := json.Unmarshal([]byte(runs), &rep); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, sc := range rep.Scenarios {
		if names[sc.Name] {
			t.Errorf("two scenarios are named %q", sc.Name)
		}
		names[sc.Name] = true
		if len(sc.Failures) > 0 {
			t.Errorf("%q does not show what it says: %v", sc.Name, sc.Failures)
		}
	}
}

// buildOutputs is `chobo build` for every target of the registry: the
// files it writes under expected/<target>/, or, when the target cannot
// take the book, what it says (in both languages) as build.<target>.txt.
func buildOutputs(t *testing.T, c testCase, out outputs) {
	t.Helper()
	for _, tg := range target.All {
		dir := t.TempDir()
		_, stderr, code := run(c.Dir, nil, "build", c.Book, "--target", tg.Name, "--out", dir)
		switch code {
		case cli.ExitOK:
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				out[filepath.Join(tg.Name, rel)] = data
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		case cli.ExitError:
			out["build."+tg.Name+".txt"] = []byte(stderr)
			_, ja, _ := run(c.Dir, nil, "build", c.Book, "--target", tg.Name, "--lang", "ja", "--out", t.TempDir())
			out["build."+tg.Name+".ja.txt"] = []byte(ja)
		default:
			t.Fatalf("build --target %s: exit %d: %s", tg.Name, code, stderr)
		}
	}
}

// TestCases runs every case and compares what chobo writes with the
// case's expected/ folder: file for file, with nothing missing and
// nothing left over. CHOBO_BLESS=1 rewrites the folder.
func TestCases(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			out := runCase(t, c)
			for name, data := range out {
				golden.Check(t, c.expected(name), data)
			}
			stale := staleFiles(t, c, out)
			if golden.Bless() {
				for _, p := range stale {
					if err := os.Remove(p); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			for _, p := range stale {
				t.Errorf("%s: chobo writes no such file for this case (CHOBO_BLESS=1 removes it)", p)
			}
		})
	}
}

// staleFiles lists the files under expected/ that no output matches.
func staleFiles(t *testing.T, c testCase, out outputs) []string {
	t.Helper()
	var stale []string
	root := filepath.Join(c.Dir, "expected")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if _, ok := out[rel]; !ok {
			stale = append(stale, p)
		}
		return nil
	})
	return stale
}

// TestCaseAPIRoundTrip decodes every api.json with unknown keys refused
// and encodes it again: the same bytes, so no key is printed that the
// shape does not know.
func TestCaseAPIRoundTrip(t *testing.T) {
	n := 0
	for _, c := range cases(t) {
		data, err := os.ReadFile(c.expected("api.json"))
		if err != nil {
			continue // a book with errors has no api.json
		}
		n++
		var doc api.Book
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		var back bytes.Buffer
		if err := api.Write(&back, doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Bytes(), data) {
			t.Errorf("%s: decoding and encoding again changes api.json", c.Name)
		}
	}
	if n == 0 {
		t.Fatal("no case has an api.json")
	}
}

// TestCasesWithScenariosAreClean: a book whose scenarios are written by
// hand is one the other tests lean on, so it has no diagnostic at all.
func TestCasesWithScenariosAreClean(t *testing.T) {
	for _, c := range cases(t) {
		if !c.Scenarios {
			continue
		}
		out, errOut, code := run(c.Dir, nil, "check", "--format", "json", c.Book)
		var r api.Check
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Files) != 1 || len(r.Files[0].Diagnostics) != 0 {
			t.Errorf("%s: not clean (exit %d): %s%s", c.Name, code, out, errOut)
		}
	}
}

// TestExamplesAreCases keeps every example book under test: each is the
// book of a case, byte for byte. An example's hand-written scenarios
// (<stem>.more.json beside the book) are that case's scenarios.json, so
// the cases' conformance runs them on every backend too.
func TestExamplesAreCases(t *testing.T) {
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*.book"))
	if len(examples) == 0 {
		t.Fatal("no example books")
	}
	all := cases(t)
	var books [][]byte
	for _, c := range all {
		data, err := os.ReadFile(c.path())
		if err != nil {
			t.Fatal(err)
		}
		books = append(books, data)
	}
	for _, p := range examples {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(books, func(b []byte) bool { return bytes.Equal(b, data) })
		if i < 0 {
			t.Errorf("%s is the book of no case under %s: copy it into one", p, casesDir)
			continue
		}
		more, err := os.ReadFile(strings.TrimSuffix(p, ".book") + ".more.json")
		if err != nil {
			continue
		}
		got, err := os.ReadFile(filepath.Join(all[i].Dir, "scenarios.json"))
		if err != nil || !bytes.Equal(got, more) {
			t.Errorf("%s: the scenarios beside it are not %s: copy them there", p, filepath.Join(all[i].Dir, "scenarios.json"))
		}
	}
}
