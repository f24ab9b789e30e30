package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/tests/golden"
)

// The PostgreSQL-only tests call two books through their typed Go
// clients, and the TigerBeetle tests one through its tigerbeetle-go
// client, compiled in from tests/clients. Those copies must be the
// clients the cases expect, so that they test what chobo writes; the
// cases' goldens are checked first (TestCases), then these against them.
func TestCompiledClientsAreTheCases(t *testing.T) {
	// pkg is the client's package, the folder it is written in.
	for _, c := range []struct{ name, target, pkg, dir string }{
		{"stock_reservation", "postgres-go", "stock_reservation", "stock_reservation"},
		{"to_itself", "postgres-go", "to_itself", "to_itself"},
		{"stock_reservation", "tigerbeetle-go", "stock_reservation", "stock_reservation_tb"},
		{"history", "postgres-go", "card", "card"},
	} {
		want, err := os.ReadFile(caseByName(t, c.name).expected(filepath.Join(c.target, c.pkg, "book.go")))
		if err != nil {
			t.Fatal(err)
		}
		// CHOBO_BLESS=1 copies the case's client here.
		golden.Check(t, filepath.Join("clients", c.dir, "book.go"), want)
	}
}

// A Go client names the version of the runtime it is written for, so
// that one built against another runtime fails to build, saying which.
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
