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

// The connection vectors (runtime/testdata/connection_vectors.json) are
// worth only what they catch. Each mutation below is a small change to a
// runtime's resending, retrying or bulk logic (expire's and the reads'
// among it), of the kind that once
// slipped through or easily could; the runtime's own replay of the
// vectors must fail with it. A mutation whose text is no longer in the
// runtime fails this test too: it is to be written again for the code as
// it is now.

type mutation struct {
	name, file, old, new string
}

var goMutations = []mutation{
	{"a resend that drops the call id", "chobopg.go",
		"\t\t\tlostTries++\n\t\t\tcontinue\n",
		"\t\t\tlostTries++\n\t\t\targs = append(args[:len(args)-1:len(args)-1], NewCallID())\n\t\t\tcontinue\n"},
	{"a resend past its deadline", "chobopg.go",
		"|| !now().Before(until) ||", "||"},
	{"a lost call sent again over its closed connection", "chobopg.go",
		"|| single && c.IsClosed()", "|| false && single && c.IsClosed()"},
	{"an error after a lost sending answered as certain", "chobopg.go",
		"\t\t\tif lostOnce {\n\t\t\t\treturn false, lost{ErrOutcomeUnknown, classify(err)}",
		"\t\t\tif false {\n\t\t\t\treturn false, lost{ErrOutcomeUnknown, classify(err)}"},
	{"a bulk that stops at the first refusal", "bulk.go",
		"\t\t\tout[i] = answerOf(ops[i].Status, vals)\n",
		"\t\t\tout[i] = answerOf(ops[i].Status, vals)\n\t\t\tif out[i].Result.Outcome == chobo.Refused {\n\t\t\t\treturn broke(k+1, errors.New(\"stopped\"))\n\t\t\t}\n"},
	{"a bulk whose lost calls are not sent again", "bulk.go",
		"if optionsOf(q).resendFor > 0 {", "if false {"},
	{"a bulk whose retried calls are not retried", "bulk.go",
		"case Retryable(code) && !last:", "case false && Retryable(code) && !last:"},
	{"an expire sent without its call id", "expire.go",
		"[]any{max, NewCallID()}", "[]any{max, nil}"},
	{"an expire whose lost sending is not sent again", "expire.go",
		"err := QueryRow(ctx, q, sql,", "err := QueryRow(ctx, With(q, Resend(0)), sql,"},
	{"a history read that is not retried", "history.go",
		"_, err := sendWith(ctx, q, args, func(q Querier, args []any) error {",
		"_, err := false, func(f func(Querier, []any) error) error { return f(unwrap(q), append([]any{pgx.QueryExecModeExec}, args...)) }(func(q Querier, args []any) error {"},
	{"a history read that keeps the rows of a broken sending", "history.go",
		"func() { rows = rows[:0] },", "func() {},"},
	{"a balance read that is not retried", "chobopg.go",
		"err := QueryRow(ctx, q, sql, args, &b.Posted, &b.HeldIn, &b.HeldOut)",
		"err := unwrap(q).QueryRow(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...).Scan(&b.Posted, &b.HeldIn, &b.HeldOut)"},
}

var tsMutations = []mutation{
	{"a resend that drops the call id", "postgres.ts",
		"        await sleep(Math.random() * backoff(lostTries++));\n",
		"        await sleep(Math.random() * backoff(lostTries++));\n        values = [...values.slice(0, -1), randomUUID()];\n"},
	{"a lost call sent again over a Client", "postgres.ts",
		"return resendMs > 0 && pooled(db) && !inTransaction(db);",
		"return resendMs > 0 && !inTransaction(db);"},
	{"a resend past its deadline", "postgres.ts",
		"if (Date.now() >= until) {", "if (until === 0) {"},
	{"a bulk that stops at the first refusal", "postgres.ts",
		"          out[i] = lost ? { ...r, resent: true } : r;\n",
		"          out[i] = lost ? { ...r, resent: true } : r;\n          if (r.result === \"refused\") {\n            break;\n          }\n"},
	{"an expire sent without its call id", "postgres.ts",
		"await queryRow(db, \"expire\", text, [max, callId()]);", "await queryRow(db, \"expire\", text, [max, null]);"},
	{"an expire whose lost sending is not sent again", "postgres.ts",
		"await queryRow(db, \"expire\", text,", "await queryRow(configure(db, { resendMs: 0 }), \"expire\", text,"},
	{"a read of a call's entries that is not retried", "postgres.ts",
		"const { rows } = await sendRows(db, where, text, [tenant, transfer, key]);",
		"const rows = (await settingsOf(db).db.query(text, [tenant, transfer, key])).rows.map((r) => Object.values(r as object));"},
}

var pyMutations = []mutation{
	{"a resend that drops the call id", "postgres.py",
		"            lost_tries += 1\n",
		"            lost_tries += 1\n            params = (*params[:-1], str(uuid.uuid4()))\n"},
	{"a resend past its deadline", "postgres.py",
		"if until == 0.0 or _pg_now() >= until:", "if until == 0.0:"},
	{"a lost sending not counted among the attempts", "postgres.py",
		"            n += 1\n            continue\n", "            continue\n"},
	{"a bulk that stops at the first refusal", "postgres.py",
		"        for i in alone:\n            out[i] = self._one(calls[i])\n",
		"        for i in alone:\n            out[i] = self._one(calls[i])\n            if isinstance(out[i], Result) and out[i].result == \"refused\":\n                break\n"},
	{"an expire sent without its call id", "postgres.py",
		"(max, _pg_call_id()), resend_for)", "(max, None), resend_for)"},
	{"an expire whose lost sending is not sent again", "postgres.py",
		"row, _ = yield from _pg_row_flow(\"expire\", statement, (max, _pg_call_id()), resend_for)",
		"row, _ = yield from _pg_row_flow(\"expire\", statement, (max, _pg_call_id()), 0.0)"},
	{"a history read that is not retried", "postgres.py",
		"fetched, _ = yield from _pg_send_flow(where, statement, params, resend_for, True)",
		"fetched = yield _PgQuery(statement, params, where, True)"},
}

