package pyruntime_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// The runtime's own tests, run by go test: its unit tests (which replay
// the shared vectors with no server, and run against a real PostgreSQL
// server when there is one), mypy --strict over it, and the mutations
// its replay of the vectors must catch. The interpreter and the pinned
// tools are those of the virtual environment setup.sh makes in .venv,
// which the Python driver kit finds; without it the tests skip with a
// SKIP line, and under CI they must run.

// python is the virtual environment's interpreter.
func python(t *testing.T) string {
	t.Helper()
	return langtest.Use(t, pydriver.Kit{}).(*pydriver.Venv).Python
}

// TestUnitTests runs the runtime's unit tests, which replay the vectors
// of runtime/testdata (named to them in CHOBO_VECTORS, the file the Go
// and TypeScript runtimes replay too), and those against a real server
// on one from CHOBO_PG_DSN.
func TestUnitTests(t *testing.T) {
	py := python(t)
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-v")
	// No bytecode is written into the source tree, and the tests run the
	// sources as they are, never a copy installed elsewhere.
	cmd.Env = append(os.Environ(), "CHOBO_VECTORS="+langtest.Testdata(t, "vectors.json"), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=")
	dsn := langtest.Postgres(t, "the Python runtime's tests")
	if dsn != "" {
		cmd.Env = append(cmd.Env, "CHOBO_PG_DSN="+dsn)
	}
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("the unit tests failed: %v\n%s", err, out)
	}
	if dsn != "" && strings.Contains(out, "SKIP: real PostgreSQL") {
		t.Fatalf("the tests skipped the real server they were given:\n%s", out)
	}
	ran := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Ran ") {
			ran = l
		}
	}
	if ran == "" || !strings.Contains(out, "\nOK") {
		t.Fatalf("the unit tests did not report success:\n%s", out)
	}
	t.Logf("lang/python/runtime: %s", ran)
}

// TestTypes holds the runtime and its tests to mypy --strict, at the
// version requirements-dev.txt pins.
func TestTypes(t *testing.T) {
	mypy := filepath.Join(filepath.Dir(python(t)), "mypy")
	// The cache goes to a temporary folder, so that a check never reads
	// what an earlier one left in the source tree.
	cmd := exec.Command(mypy, "--strict", "--cache-dir", t.TempDir(), "src", "tests")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "MYPYPATH=src")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mypy --strict: %v\n%s", err, b)
	}
	t.Logf("lang/python/runtime: %s", strings.TrimSpace(string(b)))
}

// The connection vectors (runtime/testdata/connection_vectors.json) and
// the TigerBeetle bulk vectors (tb_bulk_vectors.json) are worth only
// what they catch: each mutation below is a small change to the
// runtime's resending, retrying or bulk logic, and the runtime's replay
// of the vectors must fail with it.
var connectionMutations = []langtest.Mutation{
	{Name: "a resend that drops the call id", File: "postgres.py",
		Old: "            lost_tries += 1\n",
		New: "            lost_tries += 1\n            params = (*params[:-1], str(uuid.uuid4()))\n"},
	{Name: "a resend past its deadline", File: "postgres.py",
		Old: "if until == 0.0 or _pg_now() >= until:", New: "if until == 0.0:"},
	{Name: "a lost sending not counted among the attempts", File: "postgres.py",
		Old: "            n += 1\n            continue\n", New: "            continue\n"},
	{Name: "a bulk that stops at the first refusal", File: "postgres.py",
		Old: "        for i in alone:\n            out[i] = self._one(calls[i])\n",
		New: "        for i in alone:\n            out[i] = self._one(calls[i])\n            if isinstance(out[i], Result) and out[i].result == \"refused\":\n                break\n"},
	{Name: "an expire sent without its call id", File: "postgres.py",
		Old: "(max, _pg_call_id()), resend_for)", New: "(max, None), resend_for)"},
	{Name: "an expire whose lost sending is not sent again", File: "postgres.py",
		Old: "row, _ = yield from _pg_row_flow(\"expire\", statement, (max, _pg_call_id()), resend_for)",
		New: "row, _ = yield from _pg_row_flow(\"expire\", statement, (max, _pg_call_id()), 0.0)"},
	{Name: "a history read that is not retried", File: "postgres.py",
		Old: "fetched, _ = yield from _pg_send_flow(where, statement, params, resend_for, True)",
		New: "fetched = yield _PgQuery(statement, params, where, True)"},
}

