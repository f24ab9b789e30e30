package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	tsdriver "github.com/chobo-lang/chobo/runtime/typescript/driver"
)

// The Node toolchain, which the rule hands over when a client is a
// TypeScript one, as runfiles paths:
//
//	CHOBO_CONFORMANCE_NODE          node (a TypeScript client's driver entry is then TARGET=the client's .ts)
//	CHOBO_CONFORMANCE_NODE_MODULES  node_modules/.package-lock.json of the Node toolchain's pinned packages
const (
	nodeEnv        = "CHOBO_CONFORMANCE_NODE"
	nodeModulesEnv = "CHOBO_CONFORMANCE_NODE_MODULES"
)

// nodeFromEnv reads the Node toolchain the rule handed over.
func nodeFromEnv() (tsdriver.Node, error) {
	var n tsdriver.Node
	program := os.Getenv(nodeEnv)
	if program == "" {
		return n, fmt.Errorf("no Node toolchain was handed over")
	}
	var err error
	if n.Program, err = runfile(program); err != nil {
		return n, err
	}
	marker, err := runfile(os.Getenv(nodeModulesEnv))
	if err == nil {
		marker, err = filepath.EvalSymlinks(marker)
	}
	if err != nil {
		return n, fmt.Errorf("the Node toolchain's packages: %v", err)
	}
	n.Modules = filepath.Dir(marker)
	return n, nil
}

// compileTypeScript compiles a TypeScript client with the driver, in a
// folder of its own under the test's temporary directory, with the Node
// toolchain's pinned TypeScript, and sets how its driver is started.
func (r *run) compileTypeScript(d *driver) error {
	node, err := nodeFromEnv()
	if err != nil {
		return fmt.Errorf("%s: a TypeScript client: %v", d.target, err)
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
	if err := tsdriver.Compile(node, dir, map[string][]byte{client: src}); err != nil {
		return fmt.Errorf("%s: %v", d.target, err)
	}
	args := tsdriver.DriverArgs(dir, client)
	d.command = func() *exec.Cmd { return exec.Command(node.Program, args...) }
	return nil
}
