package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
)

// The TypeScript side: chobo's TypeScript runtime (lang/typescript/runtime, a
// package with its own tests), the clients of every case compiled with
// tsc, and the example of docs/targets.md run. The clients are driven on
// real servers by the conformance tests, through the TypeScript driver
// kit (lang/typescript/driver). Node and the runtime's pinned packages
// come from tests/setup.sh (npm ci in lang/typescript/runtime).

// tsRuntimeDir is the TypeScript runtime's package, from tests/.
const tsRuntimeDir = "../lang/typescript/runtime"

// tsFlags are the flags the generated clients must pass.
var tsFlags = tsdriver.ClientFlags

// typeScript returns node and the runtime's pinned tsc, or skips t (with
// a SKIP line) when they are not installed; under CI they must be.
func typeScript(t *testing.T) (node, tsc string) {
	t.Helper()
	_, lang := languageOf(t, "postgres-typescript")
	tools := useLanguage(t, lang).(*tsdriver.Tools)
	return tools.Node.Program, tools.TSC
}

// targetsExample reads the first block of language lang in the section
// of docs/targets.md that starts with heading, and the block after it,
// which shows what it prints.
func targetsExample(t *testing.T, heading, lang string) (program, printed string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "targets.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("docs/targets.md has no section %q", heading)
	}
	block := func(from int, fence string) (string, int) {
		start := strings.Index(text[from:], fence)
		if start < 0 {
			t.Fatalf("docs/targets.md: no %q block after %q", fence, heading)
		}
		start += from + len(fence)
		end := strings.Index(text[start:], "```\n")
		return text[start : start+end], start + end + 4
	}
	program, next := block(i, "```"+lang+"\n")
	printed, _ = block(next, "```\n")
	return program, printed
}

// TestTypeScriptExampleInDocs runs the postgres-typescript example of
// docs/targets.md as it stands, with the inventory example's client, on a
// real server as the application's role, and holds what it prints to the
// block after it.
func TestTypeScriptExampleInDocs(t *testing.T) {
	node, tsc := typeScript(t)
	program, want := targetsExample(t, "## `postgres-typescript` and `tigerbeetle-typescript`", "ts")

	b, src := loadBook(t, filepath.Join("..", "examples", "inventory", "inventory.book"))
	d := deployBook(t, b, src, 4)
	dir := t.TempDir()
	client, err := os.ReadFile(filepath.Join(casesDir, "inventory", "expected", "postgres-typescript", "inventory.ts"))
	if err != nil {
		t.Fatal(err)
	}
	modules, _ := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	for name, data := range map[string][]byte{"main.ts": []byte(program), "inventory.ts": client,
		"package.json": []byte(`{"type": "module"}` + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, tsFlags...), "--target", "es2022", "--module", "nodenext", "--types", "node",
		"--typeRoots", filepath.Join(modules, "@types"), "--allowImportingTsExtensions", "--rewriteRelativeImportExtensions",
		"--outDir", filepath.Join(dir, "dist"), filepath.Join(dir, "main.ts"), filepath.Join(dir, "inventory.ts"))
	cmd := exec.Command(tsc, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc over the example: %v\n%s", err, out)
	}
	cmd = exec.Command(node, filepath.Join(dir, "dist", "main.js"))
	cmd.Env = append(os.Environ(), "PGHOST="+d.srv.SocketDir, fmt.Sprintf("PGPORT=%d", d.srv.Port),
		"PGUSER="+pgdeploy.App, "PGDATABASE="+pgtest.DefaultDB)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != want {
		t.Errorf("the example printed\n%s\nbut docs/targets.md shows\n%s", got, want)
	}
}
