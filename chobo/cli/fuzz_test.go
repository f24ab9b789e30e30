package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check/checktest"
	"github.com/chobo-lang/chobo/chobo/target"
)

// FuzzCommands runs every command that reads a book on arbitrary text,
// as a user would from the shell: check (text, JSON, Japanese), api, doc
// (Markdown and HTML), scenarios, run of those scenarios (answers in both
// languages, and what a client sends to each backend), and build for every
// registered target. Whatever the book, each must end with exit 0 or 1
// (the book's own errors), never 2 (a failure of chobo) and never a panic;
// and since the search and the scenarios are bounded in work, each ends
// soon whatever the book's size: the seeds include transfers of hundreds
// of moves that go back and forth between bounded accounts.
func FuzzCommands(f *testing.F) {
	for _, glob := range []string{"../../tests/testdata/*/*.book", "../../examples/*/*.book"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
	}
	for _, b := range checktest.Hostile() {
		if b.Seed {
			f.Add(b.Src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		files := map[string][]byte{"fuzz.book": src}
		out := t.TempDir()
		call := func(args ...string) (string, int) {
			var stdout, stderr bytes.Buffer
			code := Main(args, Env{
				Stdout: &stdout, Stderr: &stderr,
				Getenv: func(string) string { return "" },
				ReadFile: func(name string) ([]byte, error) {
					if data, ok := files[filepath.Base(name)]; ok {
						return data, nil
					}
					return nil, os.ErrNotExist
				},
				Dir: out,
			})
			if code != ExitOK && code != ExitError {
				t.Fatalf("chobo %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
			}
			return stdout.String(), code
		}
		call("check", "fuzz.book")
		call("check", "--format", "json", "fuzz.book")
		call("check", "--lang", "ja", "fuzz.book")
		call("api", "fuzz.book")
		call("doc", "fuzz.book")
		call("doc", "fuzz.book", "--format", "html", "--lang", "ja")
		for _, tg := range target.All {
			call("build", "fuzz.book", "--target", tg.Name, "--out", filepath.Join(out, tg.Name))
		}
		scenarios, code := call("scenarios", "fuzz.book")
		if code != ExitOK {
			return
		}
		files["scenarios.json"] = []byte(scenarios)
		call("run", "fuzz.book", "--scenario", "scenarios.json")
		call("run", "fuzz.book", "--scenario", "scenarios.json", "--lang", "ja")
		call("run", "fuzz.book", "--scenario", "scenarios.json", "--format", "json")
		call("run", "fuzz.book", "--scenario", "scenarios.json", "--show", "postgres")
		call("run", "fuzz.book", "--scenario", "scenarios.json", "--show", "tigerbeetle")
	})
}
