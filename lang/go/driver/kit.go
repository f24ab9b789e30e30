package driver

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
)

// Kit is the Go language's driver kit: a client is compiled into a
// driver program with this package. The program reaches TigerBeetle
// through chobo's wire, so its clients run on chobo's model too.
type Kit struct{}

var _ driverkit.Kit = Kit{}

func (Kit) Language() string { return "go" }
func (Kit) ViaWire() bool    { return true }
func (Kit) Record() string   { return "CHOBO_DRIVER_RECORD" }
func (Kit) Bulk() []string   { return []string{"postgres", "tigerbeetle"} }

// Prepare has nothing to do: the rule hands over a driver program Bazel
// built, the client compiled in (lang/go/defs.bzl).
func (Kit) Prepare(driverkit.Handed) (driverkit.Start, error) { return nil, nil }

// CaseEnv names the client that a driver program Build wrote drives.
const CaseEnv = "CHOBO_TEST_DRIVER"

// ProxyEnv makes the tigerbeetle-go driver program Build wrote start a
// real replica and serve it over tbwire, instead of driving a client:
// it prints the replica's address and the tbwire one, and stops the
// replica when its stdin ends.
const ProxyEnv = "CHOBO_TEST_TB_PROXY"

// GoTool is the Go toolchain of a checkout: the go command, which builds
// the clients with the module's packages.
type GoTool struct {
	Go string
	c  driverkit.Checkout
}

// Checkout finds the go command.
func (Kit) Checkout(c driverkit.Checkout) (driverkit.Builder, string) {
	if os.Getenv("TEST_SRCDIR") != "" {
		return nil, "under Bazel the go command and the module cache are not at hand; //examples:inventory_conformance drives a Go client there"
	}
	bin, err := exec.LookPath("go")
	if err != nil {
		return nil, "no go command to build the Go clients with"
	}
	return &GoTool{Go: bin, c: c}, ""
}

// Build compiles the clients into one driver program, which drives the
// client CaseEnv names: so a new case needs no Go or Starlark list. The
// name "" picks no client: the tigerbeetle-go program is started so as
// the replica's proxy (ProxyEnv).
func (g *GoTool) Build(tg, backend, dir string, clients []driverkit.Client) (func(string) *exec.Cmd, error) {
	main := postgresMain
	constructor := "Postgres"
	if backend == "tigerbeetle" {
		main, constructor = tigerBeetleMain, "TigerBeetleWith"
	}
	bin, err := g.program(dir, constructor, clients, main)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, c := range clients {
		known[c.Name] = true
	}
	return func(name string) *exec.Cmd {
		if !known[name] && name != "" {
			return nil
		}
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), CaseEnv+"="+name)
		return cmd
	}, nil
}

func postgresMain(imports, entries string) string {
	return fmt.Sprintf(`// The driver of every case's Go client, picked by $%s.
package main

import (
	"fmt"
	"os"

	"github.com/chobo-lang/chobo/lang/go/driver"
%s)

var clients = map[string]any{
%s}

func main() {
	client, ok := clients[os.Getenv(%q)]
	if !ok {
		fmt.Fprintf(os.Stderr, "no Go client for the case %%q\n", os.Getenv(%q))
		os.Exit(2)
	}
	driver.Main(client)
}
`, CaseEnv, imports, entries, CaseEnv, CaseEnv)
}

// tigerBeetleMain is the driver of the tigerbeetle-go clients. It links
// the official client (with cgo) to reach a real replica, and doubles as
// the proxy that starts one.
func tigerBeetleMain(imports, entries string) string {
	return fmt.Sprintf(`// The driver of every case's tigerbeetle-go client, picked by $%[1]s;
// with $%[2]s set, a proxy that starts a real replica and serves it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbwire"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
	"github.com/chobo-lang/chobo/lang/go/driver"
%[3]s)

var clients = map[string]any{
%[4]s}

// dial reaches the model over tbwire ("wire:host:port") or a cluster
// through the official client ("host:port", or its replicas' addresses
// joined by commas).
func dial(addr string) (chobotb.Client, func(), error) {
	if a, ok := strings.CutPrefix(addr, "wire:"); ok {
		c, err := tbwire.Dial(a)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}
	c, err := tbgo.Dial(chobotb.U128{}, strings.Split(addr, ",")...)
	if err != nil {
		return nil, nil, err
	}
	return c, c.Close, nil
}

// proxy starts a replica, prints its address and the tbwire address that
// reads it, and stops it when stdin ends.
func proxy() {
	srv, err := tbtest.Launch(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	addr, stop, err := tbwire.Listen(srv.Client)
	if err != nil {
		srv.Stop()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(srv.Address, addr)
	io.Copy(io.Discard, os.Stdin)
	stop()
	if err := srv.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func main() {
	if os.Getenv(%[2]q) != "" {
		proxy()
		return
	}
	client, ok := clients[os.Getenv(%[1]q)]
	if !ok {
		fmt.Fprintf(os.Stderr, "no tigerbeetle-go client for the case %%q\n", os.Getenv(%[1]q))
		os.Exit(2)
	}
	driver.MainTigerBeetle(client, dial)
}
`, CaseEnv, ProxyEnv, imports, entries)
}

// program writes each client as a package of a folder in the checkout's
// scratch folder (removed afterwards) and a main package that main writes
// from the import lines and the map entries (name: package.constructor),
// builds the program into dir, and runs go vet on the clients and the
// program. It returns the program.
func (g *GoTool) program(dir, constructor string, clients []driverkit.Client, main func(imports, entries string) string) (bin string, err error) {
	src, err := os.MkdirTemp(g.c.Scratch, "_drivers-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	var imports, entries bytes.Buffer
	for i, c := range clients {
		pkg := fmt.Sprintf("c%d", i)
		if err := os.MkdirAll(filepath.Join(src, pkg), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(src, pkg, "book.go"), c.Data, 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(&imports, "\t%s \"%s/%s/%s\"\n", pkg, g.c.ScratchImport, filepath.Base(src), pkg)
		fmt.Fprintf(&entries, "\t%q: %s.%s,\n", c.Name, pkg, constructor)
	}
	text, err := format.Source([]byte(main(imports.String(), entries.String())))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), text, 0o644); err != nil {
		return "", err
	}
	bin = filepath.Join(dir, "driver")
	cmd := exec.Command(g.Go, "build", "-o", bin, "./"+filepath.Base(src))
	cmd.Dir = g.c.Scratch
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the driver of the %s clients: %v\n%s", constructor, err, out)
	}
	// Users run go vet on code that includes the generated clients: what
	// vet reports there would be reported against their build.
	// The packages are named one by one: ./... skips a folder whose name
	// starts with "_".
	pkgs := []string{"./" + filepath.Base(src)}
	for i := range clients {
		pkgs = append(pkgs, fmt.Sprintf("./%s/c%d", filepath.Base(src), i))
	}
	vet := exec.Command(g.Go, append([]string{"vet"}, pkgs...)...)
	vet.Dir = g.c.Scratch
	if out, err := vet.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go vet on the %s clients: %v\n%s", constructor, err, out)
	}
	return bin, nil
}
