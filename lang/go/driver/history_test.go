package driver

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// A client of the shape a generated one has, for the history reads: it
// writes down what each read was given and answers from its fields.
type (
	histBook struct {
		Payment   histPayment
		TopUp     histTopUp
		Statement histStatements
		BalanceAt histBalancesAt
		OpenHolds histOpenHolds
		log       *[]string
	}
	histWallet     struct{ Card string }
	histPaymentKey struct{ PaymentID string }
	histTopUpKey   struct{ TopUpID string }
	histPayment    struct{ b *histBook }
	histTopUp      struct{ b *histBook }
	histStatements struct{ b *histBook }
	histBalancesAt struct{ b *histBook }
	histOpenHolds  struct{ b *histBook }
)

var (
	t0 = time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600))
	t1 = t0.Add(30 * time.Minute)
)

func (b *histBook) note(s string) { *b.log = append(*b.log, s) }

func (x histStatements) Wallet(ctx context.Context, a histWallet, q chobo.StatementQuery) (chobo.Statement, error) {
	x.b.note("statement " + a.Card + " " + jsonOf(q))
	if q.After == "bad" {
		return chobo.Statement{}, errors.New("not a cursor")
	}
	return chobo.Statement{Entries: []chobo.Entry{{Transfer: "payment", Op: "hold", Key: []string{"p-1"},
		Args: map[string]string{"payment_id": "p-1", "card": "c-1", "price": "500", "fee": "20"}, Move: 2, Out: true,
		Account: "wallet", AccountArgs: []string{"c-1"}, HeldOut: 20, After: &chobo.Balance{Posted: 1000, HeldOut: 520}, At: t0, Cursor: "7"}},
		Next: "7", More: true}, nil
}
func (x histStatements) Bank(ctx context.Context, q chobo.StatementQuery) (chobo.Statement, error) {
	x.b.note("statement bank " + jsonOf(q))
	return chobo.Statement{}, nil
}
func (x histBalancesAt) Wallet(ctx context.Context, a histWallet, at time.Time) (chobo.Balance, error) {
	x.b.note("balance_at " + a.Card + " " + at.UTC().Format(time.RFC3339Nano))
	return chobo.Balance{Posted: 1000, HeldIn: 0, HeldOut: -3}, nil
}
func (x histBalancesAt) Bank(ctx context.Context, at time.Time) (chobo.Balance, error) {
	return chobo.Balance{}, nil
}

var (
	holdP1 = chobo.OpenHold{Transfer: "payment", Key: []string{"p-1"}, Created: t1, Deadline: t1.Add(time.Hour),
		Moves: []chobo.HoldMove{{Move: 1, From: "wallet", FromArgs: []string{"c-1"}, To: "merchants", Amount: 500}}}
	holdP0 = chobo.OpenHold{Transfer: "payment", Key: []string{"p-0"}, Created: t0,
		Moves: []chobo.HoldMove{{Move: 1, From: "wallet", FromArgs: []string{"c-2"}, To: "merchants", Amount: 1}}}
)

