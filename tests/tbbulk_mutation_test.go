package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The TigerBeetle bulk vectors (runtime/testdata/tb_bulk_vectors.json)
// are worth only what they catch, as the connection vectors are
// (connvectors_mutation_test.go): each mutation below is a small change
// to a runtime's bulk call on TigerBeetle, and the runtime's own replay
// of the vectors must fail with it.

var goBulkMutations = []mutation{
	{"a request packed past MaxEvents", "bulk.go",
		"if len(batch)+len(chain) > MaxEvents {", "if len(batch)+len(chain) > MaxEvents+5 {"},
	{"every chain a request of its own", "bulk.go",
		"if len(batch)+len(chain) > MaxEvents {", "if len(batch) > 0 {"},
	{"a failed request whose error is dropped", "bulk.go",
		"\t\t\t\terrs[i] = err\n", "\t\t\t\t_ = err\n"},
	{"statuses read from the wrong place", "bulk.go",
		"statuses[i] = st[at : at+n]", "statuses[i] = st[:n]"},
	{"a failed accounts request that stops every call", "bulk.go",
		"\t\tfor _, i := range r.planned {\n\t\t\tr.out[i].Err, r.chains[i] = err, nil\n\t\t}\n",
		"\t\treturn nil, err\n"},
	{"a hold id looked up as often as it is named", "bulk.go",
		"\t\t\tif !asked[id] {\n", "\t\t\tif true {\n"},
	{"a post over its hold sent as a post", "bulk.go",
		"\t\tif over {\n", "\t\tif over && false {\n"},
	{"a chain laid out otherwise read as it is", "bulk.go",
		"if laidOutOtherwise(chain, statuses[i]) {", "if false {"},
	{"the chains of an earlier version sent together", "bulk.go",
		"statuses, errs := b.sendChains(ctx, chains[n:n+1])", "statuses, errs := b.sendChains(ctx, append(chains[n:n+1:n+1], chains[n+1:]...))"},
}

var tsBulkMutations = []mutation{
	{"a request packed past MAX_EVENTS", "tigerbeetle.ts",
		"n + s.chains.get(order[k]!)!.length <= MAX_EVENTS", "n + s.chains.get(order[k]!)!.length <= MAX_EVENTS + 5"},
	{"a failed request whose error is dropped", "tigerbeetle.ts",
		"        for (const i of batch) {\n          s.out[i] = asError(err);\n        }\n        continue;\n",
		"        continue;\n"},
	{"statuses read from the wrong place", "tigerbeetle.ts",
		"statuses.slice(at, at + length)", "statuses.slice(0, length)"},
	{"a failed accounts request whose calls are answered nothing", "tigerbeetle.ts",
		"        s.out[i] = asError(err);\n        s.chains.delete(i);\n", "        s.chains.delete(i);\n"},
	{"a hold id looked up as often as it is named", "tigerbeetle.ts",
		"[...new Set(s.finishing.flatMap((f) => f.ids))]", "s.finishing.flatMap((f) => f.ids)"},
	{"a lookup's stranger taken", "tigerbeetle.ts",
		"          if (!batch.includes(t.id)) {\n", "          if (batch.length < 0) {\n"},
}

var pyBulkMutations = []mutation{
	{"a request packed past MAX_EVENTS", "tbclient.py",
		"n + len(b.chains[order[k]]) <= MAX_EVENTS", "n + len(b.chains[order[k]]) <= MAX_EVENTS + 5"},
	{"a failed request whose error is dropped", "tbclient.py",
		"                for i in batch_i:\n                    b.out[i] = e\n                continue\n",
		"                continue\n"},
	{"statuses read from the wrong place", "tbclient.py",
		"mine = statuses[at : at + len(b.chains[i])]", "mine = statuses[: len(b.chains[i])]"},
	{"a failed accounts request whose calls are answered nothing", "tbclient.py",
		"                b.out[i] = e\n                b.chains.pop(i, None)\n", "                b.chains.pop(i, None)\n"},
	{"a hold id looked up as often as it is named", "tbclient.py",
		"ids = list(dict.fromkeys(x for _, _, ls in b.finishing for x in ls))", "ids = [x for _, _, ls in b.finishing for x in ls]"},
	{"a lookup's stranger taken", "tbclient.py",
		"if tr.id not in batch:", "if not batch:"},
}

