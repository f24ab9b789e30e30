package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/godriver"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/tests/golden"

	allocation "github.com/chobo-lang/chobo/tests/clients/allocation"
	allocation_ja "github.com/chobo-lang/chobo/tests/clients/allocation_ja"
	credit "github.com/chobo-lang/chobo/tests/clients/credit"
	credit_ja "github.com/chobo-lang/chobo/tests/clients/credit_ja"
	inventory "github.com/chobo-lang/chobo/tests/clients/inventory"
	inventory_ja "github.com/chobo-lang/chobo/tests/clients/inventory_ja"
	safety_stock "github.com/chobo-lang/chobo/tests/clients/safety_stock"
	safety_stock_ja "github.com/chobo-lang/chobo/tests/clients/safety_stock_ja"
	stock_reservation "github.com/chobo-lang/chobo/tests/clients/stock_reservation"
	stock_reservation_ja "github.com/chobo-lang/chobo/tests/clients/stock_reservation_ja"
	to_itself "github.com/chobo-lang/chobo/tests/clients/to_itself"
	to_itself_ja "github.com/chobo-lang/chobo/tests/clients/to_itself_ja"
	wallet "github.com/chobo-lang/chobo/tests/clients/wallet"
	wallet_ja "github.com/chobo-lang/chobo/tests/clients/wallet_ja"
)

// goClients are the generated postgres-go packages of the conformance
// books, compiled into the tests, by directory under tests/clients.
var goClients = map[string]any{
	"allocation": allocation.Postgres, "allocation_ja": allocation_ja.Postgres,
	"credit": credit.Postgres, "credit_ja": credit_ja.Postgres,
	"inventory": inventory.Postgres, "inventory_ja": inventory_ja.Postgres,
	"safety_stock": safety_stock.Postgres, "safety_stock_ja": safety_stock_ja.Postgres,
	"stock_reservation": stock_reservation.Postgres, "stock_reservation_ja": stock_reservation_ja.Postgres,
	"to_itself": to_itself.Postgres, "to_itself_ja": to_itself_ja.Postgres,
	"wallet": wallet.Postgres, "wallet_ja": wallet_ja.Postgres,
}

// driverEnv, set to a directory under tests/clients, makes this test
// binary the driver of that Go client (conformance/godriver) instead of a
// test run: the conformance test starts it so, to drive each client as a
// process, under go test and Bazel alike.
const driverEnv = "CHOBO_TEST_DRIVER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(driverEnv); dir != "" {
		client := goClients[dir]
		if client == nil {
			fmt.Fprintf(os.Stderr, "%s=%s: no such Go client compiled in\n", driverEnv, dir)
			os.Exit(2)
		}
		godriver.Main(client) // exits
	}
	os.Exit(m.Run())
}

// clientDir is the directory under tests/clients of a book's Go client:
// Go import paths are ASCII, so a Japanese book takes its English twin's
// name with _ja.
func clientDir(t *testing.T, path string) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".book")
	if isASCII(stem) {
		return strings.ReplaceAll(stem, ".", "_")
	}
	for _, tw := range bookTwins {
		if tw.japanese == stem {
			return tw.english + "_ja"
		}
	}
	t.Fatalf("no client directory for %s", path)
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestGoClientsUpToDate regenerates every client under tests/clients and
// compares: the committed packages are goldens of the postgres-go target,
// and the ones the conformance test runs.
func TestGoClientsUpToDate(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range conformanceBooks(t) {
		dir := clientDir(t, path)
		seen[dir] = true
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res := check.Check(filepath.Base(path), src)
		files, ds := mustTarget(t, "postgres-go").Build(res.Book, gen.NewSource(filepath.Base(path), src), gen.Options{})
		if len(ds) > 0 {
			t.Fatalf("%s: %+v", path, ds)
		}
		for _, f := range files {
			golden.Check(t, filepath.Join("clients", dir, filepath.Base(f.Path)), f.Data)
		}
		if goClients[dir] == nil {
			t.Errorf("goClients lacks %s", dir)
		}
	}
	for dir := range goClients {
		if !seen[dir] {
			t.Errorf("goClients has %s, which no book makes", dir)
		}
	}
}

// TestSQLGoldens keeps the SQL of every conformance book: what the
// postgres target writes, byte for byte.
func TestSQLGoldens(t *testing.T) {
	for _, path := range conformanceBooks(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res := check.Check(filepath.Base(path), src)
		files, ds := mustTarget(t, "postgres").Build(res.Book, gen.NewSource(filepath.Base(path), src), gen.Options{})
		if len(ds) > 0 {
			t.Fatalf("%s: %+v", path, ds)
		}
		golden.Check(t, filepath.Join("sql", clientDir(t, path)+".sql"), files[0].Data)
	}
}

// mustTarget looks a target up in the registry.
func mustTarget(t *testing.T, name string) target.Target {
	t.Helper()
	tg, ok := target.Lookup(name)
	if !ok {
		t.Fatalf("no target %s", name)
	}
	return tg
}
