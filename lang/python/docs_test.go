package python_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// TestExampleInDocs runs the postgres-python example of docs/targets.md
// as it stands, with the inventory example's client, on a real server as
// the application's role, and holds what it prints to the block after it.
func TestExampleInDocs(t *testing.T) {
	python := venvPython(t)
	program, want := langtest.DocExample(t, "## `postgres-python` and `tigerbeetle-python`", "python")
	d := langtest.Deploy(t, []pgdeploy.Book{langtest.BookSQL(t, "examples/inventory/inventory.book")}, 4)
	dir := t.TempDir()
	client := langtest.CaseClient(t, "inventory", "postgres-python").Data
	for name, data := range map[string][]byte{"main.py": []byte(program), "inventory.py": client} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(python, "-B", filepath.Join(dir, "main.py"))
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), d.Env()...), "PYTHONPATH=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != want {
		t.Errorf("the example printed\n%s\nbut docs/targets.md shows\n%s", got, want)
	}
}
