package tbwire

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

const shop = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery
  move qty from world to stock(sku)
transfer reserve(order: string, sku: string, qty: pcs)
  key order
  pending expires after 30 minutes
  move qty from stock(sku) to world
`

// serve serves c over the wire and dials it.
func serve(t *testing.T, c chobotb.Client) *Client {
	t.Helper()
	addr, stop, err := Listen(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	wire, err := Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wire.Close() })
	return wire
}

// TestHistoryReadsCrossTheWire: a book's history read through the wire is
// the one read from the model itself, which answers both queries the
// reads make (an account's transfers, and a call's chain).
func TestHistoryReadsCrossTheWire(t *testing.T) {
	res := check.Check("shop.book", []byte(shop))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	def := tigerbeetle.Def(res.Book)
	m := tbmodel.New()
	wire := serve(t, m)
	ctx := context.Background()
	over := chobotb.NewBook(wire, def, "t")
	answers, err := over.Bulk(ctx, []chobotb.Op{
		{Kind: 0, Op: "do", Values: chobotb.Values{"d-1", "A-1", int64(5)}},
		{Kind: 1, Op: "hold", Values: chobotb.Values{"o-1", "A-1", int64(2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range answers {
		if a.Err != nil || a.Result.Outcome != chobo.Done {
			t.Fatalf("answers %+v", answers)
		}
	}
	read := func(b *chobotb.Book) string {
		st, err := b.Statement(ctx, 0, []string{"A-1"}, chobo.StatementQuery{})
		if err != nil {
			return "error: " + err.Error()
		}
		es, err := b.CallEntries(ctx, 1, chobotb.Values{"o-1"})
		if err != nil {
			return "error: " + err.Error()
		}
		var lines []string
		for _, e := range append(st.Entries, es...) {
			lines = append(lines, fmt.Sprintf("%s %s %s%v move %d out %v %d %d %d %s", e.Transfer, e.Op, e.Account, e.AccountArgs, e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, e.ID))
		}
		return strings.Join(lines, "\n")
	}
	got, want := read(over), read(chobotb.NewBook(m, def, "t"))
	if got != want || strings.Count(want, "\n") != 3 {
		t.Errorf("over the wire:\n%s\nfrom the model:\n%s", got, want)
	}
}

// plain is a client that reads no history.
type plain struct{ chobotb.Client }

// TestHistoryOfAClientThatReadsNone: the far end says its client reads
// no history, in chobotb's words.
func TestHistoryOfAClientThatReadsNone(t *testing.T) {
	wire := serve(t, plain{tbmodel.New()})
	_, err := wire.GetAccountTransfers(context.Background(), chobotb.AccountFilter{Limit: 1, Debits: true})
	if err == nil || err.Error() != chobotb.ErrNoHistory.Error() {
		t.Errorf("got %v, want %v", err, chobotb.ErrNoHistory)
	}
	_, err = wire.QueryTransfers(context.Background(), chobotb.QueryFilter{Limit: 1})
	if err == nil || err.Error() != chobotb.ErrNoHistory.Error() {
		t.Errorf("got %v, want %v", err, chobotb.ErrNoHistory)
	}
}

// TestAccountQueriesCrossTheWire: the accounts a query finds through the
// wire are those the model finds itself, and a far end whose client
// cannot query accounts says so.
func TestAccountQueriesCrossTheWire(t *testing.T) {
	res := check.Check("shop.book", []byte(shop))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	m := tbmodel.New()
	wire := serve(t, m)
	ctx := context.Background()
	if _, err := chobotb.NewBook(wire, tigerbeetle.Def(res.Book), "t").Bulk(ctx, []chobotb.Op{
		{Kind: 0, Op: "do", Values: chobotb.Values{"d-1", "A-1", int64(5)}},
	}); err != nil {
		t.Fatal(err)
	}
	q := chobotb.AccountQuery{Limit: 100}
	direct, err := m.QueryAccounts(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	over, err := wire.QueryAccounts(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(direct) == 0 || fmt.Sprint(over) != fmt.Sprint(direct) {
		t.Errorf("over the wire %d accounts, from the model %d:\n%v\n%v", len(over), len(direct), over, direct)
	}
	if _, err := serve(t, plain{tbmodel.New()}).QueryAccounts(ctx, q); err == nil || !strings.Contains(err.Error(), "cannot query accounts") {
		t.Errorf("a far end that cannot query accounts: %v", err)
	}
}