// goReplay runs the tests of the Go package in dir named by run with the
// files of overlay in place of theirs.
func goReplay(t *testing.T, dir, run string, overlay map[string]string) (string, error) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	o, _ := json.Marshal(map[string]any{"Replace": overlay})
	f := filepath.Join(t.TempDir(), "overlay.json")
	if err := os.WriteFile(f, o, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "test", "-overlay", f, "-count=1", "-timeout=120s", "-run", run, ".")
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// goMutated runs the replay with m applied to its file in dir.
func goMutated(t *testing.T, dir, run string, m mutation) (string, error) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, m.file))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), m.file)
	if err := os.WriteFile(f, []byte(mutate(t, m, string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	return goReplay(t, dir, run, map[string]string{filepath.Join(dir, m.file): f})
}

// skipWithoutGo skips t with a SKIP line where the go command is not at hand.
func skipWithoutGo(t *testing.T) {
	t.Helper()
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command is not at hand")
	}
	if _, err := exec.LookPath("go"); err != nil {
		fmt.Println("SKIP: no go command")
		t.Skip("SKIP: no go command")
	}
}

func TestBulkVectorsCatchGoMutations(t *testing.T) {
	skipWithoutGo(t)
	dir, err := filepath.Abs("../runtime/go/chobotb")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := goReplay(t, dir, "^TestBulkVectors$", map[string]string{}); err != nil {
		t.Fatalf("the vectors fail the runtime as it is: %v\n%s", err, out)
	}
	for _, m := range goBulkMutations {
		t.Run(m.name, func(t *testing.T) {
			out, err := goMutated(t, dir, "^TestBulkVectors$", m)
			if err == nil {
				t.Fatalf("the vectors pass with the mutation:\n%s", out)
			}
			if !strings.Contains(out, "--- FAIL: TestBulkVectors/") {
				t.Fatalf("the replay did not run to fail a vector:\n%s", out)
			}
		})
	}
}

// tsReplay compiles the TypeScript runtime with src/<file> as src gives
// it, laid out as TestTypeScriptRuntime lays it out, and runs the
// compiled test test (under dist/test) with env.
func tsReplay(t *testing.T, file, src, test string, env ...string) (string, error) {
	t.Helper()
	node, tsc := typeScript(t)
	modules, err := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	// Laid out as in the checkout: the runtime's tsconfig.json takes the
	// driver from the folder beside it.
	pkg := filepath.Join(t.TempDir(), "lang", "typescript", "runtime")
	for _, d := range []string{"src", "test", "../driver"} {
		if err := os.CopyFS(filepath.Join(pkg, d), os.DirFS(filepath.Join(tsRuntimeDir, d))); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tsconfig.json", "package.json"} {
		b, err := os.ReadFile(filepath.Join(tsRuntimeDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(pkg, "src", file), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(pkg, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(tsc, "-p", pkg).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, b)
	}
	cmd := exec.Command(node, "--test", "--test-reporter=tap", filepath.Join("dist", "runtime", "test", test))
	cmd.Dir = pkg
	// vectors.ts, which every replay imports, reads vectors.json as it
	// loads: the one beside the runtime.
	plain, err := filepath.Abs(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(append(os.Environ(), "CHOBO_VECTORS="+plain), env...)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// testdata is the absolute path of a file of runtime/testdata.
func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "runtime", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBulkVectorsCatchTypeScriptMutations(t *testing.T) {
	typeScript(t)
	src, err := os.ReadFile(filepath.Join(tsRuntimeDir, "src", "tigerbeetle.ts"))
	if err != nil {
		t.Fatal(err)
	}
	env := "CHOBO_TB_BULK_VECTORS=" + testdata(t, "tb_bulk_vectors.json")
	if out, err := tsReplay(t, "tigerbeetle.ts", string(src), "tb_bulk_vectors.test.js", env); err != nil {
		t.Fatalf("the vectors fail the runtime as it is: %v\n%s", err, out)
	}
	for _, m := range tsBulkMutations {
		t.Run(m.name, func(t *testing.T) {
			out, err := tsReplay(t, "tigerbeetle.ts", mutate(t, m, string(src)), "tb_bulk_vectors.test.js", env)
			if err == nil {
				t.Fatalf("the vectors pass with the mutation:\n%s", out)
			}
			if !strings.Contains(out, "not ok ") || !strings.Contains(out, "bulk vector: ") {
				t.Fatalf("the replay did not run to fail a vector:\n%s", out)
			}
		})
	}
}

// pyReplay runs the Python runtime's test files matching pattern, with
// src/chobo/<file> as src gives it, and env.
func pyReplay(t *testing.T, file, src, pattern string, env ...string) (string, error) {
	t.Helper()
	py := python3(t)
	out := t.TempDir()
	for _, d := range []string{"src", "tests"} {
		if err := os.CopyFS(filepath.Join(out, d), os.DirFS(filepath.Join(pyRuntimeDir, d))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "src", "chobo", file), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-p", pattern)
	cmd.Dir = out
	cmd.Env = append(append(os.Environ(), "CHOBO_VECTORS="+testdata(t, "vectors.json"), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="), env...)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

func TestBulkVectorsCatchPythonMutations(t *testing.T) {
	python3(t)
	src, err := os.ReadFile(filepath.Join(pyRuntimeDir, "src", "chobo", "tbclient.py"))
	if err != nil {
		t.Fatal(err)
	}
	env := "CHOBO_TB_BULK_VECTORS=" + testdata(t, "tb_bulk_vectors.json")
	if out, err := pyReplay(t, "tbclient.py", string(src), "test_tb_bulk_vectors.py", env); err != nil {
		t.Fatalf("the vectors fail the runtime as it is: %v\n%s", err, out)
	}
	for _, m := range pyBulkMutations {
		t.Run(m.name, func(t *testing.T) {
			out, err := pyReplay(t, "tbclient.py", mutate(t, m, string(src)), "test_tb_bulk_vectors.py", env)
			if err == nil {
				t.Fatalf("the vectors pass with the mutation:\n%s", out)
			}
			if !strings.Contains(out, "FAIL: test_vectors") {
				t.Fatalf("the replay did not run to fail a vector:\n%s", out)
			}
		})
	}
}
