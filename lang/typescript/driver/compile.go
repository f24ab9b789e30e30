// Package driver holds chobo's TypeScript driver (driver.ts) and what
// compiles a generated TypeScript client with it, for the conformance
// runner and chobo's own tests. It is apart from lang/typescript/runtime, which
// the compiler links, so that chobo itself carries no driver and starts
// no tsc.
package driver

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed driver.ts
var driverSource []byte

// ClientFlags are the flags of tsc every generated client passes.
var ClientFlags = []string{"--strict", "--erasableSyntaxOnly", "--noUnusedLocals"}

// Node is what a TypeScript client is compiled and driven with: the node
// program and a node_modules directory with the packages
// lang/typescript/runtime/package-lock.json pins (TypeScript, pg,
// tigerbeetle-node and their types).
type Node struct {
	Program string
	Modules string
}

// DriverFile is where Compile puts the driver, relative to its folder.
const DriverFile = "driver/driver.ts"

// Compile lays out files (paths relative to dir, which must be empty or
// missing) with chobo's TypeScript driver at DriverFile, and compiles them
// all with n's tsc and ClientFlags into dir/dist, as ES modules for Node:
// a file a.ts becomes dist/a.js. The driver reaches pg and
// tigerbeetle-node through dir/node_modules, a link to n.Modules.
func Compile(n Node, dir string, files map[string][]byte) error {
	all := map[string][]byte{DriverFile: driverSource, "package.json": []byte(`{"type": "module"}` + "\n")}
	for rel, data := range files {
		all[rel] = data
	}
	var inputs []string
	for rel, data := range all {
		to := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return err
		}
		if strings.HasSuffix(rel, ".ts") {
			inputs = append(inputs, to)
		}
	}
	sort.Strings(inputs)
	if err := os.Symlink(n.Modules, filepath.Join(dir, "node_modules")); err != nil {
		return err
	}
	args := append([]string{filepath.Join(n.Modules, "typescript", "bin", "tsc")}, ClientFlags...)
	args = append(args, "--target", "es2022", "--module", "nodenext", "--types", "node",
		"--typeRoots", filepath.Join(n.Modules, "@types"), "--rootDir", dir, "--outDir", filepath.Join(dir, "dist"))
	cmd := exec.Command(n.Program, append(args, inputs...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tsc %s over %d files: %v\n%s", strings.Join(ClientFlags, " "), len(inputs), err, out)
	}
	return nil
}

// DriverArgs are node's arguments to drive the client compiled from the
// file client (relative to dir): the driver, and the client's JavaScript.
// Everything else the driver learns from the open request.
func DriverArgs(dir, client string) []string {
	js := strings.TrimSuffix(client, ".ts") + ".js"
	return []string{filepath.Join(dir, "dist", "driver", "driver.js"), filepath.Join(dir, "dist", filepath.FromSlash(js))}
}
