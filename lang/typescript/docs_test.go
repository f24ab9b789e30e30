package typescript_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// TestExampleInDocs compiles the postgres-typescript example of
// docs/targets.md as it stands with the inventory example's client, runs
// it on a real server as the application's role, and holds what it
// prints to the block after it.
func TestExampleInDocs(t *testing.T) {
	ts := tools(t)
	program, want := langtest.DocExample(t, "## `postgres-typescript` and `tigerbeetle-typescript`", "ts")
	d := langtest.Deploy(t, []pgdeploy.Book{langtest.BookSQL(t, "examples/inventory/inventory.book")}, 4)
	dir := t.TempDir()
	client := langtest.CaseClient(t, "inventory", "postgres-typescript").Data
	for name, data := range map[string][]byte{"main.ts": []byte(program), "inventory.ts": client,
		"package.json": []byte(`{"type": "module"}` + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(ts.Node.Modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, tsdriver.ClientFlags...), "--target", "es2022", "--module", "nodenext", "--types", "node",
		"--typeRoots", filepath.Join(ts.Node.Modules, "@types"), "--allowImportingTsExtensions", "--rewriteRelativeImportExtensions",
		"--outDir", filepath.Join(dir, "dist"), filepath.Join(dir, "main.ts"), filepath.Join(dir, "inventory.ts"))
	cmd := exec.Command(ts.TSC, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc over the example: %v\n%s", err, out)
	}
	cmd = exec.Command(ts.Node.Program, filepath.Join(dir, "dist", "main.js"))
	cmd.Env = append(os.Environ(), d.Env()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != want {
		t.Errorf("the example printed\n%s\nbut docs/targets.md shows\n%s", got, want)
	}
}
