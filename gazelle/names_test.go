package gazelle

import (
	"bytes"
	"io"
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
		if got := bookName(tc.file, declaredName(strings.NewReader(tc.source))); got != tc.want {
			t.Errorf("bookName(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

// TestBookLang: the book's own name decides, and .ja.book still does.
func TestBookLang(t *testing.T) {
	for _, tc := range []struct{ file, declared, want string }{
		{"stock.book", "stock", "en"},
		{"inventory.ja.book", "在庫管理", "ja"},
		// A Japanese book with an ASCII file name, as README.ja.md advises.
		{"zaiko.book", "在庫管理", "ja"},
		{"points.book", "ポイント", "ja"},
		{"hold.book", "ｶﾞｲﾄﾞ", "ja"},
		{"refunds.book", "へんきん", "ja"},
		// A Japanese file name does not make an English book Japanese.
		{"注文.book", "orders", "en"},
		{"在庫.book", "在庫", "ja"},
		// .ja.book holds with a name in ASCII, or none readable.
		{"stock.ja.book", "stock", "ja"},
		{"stock.ja.book", "", "ja"},
		{"ja.book", "", "en"},
		{"stock.JA.book", "stock", "en"},
		// Latin letters beyond ASCII are not Japanese.
		{"cafe.book", "café", "en"},
	} {
		if got := bookLang(tc.file, tc.declared); got != tc.want {
			t.Errorf("bookLang(%q, %q) = %q, want %q", tc.file, tc.declared, got, tc.want)
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
		if got := declaredName(strings.NewReader(tc.source)); got != tc.want {
			t.Errorf("declaredName(%q) = %q, want %q", tc.source, got, tc.want)
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
// logs: a book whose file name is not ASCII is told how to rename it, and
// the files named after it with it, to a name a reader can tell; an ASCII
// one is not mentioned.
func TestRenameWarning(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // parts of the log, in order; none: the log is empty
		not   []string // what the log must not hold
	}{
		{name: "ascii", files: map[string]string{"stock.book": "book stock v1\n", "inventory.ja.book": "book 在庫管理 v1\n"}},
		{name: "japanese, declared ascii",
			files: map[string]string{"注文.book": "book orders v1\n", "注文.more.json": "[]", "注文.deployed.api.json": "{}"},
			want: []string{"注文.book: chobo: Bazel 7 cannot take a file name that is not ASCII",
				"rename it after the name on its book line: mv 注文.book orders.book && mv 注文.deployed.api.json orders.deployed.api.json && mv 注文.more.json orders.more.json (its targets keep their names: orders, orders_sql, ...)"}},
		// The name to offer is in nobody's words: the message says what
		// to write and what it makes, and offers no hash as a file name.
		{name: "japanese, declared japanese",
			files: map[string]string{"在庫.book": "# 棚の在庫\nbook 在庫 v1\n", "在庫.scenarios.json": "[]"},
			want: []string{"在庫.book: chobo:", "`missing input file`",
				"; give it a name of ASCII letters, digits and _ (在庫 in romaji, for one): mv 在庫.book NAME.book && mv 在庫.scenarios.json NAME.scenarios.json, with that name for NAME. " +
					"Its targets are then called NAME, NAME_sql, ... instead of book_ee34caad, book_ee34caad_sql, ...; " +
					"the SQL, the clients and the pages keep the names they take from the book line\n"},
			not: []string{"book_ee34caad.book"}},
		{name: "japanese, no book line", files: map[string]string{"在庫.book": "unit pcs\n"},
			want: []string{"give it a name of ASCII letters, digits and _: mv 在庫.book NAME.book, with that name for NAME."},
			not:  []string{"romaji"}},
		// The name on the book line is another book's file already.
		{name: "japanese, declared name taken", files: map[string]string{"注文.book": "book orders v1\n", "orders.book": "book orders v1\n"},
			want: []string{"give it a name of ASCII letters, digits and _ (orders.book, after its book line, is another file's): mv 注文.book NAME.book",
				"orders.book and 注文.book both make targets named orders"},
			not: []string{"mv 注文.book orders.book", "instead of"}},
		{name: "a space in the file name", files: map[string]string{"在 庫.book": "book 在庫 v1\n"},
			want: []string{"mv '在 庫.book' NAME.book,"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logged bytes.Buffer
			log.SetOutput(&logged)
			flags := log.Flags()
			log.SetFlags(0)
			defer func() { log.SetOutput(os.Stderr); log.SetFlags(flags) }()
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
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("the log holds %q:\n%s", n, got)
				}
			}
		})
	}
}

// TestDeclaredNameReadsTheHeadOnly: Gazelle reads a book no further than
// its book line, however long the book.
func TestDeclaredNameReadsTheHeadOnly(t *testing.T) {
	r := &headOnly{t: t, head: "# 在庫\n\nbook 在庫管理 v1\n"}
	if got := declaredName(r); got != "在庫管理" {
		t.Errorf("declaredName = %q, want 在庫管理", got)
	}
}

// headOnly gives its head on the first read and fails the test on any
// read after that.
type headOnly struct {
	t    *testing.T
	head string
	done bool
}

func (h *headOnly) Read(p []byte) (int, error) {
	if h.done {
		h.t.Error("read past the book line")
		return 0, io.EOF
	}
	h.done = true
	return copy(p, h.head), nil
}