// mutate is src with m applied, or fails t when m's text is not in src
// exactly once.
func mutate(t *testing.T, m mutation, src string) string {
	t.Helper()
	if n := strings.Count(src, m.old); n != 1 {
		t.Fatalf("%s: its text is %d times in %s, not once:\n%s", m.name, n, m.file, m.old)
	}
	return strings.Replace(src, m.old, m.new, 1)
}

func TestConnectionVectorsCatchGoMutations(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command is not at hand")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Println("SKIP: no go command")
		t.Skip("SKIP: no go command")
	}
	dir, err := filepath.Abs("../runtime/go/chobopg")
	if err != nil {
		t.Fatal(err)
	}
	run := func(overlay map[string]string) (string, error) {
		o, _ := json.Marshal(map[string]any{"Replace": overlay})
		f := filepath.Join(t.TempDir(), "overlay.json")
		if err := os.WriteFile(f, o, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(goBin, "test", "-overlay", f, "-count=1", "-timeout=120s", "-run", "^TestConnectionVectors$", ".")
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if out, err := run(map[string]string{}); err != nil {
		t.Fatalf("the vectors fail the runtime as it is: %v\n%s", err, out)
	}
	for _, m := range goMutations {
		t.Run(m.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, m.file))
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(t.TempDir(), m.file)
			if err := os.WriteFile(f, []byte(mutate(t, m, string(src))), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(map[string]string{filepath.Join(dir, m.file): f})
			if err == nil {
				t.Fatalf("the vectors pass with the mutation:\n%s", out)
			}
			if !strings.Contains(out, "--- FAIL: TestConnectionVectors/") {
				t.Fatalf("the replay did not run to fail a vector:\n%s", out)
			}
		})
	}
}

func TestConnectionVectorsCatchTypeScriptMutations(t *testing.T) {
	node, tsc := typeScript(t)
	vectors, err := filepath.Abs("../runtime/testdata/connection_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	modules, err := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	// run compiles the runtime with postgres.ts as given, laid out as
	// TestTypeScriptRuntime lays it out, and runs the replay.
	run := func(postgres string) (string, error) {
		out := t.TempDir()
		pkg := filepath.Join(out, "lang", "typescript", "runtime")
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
		if err := os.WriteFile(filepath.Join(pkg, "src", "postgres.ts"), []byte(postgres), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(modules, filepath.Join(pkg, "node_modules")); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command(tsc, "-p", pkg).CombinedOutput(); err != nil {
			t.Fatalf("tsc: %v\n%s", err, b)
		}
		cmd := exec.Command(node, "--test", "--test-reporter=tap", filepath.Join("dist", "runtime", "test", "connvectors.test.js"))
		cmd.Dir = pkg
		// vectors.ts, which the replay imports, reads vectors.json as it
		// loads: the one beside the runtime.
		plain, err := filepath.Abs(vectorsFile)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(os.Environ(), "CHOBO_CONNECTION_VECTORS="+vectors, "CHOBO_VECTORS="+plain)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	src, err := os.ReadFile(filepath.Join(tsRuntimeDir, "src", "postgres.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(string(src)); err != nil {
		t.Fatalf("the vectors fail the runtime as it is: %v\n%s", err, out)
	}
	for _, m := range tsMutations {
		t.Run(m.name, func(t *testing.T) {
			out, err := run(mutate(t, m, string(src)))
			if err == nil {
				t.Fatalf("the vectors pass with the mutation:\n%s", out)
			}
			if !strings.Contains(out, "not ok ") || !strings.Contains(out, "connection vector: ") {
				t.Fatalf("the replay did not run to fail a vector:\n%s", out)
			}
		})
	}
}

func TestConnectionVectorsCatchPythonMutations(t *testing.T) {
	py := python3(t)
	vectors, err := filepath.Abs("../runtime/testdata/connection_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := filepath.Abs(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(pyRuntimeDir, "src", "chobo", "postgres.py"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(postgres string) (string, error) {
		out := t.TempDir()
		for _, d := range []string{"src", "tests"} {
			if err := os.CopyFS(filepath.Join(out, d), os.DirFS(filepath.Join(pyRuntimeDir, d))); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(out, "src", "chobo", "postgres.py"), []byte(postgres), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-p", "test_connection_vectors.py")
		cmd.Dir = out
		cmd.Env = append(os.Environ(), "CHOBO_CONNECTION_VECTORS="+vectors, "CHOBO_VECTORS="+plain, "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if out, err := run(string(src)); err != nil {
		t.Fatalf("the vectors fail the runtime as it is: %v\n%s", err, out)
	}
	for _, m := range pyMutations {
		t.Run(m.name, func(t *testing.T) {
			out, err := run(mutate(t, m, string(src)))
			if err == nil {
				t.Fatalf("the vectors pass with the mutation:\n%s", out)
			}
			if !strings.Contains(out, "FAIL: test_vectors") {
				t.Fatalf("the replay did not run to fail a vector:\n%s", out)
			}
		})
	}
}
