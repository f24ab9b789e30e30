package conformance

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

const bins = `book bins v1
unit pcs
account bin(sku: string) : pcs
  at least 0 refused as empty
account world : pcs outside
transfer fill(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to bin(sku)
`

// wideBackend stands for a backend that keeps 128-bit balances. As
// "tigerbeetle" it lets every call through and then cannot read the
// balance, as design 4.4 says TigerBeetle does; as "interpreter" it
// answers as the interpreter, which a backend that lets 64 bits through
// must not.
type wideBackend struct {
	as    string
	mu    sync.Mutex
	state *interp.State
	calls int
}

func (w *wideBackend) LetsSixtyFourBitsThrough() bool { return true }

func (w *wideBackend) Call(_ context.Context, c interp.Call, _ string) (interp.Result, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	if w.as == "tigerbeetle" {
		return interp.Result{Outcome: interp.Done}, nil
	}
	return w.state.Apply(c)
}

func (w *wideBackend) Expire(context.Context, string) (bool, error) { return false, nil }

func (w *wideBackend) Ledger(context.Context, string) ([]string, []string, error) {
	if w.as == "tigerbeetle" {
		return nil, nil, &chobotb.BalanceError{Account: "bin(a)", Field: "posted", Value: "9223372036854775808"}
	}
	return nil, nil, nil
}

func TestSixtyFourBitsOnABackendThatLetsThemThrough(t *testing.T) {
	res := check.Check("bins.book", []byte(bins))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	b := res.Book
	fill := func(delivery string, qty int64) scenario.Step {
		return scenario.Step{Call: &scenario.Call{Call: interp.Call{Transfer: b.Transfer("fill"), Op: book.Do,
			Strings: map[string]string{"delivery": delivery, "sku": "a"}, Amounts: map[string]int64{"qty": qty}}}}
	}
	sc := scenario.Scenario{Name: "past 64 bits", Steps: []scenario.Step{fill("d-1", math.MaxInt64), fill("d-2", 1), fill("d-3", 1)}}

	tb := &wideBackend{as: "tigerbeetle"}
	var r reporter
	st := RunAll(&r, []Job{{Where: "bins.book", Book: b, Scenario: sc, Backend: tb, Pair: "tigerbeetle-go (test)", Tenant: "t"}})
	if len(r.errors) > 0 {
		t.Fatalf("a backend that does what TigerBeetle is said to do was reported: %q", r.errors)
	}
	if st.Wide != 1 || st.Total != 1 || st.Failed != 0 {
		t.Errorf("stats %+v", st)
	}
	if tb.calls != 2 {
		t.Errorf("%d calls made, want 2: the run stops at the call that leaves 64 bits", tb.calls)
	}

	like := &wideBackend{as: "interpreter", state: interp.New(b)}
	r = reporter{}
	st = RunAll(&r, []Job{{Where: "bins.book", Book: b, Scenario: sc, Backend: like, Pair: "tigerbeetle-go (test)", Tenant: "t"}})
	all := strings.Join(r.errors, "\n")
	for _, want := range []string{
		`bins.book on tigerbeetle-go (test) "past 64 bits", where a balance leaves 64 bits`,
		"the call that leaves 64 bits answered failed, want done",
		"want an error that a balance is outside 64 bits",
		"call 2 failed: move 1 would take a balance out of 64 bits",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no report of %q; reported:\n%s", want, all)
		}
	}
	if st.Failed != 1 {
		t.Errorf("stats %+v", st)
	}
}
