package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
)

// handed is what the runner lends the kit, with runfiles under runfiles
// and the client's folder at dir.
func handed(runfiles, dir, target, path string, log *bytes.Buffer) driverkit.Handed {
	return driverkit.Handed{
		Target: target, Backend: strings.SplitN(target, "-", 2)[0], Path: path,
		Runfile: func(p string) (string, error) { return filepath.Join(runfiles, p), nil },
		TempDir: func() (string, error) { return dir, os.MkdirAll(dir, 0o755) },
		Log:     log,
	}
}

// A client the rule hands over is laid out beside the driver, in a folder
// of its own, and started by the interpreter the rule handed over,
// driving the sync and async books in turn.
func TestPrepare(t *testing.T) {
	runfiles := t.TempDir()
	t.Setenv(PythonEnv, "python_0_local/bin/python")
	t.Setenv(PythonVersionEnv, "Python 3.11.7; psycopg 3.3.9")
	touch(t, filepath.Join(runfiles, "python_0_local/bin/python"))
	client := filepath.Join(t.TempDir(), "driver.py") // a book named like the driver
	if err := os.WriteFile(client, []byte("# the client\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "d")
	var log bytes.Buffer
	start, err := Kit{}.Prepare(handed(runfiles, dir, "postgres-python", client, &log))
	if err != nil {
		t.Fatal(err)
	}
	if start == nil {
		t.Fatal("Prepare gave no way to start the driver")
	}
	cmd := start()
	if want := filepath.Join(runfiles, "python_0_local/bin/python"); cmd.Path != want {
		t.Errorf("the driver is started by %s, want the toolchain's interpreter %s", cmd.Path, want)
	}
	if want := Args(dir, "client/driver.py", "alternate"); !slices.Equal(cmd.Args[1:], want) {
		t.Errorf("the interpreter's arguments are %q, want %q", cmd.Args[1:], want)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "client", "driver.py")); err != nil || string(got) != "# the client\n" {
		t.Errorf("the client laid out: %q, %v", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, File)); err != nil || !strings.Contains(string(got), "driver protocol") {
		t.Errorf("the driver laid out is not chobo's: %v", err)
	}
	if !strings.Contains(log.String(), "postgres-python: "+cmd.Path+" (Python 3.11.7; psycopg 3.3.9)\n") {
		t.Errorf("the log does not name the interpreter and its version:\n%s", log.String())
	}
	if !slices.Contains(cmd.Env, "PYTHONPATH=") {
		t.Error("the test's PYTHONPATH reaches the interpreter")
	}
}

// Without the Python toolchain's interpreter, a Python client fails at
// once, saying so.
func TestPrepareWithoutToolchain(t *testing.T) {
	t.Setenv(PythonEnv, "")
	_, err := Kit{}.Prepare(handed(t.TempDir(), t.TempDir(), "tigerbeetle-python", "/x/stock.py", &bytes.Buffer{}))
	if err == nil || err.Error() != "a Python client: no Python toolchain was handed over" {
		t.Errorf("got %v", err)
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

// Of the clients built at once, a later version's driver keeps to the
// mode and the PostgreSQL driver of the client it takes over from.
func TestBuildModes(t *testing.T) {
	v := &Venv{Python: "/venv/bin/python"}
	clients := []driverkit.Client{
		{Name: "a", Path: "a.py", Data: []byte("# a\n")},
		{Name: "b", Path: "b.py", Data: []byte("# b\n")},
		{Name: "b_v2", Path: "b.py", Data: []byte("# b 2\n"), Of: "b"},
	}
	for _, tc := range []struct {
		backend  string
		modes    [3]string
		psycopg2 [3]bool
	}{
		{"postgres", [3]string{"alternate", "alternate", "alternate"}, [3]bool{false, true, true}},
		{"tigerbeetle", [3]string{"sync", "async", "async"}, [3]bool{}},
	} {
		dir := t.TempDir()
		start, err := v.Build(tc.backend+"-python", tc.backend, dir, clients)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range clients {
			cmd := start(c.Name)
			rel := "clients/" + c.Name + "/" + tc.backend + "-python/" + c.Path
			if want := Args(dir, rel, tc.modes[i]); !slices.Equal(cmd.Args[1:], want) {
				t.Errorf("%s on %s: arguments %q, want %q", c.Name, tc.backend, cmd.Args[1:], want)
			}
			// The books the builder drives over psycopg2 are the variant
			// the kit names, which the tests that drive one book ask for.
			variant := driverkit.VariantsOf(Kit{}, tc.backend)
			if got := len(variant) == 1 && slices.Contains(cmd.Env, variant[0].Env[0]); got != tc.psycopg2[i] {
				t.Errorf("%s on %s: psycopg2 %v, want %v", c.Name, tc.backend, got, tc.psycopg2[i])
			}
			if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || !bytes.Equal(got, c.Data) {
				t.Errorf("%s laid out: %q, %v", c.Name, got, err)
			}
		}
		if start("nothing") != nil {
			t.Error("a driver was started for a client not built")
		}
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
