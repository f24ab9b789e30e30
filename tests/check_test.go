package tests

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/codes"
	"github.com/chobo-lang/chobo/tests/golden"
)

const fixtures = "fixtures"

type twin struct {
	code, english, japanese string
}

// readTwins reads fixtures/twins.tsv: a code and the English and the
// Japanese book that must both yield it.
func readTwins(t *testing.T) []twin {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtures, "twins.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []twin
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			t.Fatalf("twins.tsv: want 3 tab-separated fields: %q", line)
		}
		out = append(out, twin{parts[0], parts[1], parts[2]})
	}
	return out
}

// targetOf returns the target a fixture is built for (its <stem>.target
// file), or "" for fixtures that are only checked.
func targetOf(file string) string {
	data, err := os.ReadFile(filepath.Join(fixtures, strings.TrimSuffix(file, ".book")+".target"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

var codeInText = regexp.MustCompile(`(?m)^[^\s\[]+\[([EW]\d{3})\]`)

// codesOf runs check with JSON output, or the build for fixtures with a
// target, and returns the codes reported and the exit status.
func codesOf(t *testing.T, file string) ([]string, int) {
	t.Helper()
	if tg := targetOf(file); tg != "" {
		_, errOut, code := run(fixtures, nil, "build", file, "--target", tg, "--out", t.TempDir())
		var cs []string
		for _, m := range codeInText.FindAllStringSubmatch(errOut, -1) {
			cs = append(cs, m[1])
		}
		slices.Sort(cs)
		return slices.Compact(cs), code
	}
	out, errOut, code := run(fixtures, nil, "check", "--format", "json", file)
	if code == cli.ExitUsage {
		t.Fatalf("check %s: exit 2: %s", file, errOut)
	}
	var r api.Check
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check %s: %v\n%s", file, err, out)
	}
	var cs []string
	for _, d := range r.Files[0].Diagnostics {
		cs = append(cs, d.Code)
	}
	slices.Sort(cs)
	return slices.Compact(cs), code
}

// TestTwins checks that every code fires from its English book and its
// Japanese twin, that the two report the same codes, and that every code
// chobo knows has a pair.
func TestTwins(t *testing.T) {
	seen := map[string]bool{}
	for _, tw := range readTwins(t) {
		seen[tw.code] = true
		t.Run(tw.code+"/"+tw.english, func(t *testing.T) {
			en, enExit := codesOf(t, tw.english)
			ja, jaExit := codesOf(t, tw.japanese)
			if !slices.Contains(en, tw.code) {
				t.Errorf("%s does not yield %s; it yields %v", tw.english, tw.code, en)
			}
			if !slices.Equal(en, ja) || enExit != jaExit {
				t.Errorf("twins differ: %s gives %v (exit %d), %s gives %v (exit %d)", tw.english, en, enExit, tw.japanese, ja, jaExit)
			}
		})
	}
	for _, c := range codes.All {
		if !seen[c.Code] {
			t.Errorf("%s has no pair of fixtures in twins.tsv", c.Code)
		}
	}
}

// TestFixtureGoldens checks the text output in both languages and the
// JSON output of every fixture book.
func TestFixtureGoldens(t *testing.T) {
	books, err := filepath.Glob(filepath.Join(fixtures, "*.book"))
	if err != nil || len(books) == 0 {
		t.Fatalf("no fixture books: %v", err)
	}
	for _, path := range books {
		name := filepath.Base(path)
		stem := strings.TrimSuffix(name, ".book")
		t.Run(stem, func(t *testing.T) {
			for _, v := range []struct {
				suffix string
				args   []string
			}{
				{".check.txt", []string{"check", name}},
				{".check.ja.txt", []string{"check", "--lang", "ja", name}},
				{".check.json", []string{"check", "--format", "json", name}},
			} {
				out, errOut, code := run(fixtures, nil, v.args...)
				if code == cli.ExitUsage {
					t.Fatalf("%v: exit 2: %s", v.args, errOut)
				}
				golden.Check(t, filepath.Join(fixtures, "golden", stem+v.suffix), []byte(out))
			}
			if tg := targetOf(name); tg != "" {
				for _, v := range []struct{ suffix, lang string }{{".build.txt", "en"}, {".build.ja.txt", "ja"}} {
					_, errOut, _ := run(fixtures, nil, "build", name, "--target", tg, "--lang", v.lang, "--out", t.TempDir())
					golden.Check(t, filepath.Join(fixtures, "golden", stem+v.suffix), []byte(errOut))
				}
			}
		})
	}
}
