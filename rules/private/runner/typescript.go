package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
)

// The TypeScript targets, whose clients the runner compiles with chobo's
// TypeScript driver and drives on Node.
const (
	tsPostgres    = "postgres-typescript"
	tsTigerBeetle = "tigerbeetle-typescript"
)

// tsFlags are the flags every generated TypeScript client passes.
var tsFlags = []string{"--strict", "--erasableSyntaxOnly", "--noUnusedLocals", "--target", "es2022", "--module", "nodenext", "--types", "node"}

// compileTypeScript compiles each TypeScript client of cfg with the
// driver, in a folder of its own under the test's temporary directory,
// with the Node toolchain's pinned TypeScript, and sets how its driver is
// started. b is the book the clients were generated from: the driver calls
// the members `chobo api` names for it.
func (r *run) compileTypeScript(cfg *config, b *book.Book) error {
	targets := api.TargetsOf(b)
	for i := range cfg.drivers {
		d := &cfg.drivers[i]
		var names *api.TypeScript
		switch d.target {
		case tsPostgres:
			names = targets.PostgresTypeScript
		case tsTigerBeetle:
			names = targets.TigerBeetleTypeScript
		default:
			continue
		}
		if cfg.node.program == "" {
			return fmt.Errorf("%s: a TypeScript client, and no Node toolchain was handed over", d.target)
		}
		if names == nil {
			return fmt.Errorf("%s: the book cannot go to that target (chobo build says why)", d.target)
		}
		dir, err := r.tsFolder(cfg.node, d.target, d.path, names)
		if err != nil {
			return fmt.Errorf("%s: %v", d.target, err)
		}
		client := filepath.Join(dir, "dist", "client", strings.TrimSuffix(filepath.Base(d.path), ".ts")+".js")
		args := []string{filepath.Join(dir, "dist", "driver", "driver.js"), "--client", client, "--names", filepath.Join(dir, "names.json")}
		if d.target == tsTigerBeetle {
			// TigerBeetle counts a hold's life from the timeout the client
			// sends: the driver cuts it to the test copy's.
			args = append(args, "--hold-seconds", strconv.Itoa(int(conformance.Lifetime/time.Second)))
		}
		program := cfg.node.program
		d.command = func() *exec.Cmd { return exec.Command(program, args...) }
	}
	return nil
}

// tsFolder lays out one client beside the driver, with the toolchain's
// packages, and compiles both.
func (r *run) tsFolder(n node, target, src string, names *api.TypeScript) (string, error) {
	dir, err := os.MkdirTemp(os.Getenv("TEST_TMPDIR"), "chobo-"+target+"-")
	if err != nil {
		return "", err
	}
	r.atEnd(func() { os.RemoveAll(dir) })
	files := map[string]string{"client/" + filepath.Base(src): src, "driver/driver.ts": n.driver}
	var inputs []string
	for rel, from := range files {
		data, err := os.ReadFile(from)
		if err != nil {
			return "", err
		}
		to := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return "", err
		}
		inputs = append(inputs, to)
	}
	spec, err := json.Marshal(map[string]any{"target": target, "names": names})
	if err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{"names.json": spec, "package.json": []byte(`{"type": "module"}` + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Symlink(n.modules, filepath.Join(dir, "node_modules")); err != nil {
		return "", err
	}
	args := append([]string{filepath.Join(n.modules, "typescript", "bin", "tsc")}, tsFlags...)
	args = append(args, "--typeRoots", filepath.Join(n.modules, "@types"), "--rootDir", dir, "--outDir", filepath.Join(dir, "dist"))
	cmd := exec.Command(n.program, append(args, inputs...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("tsc %s over the client and the driver: %v\n%s", strings.Join(tsFlags[:3], " "), err, out)
	}
	return dir, nil
}
