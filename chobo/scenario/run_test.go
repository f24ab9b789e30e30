package scenario_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

const shop = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to stock(sku)
transfer reserve(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 30 minutes
  move qty from stock(sku) to world
`

func load(t testing.TB) *book.Book {
	t.Helper()
	res := check.Check("shop.book", []byte(shop))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	return res.Book
}

func hold(order string, qty int) string {
	return fmt.Sprintf(`{"op": "reserve.hold", "args": {"order": %q, "sku": "s-1", "qty": %d}}`, order, qty)
}

func read(t testing.TB, b *book.Book, js string) []scenario.Scenario {
	t.Helper()
	scs, err := scenario.Read(b, []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return scs
}

func TestTogetherLastUnit(t *testing.T) {
	b := load(t)
	scs := read(t, b, `{"name": "last unit", "steps": [
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}},
		{"together": [[`+hold("o-1", 1)+`], [`+hold("o-2", 1)+`]]}]}`)
	outs := scenario.Run(b, scs[0])
	if len(outs) != 2 {
		t.Fatalf("want 2 outcomes, got %d", len(outs))
	}
	// The first order found is caller 1 first.
	if outs[0].Results[1].Reason != "" || outs[0].Results[2].Reason != "out_of_stock" {
		t.Errorf("outcome 1: %+v", outs[0].Results)
	}
	if outs[1].Results[1].Reason != "out_of_stock" || outs[1].Results[2].Reason != "" {
		t.Errorf("outcome 2: %+v", outs[1].Results)
	}
}

func TestTogetherMergesEqualOutcomes(t *testing.T) {
	b := load(t)
	// Plenty of stock: every order ends the same way.
	scs := read(t, b, `{"name": "plenty", "steps": [
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 100}},
		{"together": [[`+hold("o-1", 1)+`,`+hold("o-2", 1)+`], [`+hold("o-3", 1)+`], [`+hold("o-4", 1)+`]]}]}`)
	if outs := scenario.Run(b, scs[0]); len(outs) != 1 {
		t.Fatalf("want 1 outcome, got %d", len(outs))
	}
}

func TestTogetherBranchesCarryOn(t *testing.T) {
	b := load(t)
	// After the race, each outcome goes on with its own ledger: only the
	// winner's hold can be posted.
	scs := read(t, b, `{"name": "race then post", "steps": [
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}},
		{"together": [[`+hold("o-1", 1)+`], [`+hold("o-2", 1)+`]]},
		{"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1"}},
		{"pass": "1 hour"}]}`)
	outs := scenario.Run(b, scs[0])
	if len(outs) != 2 {
		t.Fatalf("want 2 outcomes, got %d", len(outs))
	}
	if outs[0].Results[3].Outcome.String() != "done" || outs[1].Results[3].Reason != "no_such_hold" {
		t.Errorf("posts: %+v / %+v", outs[0].Results[3], outs[1].Results[3])
	}
	if len(outs[0].Expired[3]) != 0 || strings.Join(outs[1].Expired[3], ",") != "reserve(o-2, s-1)" {
		t.Errorf("expired: %v / %v", outs[0].Expired, outs[1].Expired)
	}
}

func TestReadErrors(t *testing.T) {
	b := load(t)
	nine := make([]string, 9)
	for i := range nine {
		nine[i] = "[" + hold(fmt.Sprintf("o-%d", i), 1) + "]"
	}
	tests := []struct{ js, want string }{
		{`{"name": "x", "steps": [{"together": [` + strings.Join(nine, ",") + `]}]}`, "at most 8"},
		{`{"name": "x", "steps": [{"op": "nope.do", "args": {}}]}`, "no transfer"},
		{`{"name": "x", "steps": [{"op": "ｒｅｃｅｉｖｅ.do", "args": {}}]}`, "`receive` is declared, but here the name is in full-width characters"},
		{`{"name": "x", "steps": [{"op": "receive.hold", "args": {}}]}`, "has the operations"},
		{`{"name": "x", "steps": [{"op": "receive.do", "args": {"qty": 1.5}}]}`, "whole number"},
		{`{"name": "x", "steps": [{"op": "receive.do", "args": {"qty": "2"}}]}`, "JSON integer"},
		{`{"name": "x", "steps": [{"op": "receive.do", "args": {"sku": 2}}]}`, "takes a string"},
		{`{"name": "x", "steps": [{"pass": "3 weeks"}]}`, "seconds, minutes"},
		{`{"name": "x", "steps": [{"pass": "3 days", "op": "receive.do"}]}`, "exactly one"},
		{`{"name": "x", "steps": [], "extra": 1}`, "unknown field"},
		{`{"steps": []}`, `"name" is missing`},
		{`[{"name": "x", "steps": []}, {"name": "y"}]`, "scenario 2"},
	}
	for _, tt := range tests {
		_, err := scenario.Read(b, []byte(tt.js))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.js, err, tt.want)
		}
	}
}

func TestAmountOutsideRangeFails(t *testing.T) {
	b := load(t)
	scs := read(t, b, `{"name": "huge", "steps": [
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 9223372036854775808}},
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}}]}`)
	outs := scenario.Run(b, scs[0])
	if outs[0].Results[0].Failed == "" || outs[0].Results[1].Outcome.String() != "done" {
		t.Fatalf("%+v", outs[0].Results)
	}
}

// The text of a run writes amounts at the unit's scale, those that do not
// fit in 64 bits too, while String keeps the scenario file's integers.
func TestRunTextAtScale(t *testing.T) {
	res := check.Check("usd.book", []byte(strings.NewReplacer("unit pcs", "unit USD scale 2", ": pcs", ": USD").Replace(shop)))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	scs := read(t, res.Book, `{"name": "cents", "steps": [
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1250}},
		{"op": "receive.do", "args": {"delivery": "d-2", "sku": "s-1", "qty": -5}},
		{"op": "receive.do", "args": {"delivery": "d-3", "sku": "s-1", "qty": 9223372036854775808}}]}`)
	steps := scs[0].Steps
	for i, want := range []struct{ display, plain string }{
		{"qty: 12.50)", "qty: 1250)"}, {"qty: -0.05)", "qty: -5)"}, {"qty: 92233720368547758.08)", "qty: 9223372036854775808)"},
	} {
		if got := steps[i].Call.Display(); !strings.HasSuffix(got, want.display) {
			t.Errorf("step %d: Display %q, want it to end in %q", i+1, got, want.display)
		}
		if got := steps[i].Call.String(); !strings.HasSuffix(got, want.plain) {
			t.Errorf("step %d: String %q, want it to end in %q", i+1, got, want.plain)
		}
	}
	var b strings.Builder
	scenario.WriteText(&b, "usd.book", scs[0], scenario.Run(res.Book, scs[0]), diag.English)
	if !strings.Contains(b.String(), "stock(s-1)  posted 12.50, held out 0.00, held in 0.00") {
		t.Errorf("the balance is not at scale:\n%s", b.String())
	}
}

// BenchmarkTogether4x2 enumerates 4 callers with 2 calls each (2,520
// orders) racing for stock that only some of them can get.
func BenchmarkTogether4x2(b *testing.B) {
	bk := load(b)
	var callers []string
	for c := 0; c < 4; c++ {
		callers = append(callers, "["+hold(fmt.Sprintf("o-%d", 2*c), 1+c%2)+","+hold(fmt.Sprintf("o-%d", 2*c+1), 1)+"]")
	}
	scs := read(b, bk, `{"name": "4x2", "steps": [
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 5}},
		{"together": [`+strings.Join(callers, ",")+`]}]}`)
	b.ResetTimer()
	var n int
	for range b.N {
		n = len(scenario.Run(bk, scs[0]))
	}
	b.ReportMetric(float64(n), "outcomes")
}

// Every step of a trace is a ledger the scenario cut after that step can
// end in, and the last is the outcome's own; Trace finds Explore's
// outcomes, in Explore's order.
func TestTraceStepsAreReachable(t *testing.T) {
	b := load(t)
	scs := scenario.Generate(b)
	scs = append(scs, read(t, b, `{"name": "race then more", "steps": [
		{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
		{"together": [[`+hold("o-1", 2)+`], [`+hold("o-2", 1)+`, `+hold("o-3", 1)+`]]},
		{"op": "reserve.post", "args": {"order": "o-2", "sku": "s-1"}},
		{"pass": "31 minutes"}]}`)...)
	traced := 0
	for _, sc := range scs {
		outs, _, err := scenario.Trace(b, sc, 0)
		if err != nil {
			t.Fatal(err)
		}
		plain := scenario.Run(b, sc)
		if len(outs) != len(plain) {
			t.Fatalf("%s: Trace found %d outcomes, Explore %d", sc.Name, len(outs), len(plain))
		}
		for i, o := range outs {
			if got, want := ledgerText(o.Accounts, o.Holds), ledgerText(plain[i].Accounts, plain[i].Holds); got != want {
				t.Errorf("%s: outcome %d is %s by Trace, %s by Explore", sc.Name, i+1, got, want)
			}
			if len(o.Trace) != len(sc.Steps) {
				t.Fatalf("%s: %d steps traced of %d", sc.Name, len(o.Trace), len(sc.Steps))
			}
			last := o.Trace[len(o.Trace)-1]
			if ledgerText(last.Accounts, last.Holds) != ledgerText(o.Accounts, o.Holds) {
				t.Errorf("%s: the last step's ledger is not the outcome's", sc.Name)
			}
			for k, snap := range o.Trace {
				cut := sc
				cut.Steps = sc.Steps[:k+1]
				found := false
				for _, c := range scenario.Run(b, cut) {
					found = found || ledgerText(c.Accounts, c.Holds) == ledgerText(snap.Accounts, snap.Holds)
				}
				if !found {
					t.Errorf("%s, outcome %d, step %d: %s is no ledger the first %d steps end in",
						sc.Name, i+1, k+1, ledgerText(snap.Accounts, snap.Holds), k+1)
				}
				traced++
			}
		}
	}
	if traced < 50 {
		t.Fatalf("only %d steps traced", traced)
	}
}

func ledgerText(accs []interp.AccountBalance, holds []scenario.HoldView) string {
	var sb strings.Builder
	for _, a := range accs {
		fmt.Fprintf(&sb, "%s=%d/%d/%d ", a.Account, a.Balance.Posted, a.Balance.HeldOut, a.Balance.HeldIn)
	}
	for _, h := range holds {
		fmt.Fprintf(&sb, "%s:%s ", h.Name, h.State)
	}
	return sb.String()
}
