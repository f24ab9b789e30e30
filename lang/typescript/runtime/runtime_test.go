package typescript_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// The runtime's own tests, run by go test: compiled with its own
// configuration (stricter than what clients must pass), its unit tests
// (which replay the shared vectors with no server, and run against a
// real PostgreSQL server when there is one), and the mutations its
// replay of the vectors must catch. Node and the pinned packages
// setup.sh installs (npm ci here) are found by the TypeScript driver
// kit; without them the tests skip with a SKIP line, and under CI they
// must run.

// tools are node and the runtime's pinned tsc.
func tools(t *testing.T) *tsdriver.Tools {
	t.Helper()
	return langtest.Use(t, tsdriver.Kit{}).(*tsdriver.Tools)
}

// vectorFiles are the files of runtime/testdata the compiled tests read
// from where the checkout has them, relative to the runtime.
var vectorFiles = []string{"vectors.json", "history_vectors.json", "connection_vectors.json", "tb_bulk_vectors.json"}

// layOut copies the runtime, with src/<file> holding src when file is not
// "", to a folder laid out as the checkout is (the runtime's tsconfig.json
// takes the driver from the folder beside it, the compiled tests find the
// vectors in runtime/testdata), compiles it there with its own
// configuration and returns the package's folder.
func layOut(t *testing.T, tsc, file, src string) string {
	t.Helper()
	root := t.TempDir()
	pkg := filepath.Join(root, "lang", "typescript", "runtime")
	for _, d := range []string{"src", "test", "../driver"} {
		if err := os.CopyFS(filepath.Join(pkg, d), os.DirFS(d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tsconfig.json", "package.json"} {
		copyFile(t, f, filepath.Join(pkg, f))
	}
	for _, f := range vectorFiles {
		copyFile(t, langtest.Testdata(t, f), filepath.Join(root, "runtime", "testdata", f))
	}
	if file != "" {
		if err := os.WriteFile(filepath.Join(pkg, "src", file), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	modules, err := filepath.Abs("node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(pkg, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(tsc, "-p", pkg).CombinedOutput(); err != nil {
		t.Fatalf("tsc -p lang/typescript/runtime: %v\n%s", err, b)
	}
	return pkg
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnitTests compiles the runtime and runs its unit tests, those
// against a real server on one from CHOBO_PG_DSN, into which they load
// the book of CHOBO_PG_SQL.
func TestUnitTests(t *testing.T) {
	ts := tools(t)
	pkg := layOut(t, ts.TSC, "", "")
	tests, _ := filepath.Glob(filepath.Join(pkg, "dist", "runtime", "test", "*.test.js"))
	if len(tests) < 5 {
		t.Fatalf("found %d compiled test files", len(tests))
	}
	cmd := exec.Command(ts.Node.Program, append([]string{"--test", "--test-reporter=tap"}, tests...)...)
	dsn := langtest.Postgres(t, "the TypeScript runtime's tests")
	if dsn != "" {
		sql := filepath.Join(langtest.Root(t), "tests", "testdata", "stock_reservation", "expected", "postgres", "stock_reservation.sql")
		cmd.Env = append(os.Environ(), "CHOBO_PG_DSN="+dsn, "CHOBO_PG_SQL="+sql)
	}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the unit tests failed: %v\n%s", err, b)
	}
	if dsn != "" && strings.Contains(string(b), "SKIP: real PostgreSQL") {
		t.Fatalf("the tests skipped the real server they were given:\n%s", b)
	}
	pass := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "# pass ") || strings.HasPrefix(l, "# fail ") {
			pass += strings.TrimPrefix(l, "# ") + " "
		}
	}
	t.Logf("lang/typescript/runtime: %s", pass)
	if !strings.Contains(pass, "fail 0") {
		t.Fatalf("the unit tests did not all pass:\n%s", b)
	}
}

// The connection vectors (runtime/testdata/connection_vectors.json) and
// the TigerBeetle bulk vectors (tb_bulk_vectors.json) are worth only
// what they catch: each mutation below is a small change to the
// runtime's resending, retrying or bulk logic, and the runtime's replay
// of the vectors must fail with it.
var connectionMutations = []langtest.Mutation{
	{Name: "a resend that drops the call id", File: "postgres.ts",
		Old: "        await sleep(Math.random() * backoff(lostTries++));\n",
		New: "        await sleep(Math.random() * backoff(lostTries++));\n        values = [...values.slice(0, -1), randomUUID()];\n"},
	{Name: "a lost call sent again over a Client", File: "postgres.ts",
		Old: "return resendMs > 0 && pooled(db) && !inTransaction(db);",
		New: "return resendMs > 0 && !inTransaction(db);"},
	{Name: "a resend past its deadline", File: "postgres.ts",
		Old: "if (Date.now() >= until) {", New: "if (until === 0) {"},
	{Name: "a bulk that stops at the first refusal", File: "postgres.ts",
		Old: "          out[i] = lost ? { ...r, resent: true } : r;\n",
		New: "          out[i] = lost ? { ...r, resent: true } : r;\n          if (r.result === \"refused\") {\n            break;\n          }\n"},
	{Name: "an expire sent without its call id", File: "postgres.ts",
		Old: "await queryRow(db, \"expire\", text, [max, callId()]);", New: "await queryRow(db, \"expire\", text, [max, null]);"},
	{Name: "an expire whose lost sending is not sent again", File: "postgres.ts",
		Old: "await queryRow(db, \"expire\", text,", New: "await queryRow(configure(db, { resendMs: 0 }), \"expire\", text,"},
	{Name: "a read of a call's entries that is not retried", File: "postgres.ts",
		Old: "const { rows } = await sendRows(db, where, text, [tenant, transfer, key]);",
		New: "const rows = (await settingsOf(db).db.query(text, [tenant, transfer, key])).rows.map((r) => Object.values(r as object));"},
}

var bulkMutations = []langtest.Mutation{
	{Name: "a request packed past MAX_EVENTS", File: "tigerbeetle.ts",
		Old: "n + s.chains.get(order[k]!)!.length <= this.#events", New: "n + s.chains.get(order[k]!)!.length <= this.#events + 5"},
	{Name: "a failed request whose error is dropped", File: "tigerbeetle.ts",
		Old: "        for (const i of batch) {\n          s.out[i] = asError(err);\n        }\n        continue;\n",
		New: "        continue;\n"},
	{Name: "statuses read from the wrong place", File: "tigerbeetle.ts",
		Old: "statuses.slice(at, at + length)", New: "statuses.slice(0, length)"},
	{Name: "a failed accounts request whose calls are answered nothing", File: "tigerbeetle.ts",
		Old: "        s.out[i] = asError(err);\n        s.chains.delete(i);\n", New: "        s.chains.delete(i);\n"},
	{Name: "a hold id looked up as often as it is named", File: "tigerbeetle.ts",
		Old: "[...new Set(s.finishing.flatMap((f) => f.ids))]", New: "s.finishing.flatMap((f) => f.ids)"},
	{Name: "a lookup's stranger taken", File: "tigerbeetle.ts",
		Old: "          if (!batch.includes(t.id)) {\n", New: "          if (batch.length < 0) {\n"},
}

func TestConnectionVectorsCatchMutations(t *testing.T) {
	langtest.CatchesMutations(t, "src", connectionMutations, replay("connvectors.test.js"), func(out string) bool {
		return strings.Contains(out, "not ok ") && strings.Contains(out, "connection vector: ")
	})
}

func TestBulkVectorsCatchMutations(t *testing.T) {
	langtest.CatchesMutations(t, "src", bulkMutations, replay("tb_bulk_vectors.test.js"), func(out string) bool {
		return strings.Contains(out, "not ok ") && strings.Contains(out, "bulk vector: ")
	})
}

// replay compiles a copy of the runtime (layOut) and runs its compiled
// test file test.
func replay(test string) langtest.Replay {
	return func(t *testing.T, file, src string) (string, error) {
		t.Helper()
		ts := tools(t)
		cmd := exec.Command(ts.Node.Program, "--test", "--test-reporter=tap", filepath.Join("dist", "runtime", "test", test))
		cmd.Dir = layOut(t, ts.TSC, file, src)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
}
