// Package driver holds chobo's Python driver (driver.py), which serves the
// driver protocol for a generated Python client, and what lays it out
// beside the clients it drives, for the conformance runner and chobo's
// own tests. It is apart from the compiler, so that chobo itself carries
// no driver.
package driver

import (
	_ "embed"
	"os"
	"path/filepath"
)

//go:embed driver.py
var script []byte

// File is where Layout puts the driver, relative to its folder.
const File = "driver.py"

// Layout writes the driver into dir, with files (paths relative to dir,
// each a generated client) beside it.
func Layout(dir string, files map[string][]byte) error {
	all := map[string][]byte{File: script}
	for rel, data := range files {
		all[rel] = data
	}
	for rel, data := range all {
		to := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Args are the Python interpreter's arguments to drive the client at
// client (relative to dir) in mode: "alternate" (the default: requests
// with an even id go through the sync book, the others through the async
// one), "sync" or "async". No bytecode is written beside the client.
func Args(dir, client, mode string) []string {
	return []string{"-B", filepath.Join(dir, File), "--mode", mode, filepath.Join(dir, filepath.FromSlash(client))}
}
