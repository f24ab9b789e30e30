package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tsdriver "github.com/chobo-lang/chobo/runtime/typescript/driver"
)

// The TypeScript side: chobo's TypeScript runtime (runtime/typescript, a
// package with its own tests), the clients of every case compiled with
// tsc, and, in typescript_conformance_test.go, those clients driven on
// real servers. Node and the runtime's pinned packages come from
// tests/setup.sh (npm ci in runtime/typescript).

// tsRuntimeDir is the TypeScript runtime's package, from tests/.
const tsRuntimeDir = "../runtime/typescript"

// tsFlags are the flags the generated clients must pass.
var tsFlags = tsdriver.ClientFlags

var tsTools struct {
	once      sync.Once
	node, tsc string
	skip      string
}

var tsSkipOnce sync.Once

// typeScript returns node and the runtime's pinned tsc, or skips t (with
// a SKIP line) when they are not installed; under CI they must be.
func typeScript(t *testing.T) (node, tsc string) {
	t.Helper()
	tsTools.once.Do(func() {
		if os.Getenv("TEST_SRCDIR") != "" {
			tsTools.skip = "under Bazel the runtime's npm packages are not at hand; the Bazel rules' own tests drive TypeScript there"
			return
		}
		node, err := exec.LookPath("node")
		if err != nil {
			tsTools.skip = "no node command: install Node 20 (tests/setup.sh does)"
			return
		}
		tsc, err := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules", ".bin", "tsc"))
		if err == nil {
			_, err = os.Stat(tsc)
		}
		if err != nil {
			tsTools.skip = "the TypeScript runtime's packages are not installed: run npm ci in runtime/typescript (tests/setup.sh does)"
			return
		}
		tsTools.node, tsTools.tsc = node, tsc
	})
	if tsTools.skip != "" {
		tsSkipOnce.Do(func() { fmt.Println("SKIP: " + tsTools.skip) })
		if os.Getenv("CI") == "true" && os.Getenv("TEST_SRCDIR") == "" {
			t.Fatalf("TypeScript is not set up: %s", tsTools.skip)
		}
		t.Skip("SKIP: " + tsTools.skip)
	}
	return tsTools.node, tsTools.tsc
}

// TestTypeScriptRuntime compiles the runtime with its own configuration
// (which is stricter than what clients must pass) and runs its unit tests.
func TestTypeScriptRuntime(t *testing.T) {
	node, tsc := typeScript(t)
	// Laid out as the repository is: the package's dist/ beside its
	// node_modules, and testdata/vectors.json two folders above the
	// compiled tests, where they look for it.
	out := t.TempDir()
	pkg := filepath.Join(out, "typescript")
	cmd := exec.Command(tsc, "-p", tsRuntimeDir, "--outDir", filepath.Join(pkg, "dist"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc -p runtime/typescript: %v\n%s", err, b)
	}
	vec, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "testdata", "vectors.json"), vec, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	if err := os.Symlink(abs, filepath.Join(pkg, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests, _ := filepath.Glob(filepath.Join(pkg, "dist", "test", "*.test.js"))
	if len(tests) < 5 {
		t.Fatalf("found %d compiled test files", len(tests))
	}
	cmd = exec.Command(node, append([]string{"--test", "--test-reporter=tap"}, tests...)...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the runtime's unit tests failed: %v\n%s", err, b)
	}
	pass := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "# pass ") || strings.HasPrefix(l, "# fail ") {
			pass += strings.TrimPrefix(l, "# ") + " "
		}
	}
	t.Logf("runtime/typescript: %s", pass)
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
