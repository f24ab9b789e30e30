package python_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
)

// TestShellChecksPrograms: the docs' walks have a Python program checked
// by mypy --strict through the kit's shell, and only a Python program.
func TestShellChecksPrograms(t *testing.T) {
	sh := &pydriver.Venv{Python: venvPython(t)}
	dir := t.TempDir()
	for name, src := range map[string]string{
		"good.py": "def f(x: int) -> int:\n    return x + 1\n",
		"bad.py":  "def f(x: int) -> int:\n    return str(x)\n",
		"main.go": "package main\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if did, err := sh.CheckProgram(dir, "good.py"); !did || err != nil {
		t.Errorf("good.py: checked %v, %v", did, err)
	}
	if did, err := sh.CheckProgram(dir, "bad.py"); !did || err == nil || !strings.Contains(err.Error(), "return-value") {
		t.Errorf("bad.py: checked %v, %v; want mypy's return-value error", did, err)
	}
	if did, err := sh.CheckProgram(dir, "main.go"); did || err != nil {
		t.Errorf("main.go: checked %v, %v; want it left alone", did, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("the check left files behind: %v", entries)
	}
	path, env := sh.ShellEnv()
	if len(path) != 1 || path[0] != filepath.Dir(sh.Python) || len(env) == 0 {
		t.Errorf("ShellEnv: %v %v", path, env)
	}
}
