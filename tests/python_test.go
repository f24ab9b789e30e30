package tests

import (
	"path/filepath"
	"testing"

	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
)

// venvBin is the bin folder of the Python runtime's virtual environment
// (setup.sh makes it), which holds the pinned mypy: see venvPython.
func venvBin(t *testing.T) string {
	t.Helper()
	return filepath.Dir(venvPython(t))
}

// venvPython is the interpreter of the Python runtime's virtual
// environment, as the Python driver kit finds it, or skips t (failing
// under CI) without it.
func venvPython(t *testing.T) string {
	t.Helper()
	_, kit := languageOf(t, "postgres-python")
	return useLanguage(t, kit).(*pydriver.Venv).Python
}
