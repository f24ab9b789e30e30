package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	tsruntime "github.com/chobo-lang/chobo/runtime/typescript"
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
// started. b is the book the clients were generated from: the driver calls
// the members `chobo api` names for it.
func (r *run) compileTypeScript(cfg *config, b *book.Book) error {
	targets := api.TargetsOf(b)
	for i := range cfg.drivers {
		d := &cfg.drivers[i]
		hold := 0
		switch d.target {
		case tsPostgres:
		case tsTigerBeetle:
			// TigerBeetle counts a hold's life from the timeout the
			// client sends: the driver cuts it to the test copy's.
			hold = int(conformance.Lifetime / time.Second)
		default:
			continue
		}
		names := targets.Client(d.target)
		if cfg.node.Program == "" {
			return fmt.Errorf("%s: a TypeScript client, and no Node toolchain was handed over", d.target)
		}
		if names == nil {
			return fmt.Errorf("%s: the book cannot go to that target (chobo build says why)", d.target)
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
		spec, err := json.Marshal(map[string]any{"target": d.target, "names": names})
		if err != nil {
			return err
		}
		client := "client/" + filepath.Base(d.path)
		if err := tsruntime.Compile(cfg.node, dir, map[string][]byte{client: src, "names.json": spec}); err != nil {
			return fmt.Errorf("%s: %v", d.target, err)
		}
		program, args := cfg.node.Program, tsruntime.DriverArgs(dir, client, filepath.Join(dir, "names.json"), hold)
		d.command = func() *exec.Cmd { return exec.Command(program, args...) }
	}
	return nil
}
