package gazelle

import "testing"

func TestModuleOf(t *testing.T) {
	for _, tc := range []struct{ out, book, want string }{
		{"", "stock.book", "stock"},
		{"", "stock.v2.book", "stock"},
		{"", "在庫.book", "在庫"},
		{"b_tb.py", "stock.book", "b_tb"},
		{"b-tb.py", "stock.book", ""},  // no identifier
		{"sub/b.py", "stock.book", ""}, // not on the library's path
		{"", "class.book", ""},         // a keyword
		{"", "stock.txt", ""},          // no book
		{"", "", ""},                   // the book is elsewhere
		{"", "2stock.book", ""},        // no identifier
	} {
		if got := ModuleOf(tc.out, tc.book); got != tc.want {
			t.Errorf("ModuleOf(%q, %q) = %q, want %q", tc.out, tc.book, got, tc.want)
		}
	}
}
