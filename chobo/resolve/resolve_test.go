package resolve

import (
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

func codes(t *testing.T, src string) []string {
	t.Helper()
	f, ds := syntax.Parse("t.book", []byte(src))
	if ds.Errors() > 0 {
		t.Fatalf("parse errors: %+v", ds)
	}
	_, ds = Resolve(f)
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// TestNoCascades checks that one mistake gives one diagnostic, not a
// chain of them from the same cause.
func TestNoCascades(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"bad scale keeps the unit", `book r v1
unit USD scale 20
account a : USD outside
account b : USD
  at least 0 refused as short
transfer t(id: string, amt: USD)
  key id
  move amt from a to b
`, []string{"E011"}},
		{"unknown parameter type is not a string", `book r v1
unit pcs
account a : pcs outside
account b : pcs
  at least 0 refused as short
transfer t(id: string, qty: pc)
  key id
  move qty from a to b
`, []string{"E002"}},
		{"second book line", "book a v1\nbook b v1\nunit pcs\naccount x : pcs\n", []string{"E003", "E020"}},
		{"amount unit differs from the accounts", `book r v1
unit pcs
unit kg
account a : pcs outside
account b : pcs
  at least 0 refused as short
transfer t(id: string, w: kg)
  key id
  move w from a to b
`, []string{"E010"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codes(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// diagnostics resolves src and returns what it reports.
func diagnostics(t *testing.T, src string) diag.List {
	t.Helper()
	f, ds := syntax.Parse("t.book", []byte(src))
	if ds.Errors() > 0 {
		t.Fatalf("parse errors: %+v", ds)
	}
	_, ds = Resolve(f)
	return ds
}

// messageCase holds the wording of a message and hint that say more than
// the code: the first diagnostic of src has the code and holds the words
// given, in both languages.
type messageCase struct {
	name, src, code string
	msg, hint       diag.Text
}

func checkMessages(t *testing.T, tests []messageCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := diagnostics(t, tt.src)
			if len(ds) == 0 {
				t.Fatal("no diagnostic")
			}
			d := ds[0]
			if d.Code != tt.code {
				t.Fatalf("got %s %q, want %s", d.Code, d.Message.En, tt.code)
			}
			for _, c := range []struct{ got, want string }{
				{d.Message.En, tt.msg.En}, {d.Message.Ja, tt.msg.Ja}, {d.Hint.En, tt.hint.En}, {d.Hint.Ja, tt.hint.Ja},
			} {
				if !strings.Contains(c.got, c.want) {
					t.Errorf("%q does not hold %q", c.got, c.want)
				}
			}
		})
	}
}

// TestKeyHint: the hint of an unknown key name offers the string
// parameters only, since E031 refuses an amount in the key.
func TestKeyHint(t *testing.T) {
	const stock = "book r v1\nunit 個\naccount 在庫 : 個\n  at least 0 refused as 空\naccount 客 : 個 outside\n"
	checkMessages(t, []messageCase{
		{"key candidates are strings", stock + "transfer t(注文: string, sku: string, 数: 個)\n  key 注文番号\n  move 数 from 在庫 to 客\n", "E030",
			diag.T("the key names `注文番号`", "`key` に書いた `注文番号` は"),
			diag.T("a key lists string parameters of its transfer: 注文, sku", "`key` には振替の string の引数を書きます: 注文、sku")},
		{"no string to key on", stock + "transfer t(数: 個)\n  key id\n  move 数 from 在庫 to 客\n", "E030",
			diag.T("the key names `id`", "`key` に書いた `id` は"),
			diag.T("`t` has none: add one that tells calls apart", "`t` にはありません。呼び出しを見分ける引数")},
	})
}
