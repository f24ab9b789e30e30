package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	tsdriver "github.com/chobo-lang/chobo/runtime/typescript/driver"
)

// The TypeScript targets, whose clients the runner compiles with chobo's
// TypeScript driver and drives on Node.
const (
	tsPostgres    = "postgres-typescript"
	tsTigerBeetle = "tigerbeetle-typescript"
)

// compileTypeScript compiles each TypeScript client of cfg with the
// driver, in a folder of its own under the test's temporary directory,
// with the Node toolchain's pinned TypeScript, and sets how its driver is
// started.
func (r *run) compileTypeScript(cfg *config) error {
	for i := range cfg.drivers {
		d := &cfg.drivers[i]
		if d.target != tsPostgres && d.target != tsTigerBeetle {
			continue
		}
		if cfg.node.Program == "" {
			return fmt.Errorf("%s: a TypeScript client, and no Node toolchain was handed over", d.target)
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
		if err := tsdriver.Compile(cfg.node, dir, map[string][]byte{client: src}); err != nil {
			return fmt.Errorf("%s: %v", d.target, err)
		}
		program, args := cfg.node.Program, tsdriver.DriverArgs(dir, client)
		d.command = func() *exec.Cmd { return exec.Command(program, args...) }
	}
	return nil
}