func (x histOpenHolds) Wallet(ctx context.Context, a histWallet) ([]chobo.OpenHold, error) {
	x.b.note("holds " + a.Card)
	return []chobo.OpenHold{holdP1}, nil
}
func (x histOpenHolds) Bank(ctx context.Context) ([]chobo.OpenHold, error) { return nil, nil }
func (t histPayment) Entries(ctx context.Context, k histPaymentKey) ([]chobo.Entry, error) {
	t.b.note("entries payment " + k.PaymentID)
	return []chobo.Entry{{Transfer: "payment", Op: "void", Key: []string{k.PaymentID}, Move: 1, Account: "merchants", HeldIn: -500, At: t1, Cursor: "3"}}, nil
}
func (t histPayment) OpenHolds(ctx context.Context) ([]chobo.OpenHold, error) {
	t.b.note("holds payment")
	return []chobo.OpenHold{holdP1, holdP0}, nil
}
func (t histTopUp) Entries(ctx context.Context, k histTopUpKey) ([]chobo.Entry, error) {
	return nil, nil
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const histNames = `{"balance":"Balance","statement":"Statement","balance_at":"BalanceAt","open_holds":"OpenHolds",
 "transfers":[
  {"transfer":"payment","field":"Payment","key":{"fields":[{"param":"payment_id","name":"PaymentID","type":"string"}]},"entries":"Entries","open_holds":"OpenHolds"},
  {"transfer":"top_up","field":"TopUp","key":{"fields":[{"param":"top_up_id","name":"TopUpID","type":"string"}]},"entries":"Entries"}],
 "accounts":[{"account":"wallet","method":"Wallet","fields":[{"param":"card","name":"Card","type":"string"}]},{"account":"bank","method":"Bank","fields":[]}]}`

func histServer(t *testing.T) (*server, *[]string) {
	t.Helper()
	var n names
	if err := json.Unmarshal([]byte(histNames), &n); err != nil {
		t.Fatal(err)
	}
	log := &[]string{}
	b := &histBook{log: log}
	b.Payment, b.TopUp, b.Statement, b.BalanceAt, b.OpenHolds = histPayment{b}, histTopUp{b}, histStatements{b}, histBalancesAt{b}, histOpenHolds{b}
	return &server{names: &n, books: map[string]reflect.Value{"t": reflect.ValueOf(b)}}, log
}

// Each history op reaches the client's method by the names, with the
// request's values in the client's types, and its answer is written as
// the protocol carries it.
func TestHistoryOps(t *testing.T) {
	for _, c := range []struct {
		req, log, answer string
	}{
		{`{"op":"statement","tenant":"t","account":"wallet","args":{"card":"c-1"},"transfers":["payment"],"from":"2026-01-02T02:04:05.000006Z","newest":true,"limit":3,"after":"9"}`,
			`statement c-1 {"Newest":true,"From":"2026-01-02T02:04:05.000006Z","To":"0001-01-01T00:00:00Z","Transfers":["payment"],"Limit":3,"After":"9"}`,
			`{"id":0,"entries":[{"transfer":"payment","op":"hold","key":["p-1"],"args":{"card":"c-1","fee":"20","payment_id":"p-1","price":"500"},"move":2,"out":true,"account":"wallet","account_args":["c-1"],"posted":"0","held_in":"0","held_out":"20","after":{"posted":"1000","held_in":"0","held_out":"520"},"at":"2026-01-02T02:04:05.000006Z","cursor":"7"}],"next":"7","more":true}`},
		{`{"op":"statement","tenant":"t","account":"bank"}`,
			`statement bank {"Newest":false,"From":"0001-01-01T00:00:00Z","To":"0001-01-01T00:00:00Z","Transfers":null,"Limit":0,"After":""}`,
			`{"id":0,"entries":[]}`},
		{`{"op":"statement","tenant":"t","account":"wallet","args":{"card":"c-1"},"after":"bad"}`,
			`statement c-1 {"Newest":false,"From":"0001-01-01T00:00:00Z","To":"0001-01-01T00:00:00Z","Transfers":null,"Limit":0,"After":"bad"}`, `{"id":0,"error":"not a cursor"}`},
		{`{"op":"statement","tenant":"t","account":"wallet","args":{"card":"c-1"},"from":"yesterday"}`, ``, `{"id":0,"error":"from: \"yesterday\" is not an RFC 3339 time"}`},
		{`{"op":"statement","tenant":"t","account":"shop"}`, ``, `{"id":0,"error":"the book has no account \"shop\""}`},
		{`{"op":"statement","tenant":"t","account":"wallet","args":{"kard":"c-1"}}`, ``, `{"id":0,"error":"statement wallet: the value of card is missing"}`},
		{`{"op":"entries","tenant":"t","transfer":"payment","args":{"payment_id":"p-1"}}`, `entries payment p-1`,
			`{"id":0,"entries":[{"transfer":"payment","op":"void","key":["p-1"],"args":null,"move":1,"out":false,"account":"merchants","account_args":null,"posted":"0","held_in":"-500","held_out":"0","after":null,"at":"2026-01-02T02:34:05.000006Z","cursor":"3"}]}`},
		{`{"op":"entries","tenant":"t","transfer":"payment","args":{}}`, ``, `{"id":0,"error":"entries of payment: the value of payment_id is missing"}`},
		{`{"op":"holds","tenant":"t","account":"wallet","args":{"card":"c-1"}}`, `holds c-1`,
			`{"id":0,"holds":[{"transfer":"payment","key":["p-1"],"moves":[{"move":1,"from":"wallet","from_args":["c-1"],"to":"merchants","to_args":null,"amount":"500"}],"created":"2026-01-02T02:34:05.000006Z","deadline":"2026-01-02T03:34:05.000006Z"}]}`},
		{`{"op":"holds","tenant":"t","account":"wallet","args":{"card":"c-1"},"transfer":"top_up"}`, `holds c-1`, `{"id":0,"holds":[]}`},
		// Of every kind: each kind's holds, oldest first.
		{`{"op":"holds","tenant":"t"}`, `holds payment`,
			`{"id":0,"holds":[{"transfer":"payment","key":["p-0"],"moves":[{"move":1,"from":"wallet","from_args":["c-2"],"to":"merchants","to_args":null,"amount":"1"}],"created":"2026-01-02T02:04:05.000006Z","deadline":""},{"transfer":"payment","key":["p-1"],"moves":[{"move":1,"from":"wallet","from_args":["c-1"],"to":"merchants","to_args":null,"amount":"500"}],"created":"2026-01-02T02:34:05.000006Z","deadline":"2026-01-02T03:34:05.000006Z"}]}`},
		{`{"op":"balance_at","tenant":"t","account":"wallet","args":{"card":"c-1"},"at":"2026-01-02T03:04:05.000006+01:00"}`,
			`balance_at c-1 2026-01-02T02:04:05.000006Z`, `{"id":0,"posted":"1000","held_in":"0","held_out":"-3"}`},
		{`{"op":"balance_at","tenant":"t","account":"wallet","args":{"card":"c-1"}}`, ``, `{"id":0,"error":"balance_at: no \"at\""}`},
	} {
		s, log := histServer(t)
		var req protocol.Request
		if err := json.Unmarshal([]byte(c.req), &req); err != nil {
			t.Fatal(err)
		}
		got := jsonOf(s.handle(req))
		if got != c.answer {
			t.Errorf("%s:\n got %s\nwant %s", c.req, got, c.answer)
		}
		if l := strings.Join(*log, "; "); l != c.log {
			t.Errorf("%s: the client was called with\n %s\nwant\n %s", c.req, l, c.log)
		}
	}
}

// A client whose names call for a history read it does not have is
// found out at open.
func TestFitsHistory(t *testing.T) {
	var n names
	if err := json.Unmarshal([]byte(histNames), &n); err != nil {
		t.Fatal(err)
	}
	b := reflect.ValueOf(&histBook{}).Elem()
	if err := fitsHistory(b, &n); err != nil {
		t.Fatalf("a client with every read: %v", err)
	}
	n.Transfers[1].OpenHolds = "OpenHolds"
	if err := fitsHistory(b, &n); err == nil || !strings.Contains(err.Error(), "TopUp.OpenHolds") {
		t.Errorf("top_up has no OpenHolds: %v", err)
	}
	n.Transfers[1].OpenHolds = ""
	n.Accounts = append(n.Accounts, account{Account: "fees", Method: "Fees"})
	if err := fitsHistory(b, &n); err == nil || !strings.Contains(err.Error(), "Statement.Fees") {
		t.Errorf("no reader of fees: %v", err)
	}
}
