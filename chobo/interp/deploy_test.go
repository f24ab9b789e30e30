package interp_test

import (
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// venue is a book whose sections hold at most 500 seats; the versions
// below change that bound, and nothing else.
const venue = `book venue v1
unit seats
account section(id: string) : seats
  at most 500 refused as section_full
account pool : seats outside
transfer sell(order: string, id: string, qty: seats)
  key order
  move qty from pool to section(id)
transfer refund(order: string, id: string, qty: seats)
  key order
  move qty from section(id) to pool
transfer reserve(order: string, id: string, qty: seats)
  key order
  pending expires after 30 minutes
  move qty from pool to section(id)
`

// venueAt is venue with another upper bound line.
func venueAt(t *testing.T, bound string) *book.Book {
	t.Helper()
	return load(t, strings.Replace(venue, "at most 500 refused as section_full", bound, 1))
}

// deployStep is a step of a table that may deploy: a call, a pass, or
// (to set) the version to put in place.
type deployStep struct {
	step
	to string // the bound line of the version to deploy
}

func sold(order string, n int64) step {
	return step{tr: "sell", op: book.Do, strs: s("order", order, "id", "s-1"), amts: q(n)}
}

func refunded(order string, n int64) step {
	return step{tr: "refund", op: book.Do, strs: s("order", order, "id", "s-1"), amts: q(n)}
}

func reserved(order string, n int64) step {
	return step{tr: "reserve", op: book.Hold, strs: s("order", order, "id", "s-1"), amts: q(n)}
}

func settled(op book.Op, order string) step {
	return step{tr: "reserve", op: op, strs: s("order", order)}
}

func want(st step, w string) deployStep { st.want = w; return deployStep{step: st} }

func deploy(bound string) deployStep { return deployStep{to: bound} }

func posted(n, in int64) map[string]interp.Balance {
	return map[string]interp.Balance{"section(s-1)": {Posted: n, HeldIn: in}}
}

// TestDeployBounds: a new version's bounds judge the calls after it, on
// the side each move pushes; no balance, hold or key changes with it.
func TestDeployBounds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []deployStep
	}{
		{"widened", []deployStep{
			want(sold("o-1", 500), "done"),
			want(sold("o-2", 1), "refused: section_full"),
			deploy("at most 600 refused as section_full"),
			want(sold("o-3", 50), "done"),
			// A key keeps its answer: refused before, refused for good.
			want(sold("o-2", 1), "refused: already_refused"),
			want(sold("o-1", 500), "done_before"),
			want(sold("o-4", 51), "refused: section_full"),
		}},
		{"narrowed, an account inside", []deployStep{
			want(sold("o-1", 300), "done"),
			deploy("at most 350 refused as section_full"),
			want(sold("o-2", 50), "done"),
			want(sold("o-3", 1), "refused: section_full"),
		}},
		{"narrowed, an account outside", []deployStep{
			want(sold("o-1", 400), "done"),
			deploy("at most 350 refused as section_full"),
			{step: step{tr: "sell", op: book.Do, strs: s("order", "o-2", "id", "s-1"), amts: q(1), want: "refused: section_full", balance: posted(400, 0)}},
			// Back toward the bound, though still outside it: allowed.
			want(refunded("r-1", 20), "done"),
			want(sold("o-3", 1), "refused: section_full"),
			want(refunded("r-2", 40), "done"),
			// Inside again, the bound holds as for any account.
			want(sold("o-4", 10), "done"),
			{step: step{tr: "sell", op: book.Do, strs: s("order", "o-5", "id", "s-1"), amts: q(1), want: "refused: section_full", balance: posted(350, 0)}},
		}},
		{"holds made before", []deployStep{
			want(reserved("h-1", 200), "done"),
			want(reserved("h-2", 200), "done"),
			want(reserved("h-3", 50), "done"),
			deploy("at most 300 refused as section_full"),
			// Held in counts on the safe side: 450 > 300, nothing more.
			want(reserved("h-4", 1), "refused: section_full"),
			{step: step{tr: "reserve", op: book.Post, strs: s("order", "h-1"), want: "done", balance: posted(200, 250)}},
			{step: step{tr: "reserve", op: book.Void, strs: s("order", "h-2"), want: "done", balance: posted(200, 50)}},
			{step: step{pass: 30 * 60}},
			want(settled(book.Post, "h-3"), "refused: expired"),
			{step: step{tr: "sell", op: book.Do, strs: s("order", "o-1", "id", "s-1"), amts: q(100), want: "done", balance: posted(300, 0)}},
		}},
		{"reason renamed", []deployStep{
			want(sold("o-1", 500), "done"),
			want(sold("o-2", 1), "refused: section_full"),
			deploy("at most 500 refused as sold_out"),
			want(sold("o-2", 1), "refused: already_refused"),
			want(sold("o-3", 1), "refused: sold_out"),
		}},
		{"upper bound removed", []deployStep{
			want(sold("o-1", 500), "done"),
			deploy("at least -1 refused as overdrawn"),
			want(sold("o-2", 1000), "done"),
			want(refunded("r-1", 1501), "done"),
			want(refunded("r-2", 1), "refused: overdrawn"),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := load(t, venue)
			st := interp.New(b)
			for i, sp := range tt.steps {
				if sp.to != "" {
					b = venueAt(t, sp.to)
					st.Deploy(b)
					continue
				}
				if sp.tr == "" {
					if _, err := st.Pass(sp.pass); err != nil {
						t.Fatal(err)
					}
					continue
				}
				r, err := st.Apply(interp.Call{Transfer: b.Transfer(sp.tr), Op: sp.op, Strings: sp.strs, Amounts: sp.amts})
				if err != nil || r.Short() != sp.want {
					t.Fatalf("step %d %s.%s: got %s (err %v), want %s", i+1, sp.tr, sp.op, r.Short(), err, sp.want)
				}
				for name, w := range sp.balance {
					if got := st.Balance(interp.Account{Kind: b.Account("section"), Args: []string{"s-1"}}); name != "section(s-1)" || got != w {
						t.Fatalf("step %d: %s = %+v, want %+v", i+1, name, got, w)
					}
				}
			}
			// Every account and hold the ledger lists is the deployed
			// version's: what reads and listings compare by identity.
			for _, a := range st.Accounts() {
				if a.Account.Kind != b.Account(a.Account.Kind.Name) {
					t.Errorf("%s is still of the old version", a.Account)
				}
			}
			for _, h := range st.Holds() {
				if h.Transfer != b.Transfer(h.Transfer.Name) || h.To[0].Kind != b.Account("section") {
					t.Errorf("%s is still of the old version", h.Name())
				}
			}
		})
	}
}

