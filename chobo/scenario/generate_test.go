package scenario_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// A credit line: spending is a hold that goes below zero, down to the
// line; repaying (at once, or as a hold) brings it back up to zero, and
// can only once something was spent and posted.
const creditLine = `book credit v1
unit JPY
account line(member: string) : JPY
  at least -500 refused as over_limit
  at most 0 refused as overpaid
account shops : JPY outside
account bank : JPY outside
transfer spend(approval: string, member: string, amount: JPY)
  key approval
  pending expires after 7 days
  move amount from line(member) to shops
transfer repay(payment: string, member: string, amount: JPY)
  key payment
  move amount from bank to line(member)
transfer refund(slip: string, member: string, amount: JPY)
  key slip
  pending never expires
  move amount from bank to line(member)
`

// The same line spent at once.
const creditAtOnce = `book credit v1
unit JPY
account line(member: string) : JPY
  at least -500 refused as over_limit
account shops : JPY outside
transfer buy(receipt: string, member: string, amount: JPY)
  key receipt
  move amount from line(member) to shops
`

// A sale brings its price and a fixed fee: feeding income brings more
// than asked.
const withFee = `book fees v1
unit USD scale 2
account income : USD
  at least 0 refused as income_short
account buyers : USD outside
account bank : USD outside
transfer sell(sale: string, price: USD)
  key sale
  move price from buyers to income
  move 1.50 from buyers to income
transfer pay_out(statement: string, amount: USD)
  key statement
  move amount from income to bank
`

// Moving between two bins: the target's upper bound is met after the
// source's lower one, in the same move.
const bins = `book bins v1
unit pcs
account bin(place: string) : pcs
  at least 0 refused as bin_empty
  at most 100 refused as bin_full
account vendors : pcs outside
transfer stock_in(delivery: string, place: string, qty: pcs)
  key delivery
  move qty from vendors to bin(place)
transfer relocate(slip: string, source: string, target: string, qty: pcs)
  key slip
  move qty from bin(source) to bin(target)
`

// shape writes a scenario's steps in short: each call with its amounts
// and what it expects, a together with its callers.
func shape(sc scenario.Scenario) string {
	call := func(c *scenario.Call) string {
		s := c.Transfer.Name + "." + string(c.Op)
		for _, p := range c.Transfer.Params {
			if v, ok := c.Amounts[p.Name]; ok {
				s += fmt.Sprintf(" %d", v)
			}
		}
		return s
	}
	var out []string
	for _, st := range sc.Steps {
		switch {
		case st.Call != nil:
			out = append(out, call(st.Call)+": "+st.Expect)
		case st.Together != nil:
			var callers []string
			for _, cs := range st.Together {
				var calls []string
				for _, c := range cs {
					calls = append(calls, call(c))
				}
				callers = append(callers, strings.Join(calls, ", "))
			}
			out = append(out, "together("+strings.Join(callers, " | ")+")")
		default:
			out = append(out, "pass "+st.PassText)
		}
	}
	return strings.Join(out, "; ")
}

// shapeCase is a scenario Generate must write for a book: its name and
// its steps in short.
type shapeCase struct{ book, name, want string }

func checkShapes(t *testing.T, tests []shapeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := check.Check("test.book", []byte(tt.book))
			if res.Book == nil {
				t.Fatalf("%+v", res.Diags)
			}
			var names []string
			for _, sc := range scenario.Generate(res.Book) {
				if sc.Name == tt.name {
					if got := shape(sc); got != tt.want {
						t.Errorf("steps:\n got %s\nwant %s", got, tt.want)
					}
					return
				}
				names = append(names, sc.Name)
			}
			t.Errorf("no scenario %q among:\n%s", tt.name, strings.Join(names, "\n"))
		})
	}
}

