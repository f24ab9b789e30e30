package driver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
)

// Kit is the Python language's driver kit: a client is laid out beside
// driver.py and driven by an interpreter that has the pinned psycopg and
// tigerbeetle packages. It dials PostgreSQL with psycopg and a real
// TigerBeetle replica with the official tigerbeetle package, never chobo's
// model.
type Kit struct{}

var _ driverkit.Varied = Kit{}

func (Kit) Language() string { return "python" }
func (Kit) ViaWire() bool    { return false }
func (Kit) Record() string   { return "CHOBO_DRIVER_RECORD" }
func (Kit) Bulk() []string   { return []string{"postgres", "tigerbeetle"} }

// psycopg2Env makes the driver call the sync book over psycopg2 rather
// than psycopg 3 (the async book has only psycopg 3).
const psycopg2Env = "CHOBO_DRIVER_PSYCOPG2=1"

// Variants: on PostgreSQL, the sync book over psycopg2.
// Flavors: every Python client has a sync book and an asyncio one.
func (Kit) Flavors() []string { return []string{"sync", "async"} }

func (Kit) Variants(backend string) []driverkit.Variant {
	if backend != "postgres" {
		return nil
	}
	return []driverkit.Variant{{Name: "psycopg2", Env: []string{psycopg2Env}}}
}

// The Python toolchain, which the conformance rule hands over when a
// client is a Python one:
//
//	CHOBO_CONFORMANCE_PYTHON          the interpreter, a runfiles path (a Python client's driver entry is then TARGET=the client's .py)
//	CHOBO_CONFORMANCE_PYTHON_VERSION  its version and its packages', as the toolchain found them
const (
	PythonEnv        = "CHOBO_CONFORMANCE_PYTHON"
	PythonVersionEnv = "CHOBO_CONFORMANCE_PYTHON_VERSION"
)

// handedMode is how the driver calls a client the rule hands over:
// requests with an even id through its sync book and the others through
// its async one, so that both answer every scenario, on the same data.
const handedMode = "alternate"

// venvMarker is the file beside a virtual environment's bin/ by which its
// python finds its packages.
const venvMarker = "pyvenv.cfg"

// Prepare lays the client out beside the driver, in a folder of its own
// (so that no book's name can be the driver's), and starts the driver by
// the toolchain's interpreter.
func (Kit) Prepare(h driverkit.Handed) (driverkit.Start, error) {
	python, err := pythonFromEnv(h.Runfile)
	if err != nil {
		return nil, fmt.Errorf("a Python client: %v", err)
	}
	fmt.Fprintf(h.Log, "%s: %s (%s)\n", h.Target, python, os.Getenv(PythonVersionEnv))
	dir, err := h.TempDir()
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(h.Path)
	if err != nil {
		return nil, err
	}
	client := "client/" + filepath.Base(h.Path)
	if err := Layout(dir, map[string][]byte{client: src}); err != nil {
		return nil, err
	}
	args := Args(dir, client, handedMode)
	return func() *exec.Cmd {
		cmd := exec.Command(python, args...)
		// Nothing of the test's environment reaches the interpreter's
		// module search: it imports what the toolchain was checked with.
		cmd.Env = append(os.Environ(), "PYTHONPATH=")
		return cmd
	}, nil
}

// pythonFromEnv reads the interpreter the rule handed over, and follows
// it to where it can run.
func pythonFromEnv(runfile func(string) (string, error)) (string, error) {
	p := os.Getenv(PythonEnv)
	if p == "" {
		return "", fmt.Errorf("no Python toolchain was handed over")
	}
	path, err := runfile(p)
	if err != nil {
		return "", err
	}
	return interpreter(path)
}

// interpreter is the path to start the interpreter at path by. The
// toolchain hands over a link (runfiles link to the repository's link to
// the interpreter), so that a test's inputs hold no path of the machine;
// but the python of a virtual environment finds its packages from the
// path it is started by, with pyvenv.cfg one folder up, not from the file
// it links to. The links are followed one at a time, and the first path
// that has the marker there is the one; with none, path itself (an
// interpreter outside any virtual environment finds its own).
func interpreter(path string) (string, error) {
	p := path
	for range 40 {
		if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(p)), venvMarker)); err == nil {
			return p, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			break // not a link: the interpreter itself
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("the Python toolchain's interpreter: %v", err)
	}
	return path, nil
}

