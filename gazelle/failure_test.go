package gazelle

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/gazelle/gazelletest"
)

// childDirEnv names the repository TestGazelleChild runs Gazelle on.
const childDirEnv = "CHOBO_GAZELLE_CHILD_DIR"

// TestGazelleChild is the Gazelle run of TestBadDirectiveWritesNothing,
// in a process of its own: a directive chobo cannot follow ends the
// process, as it ends Gazelle.
func TestGazelleChild(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("the Gazelle run of TestBadDirectiveWritesNothing; runs only in its child process")
	}
	gazelletest.Run(t, dir, NewLanguage())
}

// badDirectiveCases change a settled copy of testdata/resolve (its BUILD
// files are the .out ones, what Gazelle writes) so that it holds a
// directive chobo cannot follow. Had Gazelle gone on without it, each
// would have changed a BUILD file: the client list falls back to the
// default, so ledger/ loses stock_tb_client and cmd/tb its dep on it; a
// deleted BUILD file is written again.
var badDirectiveCases = []struct {
	name string
	edit func(t *testing.T, dir string)
	// want are the lines Gazelle must print.
	want []string
}{
	{
		name: "a wrong word in the client list",
		edit: func(t *testing.T, dir string) {
			replaceIn(t, dir, "BUILD.bazel", "chobo_client postgres-go tigerbeetle-go", "chobo_client postgres-go tigerbeetle-go tigerbeetle-og")
		},
		want: []string{`BUILD.bazel: gazelle:chobo_client: unknown client target "tigerbeetle-og"; did you mean tigerbeetle-go?`},
	},
	{
		name: "a misspelt directive name",
		edit: func(t *testing.T, dir string) {
			replaceIn(t, dir, "BUILD.bazel", "gazelle:chobo_client ", "gazelle:chobo_clients ")
		},
		// Gazelle's own report of a name no language knows comes first.
		want: []string{
			"BUILD.bazel: unknown directive: gazelle:chobo_clients",
			"BUILD.bazel: gazelle:chobo_clients is not a directive of chobo; did you mean # gazelle:chobo_client?",
		},
	},
	{
		name: "a misspelt chobo in a directive name",
		edit: func(t *testing.T, dir string) {
			replaceIn(t, dir, "BUILD.bazel", "gazelle:chobo_client ", "gazelle:chobbo_client ")
		},
		want: []string{
			"BUILD.bazel: unknown directive: gazelle:chobbo_client",
			"BUILD.bazel: gazelle:chobbo_client is not a directive of chobo; did you mean # gazelle:chobo_client?",
		},
	},
	{
		name: "a wrong directive below, another BUILD file missing",
		edit: func(t *testing.T, dir string) {
			replaceIn(t, dir, "ledger/BUILD.bazel", "chobo_book(", "# gazelle:chobo-doc html\n\nchobo_book(")
			if err := os.Remove(filepath.Join(dir, "cmd", "app", "BUILD.bazel")); err != nil {
				t.Fatal(err)
			}
		},
		want: []string{"ledger/BUILD.bazel: gazelle:chobo-doc is not a directive of chobo; did you mean # gazelle:chobo_doc?"},
	},
}

// A directive chobo cannot follow fails the run, and no file of the
// repository is changed, created or removed: not in the directory of the
// directive, nor in any other.
func TestBadDirectiveWritesNothing(t *testing.T) {
	for _, tc := range badDirectiveCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := settledCase(t, "resolve")
			tc.edit(t, dir)
			before := readTree(t, dir)

			cmd := exec.Command(os.Args[0], "-test.run=^TestGazelleChild$", "-test.count=1")
			// GOPROXY=off: were the directive dropped, Go would look the
			// client's import path up online.
			cmd.Env = append(os.Environ(), childDirEnv+"="+dir, "GOPROXY=off")
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Errorf("Gazelle did not fail (%v); output:\n%s", err, stderr.String())
			}
			for _, line := range tc.want {
				if !strings.Contains(stderr.String(), line) {
					t.Errorf("output lacks %q:\n%s", line, stderr.String())
				}
			}
			compareTrees(t, readTree(t, dir), before)
		})
	}
}

// settledCase copies the case name of testdata to a new directory, with
// the BUILD files Gazelle writes for it in place of those it starts from.
func settledCase(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range gazelletest.CopyCase(t, filepath.Join("testdata", name), dir) {
		out := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func replaceIn(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", rel, old)
	}
	if err := os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTree is every file under dir, by its path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func compareTrees(t *testing.T, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s: removed", p)
		case g != w:
			t.Errorf("%s: changed to:\n%s\nfrom:\n%s", p, g, w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: written:\n%s", p, g)
		}
	}
}
