package tests

import (
	"bytes"
	"errors"
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

// TestTypeScriptRuntime compiles the runtime with its own configuration
// (which is stricter than what clients must pass) and runs its unit tests.
func TestTypeScriptRuntime(t *testing.T) {
	node, tsc := typeScript(t)
	// Laid out as the repository is: the package's dist/ beside its
	// node_modules in lang/typescript/runtime, and runtime/testdata's
	// vectors.json, history_vectors.json, connection_vectors.json and
	// tb_bulk_vectors.json where the compiled tests look for them from
	// there.
	out := t.TempDir()
	pkg := filepath.Join(out, "lang", "typescript", "runtime")
	cmd := exec.Command(tsc, "-p", tsRuntimeDir, "--outDir", filepath.Join(pkg, "dist"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc -p lang/typescript/runtime: %v\n%s", err, b)
	}
	testdata := filepath.Join(out, "runtime", "testdata")
	if err := os.MkdirAll(testdata, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(vectorsFile)
	for _, f := range []string{vectorsFile, filepath.Join(dir, "history_vectors.json"), filepath.Join(dir, "connection_vectors.json"),
		filepath.Join(dir, "tb_bulk_vectors.json")} {
		vec, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(testdata, filepath.Base(f)), vec, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs, _ := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	if err := os.Symlink(abs, filepath.Join(pkg, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests, _ := filepath.Glob(filepath.Join(pkg, "dist", "runtime", "test", "*.test.js"))
	if len(tests) < 5 {
		t.Fatalf("found %d compiled test files", len(tests))
	}
	cmd = exec.Command(node, append([]string{"--test", "--test-reporter=tap"}, tests...)...)
	// The tests against a real server take it from CHOBO_PG_DSN, and the
	// book they load into it from CHOBO_PG_SQL.
	srv, err := pgtest.Launch()
	switch {
	case errors.Is(err, pgtest.ErrNoServer) && os.Getenv("CI") != "true":
		fmt.Println("SKIP: the TypeScript runtime's tests on a real PostgreSQL: " + err.Error())
	case err != nil:
		t.Fatal(err)
	default:
		t.Cleanup(func() {
			if err := srv.Stop(); err != nil {
				t.Errorf("pgtest: %v", err)
			}
		})
		sql, err := filepath.Abs(filepath.Join(casesDir, "stock_reservation", "expected", "postgres", "stock_reservation.sql"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(os.Environ(), "CHOBO_PG_DSN="+srv.ConnString(pgtest.DefaultDB), "CHOBO_PG_SQL="+sql)
	}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the runtime's unit tests failed: %v\n%s", err, b)
	}
	if srv != nil && strings.Contains(string(b), "SKIP: real PostgreSQL") {
		t.Fatalf("the TypeScript runtime's tests skipped the real server they were given:\n%s", b)
	}
	pass := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "# pass ") || strings.HasPrefix(l, "# fail ") {
			pass += strings.TrimPrefix(l, "# ") + " "
		}
	}
	t.Logf("lang/typescript/runtime: %s", pass)
	if !strings.Contains(pass, "fail 0") {
		t.Fatalf("the runtime's unit tests did not all pass:\n%s", b)
	}
}

// TestTypeScriptClientsCompile runs tsc with the flags every generated
// client must pass over the expected clients of every case, both targets,
// as users would: each file as it is, with Node's types; and again with the
// checks of the strictest projects.
func TestTypeScriptClientsCompile(t *testing.T) {
	_, tsc := typeScript(t)
	var files []string
	for _, c := range cases(t) {
		for _, tg := range []string{"postgres-typescript", "tigerbeetle-typescript"} {
			found, _ := filepath.Glob(c.expected(filepath.Join(tg, "*.ts")))
			files = append(files, found...)
		}
	}
	if len(files) < 20 {
		t.Fatalf("found only %d TypeScript clients", len(files))
	}
	// Each file is a module, so one program of them all still checks
	// each file alone.
	types, _ := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules", "@types"))
	args := append(append([]string{}, tsFlags...), "--noEmit", "--target", "es2022", "--module", "nodenext",
		"--types", "node", "--typeRoots", types)
	// The flags every client must pass, then those of the
	// strictest projects, which a client must not make them give up.
	for _, flags := range [][]string{nil, strictest} {
		cmd := exec.Command(tsc, append(append(args, flags...), files...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("tsc %s over %d clients: %v\n%s", strings.Join(append(tsFlags, flags...), " "), len(files), err, out.String())
		}
		t.Logf("tsc %s: %d clients compile", strings.Join(append(tsFlags, flags...), " "), len(files))
	}
}

// strictest are the checks strict projects turn on beyond --strict.
var strictest = []string{"--noUnusedParameters", "--noImplicitReturns", "--noFallthroughCasesInSwitch",
	"--exactOptionalPropertyTypes", "--noUncheckedIndexedAccess", "--noPropertyAccessFromIndexSignature",
	"--isolatedModules", "--noImplicitOverride"}

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
