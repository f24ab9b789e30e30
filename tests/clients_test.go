package tests

import (
	"os"
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
