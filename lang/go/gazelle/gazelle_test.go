package gazelle

import (
	"reflect"
	"testing"
)

func TestPackage(t *testing.T) {
	for _, tc := range []struct{ importPath, want string }{
		{"example.com/warehouse/ledger/stock", "stock"},
		{"example.com/warehouse/ledger/stocktb", "stocktb"},
		{"example.com/x/Inventory-JA/", "inventory_ja"},
		{"stock", "stock"},
	} {
		if got := Package(tc.importPath); got != tc.want {
			t.Errorf("Package(%q) = %q, want %q", tc.importPath, got, tc.want)
		}
	}
}

func TestAttrs(t *testing.T) {
	for _, tc := range []struct {
		base, book, target string
		want               map[string]string
	}{
		{"example.com/ledger", "stock", "postgres-go", map[string]string{"importpath": "example.com/ledger/stock"}},
		{"example.com/ledger", "stock", "tigerbeetle-go", map[string]string{"importpath": "example.com/ledger/stocktb", "package": "stock"}},
		{"ledger", "Stock-JA", "postgres-go", map[string]string{"importpath": "ledger/Stock-JA"}},
	} {
		if got := Attrs(tc.base, tc.book, tc.target); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Attrs(%q, %q, %q) = %v, want %v", tc.base, tc.book, tc.target, got, tc.want)
		}
	}
}

func TestBuiltin(t *testing.T) {
	for _, tc := range []struct{ imp, pkg, name string }{
		{RuntimePrefix + "/chobo", "runtime/go/chobo", "chobo"},
		{RuntimePrefix + "/chobotb/tbgo", "runtime/go/chobotb/tbgo", "tbgo"},
		{"github.com/tigerbeetle/tigerbeetle-go", "runtime/go/chobotb/tbgo", "tigerbeetle-go"},
		{"github.com/tigerbeetle/tigerbeetle-go/native", "", ""},
		{"github.com/chobo-lang/chobo/chobo/book", "", ""},
	} {
		pkg, name, ok := Builtin(tc.imp)
		if pkg != tc.pkg || name != tc.name || ok != (tc.pkg != "") {
			t.Errorf("Builtin(%q) = %q, %q, %v; want %q, %q", tc.imp, pkg, name, ok, tc.pkg, tc.name)
		}
	}
}
