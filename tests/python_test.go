package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
)

// pyRuntimeDir is the Python runtime's package, from tests/.
const pyRuntimeDir = "../lang/python/runtime"

// python3 returns the interpreter the Python runtime's tests run with, or
// skips t with a SKIP line when there is none to run them with: the one of
// lang/python/runtime/.venv when tests/setup.sh made it, since it has the
// drivers the tests of the TigerBeetle books need (without them those
// tests skip), else python3 from PATH. Under Bazel the runtime's sources
// are not in the test's sandbox, so it always skips there; under CI
// elsewhere the interpreter must be installed.
func python3(t *testing.T) string {
	t.Helper()
	why := ""
	py, err := exec.LookPath("python3")
	if venv, verr := filepath.Abs(filepath.Join(pyRuntimeDir, ".venv", "bin", "python")); verr == nil {
		if _, serr := os.Stat(venv); serr == nil {
			py, err = venv, nil
		}
	}
	switch {
	case os.Getenv("TEST_SRCDIR") != "":
		why = "the Python runtime's sources are not in the Bazel sandbox; go test runs its tests"
	case err != nil:
		why = "python3 is not installed: " + err.Error()
	}
	if why == "" {
		return py
	}
	if os.Getenv("CI") == "true" && os.Getenv("TEST_SRCDIR") == "" {
		t.Fatalf("the Python runtime's tests cannot run here: %s", why)
	}
	fmt.Println("SKIP: lang/python/runtime: " + why)
	t.Skip("SKIP: " + why)
	return ""
}

// venvBin is the bin folder of the Python runtime's virtual environment
// (tests/setup.sh makes it), which holds the pinned mypy; without it t
// skips with a SKIP line, and under CI fails.
func venvBin(t *testing.T) string {
	t.Helper()
	python3(t)
	bin, err := filepath.Abs(filepath.Join(pyRuntimeDir, ".venv", "bin"))
	if err == nil {
		_, err = os.Stat(filepath.Join(bin, "mypy"))
	}
	if err != nil {
		why := "lang/python/runtime/.venv has no mypy: run tests/setup.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		fmt.Println("SKIP: " + why)
		t.Skip("SKIP: " + why)
	}
	return bin
}

// TestPythonExampleInDocs runs the postgres-python example of
// docs/targets.md as it stands, with the inventory example's client, on a
// real server as the application's role, and holds what it prints to the
// block after it.
func TestPythonExampleInDocs(t *testing.T) {
	python := venvPython(t)
	program, want := targetsExample(t, "## `postgres-python` and `tigerbeetle-python`", "python")

	b, src := loadBook(t, filepath.Join("..", "examples", "inventory", "inventory.book"))
	d := deployBook(t, b, src, 4)
	dir := t.TempDir()
	client, err := os.ReadFile(filepath.Join(casesDir, "inventory", "expected", "postgres-python", "inventory.py"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"main.py": []byte(program), "inventory.py": client} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(python, "-B", filepath.Join(dir, "main.py"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PGHOST="+d.srv.SocketDir, fmt.Sprintf("PGPORT=%d", d.srv.Port),
		"PGUSER="+pgdeploy.App, "PGDATABASE="+pgtest.DefaultDB, "PYTHONPATH=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != want {
		t.Errorf("the example printed\n%s\nbut docs/targets.md shows\n%s", got, want)
	}
}

// TestPythonClientOnPsycopg2 drives the postgres-python client with its
// sync book on a psycopg2 connection (the async one stays on psycopg 3),
// through the calls, states and balances of TestDriverStatusAndBalance.
func TestPythonClientOnPsycopg2(t *testing.T) {
	t.Setenv("CHOBO_DRIVER_PSYCOPG2", "1")
	statusAndBalance(t, "postgres-python", loadForBackends(t, caseByName(t, "inventory")))
}

// venvPython is the interpreter of the Python runtime's virtual
// environment, as the Python driver kit finds it, or skips t (failing
// under CI) without it.
func venvPython(t *testing.T) string {
	t.Helper()
	_, kit := languageOf(t, "postgres-python")
	return useLanguage(t, kit).(*pydriver.Venv).Python
}
