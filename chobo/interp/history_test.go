package interp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// historyLedger runs every kind of call on the shop: a do, a hold posted
// in part, a hold voided, a hold that expires, calls that write nothing,
// and a call of two moves that reach one account twice.
func historyLedger(t *testing.T) (*book.Book, *interp.State) {
	t.Helper()
	b := load(t, shop)
	st := interp.New(b)
	st.KeepHistory()
	call := func(tr string, op book.Op, strs map[string]string, amts map[string]int64, want string) {
		t.Helper()
		r, err := st.Apply(interp.Call{Transfer: b.Transfer(tr), Op: op, Strings: strs, Amounts: amts})
		if err != nil || r.Short() != want {
			t.Fatalf("%s.%s: got %v %v, want %s", tr, op, r.Short(), err, want)
		}
	}
	pass := func(secs int64) {
		t.Helper()
		if _, err := st.Pass(secs); err != nil {
			t.Fatal(err)
		}
	}
	call("receive", book.Do, s("delivery", "d-1", "sku", "s-1"), q(10), "done")
	call("receive", book.Do, s("delivery", "d-1", "sku", "s-1"), q(10), "done_before")          // writes nothing
	call("reserve", book.Hold, s("order", "o-0", "sku", "s-1"), q(20), "refused: out_of_stock") // writes nothing
	pass(60)
	call("reserve", book.Hold, s("order", "o-1", "sku", "s-1"), q(4), "done")
	call("reserve", book.Post, s("order", "o-1", "sku", "s-1"), q(3), "done")
	call("keep", book.Hold, s("order", "k-1", "sku", "s-1"), q(2), "done")
	call("keep", book.Void, s("order", "k-1"), nil, "done")
	call("reserve", book.Hold, s("order", "o-2", "sku", "s-1"), q(1), "done")
	call("shelve", book.Do, s("order", "sh-1", "sku", "s-1"), q(2), "done")
	call("keep", book.Hold, s("order", "k-2", "sku", "s-1"), q(1), "done")
	pass(1800) // o-2 expires; k-2 never does
	return b, st
}

func lines(es []interp.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.String())
	}
	return out
}

