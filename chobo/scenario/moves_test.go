package scenario_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// kitBook takes two parts from stock in one call: either move can be the
// one refused with out_of_stock.
const kitBook = `book kits v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to stock(sku)
transfer kit(order: string, part: string, other: string, qty: pcs)
  key order
  move qty from stock(part) to world
  move qty from stock(other) to world
transfer ship(order: string, sku: string, qty: pcs)
  key order
  move qty from stock(sku) to world
`

func kits(t *testing.T) *book.Book {
	t.Helper()
	res := check.Check("kits.book", []byte(kitBook))
	if res.Book == nil {
		t.Fatalf("the book does not check: %+v", res.Diags)
	}
	return res.Book
}

const stocked = `{"op": "receive.do", "args": {"delivery": "d-1", "sku": "a", "qty": 1}},
  {"op": "receive.do", "args": {"delivery": "d-2", "sku": "b", "qty": 1}}`

// A listing says which move of a call of several moves refused, and for
// which account; a call of one move keeps the answer alone.
func TestListingNamesTheMoveThatRefused(t *testing.T) {
	b := kits(t)
	sc := read(t, b, `{"name": "short of b", "steps": [`+stocked+`,
	  {"op": "ship.do", "args": {"order": "s-1", "sku": "b", "qty": 1}},
	  {"op": "kit.do", "args": {"order": "k-1", "part": "a", "other": "b", "qty": 1}, "expect": "refused: out_of_stock"},
	  {"op": "ship.do", "args": {"order": "s-2", "sku": "b", "qty": 1}, "expect": "refused: out_of_stock"}]}`)[0]
	outs := scenario.Run(b, sc)
	if f := scenario.Failures(sc, outs); len(f) > 0 {
		t.Fatalf("the expectations, which hold the reason alone, fail: %v", f)
	}
	for _, c := range []struct {
		lang      diag.Lang
		kit, ship string
	}{
		{diag.English, "refused: out_of_stock (move 2: stock(b) at least 0)", "refused: out_of_stock\n"},
		{diag.Japanese, "out_of_stock で拒否される(移動 2: stock(b) at least 0)", "out_of_stock で拒否される\n"},
	} {
		var buf bytes.Buffer
		scenario.WriteText(&buf, "kits.book", sc, outs, c.lang)
		if !strings.Contains(buf.String(), c.kit) || !strings.Contains(buf.String(), c.ship) {
			t.Errorf("the listing lacks %q or %q:\n%s", c.kit, c.ship, buf.String())
		}
	}
}

// Which move refused is for people: two orders that end alike, the kit
// refused at its first move in one and at its second in the other, are
// one outcome, as a backend, which answers the reason alone, shows them.
func TestOutcomesMergeWhateverMoveRefused(t *testing.T) {
	b := kits(t)
	sc := read(t, b, `{"name": "race", "steps": [`+stocked+`,
	  {"together": [
	    [{"op": "kit.do", "args": {"order": "k-1", "part": "a", "other": "b", "qty": 1}}],
	    [{"op": "ship.do", "args": {"order": "s-1", "sku": "a", "qty": 1}}],
	    [{"op": "ship.do", "args": {"order": "s-2", "sku": "b", "qty": 1}}]]}]}`)[0]
	outs := scenario.Run(b, sc)
	if len(outs) != 2 {
		for _, o := range outs {
			t.Logf("%+v", o.Results)
		}
		t.Fatalf("%d outcomes, want 2: the kit done and both ships refused, or the kit refused and both ships done", len(outs))
	}
}

// An answer pasted from a listing with its note is refused with what to
// write instead: the note is not part of the answer.
func TestExpectWithTheMoveNote(t *testing.T) {
	b := kits(t)
	_, err := scenario.Read(b, []byte(`{"name": "x", "steps": [
	  {"op": "kit.do", "args": {"order": "k-1", "part": "a", "other": "b", "qty": 1}, "expect": "refused: out_of_stock (move 1: stock(a) at least 0)"}]}`))
	var e *scenario.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a scenario.Error", err)
	}
	for _, want := range []string{`write "refused: out_of_stock"`, `"refused: out_of_stock" と書いてください`} {
		if !strings.Contains(e.Text().En+e.Text().Ja, want) {
			t.Errorf("%v lacks %q", e.Text(), want)
		}
	}
}