var bulkMutations = []langtest.Mutation{
	{Name: "a request packed past MAX_EVENTS", File: "tbclient.py",
		Old: "n + len(b.chains[order[k]]) <= self.request_events", New: "n + len(b.chains[order[k]]) <= self.request_events + 5"},
	{Name: "a failed request whose error is dropped", File: "tbclient.py",
		Old: "                for i in batch_i:\n                    b.out[i] = e\n                continue\n",
		New: "                continue\n"},
	{Name: "statuses read from the wrong place", File: "tbclient.py",
		Old: "mine = statuses[at : at + len(b.chains[i])]", New: "mine = statuses[: len(b.chains[i])]"},
	{Name: "a failed accounts request whose calls are answered nothing", File: "tbclient.py",
		Old: "                b.out[i] = e\n                b.chains.pop(i, None)\n", New: "                b.chains.pop(i, None)\n"},
	{Name: "a hold id looked up as often as it is named", File: "tbclient.py",
		Old: "ids = list(dict.fromkeys(x for _, _, ls in b.finishing for x in ls))", New: "ids = [x for _, _, ls in b.finishing for x in ls]"},
	{Name: "a lookup's stranger taken", File: "tbclient.py",
		Old: "if tr.id not in batch:", New: "if not batch:"},
}

func TestConnectionVectorsCatchMutations(t *testing.T) {
	langtest.CatchesMutations(t, filepath.Join("src", "chobo"), connectionMutations,
		replay(python(t), "test_connection_vectors.py", "CHOBO_CONNECTION_VECTORS="+langtest.Testdata(t, "connection_vectors.json")), failedVector)
}

func TestBulkVectorsCatchMutations(t *testing.T) {
	langtest.CatchesMutations(t, filepath.Join("src", "chobo"), bulkMutations,
		replay(python(t), "test_tb_bulk_vectors.py", "CHOBO_TB_BULK_VECTORS="+langtest.Testdata(t, "tb_bulk_vectors.json")), failedVector)
}

func failedVector(out string) bool { return strings.Contains(out, "FAIL: test_vectors") }

// replay runs the test files matching pattern on a copy of the runtime,
// with the interpreter py and env.
func replay(py, pattern string, env ...string) langtest.Replay {
	return func(t *testing.T, file, src string) (string, error) {
		t.Helper()
		out := t.TempDir()
		for _, d := range []string{"src", "tests"} {
			if err := os.CopyFS(filepath.Join(out, d), os.DirFS(d)); err != nil {
				t.Fatal(err)
			}
		}
		if file != "" {
			if err := os.WriteFile(filepath.Join(out, "src", "chobo", file), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-p", pattern)
		cmd.Dir = out
		cmd.Env = append(append(os.Environ(), "CHOBO_VECTORS="+langtest.Testdata(t, "vectors.json"), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="), env...)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
}

// TestHistoryTypesMirrorGo holds the Python runtime's history types
// to the Go runtime's, field by field and in order: the Go name in snake
// case, from_ for From, which is a keyword.
func TestHistoryTypesMirrorGo(t *testing.T) {
	py := python(t)
	script := `
import dataclasses, json, sys
sys.path.insert(0, "src")
from chobo import chobo
print(json.dumps({n: [f.name for f in dataclasses.fields(getattr(chobo, n))]
                  for n in ("Entry", "StatementQuery", "Statement", "OpenHold", "HoldMove")}))
`
	cmd := exec.Command(py, "-c", script)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var got map[string][]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	snake := func(name string) string {
		if name == "ID" {
			return "id"
		}
		if name == "From" {
			return "from_"
		}
		var s strings.Builder
		for i, r := range name {
			if r >= 'A' && r <= 'Z' {
				if i > 0 {
					s.WriteByte('_')
				}
				r += 'a' - 'A'
			}
			s.WriteRune(r)
		}
		return s.String()
	}
	for name, v := range map[string]any{"Entry": chobo.Entry{}, "StatementQuery": chobo.StatementQuery{},
		"Statement": chobo.Statement{}, "OpenHold": chobo.OpenHold{}, "HoldMove": chobo.HoldMove{}} {
		typ := reflect.TypeOf(v)
		var want []string
		for i := 0; i < typ.NumField(); i++ {
			want = append(want, snake(typ.Field(i).Name))
		}
		if !slices.Equal(got[name], want) {
			t.Errorf("%s: the Python runtime has %v, the Go one %v", name, got[name], want)
		}
	}
}
