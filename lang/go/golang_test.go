package golang

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// TestRuntimeVersion keeps the version generated code asks for equal to
// the runtime's in this module.
func TestRuntimeVersion(t *testing.T) {
	if RuntimeVersion != chobo.Version {
		t.Errorf("clients ask for runtime version %d; the runtime is version %d", RuntimeVersion, chobo.Version)
	}
}

const zaiko = `book 在庫 v1
unit 個
account 棚(sku: string) : 個
  at least 0 refused as 在庫切れ
account 客 : 個 outside
transfer 引当(注文: string, sku: string, 数: 個)
  key 注文
  pending never expires
  move 数 from 棚(sku) to 客
transfer balance(note: string, sku: string)
  key note
  move 1 from 客 to 棚(sku)
`

func TestGenerate(t *testing.T) {
	res := check.Check("zaiko.book", []byte(zaiko))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Generate(m, PackageName(res.Book), []string{"header line"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "book.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name.Name != "book" {
		t.Errorf("package %s, want book (the book's name is not ASCII)", f.Name.Name)
	}
	text := string(src)
	for _, want := range []string{
		"// header line\n",
		"const _ = chobo.SupportPackageIsVersion1",
		"b.X引当 = X引当{b}",             // the field of the transfer
		"b.Balance_2 = Balance_2{b}", // a transfer named balance
		"func (t X引当) Post(ctx context.Context, k X引当Key, amounts *X引当Amounts) (Result, error)",
		"func (x Balances) X棚(ctx context.Context, a X棚Account) (Balance, error)",
		`chobo.CheckAmount("数", a.X数)`,
		`chobo.CheckText("注文", a.X注文)`,  // every string of the arguments,
		`chobo.CheckText("注文", k.X注文)`,  // of a key,
		`chobo.CheckText("sku", a.Sku)`, // and of an account
		"`select result, reason from \"在庫\".\"引当_hold\"($1, $2, $3, $4, $5::pg_catalog.uuid)`",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the client lacks %q", want)
		}
	}
	// Every string a method sends is checked: 引当's hold (注文, sku), post,
	// void and status (注文 each), balance's do (note, sku), 棚 (sku); and
	// again in the Call twin of each operation (7: all but 棚's); and by
	// the history reads, the key of each transfer's Entries (2) and the
	// account of each reader of 棚 (3).
	if n := strings.Count(text, "chobo.CheckText("); n != 8+7+5 {
		t.Errorf("the client checks %d strings, want 20", n)
	}
	if n := strings.Count(text, "return Call{Err: err}"); n != 7+2 {
		t.Errorf("the Call twins refuse %d values, want 9 (7 strings, 2 amounts)", n)
	}
}

func TestGoString(t *testing.T) {
	for in, want := range map[string]string{
		`select "a"`: "`select \"a\"`",
		"a`b":        "\"a`b\"",
	} {
		if got := goString(in); got != want {
			t.Errorf("goString(%q) = %s, want %s", in, got, want)
		}
	}
}

// The history readers' fields and the runtime types a client re-exports
// are taken before the book's names: a transfer called statement or
// balance_at gets the next name, as one called balance does.
func TestHistoryNamesAreReserved(t *testing.T) {
	res := check.Check("h.book", []byte(`book h v1
unit 個
account entry(id: string) : 個
  at least 0 refused as empty
account outside_ : 個 outside
transfer statement(s: string, id: string)
  key s
  move 1 from outside_ to entry(id)
transfer balance_at(s: string, id: string)
  key s
  pending never expires
  move 1 from entry(id) to outside_
`))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	n := Naming(m)
	for name, want := range map[string][2]string{"statement": {"Statement_2", "Statement_2"}, "balance_at": {"BalanceAt_2", "BalanceAt"}} {
		if got := n.Transfers[name]; got.Field != want[0] || got.Type != want[1] {
			t.Errorf("%s: field %s, type %s; want %s, %s", name, got.Field, got.Type, want[0], want[1])
		}
	}
	if got := n.Accounts["entry"]; got.Method != "Entry" || got.Type != "EntryAccount" {
		t.Errorf("entry: %+v", got)
	}
	src, err := Generate(m, "h", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "book.go", src, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Statement_2 Statement_2\n", "BalanceAt_2 BalanceAt\n", // the transfers' fields
		"Statement Statements\n", "BalanceAt BalancesAt\n", // the readers'
		"func (t Statement_2) Entries(ctx context.Context, k StatementKey) ([]Entry, error)",
		"func (t BalanceAt) OpenHolds(ctx context.Context) ([]OpenHold, error)",
		"func (x Statements) Entry(ctx context.Context, a EntryAccount, q StatementQuery) (Statement, error)",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the client lacks %q", want)
		}
	}
	if strings.Contains(string(src), "func (t Statement_2) OpenHolds") {
		t.Error("a transfer that posts at once has OpenHolds")
	}
}
