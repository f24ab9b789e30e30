package interp_test

import (
	"errors"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/interp"
)

const shop = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account bin(sku: string) : pcs
  at most 5 refused as bin_full
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to stock(sku)
transfer reserve(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 30 minutes
  move qty from stock(sku) to world
transfer keep(order: string, sku: string, qty: pcs)
  key order
  pending never expires
  move qty from stock(sku) to world
transfer shelve(order: string, sku: string, qty: pcs)
  key order
  move qty from stock(sku) to bin(sku)
  move 1 from world to bin(sku)
transfer swap(id: string, a: string, b: string, qty: pcs)
  key id
  move qty from stock(a) to stock(b)
`

func load(t *testing.T, src string) *book.Book {
	t.Helper()
	res := check.Check("t.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("book does not check: %+v", res.Diags)
	}
	return res.Book
}

// step is one line of a table: a call (or a pass) and what it must give.
type step struct {
	tr      string
	op      book.Op
	strs    map[string]string
	amts    map[string]int64
	pass    int64
	want    string // Result.Short, or "fail"
	balance map[string]interp.Balance
}

func s(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func q(n int64) map[string]int64 { return map[string]int64{"qty": n} }

func runSteps(t *testing.T, b *book.Book, steps []step) *interp.State {
	t.Helper()
	st := interp.New(b)
	for i, sp := range steps {
		if sp.tr == "" {
			if _, err := st.Pass(sp.pass); err != nil {
				t.Fatal(err)
			}
			continue
		}
		r, err := st.Apply(interp.Call{Transfer: b.Transfer(sp.tr), Op: sp.op, Strings: sp.strs, Amounts: sp.amts})
		got := r.Short()
		if err != nil {
			got = "fail"
		}
		if got != sp.want {
			t.Fatalf("step %d %s.%s: got %s (err %v), want %s", i+1, sp.tr, sp.op, got, err, sp.want)
		}
		for name, want := range sp.balance {
			var acc interp.AccountBalance
			found := false
			for _, a := range st.Accounts() {
				if a.Account.String() == name {
					acc, found = a, true
				}
			}
			if !found || acc.Balance != want {
				t.Fatalf("step %d: %s = %+v (found %v), want %+v", i+1, name, acc.Balance, found, want)
			}
		}
	}
	return st
}

// d1 is a delivery of sku s-1; o(order) is an order of it.
var d1 = s("delivery", "d-1", "sku", "s-1")

func o(order string) map[string]string { return s("order", order, "sku", "s-1") }

// semanticsCase is a named sequence of steps on the shop book.
type semanticsCase struct {
	name  string
	steps []step
}

func runCases(t *testing.T, cases []semanticsCase) {
	t.Helper()
	b := load(t, shop)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, b, tt.steps) })
	}
}

// Bounds count what is held; a key answers the same once used, even after
// a refusal.
func TestBoundsAndKeys(t *testing.T) {
	runCases(t, []semanticsCase{
		{"bounds on the safe side", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(2), want: "done"},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(2), want: "done",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 2, HeldOut: 2}, "world": {Posted: -2, HeldIn: 2}}},
			// held out counts: nothing is left to hold
			{tr: "reserve", op: book.Hold, strs: o("o-2"), amts: q(1), want: "refused: out_of_stock"},
		}},
		{"keys", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(2), want: "done"},
			{tr: "receive", op: book.Do, strs: d1, amts: q(2), want: "done_before"},
			{tr: "receive", op: book.Do, strs: d1, amts: q(3), want: "refused: key_conflict",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 2}}},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(5), want: "refused: out_of_stock"},
			{tr: "receive", op: book.Do, strs: s("delivery", "d-2", "sku", "s-1"), amts: q(10), want: "done"},
			// a bound refusal uses the key for good, whatever comes later
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(5), want: "refused: already_refused"},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(1), want: "refused: already_refused"},
		}},
	})
}

// A hold's life: post (in full or in part), void, expiry at the deadline
// instant, and a hold that never expires.
func TestHolds(t *testing.T) {
	runCases(t, []semanticsCase{
		{"hold lifecycle", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(5), want: "done"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), want: "refused: no_such_hold"},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(3), want: "done"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), amts: q(4), want: "refused: over_hold"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), amts: q(2), want: "done",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 3}, "world": {Posted: -3}}},
			{tr: "reserve", op: book.Post, strs: o("o-1"), amts: q(2), want: "done_before"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), want: "refused: key_conflict"},
			{tr: "reserve", op: book.Void, strs: o("o-1"), want: "refused: already_posted"},
			{tr: "reserve", op: book.Hold, strs: o("o-2"), amts: q(1), want: "done"},
			{tr: "reserve", op: book.Void, strs: o("o-2"), want: "done"},
			{tr: "reserve", op: book.Void, strs: o("o-2"), want: "done_before"},
			{tr: "reserve", op: book.Post, strs: o("o-2"), want: "refused: already_voided"},
			// the key of an ended hold answers done_before and holds nothing
			{tr: "reserve", op: book.Hold, strs: o("o-2"), amts: q(1), want: "done_before",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 3}}},
		}},
		{"full post equals posting the held amount", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(5), want: "done"},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(3), want: "done"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), want: "done"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), amts: q(3), want: "done_before"},
		}},
		{"expiry at the deadline instant", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(5), want: "done"},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(3), want: "done"},
			{pass: 1799},
			{tr: "reserve", op: book.Hold, strs: o("o-2"), amts: q(3), want: "refused: out_of_stock"},
			{pass: 1},
			{tr: "reserve", op: book.Post, strs: o("o-1"), want: "refused: expired",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 5}, "world": {Posted: -5}}},
			{tr: "reserve", op: book.Void, strs: o("o-1"), want: "refused: expired"},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(3), want: "done_before"},
			{tr: "reserve", op: book.Hold, strs: o("o-3"), amts: q(3), want: "done"},
		}},
		{"never expires", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(5), want: "done"},
			{tr: "keep", op: book.Hold, strs: o("o-1"), amts: q(3), want: "done"},
			{pass: 1 << 40},
			{tr: "keep", op: book.Post, strs: s("order", "o-1"), want: "done"},
		}},
		{"partial post gives all amounts or none", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(5), want: "done"},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(3), want: "done"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), amts: map[string]int64{}, want: "fail"},
			{tr: "reserve", op: book.Post, strs: o("o-1"), amts: q(0), want: "done",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 5}}},
		}},
	})
}

// A call that is refused or fails changes nothing, whichever move stops it.
func TestAllOrNothing(t *testing.T) {
	runCases(t, []semanticsCase{
		{"all or nothing, move by move", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(9), want: "done"},
			// move 1 fits the bin (5), move 2 then overflows it
			{tr: "shelve", op: book.Do, strs: o("o-1"), amts: q(5), want: "refused: bin_full",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 9}, "bin(s-1)": {}}},
			{tr: "shelve", op: book.Do, strs: o("o-2"), amts: q(4), want: "done",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 5}, "bin(s-1)": {Posted: 5}}},
		}},
		{"same account before the key", []step{
			{tr: "swap", op: book.Do, strs: s("id", "x-1", "a", "s-1", "b", "s-1"), amts: q(1), want: "refused: same_account"},
			{tr: "receive", op: book.Do, strs: d1, amts: q(1), want: "done"},
			// the refusal did not use the key
			{tr: "swap", op: book.Do, strs: s("id", "x-1", "a", "s-1", "b", "s-2"), amts: q(1), want: "done"},
		}},
		{"failures change nothing", []step{
			{tr: "receive", op: book.Do, strs: d1, amts: q(-1), want: "fail"},
			{tr: "receive", op: book.Do, strs: s("sku", "s-1"), amts: q(1), want: "fail"},
			{tr: "receive", op: book.Hold, strs: d1, amts: q(1), want: "fail"},
			{tr: "receive", op: book.Do, strs: d1, amts: q(book.MaxAmount), want: "done"},
			{tr: "receive", op: book.Do, strs: s("delivery", "d-2", "sku", "s-1"), amts: q(1), want: "fail",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: book.MaxAmount}}},
			// the failed call did not use its key
			{tr: "receive", op: book.Do, strs: s("delivery", "d-2", "sku", "s-2"), amts: q(1), want: "done"},
		}},
	})
}

func TestCloneIsIndependent(t *testing.T) {
	b := load(t, shop)
	st := interp.New(b)
	if _, err := st.Apply(interp.Call{Transfer: b.Transfer("receive"), Op: book.Do, Strings: d1, Amounts: q(2)}); err != nil {
		t.Fatal(err)
	}
	c := st.Clone()
	if _, err := c.Apply(interp.Call{Transfer: b.Transfer("reserve"), Op: book.Hold, Strings: s("order", "o", "sku", "s-1"), Amounts: q(2)}); err != nil {
		t.Fatal(err)
	}
	if len(st.Holds()) != 0 || st.Accounts()[0].Balance.HeldOut != 0 {
		t.Fatalf("the original changed with its clone: %+v", st.Accounts())
	}
}

// A string that is not valid UTF-8 or holds a NUL fails, wherever it is
// given (a key, an account's argument, the key of a post or a void), and
// changes nothing: PostgreSQL's text cannot hold it, so no backend could
// answer otherwise.
func TestTextValues(t *testing.T) {
	runCases(t, []semanticsCase{
		{"bad text fails and changes nothing", []step{
			{tr: "receive", op: book.Do, strs: s("delivery", "d\x00-1", "sku", "s-1"), amts: q(1), want: "fail"},
			{tr: "receive", op: book.Do, strs: s("delivery", "d-1", "sku", "s\x00"), amts: q(1), want: "fail"},
			{tr: "receive", op: book.Do, strs: s("delivery", "d-1", "sku", "s-\xff"), amts: q(1), want: "fail"},
			{tr: "receive", op: book.Do, strs: s("delivery", "\xe3\x81", "sku", "s-1"), amts: q(1), want: "fail"},
			{tr: "receive", op: book.Do, strs: d1, amts: q(5), want: "done"},
			{tr: "reserve", op: book.Hold, strs: s("order", "o-1\x00", "sku", "s-1"), amts: q(1), want: "fail",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 5}}},
			{tr: "reserve", op: book.Hold, strs: o("o-1"), amts: q(1), want: "done"},
			{tr: "reserve", op: book.Post, strs: s("order", "o-1", "sku", "s-1\x00"), want: "fail"},
			{tr: "reserve", op: book.Void, strs: s("order", "o-1", "sku", "s-1\x80"), want: "fail"},
			// the failed calls did not use their keys; text that merely
			// looks odd (U+FFFD, other controls, any script) is fine
			{tr: "receive", op: book.Do, strs: s("delivery", "d\x00-1", "sku", "s-1"), amts: q(1), want: "fail"},
			{tr: "receive", op: book.Do, strs: s("delivery", "\ufffd\x01在庫", "sku", "s-1"), amts: q(1), want: "done"},
			{tr: "reserve", op: book.Void, strs: o("o-1"), want: "done",
				balance: map[string]interp.Balance{"stock(s-1)": {Posted: 6}}},
		}},
	})
	b := load(t, shop)
	for _, c := range []struct {
		strs map[string]string
		want string
	}{
		{s("delivery", "d\x00-1", "sku", "s-1"), "receive.do: the value of delivery holds a NUL character (U+0000) at byte 1; strings are UTF-8 text without NUL"},
		{s("delivery", "d-1", "sku", "在\xff\x00"), "receive.do: the value of sku is not valid UTF-8 (byte 3 is 0xff); strings are UTF-8 text without NUL"},
	} {
		_, err := interp.New(b).Apply(interp.Call{Transfer: b.Transfer("receive"), Op: book.Do, Strings: c.strs, Amounts: q(1)})
		var f *interp.Failure
		if !errors.As(err, &f) || f.Msg != c.want {
			t.Errorf("%q: got %v, want a Failure %q", c.strs, err, c.want)
		}
	}
}

// A call prints its values as they are, unless some of a value would not
// print as itself.
func TestCallString(t *testing.T) {
	b := load(t, shop)
	for in, want := range map[string]string{
		"o-1":      "o-1",
		"注文　1":     "注文　1",
		"o 1":      "o 1",
		"o\x00":    `o\x00`,
		"o\t1":     `o\t1`,
		"o\xff":    `o\xff`,
		"o\u202e1": `o\u202e1`,
	} {
		c := interp.Call{Transfer: b.Transfer("keep"), Op: book.Void, Strings: s("order", in)}
		if got := c.String(); got != "keep.void(order: "+want+")" {
			t.Errorf("%q: %s", in, got)
		}
	}
}
