package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	pydriver "github.com/chobo-lang/chobo/runtime/python/driver"
)

// The Python toolchain, which the rule hands over when a client is a
// Python one:
//
//	CHOBO_CONFORMANCE_PYTHON          the interpreter, a runfiles path (a Python client's driver entry is then TARGET=the client's .py)
//	CHOBO_CONFORMANCE_PYTHON_VERSION  its version and its packages', as the toolchain found them
const (
	pythonEnv        = "CHOBO_CONFORMANCE_PYTHON"
	pythonVersionEnv = "CHOBO_CONFORMANCE_PYTHON_VERSION"
)

// pythonMode is how the driver calls the client: requests with an even id
// through its sync book and the others through its async one, so that
// both answer every scenario, on the same data.
const pythonMode = "alternate"

// venvMarker is the file beside a virtual environment's bin/ by which its
// python finds its packages.
const venvMarker = "pyvenv.cfg"

// pythonFromEnv reads the interpreter the rule handed over, and follows
// it to where it can run.
func pythonFromEnv() (string, error) {
	p := os.Getenv(pythonEnv)
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

// preparePython lays out a Python client beside chobo's Python driver, in
// a folder of its own under the test's temporary directory, and sets how
// its driver is started: by the toolchain's interpreter. The client goes
// into a folder of its own, so that no book's name can be the driver's.
func (r *run) preparePython(d *driver) error {
	python, err := pythonFromEnv()
	if err != nil {
		return fmt.Errorf("%s: a Python client: %v", d.target, err)
	}
	fmt.Fprintf(r.out, "%s: %s (%s)\n", d.target, python, os.Getenv(pythonVersionEnv))
	dir, err := os.MkdirTemp(os.Getenv("TEST_TMPDIR"), "chobo-"+d.target+"-")
	if err != nil {
		return err
	}
	r.atEnd(func() { os.RemoveAll(dir) })
	src, err := os.ReadFile(d.path)
	if err != nil {
		return err
	}
	client := "client/" + filepath.Base(d.path)
	if err := pydriver.Layout(dir, map[string][]byte{client: src}); err != nil {
		return fmt.Errorf("%s: %v", d.target, err)
	}
	args := pydriver.Args(dir, client, pythonMode)
	d.command = func() *exec.Cmd {
		cmd := exec.Command(python, args...)
		// Nothing of the test's environment reaches the interpreter's
		// module search: it imports what the toolchain was checked with.
		cmd.Env = append(os.Environ(), "PYTHONPATH=")
		return cmd
	}
	return nil
}
