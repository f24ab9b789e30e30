package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/tests/golden"
)

// The PostgreSQL-only tests call two books through their typed Go
// clients, compiled in from tests/clients. Those copies must be the
// clients the cases expect, so that they test what chobo writes; the
// cases' goldens are checked first (TestCases), then these against them.
func TestCompiledClientsAreTheCases(t *testing.T) {
	for _, name := range []string{"stock_reservation", "to_itself"} {
		want, err := os.ReadFile(caseByName(t, name).expected(filepath.Join("postgres-go", name, "book.go")))
		if err != nil {
			t.Fatal(err)
		}
		// CHOBO_BLESS=1 copies the case's client here.
		golden.Check(t, filepath.Join("clients", name, "book.go"), want)
	}
}
