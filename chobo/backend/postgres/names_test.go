package postgres

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
)

// nameBook is a book whose pending transfer is named tr, account acc and
// a parameter of both p.
func nameBook(tr, acc, p string) string {
	return fmt.Sprintf(`book 帳簿 v1
unit 個
account %[2]s(%[3]s: string) : 個
  at least 0 refused as 在庫切れ
account 客 : 個 outside
transfer %[1]s(%[3]s: string, 数: 個)
  key %[3]s
  pending never expires
  move 数 from %[2]s(%[3]s) to 客
`, tr, acc, p)
}

func e061(t *testing.T, src string) diag.List {
	t.Helper()
	res := check.Check("t.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	return Check(res.Book)
}

// The hint of E061 names whose name to shorten (the transfer's, not the
// book's, for a function of a transfer) and gives the room the book's own name has once chobo's
// prefix or suffix is added, and a name of exactly that length fits:
// `_status` leaves 56 bytes (18 Japanese characters), `balance_` 55 (18),
// `p_` 61 (20).
func TestNameLengthHint(t *testing.T) {
	j := func(n int) string { return strings.Repeat("字", n) }
	if ds := e061(t, nameBook(j(18), j(18), j(20))); len(ds) != 0 {
		t.Fatalf("names that fit: %v", ds)
	}
	ds := e061(t, nameBook(j(19), j(19), j(21)))
	want := map[string][2]string{
		// the longest function of the transfer is the one named
		"`" + j(19) + "_status` is 64 bytes": {
			"`_status` goes after `" + j(19) + "`, which leaves it 56 of the 63 bytes: shorten the transfer's name to 56 bytes (56 ASCII characters, or 18 Japanese characters of 3 bytes each)",
			"`" + j(19) + "` の後に `_status` が付くので、63 バイトのうち残りは 56 バイトです。振替の名前を 56 バイト以内(英数字なら 56 字、一字 3 バイトの日本語なら 18 字)に縮めてください"},
		"`balance_" + j(19) + "` is 65 bytes": {
			"`balance_` goes in front of `" + j(19) + "`, which leaves it 55 of the 63 bytes: shorten the account's name to 55 bytes (55 ASCII characters, or 18 Japanese characters of 3 bytes each)",
			"`" + j(19) + "` の前に `balance_` が付くので、63 バイトのうち残りは 55 バイトです。勘定の名前を 55 バイト以内(英数字なら 55 字、一字 3 バイトの日本語なら 18 字)に縮めてください"},
		"`p_" + j(21) + "` is 65 bytes": {
			"`p_` goes in front of `" + j(21) + "`, which leaves it 61 of the 63 bytes: shorten the parameter's name to 61 bytes (61 ASCII characters, or 20 Japanese characters of 3 bytes each)",
			"`" + j(21) + "` の前に `p_` が付くので、63 バイトのうち残りは 61 バイトです。引数の名前を 61 バイト以内(英数字なら 61 字、一字 3 バイトの日本語なら 20 字)に縮めてください"},
	}
	found := 0
	for _, d := range ds {
		for msg, hint := range want {
			if strings.Contains(d.Message.En, msg) {
				found++
				if d.Hint.En != hint[0] || d.Hint.Ja != hint[1] {
					t.Errorf("%s: hint\n%s\n%s\nwant\n%s\n%s", msg, d.Hint.En, d.Hint.Ja, hint[0], hint[1])
				}
			}
		}
	}
	// The parameter is declared twice (transfer and account): two of it.
	if found != 4 || len(ds) != 4 {
		t.Errorf("found %d of the diagnostics wanted, of %d:\n%v", found, len(ds), ds)
	}
	// The schema has no prefix or suffix: all 63 bytes are the book's.
	ds = e061(t, strings.Replace(nameBook("a", "b", "c"), "帳簿", j(22), 1))
	if len(ds) != 1 || ds[0].Hint.En != "shorten the book's name `"+j(22)+"` to 63 bytes (63 ASCII characters, or 21 Japanese characters of 3 bytes each)" ||
		ds[0].Hint.Ja != "帳簿の名前 `"+j(22)+"` を 63 バイト以内(英数字なら 63 字、一字 3 バイトの日本語なら 21 字)に縮めてください" {
		t.Errorf("the schema: %v", ds)
	}
}

// The call id is the last argument of every operation and of expire(),
// and of nothing else; no parameter of a book takes its name, not even
// one named call_id or tenant.
func TestCallIDParamIsLastAndItsOwn(t *testing.T) {
	res := check.Check("t.book", []byte(`book b v1
unit u
account a(call_id: string) : u
  at least 0 refused as short
account o : u outside
transfer tenant(tenant: string, call_id: string, call: u)
  key tenant, call_id
  pending expires after 1 hours
  move call from a(call_id) to o
`))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	if ds := Check(res.Book); len(ds) > 0 {
		t.Fatal(ds)
	}
	withID := map[string]bool{"tenant_hold": true, "tenant_post": true, "tenant_void": true, "expire": true}
	seen := 0
	for _, f := range Functions(res.Book) {
		names := map[string]bool{}
		for _, a := range f.Args {
			if names[a] {
				t.Errorf("%s: the argument %s twice", f.Signature, a)
			}
			names[a] = true
		}
		name := strings.Trim(f.Signature[strings.Index(f.Signature, ".")+1:strings.Index(f.Signature, "(")], `"`)
		last := f.Args[len(f.Args)-1] == CallIDParam
		if withID[name] {
			seen++
			if !last || !strings.HasSuffix(f.Signature, ", uuid)") {
				t.Errorf("%s (%v): the call id is not its last argument", f.Signature, f.Args)
			}
		} else if names[CallIDParam] {
			t.Errorf("%s takes a call id", f.Signature)
		}
	}
	if seen != len(withID) {
		t.Errorf("%d of the %d functions that take a call id found", seen, len(withID))
	}
}
