package tests

import (
	"path/filepath"
	"testing"

	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
)

// pyRuntimeDir is the Python runtime's package, from tests/.
const pyRuntimeDir = "../lang/python/runtime"

// venvBin is the bin folder of the Python runtime's virtual environment
// (setup.sh makes it), which holds the pinned mypy: see venvPython.
func venvBin(t *testing.T) string {
	t.Helper()
	return filepath.Dir(venvPython(t))
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