// Venv is the Python toolchain of a checkout: the interpreter of the
// runtime's virtual environment (lang/python/runtime/.venv, which
// tests/setup.sh makes), which holds the pinned psycopg, psycopg2 and
// tigerbeetle packages.
type Venv struct {
	Python string
}

// Checkout finds the runtime's virtual environment.
func (Kit) Checkout(c driverkit.Checkout) (driverkit.Builder, string) {
	if os.Getenv("TEST_SRCDIR") != "" {
		return nil, "under Bazel the runtime's virtual environment is not at hand; the Bazel rules' own tests drive Python there"
	}
	py := filepath.Join(c.Root, "lang", "python", "runtime", ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		return nil, "the Python runtime's virtual environment is not there: run tests/setup.sh"
	}
	if out, err := exec.Command(py, "-c", "import psycopg, psycopg2, tigerbeetle").CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("the Python runtime's virtual environment lacks psycopg, psycopg2 or tigerbeetle (run tests/setup.sh): %v\n%s", err, out)
	}
	return &Venv{Python: py}, ""
}

// Build lays the clients out in one folder beside the driver, each driven
// by the virtual environment's interpreter. The driver sends requests
// with an even id through the client's sync book and the others through
// its async one, so that both answer every scenario.
func (v *Venv) Build(tg, backend, dir string, clients []driverkit.Client) (func(string) *exec.Cmd, error) {
	files := map[string][]byte{}
	fileOf := map[string]string{}
	modeOf := map[string]string{}
	psycopg2 := map[string]bool{}
	for i, c := range clients {
		rel := "clients/" + c.Name + "/" + tg + "/" + c.Path
		files[rel] = c.Data
		fileOf[c.Name] = rel
		if c.Of != "" {
			// A later version's driver drives its client as the case's
			// own driver does, so that a scenario that deploys keeps to
			// the sync or async book it began on.
			modeOf[c.Name], psycopg2[c.Name] = modeOf[c.Of], psycopg2[c.Of]
			continue
		}
		// A driver in alternate mode holds two clients of TigerBeetle,
		// and a replica serves 64 at a time: with a driver per book
		// running at once, the TigerBeetle ones take turns instead, every
		// other book's driving the sync book and the rest the async one.
		modeOf[c.Name] = "alternate"
		if backend == "tigerbeetle" {
			modeOf[c.Name] = [2]string{"sync", "async"}[i%2]
		}
		// On PostgreSQL the sync book of every other book's driver goes
		// over psycopg2, the rest over psycopg 3: both DB-API drivers
		// meet every kind of scenario.
		psycopg2[c.Name] = backend == "postgres" && i%2 == 1
	}
	if err := Layout(dir, files); err != nil {
		return nil, err
	}
	return func(name string) *exec.Cmd {
		rel, ok := fileOf[name]
		if !ok {
			return nil
		}
		cmd := exec.Command(v.Python, Args(dir, rel, modeOf[name])...)
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=")
		if psycopg2[name] {
			cmd.Env = append(cmd.Env, psycopg2Env)
		}
		return cmd
	}, nil
}

var _ driverkit.Shell = (*Venv)(nil)

// ShellEnv puts the environment's bin first on PATH (python, pip and
// mypy are the pinned ones) and keeps pip offline: the packages the docs
// install are the environment's already.
func (v *Venv) ShellEnv() (path, env []string) {
	return []string{filepath.Dir(v.Python)}, []string{"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1"}
}

// StandIn takes no line: pip install runs as written, offline, and finds
// what it is asked for installed.
func (v *Venv) StandIn(line, dir string) (bool, error) { return false, nil }

// CheckProgram runs mypy --strict over a .py program, as over the
// clients; mypy keeps no cache there.
func (v *Venv) CheckProgram(dir, program string) (bool, error) {
	if filepath.Ext(program) != ".py" {
		return false, nil
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(v.Python), "mypy"), "--strict", "--cache-dir", os.DevNull, program)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return true, fmt.Errorf("mypy --strict %s: %v\n%s", program, err, out)
	}
	return true, nil
}
