package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	pydriver "github.com/chobo-lang/chobo/runtime/python/driver"
)

// The Python toolchain, which the rule hands over when a client is a
// Python one, as a runfiles path:
//
//	CHOBO_CONFORMANCE_PYTHON  the interpreter, with psycopg 3, psycopg2 and tigerbeetle (a Python client's driver entry is then TARGET=the client's .py)
const pythonEnv = "CHOBO_CONFORMANCE_PYTHON"

// pythonMode is how the driver calls the client: requests with an even id
// through its sync book and the others through its async one, so that
// both answer every scenario, on the same data.
const pythonMode = "alternate"

// pythonFromEnv reads the interpreter the rule handed over.
func pythonFromEnv() (string, error) {
	p := os.Getenv(pythonEnv)
	if p == "" {
		return "", fmt.Errorf("no Python toolchain was handed over")
	}
	return runfile(p)
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
