package driver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
)

// Kit is the TypeScript language's driver kit: a client is compiled with
// driver.ts by the pinned tsc and driven by node. It dials PostgreSQL
// with pg and a real TigerBeetle replica with tigerbeetle-node, never
// chobo's model.
type Kit struct{}

var _ driverkit.Kit = Kit{}

func (Kit) Language() string { return "typescript" }
func (Kit) ViaWire() bool    { return false }
func (Kit) Record() string   { return "CHOBO_DRIVER_RECORD" }
func (Kit) Bulk() []string   { return []string{"postgres", "tigerbeetle"} }

// The Node toolchain, which the conformance rule hands over when a client
// is a TypeScript one, as runfiles paths:
//
//	CHOBO_CONFORMANCE_NODE          node (a TypeScript client's driver entry is then TARGET=the client's .ts)
//	CHOBO_CONFORMANCE_NODE_MODULES  node_modules/.package-lock.json of the Node toolchain's pinned packages
const (
	NodeEnv        = "CHOBO_CONFORMANCE_NODE"
	NodeModulesEnv = "CHOBO_CONFORMANCE_NODE_MODULES"
)

// nodeFromEnv reads the Node toolchain the rule handed over.
func nodeFromEnv(runfile func(string) (string, error)) (Node, error) {
	var n Node
	program := os.Getenv(NodeEnv)
	if program == "" {
		return n, fmt.Errorf("no Node toolchain was handed over")
	}
	var err error
	if n.Program, err = runfile(program); err != nil {
		return n, err
	}
	marker, err := runfile(os.Getenv(NodeModulesEnv))
	if err == nil {
		marker, err = filepath.EvalSymlinks(marker)
	}
	if err != nil {
		return n, fmt.Errorf("the Node toolchain's packages: %v", err)
	}
	n.Modules = filepath.Dir(marker)
	return n, nil
}

// Prepare compiles the client with the driver, in a folder of its own,
// with the Node toolchain's pinned TypeScript.
func (Kit) Prepare(h driverkit.Handed) (driverkit.Start, error) {
	node, err := nodeFromEnv(h.Runfile)
	if err != nil {
		return nil, fmt.Errorf("a TypeScript client: %v", err)
	}
	dir, err := h.TempDir()
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(h.Path)
	if err != nil {
		return nil, err
	}
	client := "client/" + filepath.Base(h.Path)
	if err := Compile(node, dir, map[string][]byte{client: src}); err != nil {
		return nil, err
	}
	args := DriverArgs(dir, client)
	return func() *exec.Cmd { return exec.Command(node.Program, args...) }, nil
}

// Tools is the Node toolchain of a checkout: node from PATH and the
// packages lang/typescript/runtime pins, installed by npm ci there
// (tests/setup.sh does).
type Tools struct {
	Node Node
	TSC  string // the pinned tsc's program
}

// Checkout finds node and the runtime's installed packages.
func (Kit) Checkout(c driverkit.Checkout) (driverkit.Builder, string) {
	if os.Getenv("TEST_SRCDIR") != "" {
		return nil, "under Bazel the runtime's npm packages are not at hand; the Bazel rules' own tests drive TypeScript there"
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, "no node command: install Node 20 (tests/setup.sh does)"
	}
	modules := filepath.Join(c.Root, "lang", "typescript", "runtime", "node_modules")
	tsc := filepath.Join(modules, ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		return nil, "the TypeScript runtime's packages are not installed: run npm ci in lang/typescript/runtime (tests/setup.sh does)"
	}
	return &Tools{Node: Node{Program: node, Modules: modules}, TSC: tsc}, ""
}

// Build compiles every client with tsc into one folder beside the driver,
// each driven by node.
func (t *Tools) Build(tg, backend, dir string, clients []driverkit.Client) (func(string) *exec.Cmd, error) {
	files := map[string][]byte{}
	moduleOf := map[string]string{}
	for _, c := range clients {
		rel := "clients/" + c.Name + "/" + tg + "/" + c.Path
		files[rel] = c.Data
		moduleOf[c.Name] = rel
	}
	if err := Compile(t.Node, dir, files); err != nil {
		return nil, err
	}
	return func(name string) *exec.Cmd {
		rel, ok := moduleOf[name]
		if !ok {
			return nil
		}
		return exec.Command(t.Node.Program, DriverArgs(dir, rel)...)
	}, nil
}

var _ driverkit.Shell = (*Tools)(nil)

// ShellEnv keeps npm offline; node is the one on PATH already.
func (t *Tools) ShellEnv() (path, env []string) {
	return nil, []string{"npm_config_offline=true", "npm_config_update_notifier=false"}
}

// StandIn takes `npm install …`: the folder gets the runtime's installed
// packages, the versions the docs name, in place of a download.
func (t *Tools) StandIn(line, dir string) (bool, error) {
	if !strings.HasPrefix(line, "npm install ") {
		return false, nil
	}
	return true, os.Symlink(t.Node.Modules, filepath.Join(dir, "node_modules"))
}

// CheckProgram checks nothing of its own: the docs compile their
// TypeScript programs with tsc before they run them.
func (t *Tools) CheckProgram(dir, program string) (bool, error) { return false, nil }
