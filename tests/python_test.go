package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pyRuntimeDir is the Python runtime's package, from tests/.
const pyRuntimeDir = "../runtime/python"

// python3 returns the interpreter the Python runtime's tests run with, or
// skips t with a SKIP line when there is none to run them with: the one of
// runtime/python/.venv when tests/setup.sh made it, since it has the
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
	fmt.Println("SKIP: runtime/python: " + why)
	t.Skip("SKIP: " + why)
	return ""
}

// TestPythonRuntime runs the Python runtime's unit tests, which replay the
// vectors this package writes (TestVectors) with no server: the same file
// the Go and TypeScript runtimes replay, named to them in CHOBO_VECTORS so
// that they read the one this test binary sees.
func TestPythonRuntime(t *testing.T) {
	py := python3(t)
	vec, err := filepath.Abs(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-v")
	cmd.Dir = pyRuntimeDir
	// No bytecode is written into the source tree, and the tests run the
	// sources as they are, never a copy installed elsewhere.
	cmd.Env = append(os.Environ(), "CHOBO_VECTORS="+vec, "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Python runtime's unit tests failed: %v\n%s", err, b)
	}
	out := string(b)
	ran := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Ran ") {
			ran = l
		}
	}
	if ran == "" || !strings.Contains(out, "\nOK") {
		t.Fatalf("the Python runtime's unit tests did not report success:\n%s", out)
	}
	t.Logf("runtime/python: %s", ran)
}

// TestPythonRuntimeTypes holds the Python runtime and its tests to mypy
// --strict, at the version runtime/python/requirements-dev.txt pins, from
// the virtual environment tests/setup.sh makes beside them. Without it,
// the test skips with a SKIP line; under CI it must be there.
func TestPythonRuntimeTypes(t *testing.T) {
	python3(t)
	mypy, err := filepath.Abs(filepath.Join(pyRuntimeDir, ".venv", "bin", "mypy"))
	if err == nil {
		_, err = os.Stat(mypy)
	}
	if err != nil {
		why := "runtime/python/.venv has no mypy: run tests/setup.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		fmt.Println("SKIP: " + why)
		t.Skip("SKIP: " + why)
	}
	// The cache goes to a temporary folder, so that a check never reads
	// what an earlier one left in the source tree.
	cmd := exec.Command(mypy, "--strict", "--cache-dir", t.TempDir(), "src", "tests")
	cmd.Dir = pyRuntimeDir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "MYPYPATH=src")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mypy --strict on runtime/python: %v\n%s", err, b)
	}
	t.Logf("runtime/python: %s", strings.TrimSpace(string(b)))
}
