package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/report"
)

// kits takes two parts from stock into bins, then moves the first part
// on: two moves can refuse with out_of_stock, each for an account it
// names its own way, and the bins with bin_full.
const kits = `book kits v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account bin(sku: string) : pcs
  at most 10 refused as bin_full
account packed(sku: string) : pcs outside
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to stock(sku)
transfer kit(order: string, part: string, other: string, qty: pcs)
  key order
  move qty from stock(part) to bin(part)
  move qty from stock(other) to bin(other)
  move qty from bin(part) to packed(part)
transfer spread(order: string, sku: string, qty: pcs)
  key order
  move qty from stock(sku) to packed(sku)
  move qty from stock(sku) to packed(sku)
  move qty from stock(sku) to packed(sku)
transfer ship(order: string, sku: string, qty: pcs)
  key order
  move qty from stock(sku) to world
`

func operation(t *testing.T, transfer string) report.Operation {
	t.Helper()
	res := check.Check("kits.book", []byte(kits))
	if res.Book == nil || res.Report == nil {
		t.Fatalf("the book does not check: %+v", res.Diags)
	}
	for _, o := range res.Report.Operations {
		if o.Transfer.Name == transfer && (o.Op == book.Do || o.Op == book.Hold) {
			return o
		}
	}
	t.Fatalf("no operation of %s", transfer)
	return report.Operation{}
}

// In a transfer of several moves, each refusal by a bound says which
// move's account refuses, as the move names it; a reason two moves give
// lists both, a reason of one move names that move.
func TestRefusalsNameTheirMove(t *testing.T) {
	o := operation(t, "kit")
	got := o.Texts(diag.English)
	want := []string{"out_of_stock (move 1: stock(part) at least 0; move 2: stock(other) at least 0)", "bin_full (move 1: bin(part) at most 10"}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("kit.do: %q lacks %q", got, w)
		}
	}
	ja := o.Texts(diag.Japanese)
	if !slices.Contains(ja, "out_of_stock(移動 1: stock(part) at least 0、移動 2: stock(other) at least 0)") {
		t.Errorf("kit.do in Japanese: %q", ja)
	}
	// Each move's refusal carries an example refused at that move.
	for _, rf := range o.Refusals {
		if rf.Account == nil {
			continue
		}
		d := rf.Example.Last().Result.Detail
		if d == nil || d.Move != rf.Moves[0] {
			t.Errorf("%s %v: the example is refused at %+v", rf.Reason, rf.Moves, d)
		}
	}
}

// Moves that name their account alike share one entry, a run of them
// written by its ends; a transfer of one move keeps the bound as the
// account declares it.
func TestRefusalsOfMovesAlike(t *testing.T) {
	if got := operation(t, "spread").Texts(diag.English); !slices.Contains(got, "out_of_stock (moves 1–3: stock(sku) at least 0)") {
		t.Errorf("spread.do: %q", got)
	}
	if got := operation(t, "spread").Texts(diag.Japanese); !slices.Contains(got, "out_of_stock(移動 1〜3: stock(sku) at least 0)") {
		t.Errorf("spread.do in Japanese: %q", got)
	}
	if got := operation(t, "ship").Texts(diag.English); !slices.Contains(got, "out_of_stock (stock(sku) at least 0)") {
		t.Errorf("ship.do: %q", got)
	}
}

func TestMovesText(t *testing.T) {
	for _, c := range []struct {
		moves  []int
		en, ja string
	}{
		{[]int{2}, "move 2", "移動 2"},
		{[]int{2, 3}, "moves 2, 3", "移動 2、3"},
		{[]int{1, 2, 3, 4, 7}, "moves 1–4, 7", "移動 1〜4、7"},
		{[]int{1, 3, 4, 5, 6, 9, 10}, "moves 1, 3–6, 9, 10", "移動 1、3〜6、9、10"},
	} {
		if en, ja := report.MovesText(c.moves, diag.English), report.MovesText(c.moves, diag.Japanese); en != c.en || ja != c.ja {
			t.Errorf("%v: %q / %q, want %q / %q", c.moves, en, ja, c.en, c.ja)
		}
	}
}
