package gazelle

import (
	"testing"

	bzl "github.com/bazelbuild/buildtools/build"
)

func TestBookName(t *testing.T) {
	for _, tc := range []struct{ file, source, want string }{
		{"stock.book", "", "stock"},
		{"inventory.ja.book", "book 在庫管理 v1", "inventory_ja"},
		{"my-ledger.book", "", "my_ledger"},
		{"Stock.book", "", "Stock"},
		{"2024.book", "", "book_2024"},
		// A Japanese file name: the declared name when it is ASCII...
		{"注文.book", "# orders\n\nbook orders v1\n", "orders"},
		// ... else a hash of the stem, the same on every machine.
		{"在庫.book", "book 在庫 v1\n", "book_ee34caad"},
		{"在庫.book", "", "book_ee34caad"},
		{"在庫2.book", "book 在庫 v1\n", "book_0023c9ac"},
	} {
		if got := bookName(tc.file, []byte(tc.source)); got != tc.want {
			t.Errorf("bookName(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

func TestBookLang(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"stock.book", "en"},
		{"inventory.ja.book", "ja"},
		{"ja.book", "en"},
		{"在庫.book", "en"},
		{"stock.JA.book", "en"},
	} {
		if got := bookLang(tc.file); got != tc.want {
			t.Errorf("bookLang(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

func TestDeclaredName(t *testing.T) {
	for _, tc := range []struct{ source, want string }{
		{"book stock v1\n", "stock"},
		{"# comment\n  \nbook stock v2\nunit pcs\n", "stock"},
		{"unit pcs\nbook stock v1\n", ""},
		{"", ""},
		{"book\n", ""},
	} {
		if got := declaredName([]byte(tc.source)); got != tc.want {
			t.Errorf("declaredName(%q) = %q, want %q", tc.source, got, tc.want)
		}
	}
}

func TestGoPackage(t *testing.T) {
	for _, tc := range []struct{ importPath, want string }{
		{"example.com/warehouse/ledger/stock", "stock"},
		{"example.com/warehouse/ledger/stocktb", "stocktb"},
		{"example.com/x/Inventory-JA/", "inventory_ja"},
		{"stock", "stock"},
	} {
		if got := goPackage(tc.importPath); got != tc.want {
			t.Errorf("goPackage(%q) = %q, want %q", tc.importPath, got, tc.want)
		}
	}
}

func TestStr(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"stock.book", `"stock.book"`},
		{"在庫.book", `"在庫.book"`},
		{`在"庫`, `"\345\234\250\"\345\272\253"`},
	} {
		if got := bzl.FormatString(str(tc.value)); got != tc.want {
			t.Errorf("str(%q) prints %s, want %s", tc.value, got, tc.want)
		}
	}
}