func TestGenerateBringsTheAccountNextToItsBound(t *testing.T) {
	tests := []shapeCase{
		// A lower bound below zero: the line is drawn on, by a hold
		// that is posted, down to one above it; then two race.
		{creditLine, "two callers take the last 1 of line(member) with spend.hold",
			"spend.hold 499: done; spend.post: done; together(spend.hold 1 | spend.hold 1)"},
		{creditAtOnce, "two callers take the last 1 of line(member) with buy.do",
			"buy.do 499: done; together(buy.do 1 | buy.do 1)"},
		// An upper bound at zero has room only once a hold that took
		// from the line is posted.
		{creditLine, "repay.do: line(member) ends 1 inside its upper bound 0",
			"spend.hold 2: done; spend.post: done; repay.do 1: done"},
		{creditLine, "repay.do: line(member) ends exactly at its upper bound 0",
			"spend.hold 2: done; spend.post: done; repay.do 2: done"},
		{creditLine, "repay.do: line(member) would cross its upper bound 0 by 1, refused with overpaid",
			"repay.do 1: refused: overpaid"},
		{creditLine, "two callers take the last room of 1 in line(member) with repay.do",
			"spend.hold 1: done; spend.post: done; together(repay.do 1 | repay.do 1)"},
		// The same for a hold into the line: it counts as held in.
		{creditLine, "refund.hold: line(member) ends 1 inside its upper bound 0",
			"spend.hold 2: done; spend.post: done; refund.hold 1: done"},
		{creditLine, "refund.hold: line(member) ends exactly at its upper bound 0",
			"spend.hold 2: done; spend.post: done; refund.hold 2: done"},
		{creditLine, "refund.hold: line(member) would cross its upper bound 0 by 1, refused with overpaid",
			"refund.hold 1: refused: overpaid"},
		{creditLine, "two callers take the last room of 1 in line(member) with refund.hold",
			"spend.hold 1: done; spend.post: done; together(refund.hold 1 | refund.hold 1)"},
		// A feeder that brings more than asked: what is left over is
		// taken out first.
		{withFee, "two callers take the last 0.01 of income with pay_out.do",
			"sell.do 1: done; pay_out.do 150: done; together(pay_out.do 1 | pay_out.do 1)"},
		// The target's upper bound is met only once the source, met
		// first in the same move, has enough; in a race, for both.
		{bins, "relocate.do: bin(target) would cross its upper bound 100 by 1, refused with bin_full",
			"stock_in.do 98: done; stock_in.do 3: done; relocate.do 3: refused: bin_full"},
		{bins, "two callers take the last room of 1 in bin(target) with relocate.do",
			"stock_in.do 99: done; stock_in.do 1: done; stock_in.do 1: done; together(relocate.do 1 | relocate.do 1)"},
	}
	checkShapes(t, tests)
}

// Two moves out of two accounts, each at least 0: the second refuses a
// call while the first still fits.
const twoShort = `book take v1
unit pcs
account a : pcs
  at least 0 refused as a_short
account b : pcs
  at least 0 refused as b_short
account world : pcs outside
transfer fill_a(id: string, n: pcs)
  key id
  move n from world to a
transfer take(t: string, x: pcs, y: pcs)
  key t
  move x from a to world
  move y from b to world
`

// Into a capped account, then out of one at least 0.
const capThenShort = `book park v1
unit pcs
account bin : pcs
  at most 5 refused as bin_full
account spare : pcs
  at least 0 refused as no_spare
account world : pcs outside
transfer park(t: string, x: pcs, y: pcs)
  key t
  pending expires after 10 minutes
  move x from world to bin
  move y from spare to world
`

func TestGenerateRefusedKeys(t *testing.T) {
	tests := []shapeCase{
		// Refused by b; a drawn down to where move 1 alone is refused;
		// the same call again stays already_refused.
		{twoShort, "take.do refused at move 2 with b_short; then a comes down until move 1 alone would be refused with a_short; the same call again: already_refused",
			"fill_a.do 1: done; take.do 1 1: refused: b_short; take.do 1 0: done; take.do 1 1: refused: already_refused"},
		{twoShort, "take.do refused with b_short, then the same key with other content: already_refused",
			"fill_a.do 1: done; take.do 1 1: refused: b_short; take.do 2 1: refused: already_refused"},
		// An upper bound: the bin is filled up by other calls.
		{capThenShort, "park.hold refused at move 2 with no_spare; then bin fills up until move 1 alone would be refused with bin_full; the same call again: already_refused",
			"park.hold 1 1: refused: no_spare; park.hold 5 0: done; park.post: done; park.hold 1 1: refused: already_refused"},
	}
	checkShapes(t, tests)
	// Where no earlier move can refuse (the first move comes from outside,
	// or there is one move), there is nothing for an earlier move to show.
	for _, src := range []string{withFee, bins, creditAtOnce} {
		res := check.Check("test.book", []byte(src))
		for _, sc := range scenario.Generate(res.Book) {
			if strings.Contains(sc.Name, "alone would be refused") {
				t.Errorf("%s: %q", res.Book.Name, sc.Name)
			}
		}
	}
}