// TestDeployLeavesTheClone: a ledger cloned before a deploy stays under
// the version it had, as the runner explores branches from one ledger.
func TestDeployLeavesTheClone(t *testing.T) {
	b := load(t, venue)
	st := interp.New(b)
	st.KeepHistory()
	if r, _ := st.Apply(interp.Call{Transfer: b.Transfer("reserve"), Op: book.Hold, Strings: s("order", "h-1", "id", "s-1"), Amounts: q(400)}); r.Short() != "done" {
		t.Fatalf("hold: %s", r.Short())
	}
	next := st.Clone()
	nb := venueAt(t, "at most 350 refused as section_full")
	next.Deploy(nb)
	call := func(b *book.Book) interp.Call {
		return interp.Call{Transfer: b.Transfer("sell"), Op: book.Do, Strings: s("order", "o-1", "id", "s-2"), Amounts: q(450)}
	}
	if r, _ := next.Apply(call(nb)); r.Short() != "refused: section_full" {
		t.Errorf("under the new version: %s", r.Short())
	}
	if r, _ := st.Apply(call(b)); r.Short() != "done" {
		t.Errorf("under the old version: %s", r.Short())
	}
	if h := st.Holds()[0]; h.Transfer != b.Transfer("reserve") || h.To[0].Kind != b.Account("section") {
		t.Error("deploying the clone moved the original's hold")
	}
	es, err := next.CallEntries(nb.Transfer("reserve"), []string{"h-1"})
	if err != nil || len(es) != 2 || es[0].Call.Transfer != nb.Transfer("reserve") {
		t.Errorf("the history after the deploy does not read as the new version's: %v %+v", err, es)
	}
}
