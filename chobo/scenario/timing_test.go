package scenario_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// lifetimes gives its holds two lifetimes: 10 minutes and an hour.
const lifetimes = `book counter v1
unit pcs
account shelf(sku: string) : pcs
  at least 0 refused as sold_out
account vendors : pcs outside
account buyers : pcs outside
transfer restock(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from vendors to shelf(sku)
transfer cart(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 10 minutes
  move qty from shelf(sku) to buyers
transfer layaway(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 1 hour
  move qty from shelf(sku) to buyers
`

func timing(t *testing.T, steps string) ([]int64, error) {
	t.Helper()
	res := check.Check("counter.book", []byte(lifetimes))
	if res.Book == nil {
		t.Fatalf("the book does not check: %+v", res.Diags)
	}
	scs, err := scenario.Read(res.Book, []byte(`{"name": "s", "steps": [`+steps+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	return scenario.Timing(scs[0], scenario.Run(res.Book, scs[0]))
}

const restock = `{"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 5}}`

// Holds of two lifetimes made together, and a pass that ends one only:
// on the copy they share a deadline, so no length of the pass is
// faithful; the refusal states the rule and names both holds, in both
// languages.
func TestTimingRefusesTwoLifetimesMadeTogether(t *testing.T) {
	_, err := timing(t, restock+`,
	  {"op": "cart.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
	  {"op": "layaway.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
	  {"pass": "30 minutes"},
	  {"op": "layaway.post", "args": {"order": "o-2", "sku": "s-1"}}`)
	var te *scenario.TimingError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a TimingError", err)
	}
	text := te.Text()
	for _, want := range []string{"every hold lasts 3 seconds", "in whole seconds",
		"cart(o-1, s-1), held at step 2, expires at the pass of step 4",
		"layaway(o-2, s-1), held at step 3, is still held after the pass of step 4", "split the scenario"} {
		if !strings.Contains(text.En, want) {
			t.Errorf("English lacks %q:\n%s", want, text.En)
		}
	}
	for _, want := range []string{"仮押さえがどれも 3 秒", "秒単位",
		"ステップ 2 で押さえた cart(o-1, s-1) が、ステップ 4 の経過で期限切れになる",
		"ステップ 3 で押さえた layaway(o-2, s-1) が、ステップ 4 の経過の後も押さえたままである", "シナリオを分けて"} {
		if !strings.Contains(text.Ja, want) {
			t.Errorf("Japanese lacks %q:\n%s", want, text.Ja)
		}
	}
}

// The same holds made a pass apart, in the order their deadlines come,
// are timed: the least lengths that keep each pass's expiries.
func TestTimingOfHoldsApart(t *testing.T) {
	lens, err := timing(t, restock+`,
	  {"op": "layaway.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
	  {"pass": "55 minutes"},
	  {"op": "cart.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
	  {"pass": "5 minutes"},
	  {"op": "cart.post", "args": {"order": "o-2", "sku": "s-1"}}`)
	if err != nil || !slices.Equal(lens, []int64{1, 2}) {
		t.Errorf("got %v, %v; want [1 2] seconds", lens, err)
	}
}

// Four holds of one lifetime held at once that must expire at four
// passes: the copy has three whole seconds for them.
func TestTimingRefusesFourDeadlinesInFlight(t *testing.T) {
	steps := []string{restock}
	for _, o := range []string{"o-1", "o-2", "o-3", "o-4"} {
		steps = append(steps, `{"op": "cart.hold", "args": {"order": "`+o+`", "sku": "s-1", "qty": 1}}`, `{"pass": "1 minute"}`)
	}
	steps = append(steps, `{"pass": "6 minutes"}`, `{"pass": "1 minute"}`, `{"pass": "1 minute"}`, `{"pass": "1 minute"}`)
	if _, err := timing(t, strings.Join(steps[:7], ",")+`,{"pass": "7 minutes"},{"pass": "1 minute"},{"pass": "1 minute"}`); err != nil {
		t.Errorf("three carts a minute apart: %v", err)
	}
	if _, err := timing(t, strings.Join(steps, ",")); err == nil {
		t.Error("four carts a minute apart, expiring one by one, were timed")
	}
}
