package tests

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The Go clients under test are the cases' expected clients
// (expected/postgres-go/<package>/book.go). They are compiled here, at
// test time, into one driver program (runtime/go/driver) that
// drives the client a variable names: so a new case needs no Go or
// Starlark list, only its folder.

// driverEnv names the case whose client the driver program drives.
const driverEnv = "CHOBO_TEST_DRIVER"

var skipOnce sync.Once

var drivers struct {
	once sync.Once
	dir  string // holds the program; removed when the tests end
	path string // the built program, or "" when it cannot be built here
	skip string // why not
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{drivers.dir, tbDrivers.dir, tsBuilt.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// goDriver builds the driver program once per test binary and returns
// its path. The go command builds it from a folder inside this module
// (its name starts with "_", so `go ./...` and Gazelle pass it by),
// which is removed again at once.
func goDriver(t *testing.T) string {
	t.Helper()
	drivers.once.Do(func() {
		if os.Getenv("TEST_SRCDIR") != "" {
			drivers.skip = "under Bazel the go command and the module cache are not at hand; //examples:inventory_conformance drives a Go client there"
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			drivers.skip = "no go command to build the Go clients with"
			return
		}
		drivers.path, drivers.err = buildDrivers(t, goBin)
	})
	if drivers.skip != "" {
		// Printed, not only logged, so that the skip shows in a test log
		// written without -test.v (Bazel's).
		skipOnce.Do(func() { fmt.Println("SKIP: " + drivers.skip) })
	}
	if drivers.skip != "" {
		if os.Getenv("CI") == "true" && os.Getenv("TEST_SRCDIR") == "" {
			t.Fatalf("the Go clients cannot be built: %s", drivers.skip)
		}
		t.Skip("SKIP: " + drivers.skip)
	}
	if drivers.err != nil {
		t.Fatal(drivers.err)
	}
	return drivers.path
}

// buildDrivers writes the driver program with every case's expected Go
// client and builds it into a temporary directory.
func buildDrivers(t *testing.T, goBin string) (string, error) {
	var clients []driverClient
	for _, c := range cases(t) {
		found, _ := filepath.Glob(c.expected(filepath.Join("postgres-go", "*", "book.go")))
		if len(found) != 1 {
			continue // no client: the book has errors or cannot go to PostgreSQL
		}
		data, err := os.ReadFile(found[0])
		if err != nil {
			return "", err
		}
		clients = append(clients, driverClient{c.Name, data})
	}
	bin, dir, err := buildDriverProgram(goBin, "chobo-drivers-", "Postgres", clients, func(imports, entries string) string {
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
	})
	drivers.dir = dir
	return bin, err
}

// driverClient is the generated book.go of one case's client.
type driverClient struct {
	caseName string
	src      []byte
}

// buildDriverProgram writes each client as a package of a folder under
// tests/ (removed afterwards) and a main package that main writes from
// the import lines and the map entries (case name: package.constructor),
// builds the program into a new temporary directory whose name starts
// with prefix, and runs go vet on the clients and the program. It returns the program and that directory, which the
// caller removes.
func buildDriverProgram(goBin, prefix, constructor string, clients []driverClient, main func(imports, entries string) string) (bin, dir string, err error) {
	src, err := os.MkdirTemp(".", "_drivers-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(src)
	var imports, entries bytes.Buffer
	for i, c := range clients {
		pkg := fmt.Sprintf("c%d", i)
		if err := os.MkdirAll(filepath.Join(src, pkg), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(filepath.Join(src, pkg, "book.go"), c.src, 0o644); err != nil {
			return "", "", err
		}
		fmt.Fprintf(&imports, "\t%s \"github.com/chobo-lang/chobo/tests/%s/%s\"\n", pkg, filepath.Base(src), pkg)
		fmt.Fprintf(&entries, "\t%q: %s.%s,\n", c.caseName, pkg, constructor)
	}
	text, err := format.Source([]byte(main(imports.String(), entries.String())))
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), text, 0o644); err != nil {
		return "", "", err
	}
	if dir, err = os.MkdirTemp("", prefix); err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "driver")
	cmd := exec.Command(goBin, "build", "-o", bin, "./"+filepath.Base(src))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", dir, fmt.Errorf("building the driver of the %s clients: %v\n%s", constructor, err, out)
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
		return "", dir, fmt.Errorf("go vet on the %s clients: %v\n%s", constructor, err, out)
	}
	return bin, dir, nil
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
