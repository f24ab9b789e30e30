package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pydriver "github.com/chobo-lang/chobo/runtime/python/driver"
)

// A Python client is laid out beside the driver, in a folder of its own,
// and started by the interpreter the rule handed over, driving the sync
// and async books in turn.
func TestPreparePython(t *testing.T) {
	runfiles := t.TempDir()
	t.Setenv("RUNFILES_DIR", runfiles)
	tmp := t.TempDir()
	t.Setenv("TEST_TMPDIR", tmp)
	t.Setenv(pythonEnv, "python_0_local/bin/python")
	t.Setenv(pythonVersionEnv, "Python 3.11.7; psycopg 3.3.9")
	touch(t, filepath.Join(runfiles, "python_0_local/bin/python"))
	client := filepath.Join(t.TempDir(), "driver.py") // a book named like the driver
	if err := os.WriteFile(client, []byte("# the client\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &run{out: &out, errOut: &bytes.Buffer{}}
	d := driver{target: "postgres-python", backend: "postgres", language: "python", path: client}
	if err := languages[d.language].prepare(r, &d); err != nil {
		t.Fatal(err)
	}
	if d.command == nil {
		t.Fatal("prepare set no command")
	}
	cmd := d.command()
	if want := filepath.Join(runfiles, "python_0_local/bin/python"); cmd.Path != want {
		t.Errorf("the driver is started by %s, want the toolchain's interpreter %s", cmd.Path, want)
	}
	// One folder under the test's temporary directory, with the driver
	// and, in a folder of its own, the client.
	made, err := os.ReadDir(tmp)
	if err != nil || len(made) != 1 || !strings.HasPrefix(made[0].Name(), "chobo-postgres-python-") {
		t.Fatalf("the test's temporary directory holds %v, %v; want one folder for the client", made, err)
	}
	dir := filepath.Join(tmp, made[0].Name())
	if want := pydriver.Args(dir, "client/driver.py", "alternate"); !slices.Equal(cmd.Args[1:], want) {
		t.Errorf("the interpreter's arguments are %q, want %q", cmd.Args[1:], want)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "client", "driver.py")); err != nil || string(got) != "# the client\n" {
		t.Errorf("the client laid out: %q, %v", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, pydriver.File)); err != nil || !strings.Contains(string(got), "driver protocol") {
		t.Errorf("the driver laid out is not chobo's: %v", err)
	}
	if !strings.Contains(out.String(), "postgres-python: "+cmd.Path+" (Python 3.11.7; psycopg 3.3.9)\n") {
		t.Errorf("the log does not name the interpreter and its version:\n%s", out.String())
	}
	if !slices.Contains(cmd.Env, "PYTHONPATH=") {
		t.Error("the test's PYTHONPATH reaches the interpreter")
	}
	// What was laid out goes at the end.
	r.finish()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the driver's folder is left after the run: %v", err)
	}
}

// Without the Python toolchain's interpreter, a Python client fails at
// once, saying so.
func TestPreparePythonWithoutToolchain(t *testing.T) {
	t.Setenv(pythonEnv, "")
	r := &run{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	d := driver{target: "tigerbeetle-python", backend: "tigerbeetle", language: "python", path: "/x/stock.py"}
	err := languages[d.language].prepare(r, &d)
	if err == nil || !strings.Contains(err.Error(), "tigerbeetle-python: a Python client: no Python toolchain was handed over") {
		t.Errorf("got %v", err)
	}
}

// A tigerbeetle-python client reaches only a real replica: without one it
// is not run on the model but named in a SKIP line, as is the replica.
func TestPythonTigerBeetleSkipsWithoutReplica(t *testing.T) {
	d := driver{target: "tigerbeetle-python", backend: "tigerbeetle", language: "python", path: "/x/stock.py"}
	if languages[d.language].viaWire {
		t.Fatal("the Python driver is said to reach TigerBeetle through the runner")
	}
	var out bytes.Buffer
	r := &run{out: &out, errOut: &bytes.Buffer{}}
	defer r.finish()
	cfg := config{drivers: []driver{d}, tbMissing: "no TigerBeetle binary"}
	got, err := r.onReplica(cfg, r.startReplica(cfg, true), nil, []driver{d}, nil, "stock.book", "/x/stock.book")
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want nothing run", got, err)
	}
	for _, want := range []string{
		"SKIP: real TigerBeetle: no TigerBeetle binary\n",
		"SKIP: tigerbeetle-python: its driver reaches only a real replica, and there is none\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, out.String())
		}
	}
}

// The interpreter is started by the path of a virtual environment's
// python, where it finds its packages, however many links lead there;
// one outside any virtual environment by the path handed over.
func TestInterpreter(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "base", "bin", "python3.11")
	touch(t, base)
	venv := filepath.Join(root, "checkout", ".venv")
	touch(t, filepath.Join(venv, venvMarker))
	link(t, base, filepath.Join(venv, "bin", "python3"))
	link(t, "python3", filepath.Join(venv, "bin", "python")) // relative, as venv makes it
	repo := filepath.Join(root, "external", "python_0_local", "bin", "python")
	link(t, filepath.Join(venv, "bin", "python"), repo)
	inRunfiles := filepath.Join(root, "runfiles", "python_0_local", "bin", "python")
	link(t, repo, inRunfiles)
	if got, err := interpreter(inRunfiles); err != nil || got != filepath.Join(venv, "bin", "python") {
		t.Errorf("a virtual environment's python: got %s, %v; want %s", got, err, filepath.Join(venv, "bin", "python"))
	}

	system := filepath.Join(root, "runfiles", "python_1_local", "bin", "python")
	link(t, base, system)
	if got, err := interpreter(system); err != nil || got != system {
		t.Errorf("a python of no virtual environment: got %s, %v; want %s", got, err, system)
	}
	if _, err := interpreter(filepath.Join(root, "nothing")); err == nil {
		t.Error("an interpreter that is not there was taken")
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o755); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, to, at string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, at); err != nil {
		t.Fatal(err)
	}
}
