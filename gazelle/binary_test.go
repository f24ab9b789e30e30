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
)

// TestGazelleBinaryStopsOnBadDirective runs the gazelle command itself,
// built from the version of Gazelle go.mod pins with chobo's language
// added, as gazelle_binary does: gazelletest.Run follows that command's order
// (walk, then resolve, then write), and this holds the command to it. A
// directive chobo cannot follow must end the command with a non-zero
// status before it writes anything, in every output mode.
func TestGazelleBinaryStopsOnBadDirective(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: builds the gazelle command; not with -short")
	}
	bin := buildGazelle(t)
	run := func(t *testing.T, dir string, args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"-repo_root=" + dir}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	// The command agrees with gazelletest.Run: on a settled tree it changes
	// nothing, and it writes a book's BUILD file that is missing.
	t.Run("settled", func(t *testing.T) {
		dir := settledCase(t, "resolve")
		before := readTree(t, dir)
		if err := os.Remove(filepath.Join(dir, "ledger", "BUILD.bazel")); err != nil {
			t.Fatal(err)
		}
		if out, err := run(t, dir); err != nil {
			t.Fatalf("gazelle: %v\n%s", err, out)
		}
		compareTrees(t, readTree(t, dir), before)
	})

	for _, tc := range badDirectiveCases {
		for _, mode := range []string{"fix", "diff", "print"} {
			t.Run(tc.name+", -mode "+mode, func(t *testing.T) {
				dir := settledCase(t, "resolve")
				tc.edit(t, dir)
				before := readTree(t, dir)
				out, err := run(t, dir, "-mode", mode)
				var exit *exec.ExitError
				if !errors.As(err, &exit) {
					t.Errorf("gazelle did not fail (%v); output:\n%s", err, out)
				}
				for _, line := range tc.want {
					if !strings.Contains(out, line) {
						t.Errorf("output lacks %q:\n%s", line, out)
					}
				}
				// Neither a diff nor a printed BUILD file: nothing is
				// emitted at all.
				if strings.Contains(out, "+++ ") || strings.Contains(out, "chobo_book(") {
					t.Errorf("gazelle emitted a BUILD file:\n%s", out)
				}
				compareTrees(t, readTree(t, dir), before)
			})
		}
	}
}

// buildGazelle builds the gazelle command of the pinned Gazelle with the
// languages it has and chobo's, from the Go module cache, offline. The
// command's package cannot be built from this module (it imports
// Gazelle's internal packages), so a copy of the Gazelle module gets
// chobo's language in its list, and a scratch module puts the two
// together.
func buildGazelle(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: no go command to build gazelle with")
	}
	goList := func(mod string) string {
		out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Dir}}", mod).Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			t.Skipf("SKIP: the source of %s is not at hand (%v)", mod, err)
		}
		return strings.TrimSpace(string(out))
	}
	choboDir := goList("github.com/chobo-lang/chobo")
	gazelleDir := goList("github.com/bazelbuild/bazel-gazelle")

	work := t.TempDir()
	gz := filepath.Join(work, "gazelle")
	err = filepath.WalkDir(gazelleDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(gazelleDir, p)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "vendor" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(gz, rel), 0o755)
		}
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(gz, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(rel, old, new string) {
		p := filepath.Join(gz, filepath.FromSlash(rel))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if old != "" && !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s of %s has no %q: not the Gazelle this test knows", rel, gazelleDir, old)
		}
		if old == "" {
			data = append(data, new...)
		} else {
			data = bytes.Replace(data, []byte(old), []byte(new), 1)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("cmd/gazelle/langs.go", "import (\n", "import (\n\tchobo \"github.com/chobo-lang/chobo/gazelle\"\n")
	edit("cmd/gazelle/langs.go", "golang.NewLanguage(),\n", "golang.NewLanguage(),\n\tchobo.NewLanguage(),\n")
	edit("go.mod", "", "\nrequire github.com/chobo-lang/chobo v0.0.0\n")

	// The scratch module has chobo's requirements, so that the versions
	// are the ones chobo is built and tested with.
	mainDir := filepath.Join(work, "main")
	if err := os.MkdirAll(mainDir, 0o755); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(choboDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = bytes.Replace(mod, []byte("module github.com/chobo-lang/chobo\n"), []byte("module chobogazelle\n"), 1)
	mod = append(mod, []byte("\nrequire github.com/chobo-lang/chobo v0.0.0\n"+
		"replace github.com/chobo-lang/chobo => "+choboDir+"\n"+
		"replace github.com/bazelbuild/bazel-gazelle => "+gz+"\n")...)
	sum, err := os.ReadFile(filepath.Join(choboDir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mainDir, "go.mod"), mod, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mainDir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "gazelle-bin")
	cmd := exec.Command(goBin, "build", "-o", bin, "github.com/bazelbuild/bazel-gazelle/cmd/gazelle")
	cmd.Dir = mainDir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "GOPROXY=off") {
			t.Skipf("SKIP: a module gazelle needs is not in the module cache:\n%s", out)
		}
		t.Fatalf("building gazelle: %v\n%s", err, out)
	}
	return bin
}
