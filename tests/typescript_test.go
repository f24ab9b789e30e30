package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	tsdriver "github.com/chobo-lang/chobo/runtime/typescript/driver"
	"github.com/chobo-lang/chobo/tests/golden"
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

// TestTypeScriptVectors writes the ids, ledgers, codes and contents the Go
// implementation gives into the runtime's test data, where its unit tests
// read them: the golden switch rewrites the file, and a stale one fails.
func TestTypeScriptVectors(t *testing.T) {
	type idVector struct {
		Role  string   `json:"role"`
		Parts []string `json:"parts"`
		Hex   string   `json:"hex"`
	}
	type ledgerVector struct {
		Unit   string `json:"unit"`
		Scale  int    `json:"scale"`
		Ledger uint32 `json:"ledger"`
	}
	type codeVector struct {
		Book     string `json:"book"`
		Category string `json:"category"`
		Name     string `json:"name"`
		Code     uint16 `json:"code"`
	}
	// An amount is written as a string in an object of its own, so that
	// JSON numbers never carry one past 2^53.
	type amount struct {
		Amount string `json:"amount"`
	}
	type contentVector struct {
		Values []any  `json:"values"`
		JSON   string `json:"json"`
	}
	type limits struct {
		MaxTenant    int `json:"max_tenant"`
		MaxTexts     int `json:"max_texts"`
		TextOverhead int `json:"text_overhead"`
	}
	var v struct {
		IDs      []idVector      `json:"ids"`
		Ledgers  []ledgerVector  `json:"ledgers"`
		Codes    []codeVector    `json:"codes"`
		Contents []contentVector `json:"contents"`
		Limits   limits          `json:"limits"`
	}
	v.Limits = limits{book.MaxTenant, book.MaxTexts, book.TextOverhead}
	if v.Limits != (limits{chobo.MaxTenant, chobo.MaxTexts, chobo.TextOverhead}) {
		t.Errorf("the Go runtime's limits %d, %d, %d are not the book's %+v", chobo.MaxTenant, chobo.MaxTexts, chobo.TextOverhead, v.Limits)
	}
	for _, x := range ids.Vectors {
		v.IDs = append(v.IDs, idVector{x.Role, append([]string{}, x.Parts...), x.Hex})
	}
	for _, u := range []ledgerVector{{Unit: "pcs"}, {Unit: "USD", Scale: 2}, {Unit: "円"}, {}} {
		u.Ledger = ids.Ledger(u.Unit, u.Scale)
		v.Ledgers = append(v.Ledgers, u)
	}
	for _, c := range []codeVector{{"inventory", "account", "stock", 0}, {"在庫管理", "transfer", "引当", 0}, {"b", "sink", "pcs", 0}} {
		c.Code = ids.Code(c.Book, c.Category, c.Name)
		v.Codes = append(v.Codes, c)
	}
	for _, s := range []string{"o-1", "", "在庫", "<a&b>", `q"\`, "\b\f\n\r\t\x01\x1f\x7f", "\u2028\u2029", "😀", "é\u0301"} {
		v.Contents = append(v.Contents, contentVector{[]any{s, amount{"3"}, "x"}, chobotb.Content(chobotb.Values{s, int64(3), "x"})})
	}
	const max = int64(9223372036854775807)
	v.Contents = append(v.Contents, contentVector{[]any{amount{"0"}, amount{strconv.FormatInt(max, 10)}}, chobotb.Content(chobotb.Values{int64(0), max})})
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(tsRuntimeDir, "test", "vectors.json"), append(data, '\n'))
}

// TestTypeScriptRuntime compiles the runtime with its own configuration
// (which is stricter than what clients must pass) and runs its unit tests.
func TestTypeScriptRuntime(t *testing.T) {
	node, tsc := typeScript(t)
	// Laid out as the package is: dist/ beside test/, whose vectors.json
	// the compiled tests read.
	out := t.TempDir()
	cmd := exec.Command(tsc, "-p", tsRuntimeDir, "--outDir", filepath.Join(out, "dist"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc -p runtime/typescript: %v\n%s", err, b)
	}
	if err := os.CopyFS(filepath.Join(out, "test"), os.DirFS(filepath.Join(tsRuntimeDir, "test"))); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(out, "node_modules")
	abs, _ := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests, _ := filepath.Glob(filepath.Join(out, "dist", "test", "*.test.js"))
	if len(tests) < 4 {
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