func TestStatementEveryKindOfCall(t *testing.T) {
	b, st := historyLedger(t)
	s1 := interp.Account{Kind: b.Accounts[0], Args: []string{"s-1"}}
	page, err := st.Statement(s1, interp.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"stock(s-1) at 0s: receive.do(delivery: d-1, sku: s-1, qty: 10) move 1 in; posted +10 -> posted 10, held out 0, held in 0",
		"stock(s-1) at 60s: reserve.hold(order: o-1, sku: s-1, qty: 4) move 1 out; held out +4 -> posted 10, held out 4, held in 0",
		"stock(s-1) at 60s: reserve.post(order: o-1, sku: s-1, qty: 3) move 1 out; posted -3, held out -4 -> posted 7, held out 0, held in 0",
		"stock(s-1) at 60s: keep.hold(order: k-1, sku: s-1, qty: 2) move 1 out; held out +2 -> posted 7, held out 2, held in 0",
		"stock(s-1) at 60s: keep.void(order: k-1) move 1 out; held out -2 -> posted 7, held out 0, held in 0",
		"stock(s-1) at 60s: reserve.hold(order: o-2, sku: s-1, qty: 1) move 1 out; held out +1 -> posted 7, held out 1, held in 0",
		"stock(s-1) at 60s: shelve.do(order: sh-1, sku: s-1, qty: 2) move 1 out; posted -2 -> posted 5, held out 1, held in 0",
		"stock(s-1) at 60s: keep.hold(order: k-2, sku: s-1, qty: 1) move 1 out; held out +1 -> posted 5, held out 2, held in 0",
		"stock(s-1) at 1860s: reserve.expire(order: o-2, sku: s-1) move 1 out; held out -1 -> posted 5, held out 1, held in 0",
	}
	if got := lines(page.Entries); !slices.Equal(got, want) {
		t.Errorf("statement:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if page.More {
		t.Error("a page without a limit says more follow")
	}
	// The entries' balances agree with the ledger's.
	if last := page.Entries[len(page.Entries)-1].After; last != st.Balance(s1) {
		t.Errorf("last entry leaves %+v, the ledger holds %+v", last, st.Balance(s1))
	}
	// Two moves of one call reach bin(s-1): each entry shows what it left.
	bin, _ := st.Statement(interp.Account{Kind: b.Accounts[1], Args: []string{"s-1"}}, interp.Filter{})
	wantBin := []string{
		"bin(s-1) at 60s: shelve.do(order: sh-1, sku: s-1, qty: 2) move 1 in; posted +2 -> posted 2, held out 0, held in 0",
		"bin(s-1) at 60s: shelve.do(order: sh-1, sku: s-1, qty: 2) move 2 in; posted +1 -> posted 3, held out 0, held in 0",
	}
	if got := lines(bin.Entries); !slices.Equal(got, wantBin) {
		t.Errorf("bin:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantBin, "\n"))
	}
}

func TestStatementFilters(t *testing.T) {
	b, st := historyLedger(t)
	s1 := interp.Account{Kind: b.Accounts[0], Args: []string{"s-1"}}
	at := func(n int64) *int64 { return &n }
	seqs := func(p interp.Page) []int64 {
		var out []int64
		for _, e := range p.Entries {
			out = append(out, e.Seq)
		}
		return out
	}
	all, _ := st.Statement(s1, interp.Filter{})
	var allSeqs []int64
	for _, e := range all.Entries {
		allSeqs = append(allSeqs, e.Seq)
	}
	for _, tc := range []struct {
		name string
		f    interp.Filter
		want []int // indexes into the whole statement
		more bool
	}{
		{"newest first", interp.Filter{Order: interp.Newest}, []int{8, 7, 6, 5, 4, 3, 2, 1, 0}, false},
		{"limit", interp.Filter{Limit: 2}, []int{0, 1}, true},
		{"newest, limit", interp.Filter{Order: interp.Newest, Limit: 3}, []int{8, 7, 6}, true},
		{"limit equal to what is left", interp.Filter{Limit: 9}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, false},
		{"from", interp.Filter{From: 61}, []int{8}, false},
		{"to, exclusive", interp.Filter{To: at(60)}, []int{0}, false},
		{"from and to", interp.Filter{From: 60, To: at(1860)}, []int{1, 2, 3, 4, 5, 6, 7}, false},
		{"one kind", interp.Filter{Transfers: []*book.Transfer{b.Transfer("keep")}}, []int{3, 4, 7}, false},
		{"two kinds, newest", interp.Filter{Transfers: []*book.Transfer{b.Transfer("receive"), b.Transfer("shelve")}, Order: interp.Newest}, []int{6, 0}, false},
		{"kind and limit", interp.Filter{Transfers: []*book.Transfer{b.Transfer("reserve")}, Limit: 3}, []int{1, 2, 5}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := st.Statement(s1, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, i := range tc.want {
				want = append(want, allSeqs[i])
			}
			if got := seqs(p); !slices.Equal(got, want) || p.More != tc.more {
				t.Errorf("got %v more=%v, want %v more=%v", got, p.More, want, tc.more)
			}
		})
	}
}

// TestCursor pages through a statement in both orders, and keeps reading
// from a cursor after more calls came.
func TestCursor(t *testing.T) {
	b, st := historyLedger(t)
	s1 := interp.Account{Kind: b.Accounts[0], Args: []string{"s-1"}}
	all, _ := st.Statement(s1, interp.Filter{})
	for _, order := range []interp.Order{interp.Oldest, interp.Newest} {
		var got []int64
		after := ""
		for range 10 {
			p, err := st.Statement(s1, interp.Filter{Order: order, Limit: 2, After: after})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				got = append(got, e.Seq)
			}
			after = p.Next
			if !p.More {
				break
			}
		}
		var want []int64
		for _, e := range all.Entries {
			want = append(want, e.Seq)
		}
		if order == interp.Newest {
			slices.Reverse(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("order %d: pages give %v, want %v", order, got, want)
		}
	}

	// A cursor read oldest first, then calls, then the next page: the
	// page starts right after where the first stopped and holds the
	// new entries.
	first, _ := st.Statement(s1, interp.Filter{Limit: 8})
	if _, err := st.Apply(interp.Call{Transfer: b.Transfer("receive"), Op: book.Do, Strings: s("delivery", "d-2", "sku", "s-1"), Amounts: q(1)}); err != nil {
		t.Fatal(err)
	}
	next, err := st.Statement(s1, interp.Filter{After: first.Next})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Entries) != 2 || next.Entries[0].Seq != all.Entries[8].Seq || next.Entries[1].Call.Strings["delivery"] != "d-2" {
		t.Errorf("after new calls the next page is %v", lines(next.Entries))
	}
	// An empty page keeps the cursor it was given.
	end, _ := st.Statement(s1, interp.Filter{After: next.Next})
	if len(end.Entries) != 0 || end.Next != next.Next || end.More {
		t.Errorf("past the end: %+v", end)
	}

	for _, bad := range []string{"x", "h0", "h999", "h01", "3"} {
		if _, err := st.Statement(s1, interp.Filter{After: bad}); err == nil || !strings.Contains(err.Error(), "not a cursor") {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if _, err := st.Statement(s1, interp.Filter{Limit: -1}); err == nil {
		t.Error("a negative limit is read")
	}
}

func TestCallEntriesHoldsAndBalanceAt(t *testing.T) {
	b, st := historyLedger(t)
	s1 := interp.Account{Kind: b.Accounts[0], Args: []string{"s-1"}}
	world := interp.Account{Kind: b.Accounts[2]}
	for _, tc := range []struct {
		tr   string
		key  []string
		want []string
	}{
		{"reserve", []string{"o-1", "s-1"}, []string{
			"stock(s-1) at 60s: reserve.hold(order: o-1, sku: s-1, qty: 4) move 1 out; held out +4 -> posted 10, held out 4, held in 0",
			"world at 60s: reserve.hold(order: o-1, sku: s-1, qty: 4) move 1 in; held in +4 -> posted -10, held out 0, held in 4",
			"stock(s-1) at 60s: reserve.post(order: o-1, sku: s-1, qty: 3) move 1 out; posted -3, held out -4 -> posted 7, held out 0, held in 0",
			"world at 60s: reserve.post(order: o-1, sku: s-1, qty: 3) move 1 in; posted +3, held in -4 -> posted -7, held out 0, held in 0",
		}},
		{"reserve", []string{"o-2", "s-1"}, []string{
			"stock(s-1) at 60s: reserve.hold(order: o-2, sku: s-1, qty: 1) move 1 out; held out +1 -> posted 7, held out 1, held in 0",
			"world at 60s: reserve.hold(order: o-2, sku: s-1, qty: 1) move 1 in; held in +1 -> posted -7, held out 0, held in 1",
			"stock(s-1) at 1860s: reserve.expire(order: o-2, sku: s-1) move 1 out; held out -1 -> posted 5, held out 1, held in 0",
			"world at 1860s: reserve.expire(order: o-2, sku: s-1) move 1 in; held in -1 -> posted -8, held out 0, held in 1",
		}},
		{"keep", []string{"k-1"}, []string{
			"stock(s-1) at 60s: keep.hold(order: k-1, sku: s-1, qty: 2) move 1 out; held out +2 -> posted 7, held out 2, held in 0",
			"world at 60s: keep.hold(order: k-1, sku: s-1, qty: 2) move 1 in; held in +2 -> posted -7, held out 0, held in 2",
			"stock(s-1) at 60s: keep.void(order: k-1) move 1 out; held out -2 -> posted 7, held out 0, held in 0",
			"world at 60s: keep.void(order: k-1) move 1 in; held in -2 -> posted -7, held out 0, held in 0",
		}},
		{"reserve", []string{"o-9", "s-1"}, nil}, // never used
		{"receive", []string{"d-1", "s-1"}, []string{
			"world at 0s: receive.do(delivery: d-1, sku: s-1, qty: 10) move 1 out; posted -10 -> posted -10, held out 0, held in 0",
			"stock(s-1) at 0s: receive.do(delivery: d-1, sku: s-1, qty: 10) move 1 in; posted +10 -> posted 10, held out 0, held in 0",
		}},
	} {
		got, err := st.CallEntries(b.Transfer(tc.tr), tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(lines(got), tc.want) {
			t.Errorf("%s%v:\n%s\nwant:\n%s", tc.tr, tc.key, strings.Join(lines(got), "\n"), strings.Join(tc.want, "\n"))
		}
	}
	if _, err := st.CallEntries(b.Transfer("reserve"), []string{"o-1"}); err == nil {
		t.Error("a key of the wrong length is read")
	}

	names := func(hs []*interp.Hold) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Name())
		}
		return out
	}
	if got := names(st.OpenHolds(&s1, nil)); !slices.Equal(got, []string{"keep(k-2)"}) {
		t.Errorf("open holds of stock(s-1): %v", got)
	}
	if got := names(st.OpenHolds(nil, b.Transfer("reserve"))); len(got) != 0 {
		t.Errorf("open holds of reserve: %v", got)
	}
	other := interp.Account{Kind: b.Accounts[0], Args: []string{"s-2"}}
	if got := names(st.OpenHolds(&other, nil)); len(got) != 0 {
		t.Errorf("open holds of stock(s-2): %v", got)
	}

	for _, tc := range []struct {
		at   int64
		want interp.Balance
	}{
		{0, interp.Balance{Posted: 10}},
		{59, interp.Balance{Posted: 10}},
		{60, interp.Balance{Posted: 5, HeldOut: 2}},
		{1859, interp.Balance{Posted: 5, HeldOut: 2}},
		{1860, interp.Balance{Posted: 5, HeldOut: 1}},
	} {
		if got, err := st.BalanceAt(s1, tc.at); err != nil || got != tc.want {
			t.Errorf("balance at %d: %+v %v, want %+v", tc.at, got, err, tc.want)
		}
	}
	if got, _ := st.BalanceAt(world, 0); got != (interp.Balance{Posted: -10}) {
		t.Errorf("world at 0: %+v", got)
	}
	for _, at := range []int64{-1, 1861} {
		if _, err := st.BalanceAt(s1, at); err == nil {
			t.Errorf("balance at %d is read", at)
		}
	}
}

func TestNoHistoryByDefault(t *testing.T) {
	b := load(t, shop)
	st := interp.New(b)
	if _, err := st.Apply(interp.Call{Transfer: b.Transfer("receive"), Op: book.Do, Strings: s("delivery", "d-1", "sku", "s-1"), Amounts: q(1)}); err != nil {
		t.Fatal(err)
	}
	s1 := interp.Account{Kind: b.Accounts[0], Args: []string{"s-1"}}
	if _, err := st.Statement(s1, interp.Filter{}); err == nil {
		t.Error("a ledger without history gives a statement")
	}
	// A clone keeps its own history: what one appends, the other does
	// not see.
	st.KeepHistory()
	c := st.Clone()
	if _, err := c.Apply(interp.Call{Transfer: b.Transfer("receive"), Op: book.Do, Strings: s("delivery", "d-2", "sku", "s-1"), Amounts: q(1)}); err != nil {
		t.Fatal(err)
	}
	p1, _ := st.Statement(s1, interp.Filter{})
	p2, _ := c.Statement(s1, interp.Filter{})
	if len(p1.Entries) != 0 || len(p2.Entries) != 1 {
		t.Errorf("original %d entries, clone %d", len(p1.Entries), len(p2.Entries))
	}
}

func TestParseAccount(t *testing.T) {
	b := load(t, shop)
	for _, tc := range []struct{ in, want, err string }{
		{"stock(s-1)", "stock(s-1)", ""},
		{"world", "world", ""},
		{"stock", "", "takes 1 values"},
		{"stock(a, b)", "", "takes 1 values"},
		{"stock(s-1", "", "closing bracket"},
		{"nothing(x)", "", "no account"},
	} {
		a, err := interp.ParseAccount(b, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || a.String() != tc.want {
			t.Errorf("%q: %v %v", tc.in, a, err)
		}
	}
}

// A move of 0 writes its entries all the same, and says so at the
// unit's scale, as every amount of the line is written.
func TestZeroChangeAtTheUnitsScale(t *testing.T) {
	b := load(t, `book cents v1
unit USD scale 2
account wallet : USD
  at least 0 refused as short
account bank : USD outside
transfer top_up(id: string, amount: USD)
  key id
  move amount from bank to wallet
`)
	st := interp.New(b)
	st.KeepHistory()
	if _, err := st.Apply(interp.Call{Transfer: b.Transfer("top_up"), Op: book.Do, Strings: s("id", "t-1"), Amounts: map[string]int64{"amount": 0}}); err != nil {
		t.Fatal(err)
	}
	page, err := st.Statement(interp.Account{Kind: b.Accounts[0]}, interp.Filter{})
	if err != nil || len(page.Entries) != 1 {
		t.Fatalf("%v %v", page, err)
	}
	e := page.Entries[0]
	if got, want := e.String(), "wallet at 0s: top_up.do(id: t-1, amount: 0.00) move 1 in; posted 0.00 -> posted 0.00, held out 0.00, held in 0.00"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := e.ChangeText(true); got != "確定 0.00" {
		t.Errorf("in Japanese: %s", got)
	}
}

// Open holds come in the order they were made, as a backend lists them by
// the time of their hold calls, and not in the order of their keys.
func TestOpenHoldsInTheOrderMade(t *testing.T) {
	b := load(t, shop)
	st := interp.New(b)
	st.KeepHistory()
	for _, c := range []interp.Call{
		{Transfer: b.Transfer("receive"), Op: book.Do, Strings: s("delivery", "d-1", "sku", "s-1"), Amounts: q(10)},
		{Transfer: b.Transfer("keep"), Op: book.Hold, Strings: s("order", "k-9", "sku", "s-1"), Amounts: q(1)},
		{Transfer: b.Transfer("reserve"), Op: book.Hold, Strings: s("order", "o-5", "sku", "s-1"), Amounts: q(1)},
		{Transfer: b.Transfer("keep"), Op: book.Hold, Strings: s("order", "k-1", "sku", "s-1"), Amounts: q(1)},
	} {
		if r, err := st.Apply(c); err != nil || r.Short() != "done" {
			t.Fatalf("%s: %v %v", c.Transfer.Name, r.Short(), err)
		}
	}
	var got []string
	for _, h := range st.OpenHolds(nil, nil) {
		got = append(got, h.Name())
	}
	want := []string{"keep(k-9)", "reserve(o-5, s-1)", "keep(k-1)"}
	if !slices.Equal(got, want) {
		t.Fatalf("open holds %v, want %v", got, want)
	}
}
