package tests

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/chobo/target"
)

// The Go row of clientLanguages: the clients of one target (each case's
// expected postgres-go client, or the tigerbeetle-go client of each book's
// test copy) are compiled here, at test time, into one driver program
// (runtime/go/driver) that drives the client a variable names: so a new
// case needs no Go or Starlark list, only its folder.

// driverEnv names the case whose client the driver program drives.
const driverEnv = "CHOBO_TEST_DRIVER"

// proxyEnv makes the tigerbeetle-go driver program start a replica and
// serve it over tbwire instead of driving a client (see startProxy).
const proxyEnv = "CHOBO_TEST_TB_PROXY"

func TestMain(m *testing.M) {
	code := m.Run()
	removeDrivers()
	os.Exit(code)
}

// buildGoDrivers writes the driver program of the clients of tg and
// builds it into dir.
func buildGoDrivers(tg target.Target, dir string, clients []caseClient) (func(string) *exec.Cmd, error) {
	main := postgresMain
	constructor := "Postgres"
	if tg.Backend == "tigerbeetle" {
		main, constructor = tigerBeetleMain, "TigerBeetleWith"
	}
	bin, err := buildDriverProgram(goTool, dir, constructor, clients, main)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, c := range clients {
		known[c.caseName] = true
	}
	// "" picks no client: the tigerbeetle-go program is started so as
	// the replica's proxy.
	return func(caseName string) *exec.Cmd {
		if !known[caseName] && caseName != "" {
			return nil
		}
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), driverEnv+"="+caseName)
		return cmd
	}, nil
}

func postgresMain(imports, entries string) string {
	return fmt.Sprintf(`// The driver of every case's Go client, picked by $%s.
package main

import (
	"fmt"
	"os"

	"github.com/chobo-lang/chobo/runtime/go/driver"
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
`, driverEnv, imports, entries, driverEnv, driverEnv)
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
	"github.com/chobo-lang/chobo/runtime/go/driver"
%[3]s)

var clients = map[string]any{
%[4]s}

// dial reaches the model over tbwire ("wire:host:port") or a replica
// through the official client ("host:port").
func dial(addr string) (chobotb.Client, func(), error) {
	if a, ok := strings.CutPrefix(addr, "wire:"); ok {
		c, err := tbwire.Dial(a)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}
	c, err := tbgo.Dial(chobotb.U128{}, addr)
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
`, driverEnv, proxyEnv, imports, entries)
}

// buildDriverProgram writes each client as a package of a folder under
// tests/ (removed afterwards) and a main package that main writes from
// the import lines and the map entries (case name: package.constructor),
// builds the program into dir, and runs go vet on the clients and the
// program. It returns the program.
func buildDriverProgram(goBin, dir, constructor string, clients []caseClient, main func(imports, entries string) string) (bin string, err error) {
	src, err := os.MkdirTemp(".", "_drivers-")
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
		if err := os.WriteFile(filepath.Join(src, pkg, "book.go"), c.file.Data, 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(&imports, "\t%s \"github.com/chobo-lang/chobo/tests/%s/%s\"\n", pkg, filepath.Base(src), pkg)
		fmt.Fprintf(&entries, "\t%q: %s.%s,\n", c.caseName, pkg, constructor)
	}
	text, err := format.Source([]byte(main(imports.String(), entries.String())))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), text, 0o644); err != nil {
		return "", err
	}
	bin = filepath.Join(dir, "driver")
	cmd := exec.Command(goBin, "build", "-o", bin, "./"+filepath.Base(src))
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
	vet := exec.Command(goBin, append([]string{"vet"}, pkgs...)...)
	if out, err := vet.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go vet on the %s clients: %v\n%s", constructor, err, out)
	}
	return bin, nil
}

func TestClientOfAnotherRuntimeDoesNotBuild(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command is not at hand")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: no go command")
	}
	c := caseByName(t, "inventory")
	data, err := os.ReadFile(c.expected(filepath.Join("postgres-go", "inventory", "book.go")))
	if err != nil {
		t.Fatal(err)
	}
	const now, other = "chobo.SupportPackageIsVersion1", "chobo.SupportPackageIsVersion999"
	if !bytes.Contains(data, []byte(now)) {
		t.Fatalf("the client does not name %s", now)
	}
	src, err := os.MkdirTemp(".", "_drivers-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(src)
	if err := os.WriteFile(filepath.Join(src, "book.go"), bytes.ReplaceAll(data, []byte(now), []byte(other)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goBin, "build", "./"+filepath.Base(src)).CombinedOutput()
	if err == nil {
		t.Fatal("a client for another runtime version builds")
	}
	if !bytes.Contains(out, []byte("undefined: "+other)) {
		t.Errorf("the build does not say which runtime version the client wants:\n%s", out)
	}
}
