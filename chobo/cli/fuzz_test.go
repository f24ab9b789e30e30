package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/target"
)

// FuzzCommands runs every command that reads a book on arbitrary text,
// as a user would from the shell: check (text, JSON, Japanese),
// api, doc (Markdown and HTML), scenarios, run of those scenarios (answers
// in both languages, and what a client sends to each backend), and build for every registered target, for
// books of at most maxFuzzMoves moves. Whatever the
// book, each must end with exit 0 or 1 (the book's own errors), never 2
// (a failure of chobo) and never a panic.
// maxFuzzMoves is the most moves (counted as the word "move" anywhere in
// the text) a book of FuzzCommands may have.
const maxFuzzMoves = 8

func FuzzCommands(f *testing.F) {
	for _, glob := range []string{"../../tests/testdata/*/*.book", "../../examples/*/*.book"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// The checker's search and the scenarios grow with a book's
		// moves, and the fuzzing engine takes an input that runs past 10
		// seconds for a hung process: a book of more moves than any case
		// but chain_too_long (44) is left to FuzzCheck and FuzzBuild.
		if bytes.Count(src, []byte("move")) > maxFuzzMoves {
			return
		}
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
