package model

import (
	"reflect"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
)

const src = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account shelf(sku: string) : pcs
  at most 10 refused as shelf_full
account customers : pcs outside
transfer reserve(order: string, sku: string, qty: pcs, fee: pcs)
  key order
  pending expires after 30 minutes
  move qty from stock(sku) to customers
  move fee from stock(sku) to customers
  move 1 from stock(sku) to customers
transfer restock(note: string, sku: string, qty: pcs)
  key note
  move qty from customers to shelf(sku)
`

func newModel(t *testing.T) *Model {
	t.Helper()
	res := check.Check("shop.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	m, err := New(res.Book, Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func names(ps []Param) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestOperations(t *testing.T) {
	m := newModel(t)
	for _, c := range []struct {
		transfer, op, takes, answers string
		params                       []string
		optional                     bool
		statement                    string
	}{
		{"reserve", "hold", TakesArgs, AnswersResult, []string{"order", "sku", "qty", "fee"}, false,
			`select result, reason from "shop"."reserve_hold"($1, $2, $3, $4, $5, $6::pg_catalog.uuid)`},
		{"reserve", "post", TakesKeyAndAmounts, AnswersResult, []string{"order", "qty", "fee"}, true,
			`select result, reason from "shop"."reserve_post"($1, $2, $3, $4, $5::pg_catalog.uuid)`},
		{"reserve", "void", TakesKey, AnswersResult, []string{"order"}, false,
			`select result, reason from "shop"."reserve_void"($1, $2, $3::pg_catalog.uuid)`},
		{"reserve", "status", TakesKey, AnswersState, []string{"order"}, false,
			`select "shop"."reserve_status"($1, $2)`},
		{"restock", "do", TakesArgs, AnswersResult, []string{"note", "sku", "qty"}, false,
			`select result, reason from "shop"."restock_do"($1, $2, $3, $4, $5::pg_catalog.uuid)`},
	} {
		tr := m.Transfer(c.transfer)
		if tr == nil {
			t.Fatalf("no transfer %s", c.transfer)
		}
		op := tr.Operation(c.op)
		if op == nil {
			t.Fatalf("%s has no %s", c.transfer, c.op)
		}
		if op.Takes != c.takes || op.Answers != c.answers || op.AmountsOptional != c.optional ||
			!reflect.DeepEqual(names(op.Params), c.params) || op.Statement != c.statement ||
			op.CallID != (c.op != "status") {
			t.Errorf("%s.%s = %+v (params %v)", c.transfer, c.op, op, names(op.Params))
		}
	}
	if m.Transfer("restock").Operation("hold") != nil || m.Transfer("nothing") != nil {
		t.Error("found an operation the book does not have")
	}
}

func TestGroups(t *testing.T) {
	tr := newModel(t).Transfer("reserve")
	if !tr.Pending || !reflect.DeepEqual(names(tr.Key), []string{"order"}) ||
		!reflect.DeepEqual(names(tr.Amounts), []string{"qty", "fee"}) {
		t.Errorf("reserve: pending %v key %v amounts %v", tr.Pending, names(tr.Key), names(tr.Amounts))
	}
	if p := tr.Args[2]; !p.Amount || p.Unit != "pcs" {
		t.Errorf("qty = %+v", p)
	}
	if p := tr.Args[0]; p.Amount || p.Unit != "" {
		t.Errorf("order = %+v", p)
	}
}

func TestEnumsAndReaders(t *testing.T) {
	m := newModel(t)
	want := []string{"out_of_stock", "shelf_full", "key_conflict", "already_refused", "same_account",
		"no_such_hold", "already_posted", "already_voided", "expired", "over_hold"}
	if !reflect.DeepEqual(m.Reasons, want) {
		t.Errorf("reasons %v", m.Reasons)
	}
	if !reflect.DeepEqual(m.Outcomes, []string{"done", "done_before", "refused"}) ||
		!reflect.DeepEqual(m.HoldStates, []string{"held", "posted", "voided", "expired"}) {
		t.Errorf("enums %v %v", m.Outcomes, m.HoldStates)
	}
	if len(m.Accounts) != 3 || m.Accounts[0].Name != "stock" || !reflect.DeepEqual(names(m.Accounts[0].Params), []string{"sku"}) ||
		m.Accounts[0].Statement != `select posted, held_in, held_out from "shop"."balance_stock"($1, $2)` {
		t.Errorf("accounts %+v", m.Accounts[0])
	}
	if a := m.Account("shelf"); a == nil || a.Name != "shelf" || m.Account("nothing") != nil {
		t.Errorf("Account(shelf) = %+v", a)
	}
	if m.Expire != `select "shop".expire($1::pg_catalog.int4, $2::pg_catalog.uuid)` {
		t.Errorf("expire %q", m.Expire)
	}
}

func TestUnknownBackend(t *testing.T) {
	res := check.Check("shop.book", []byte(src))
	if _, err := New(res.Book, "sqlite"); err == nil {
		t.Error("made a model for a backend chobo does not have")
	}
}
