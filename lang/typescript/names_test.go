package typescript

import (
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/client/model"
)

func TestPascal(t *testing.T) {
	for in, want := range map[string]string{
		"reserve": "Reserve", "take_back": "TakeBack", "引当": "引当", "_x": "X", "a__b": "AB",
		"ｓｋｕ": "ｓｋｕ", "éclair": "éclair", "sk\u0e31u": "Sk\u0e31u", "x2": "X2",
	} {
		if got := Pascal(in); got != want {
			t.Errorf("Pascal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIdentifier(t *testing.T) {
	for s, want := range map[string]bool{
		"sku": true, "引当": true, "_a": true, "$a": true, "a1": true, "1a": false, "": false,
		"a b": false, "a-b": false, "กั": true, "\u0e31a": false, "a\u2e2f": false,
	} {
		if got := Identifier(s); got != want {
			t.Errorf("Identifier(%q) = %v, want %v", s, got, want)
		}
	}
	if Property("sku") != "sku" || Property("a b") != `"a b"` {
		t.Error("Property")
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`: `"plain"`, `"q"`: `"\"q\""`, `a\b`: `"a\\b"`, "l\nf": `"l\nf"`,
		"\u2028\x7f\x01": `"\u2028\u007f\u0001"`, "在庫": `"在庫"`, "\xff": `"\ufffd"`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNamingAvoidsTheBooksOwnMembers(t *testing.T) {
	m := &model.Model{
		Transfers: []*model.Transfer{
			{Name: "balance"}, {Name: "expire", Pending: true, Amounts: []model.Param{{Name: "q", Amount: true}}},
			{Name: "__proto__"}, {Name: "take_back"}, {Name: "takeBack"},
			{Name: "statement"}, {Name: "balanceAt"}, {Name: "openHolds"}, {Name: "entries"},
		},
		Accounts: []*model.Account{{Name: "__proto__"}, {Name: "stock", Params: []model.Param{{Name: "sku"}}}},
	}
	n := Naming(m, []string{"ResultOf", "Balance", "Statement"})
	for name, want := range map[string]TransferNames{
		"balance":   {Member: "balance_2", Args: "BalanceArgs", Key: "BalanceKey"},
		"expire":    {Member: "expire_2", Args: "ExpireArgs", Key: "ExpireKey", Amounts: "ExpireAmounts"},
		"__proto__": {Member: "__proto___2", Args: "ProtoArgs", Key: "ProtoKey"},
		"take_back": {Member: "take_back", Args: "TakeBackArgs", Key: "TakeBackKey"},
		"takeBack":  {Member: "takeBack", Args: "TakeBackArgs_2", Key: "TakeBackKey_2"},
		// The history readers are the book value's too; entries is a
		// method of a transfer's member only, so no member takes it.
		"statement": {Member: "statement_2", Args: "StatementArgs", Key: "StatementKey"},
		"balanceAt": {Member: "balanceAt_2", Args: "BalanceAtArgs", Key: "BalanceAtKey"},
		"openHolds": {Member: "openHolds_2", Args: "OpenHoldsArgs", Key: "OpenHoldsKey"},
		"entries":   {Member: "entries", Args: "EntriesArgs", Key: "EntriesKey"},
	} {
		if got := n.Transfers[name]; got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if got := n.Accounts["__proto__"]; got != (AccountNames{Member: "__proto___2"}) {
		t.Errorf("__proto__ account: %+v", got)
	}
	if got := n.Accounts["stock"]; got != (AccountNames{Member: "stock", Type: "StockAccount"}) {
		t.Errorf("stock: %+v", got)
	}
}

func TestRuntimeLosesOnlyItsImports(t *testing.T) {
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		files, imports, types, err := runtimeOf(backend)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if importLine.MatchString(f.Body + "\n") {
				t.Errorf("%s: %s keeps an import", backend, f.Name)
			}
		}
		// Each name comes in once: two runtime files importing one name
		// would declare it twice in the one file a client is.
		imported := map[string]bool{}
		for _, im := range imports {
			if !importLine.MatchString(im+"\n") || importLine.FindStringSubmatch(im + "\n")[1] != "node:crypto" {
				t.Errorf("%s: the import %q is not of node:crypto", backend, im)
			}
			names := im[strings.Index(im, "{")+1 : strings.Index(im, "}")]
			for _, n := range strings.Split(names, ",") {
				if n = strings.TrimSpace(n); imported[n] {
					t.Errorf("%s: %s is imported twice", backend, n)
				}
				imported[strings.TrimSpace(n)] = true
			}
		}
		found := map[string]bool{}
		for _, ty := range types {
			found[ty] = true
		}
		if !found["ResultOf"] || !found["ChoboError"] || !found["Balance"] {
			t.Errorf("%s: the runtime's types %v lack ResultOf, ChoboError or Balance", backend, types)
		}
	}
	if _, _, _, err := runtimeOf("none"); err == nil {
		t.Error("a runtime for no backend")
	}
}
