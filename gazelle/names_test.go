package gazelle

import (
	"bytes"
	"log"
	"os"
	"strings"
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

// TestRenameWarning runs Gazelle over folders of books and reads what it
// logs: a book whose file name is not ASCII is told the name to rename it
// to, which is its target name, and an ASCII one is not mentioned.
func TestRenameWarning(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // parts of the log, in order; none: the log is empty
	}{
		{"ascii", map[string]string{"stock.book": "book stock v1\n", "inventory.ja.book": "book 在庫管理 v1\n"}, nil},
		{"japanese, declared ascii", map[string]string{"注文.book": "book orders v1\n"},
			[]string{"注文.book: chobo: Bazel 7 cannot take a file name that is not ASCII", "rename the file to orders.book"}},
		{"japanese, declared japanese", map[string]string{"在庫.book": "book 在庫 v1\n"},
			[]string{"在庫.book: chobo:", "`missing input file`", "rename the file to book_ee34caad.book"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logged bytes.Buffer
			log.SetOutput(&logged)
			defer log.SetOutput(os.Stderr)
			res := generate(t, tc.files, "")
			if len(res.Gen) == 0 {
				t.Fatal("no rules")
			}
			got := logged.String()
			if len(tc.want) == 0 && got != "" {
				t.Errorf("logged %q, want nothing", got)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the log lacks %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
