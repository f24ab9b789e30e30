package chobotb_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// ---- a scenario runner: steps on a Book over a fresh tbmodel ----

type step struct {
	op       string // do, hold, post, void, status, advance, balance
	kind     int
	key      string
	from, to string // the accounts' arguments (balance: the account's)
	n        int64
	amounts  []int64 // post: nil posts the whole hold
	d        time.Duration
	acct     int            // balance
	bal      chobo.Balance  // balance
	want     string         // the result (status: the state, "none" for no hold)
	rooms    *chobo.Balance // balance: the room account, when set
}

func doS(from, to int, key, a, b string, n int64, want string) step {
	return step{op: "do", kind: kindOf("do", from, to), key: key, from: a, to: b, n: n, want: want}
}

func holdS(from, to int, key, a, b string, n int64, want string) step {
	return step{op: "hold", kind: kindOf("hold", from, to), key: key, from: a, to: b, n: n, want: want}
}

// postS posts the hold of the one-move kind from → to; amounts nil posts it whole.
func postS(from, to int, key string, amounts []int64, want string) step {
	return step{op: "post", kind: kindOf("hold", from, to), key: key, amounts: amounts, want: want}
}

func voidS(from, to int, key, want string) step {
	return step{op: "void", kind: kindOf("hold", from, to), key: key, want: want}
}

func statusS(from, to int, key, want string) step {
	return step{op: "status", kind: kindOf("hold", from, to), key: key, want: want}
}

func advanceS(d time.Duration) step { return step{op: "advance", d: d} }

func balS(acct int, arg string, posted, heldIn, heldOut int64) step {
	return step{op: "balance", acct: acct, from: arg, bal: chobo.Balance{Posted: posted, HeldIn: heldIn, HeldOut: heldOut}}
}

// roomS checks the room account of an account: what is left below its upper bound.
func roomS(acct int, arg string, posted, heldIn, heldOut int64) step {
	s := balS(acct, arg, 0, 0, 0)
	s.op = "room"
	s.rooms = &chobo.Balance{Posted: posted, HeldIn: heldIn, HeldOut: heldOut}
	return s
}

func floorS(acct int, arg string, posted, heldIn, heldOut int64) step {
	s := roomS(acct, arg, posted, heldIn, heldOut)
	s.op = "floor"
	return s
}

type env struct {
	t *testing.T
	m *tbmodel.Model
	b *chobotb.Book
}

func newEnv(t *testing.T) *env {
	m := tbmodel.New()
	return &env{t: t, m: m, b: chobotb.NewBook(m, testDef(), "tenant")}
}

var ctx = context.Background()

func (e *env) run(i int, s step) {
	t := e.t
	t.Helper()
	where := fmt.Sprintf("step %d (%s %s %s)", i+1, s.op, e.b.Def().Transfers[s.kind].Name, s.key)
	var got string
	switch s.op {
	case "do", "hold":
		r, err := e.b.Call(ctx, s.kind, s.op, vals(s.key, s.from, s.to, s.n))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		got = r.String()
	case "post":
		r, err := e.b.Post(ctx, s.kind, chobotb.Values{s.key}, s.amounts)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		got = r.String()
	case "void":
		r, err := e.b.Void(ctx, s.kind, chobotb.Values{s.key})
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		got = r.String()
	case "status":
		st, err := e.b.Status(ctx, s.kind, chobotb.Values{s.key})
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		got = string(st)
		if got == "" {
			got = "none"
		}
	case "advance":
		e.m.Advance(s.d)
		return
	case "balance":
		b, err := e.b.Balance(ctx, s.acct, s.from)
		if err != nil {
			t.Fatalf("step %d: balance: %v", i+1, err)
		}
		if b != s.bal {
			t.Fatalf("step %d: %s(%s) is %+v, want %+v", i+1, testAccounts()[s.acct].Name, s.from, b, s.bal)
		}
		return
	case "room", "floor":
		owner := ids.Account("testbook", "tenant", testAccounts()[s.acct].Name, s.from)
		id := ids.Room(owner)
		if s.op == "floor" {
			id = ids.Floor(owner)
		}
		a, ok := e.m.Account(id)
		if !ok {
			t.Fatalf("step %d: no %s account", i+1, s.op)
		}
		b, err := chobotb.BalanceOf(s.op, a)
		if err != nil || b != *s.rooms {
			t.Fatalf("step %d: %s of %s(%s) is %+v (%v), want %+v", i+1, s.op, testAccounts()[s.acct].Name, s.from, b, err, *s.rooms)
		}
		return
	default:
		t.Fatalf("step %d: op %s", i+1, s.op)
	}
	if got != s.want {
		t.Fatalf("%s: got %s, want %s", where, got, s.want)
	}
}

func (e *env) runAll(steps []step) {
	e.t.Helper()
	for i, s := range steps {
		e.run(i, s)
	}
}

const (
	done       = "done"
	doneBefore = "done_before"
)

func ref(reason string) string { return "refused(" + reason + ")" }

// TestBookScenarios runs each scenario on a fresh model and checks every
// answer and balance against the reference semantics (design 2.2–2.4).
func TestBookScenarios(t *testing.T) {
	S, St, Cu := aSupplier, aStock, aCust
	scenarios := []struct {
		name  string
		steps []step
	}{
		{"lower bound 0", []step{
			doS(St, Cu, "o1", "s", "c", 1, ref("out_of_stock")),
			doS(S, St, "r1", "x", "s", 5, done),
			doS(St, Cu, "o2", "s", "c", 6, ref("out_of_stock")),
			doS(St, Cu, "o3", "s", "c", 5, done),
			balS(St, "s", 0, 0, 0),
			balS(Cu, "c", 5, 0, 0),
			balS(S, "x", -5, 0, 0),
			doS(St, Cu, "o4", "s", "c", 1, ref("out_of_stock")),
			doS(St, Cu, "o5", "s", "c", 0, done), // 0 leaves 0
		}},
		{"lower bound L > 0 (probe)", []step{
			doS(S, aSafety, "r1", "x", "s", 5, done),
			doS(aSafety, Cu, "o1", "s", "c", 3, ref("below_safety")),
			holdS(aSafety, Cu, "h1", "s", "c", 3, ref("below_safety")),
			balS(aSafety, "s", 5, 0, 0),
			doS(aSafety, Cu, "o2", "s", "c", 2, done), // exactly L is left
			balS(aSafety, "s", 3, 0, 0),
			doS(aSafety, Cu, "o3", "s", "c", 1, ref("below_safety")),
			doS(S, aSafety, "r2", "x", "s", 2, done),
			holdS(aSafety, Cu, "h2", "s", "c", 2, done),
			balS(aSafety, "s", 5, 0, 2),
			doS(aSafety, Cu, "o4", "s", "c", 1, ref("below_safety")), // the hold counts
			voidS(aSafety, Cu, "h2", done),
			doS(aSafety, Cu, "o5", "s", "c", 1, done),
			balS(aSafety, "s", 4, 0, 0),
			// an account that never had L refuses at once
			doS(aSafety, Cu, "o6", "empty", "c", 0, ref("below_safety")),
		}},
		{"lower bound L < 0 (floor)", []step{
			doS(aCredit, Cu, "o1", "a", "c", 6, ref("over_limit")),
			doS(aCredit, Cu, "o2", "a", "c", 5, done),
			balS(aCredit, "a", -5, 0, 0),
			floorS(aCredit, "a", 0, 0, 0),
			doS(aCredit, Cu, "o3", "a", "c", 1, ref("over_limit")),
			doS(S, aCredit, "r1", "x", "a", 2, done),
			floorS(aCredit, "a", 2, 0, 0),
			holdS(aCredit, Cu, "h1", "a", "c", 2, done),
			balS(aCredit, "a", -3, 0, 2),
			floorS(aCredit, "a", 2, 0, 2),
			doS(aCredit, Cu, "o4", "a", "c", 1, ref("over_limit")),
			postS(aCredit, Cu, "h1", nil, done),
			balS(aCredit, "a", -5, 0, 0),
			floorS(aCredit, "a", 0, 0, 0),
			// incoming holds give nothing to spend
			holdS(S, aCredit, "h2", "x", "a", 3, done),
			floorS(aCredit, "a", 0, 3, 0),
			doS(aCredit, Cu, "o5", "a", "c", 1, ref("over_limit")),
			voidS(S, aCredit, "h2", done),
			floorS(aCredit, "a", 0, 0, 0),
		}},
		{"upper bound (room)", []step{
			doS(S, aCapped, "r1", "x", "k", 11, ref("full")),
			doS(S, aCapped, "r2", "x", "k", 10, done),
			roomS(aCapped, "k", 0, 0, 0),
			doS(S, aCapped, "r3", "x", "k", 1, ref("full")),
			doS(aCapped, Cu, "o1", "k", "c", 3, done),
			roomS(aCapped, "k", 3, 0, 0),
			doS(S, aCapped, "r4", "x", "k", 4, ref("full")),
			doS(S, aCapped, "r5", "x", "k", 3, done),
			balS(aCapped, "k", 10, 0, 0),
			// an upper-bounded account may go below zero
			doS(aCapped, Cu, "o2", "k", "c", 15, done),
			balS(aCapped, "k", -5, 0, 0),
			roomS(aCapped, "k", 15, 0, 0),
			doS(S, aCapped, "r6", "x", "k", 15, done),
			doS(S, aCapped, "r7", "x", "k", 1, ref("full")),
		}},
		{"six events: L>0 and upper to L<0 and upper", []step{
			doS(S, aSrc, "r1", "x", "p", 21, ref("src_full")),
			doS(S, aSrc, "r2", "x", "p", 10, done),
			roomS(aSrc, "p", 10, 0, 0),
			doS(aSrc, aDst, "m1", "p", "q", 9, ref("src_low")),
			doS(aSrc, aDst, "m2", "p", "q", 8, ref("dst_full")),
			doS(aSrc, aDst, "m3", "p", "q", 6, done),
			balS(aSrc, "p", 4, 0, 0),
			balS(aDst, "q", 6, 0, 0),
			roomS(aSrc, "p", 16, 0, 0),
			roomS(aDst, "q", 0, 0, 0),
			floorS(aDst, "q", 10, 0, 0),
			doS(aSrc, aDst, "m4", "p", "q", 1, ref("dst_full")),
			doS(aDst, Cu, "o1", "q", "c", 11, ref("dst_low")),
			doS(aDst, Cu, "o2", "q", "c", 10, done),
			balS(aDst, "q", -4, 0, 0),
			floorS(aDst, "q", 0, 0, 0),
			roomS(aDst, "q", 10, 0, 0),
			holdS(aSrc, aDst, "h1", "p", "q", 2, done),
			balS(aSrc, "p", 4, 0, 2),
			balS(aDst, "q", -4, 2, 0),
			roomS(aSrc, "p", 16, 2, 0),
			roomS(aDst, "q", 10, 0, 2),
			floorS(aDst, "q", 0, 2, 0),
			holdS(aSrc, aDst, "h2", "p", "q", 1, ref("src_low")),
			postS(aSrc, aDst, "h1", []int64{1}, done),
			balS(aSrc, "p", 3, 0, 0),
			balS(aDst, "q", -3, 0, 0),
			roomS(aSrc, "p", 17, 0, 0),
			roomS(aDst, "q", 9, 0, 0),
			floorS(aDst, "q", 1, 0, 0),
		}},
		{"incoming hold is not spendable", []step{
			holdS(S, St, "h1", "x", "s", 5, done),
			balS(St, "s", 0, 5, 0),
			doS(St, Cu, "o1", "s", "c", 1, ref("out_of_stock")),
			holdS(St, Cu, "h2", "s", "c", 1, ref("out_of_stock")),
			postS(S, St, "h1", nil, done),
			balS(St, "s", 5, 0, 0),
			doS(St, Cu, "o2", "s", "c", 1, done),
		}},
		{"outgoing hold is not spendable", []step{
			doS(S, St, "r1", "x", "s", 5, done),
			holdS(St, Cu, "h1", "s", "c", 3, done),
			balS(St, "s", 5, 0, 3),
			balS(Cu, "c", 0, 3, 0),
			doS(St, Cu, "o1", "s", "c", 3, ref("out_of_stock")),
			doS(St, Cu, "o2", "s", "c", 2, done),
		}},
		{"outgoing hold does not free room", []step{
			doS(S, aCapped, "r1", "x", "k", 10, done),
			holdS(aCapped, Cu, "h1", "k", "c", 4, done),
			balS(aCapped, "k", 10, 0, 4),
			roomS(aCapped, "k", 0, 4, 0),
			doS(S, aCapped, "r2", "x", "k", 1, ref("full")),
			voidS(aCapped, Cu, "h1", done),
			doS(S, aCapped, "r3", "x", "k", 1, ref("full")),
			holdS(aCapped, Cu, "h2", "k", "c", 4, done),
			postS(aCapped, Cu, "h2", nil, done),
			doS(S, aCapped, "r4", "x", "k", 4, done),
			balS(aCapped, "k", 10, 0, 0),
		}},
		{"incoming hold takes room", []step{
			doS(S, aCapped, "r1", "x", "k", 8, done),
			holdS(S, aCapped, "h1", "x", "k", 2, done),
			balS(aCapped, "k", 8, 2, 0),
			doS(S, aCapped, "r2", "x", "k", 1, ref("full")),
			holdS(S, aCapped, "h2", "x", "k", 1, ref("full")),
			voidS(S, aCapped, "h1", done),
			doS(S, aCapped, "r3", "x", "k", 2, done),
		}},
		{"post whole", []step{
			doS(S, St, "r1", "x", "s", 10, done),
			holdS(St, Cu, "h1", "s", "c", 4, done),
			statusS(St, Cu, "h1", "held"),
			postS(St, Cu, "h1", nil, done),
			balS(St, "s", 6, 0, 0),
			balS(Cu, "c", 4, 0, 0),
			statusS(St, Cu, "h1", "posted"),
			postS(St, Cu, "h1", nil, doneBefore),
			postS(St, Cu, "h1", []int64{4}, doneBefore), // the held amount written out
			postS(St, Cu, "h1", []int64{3}, ref("key_conflict")),
			voidS(St, Cu, "h1", ref("already_posted")),
			voidS(St, Cu, "h1", ref("already_posted")),
			balS(St, "s", 6, 0, 0),
		}},
		{"post partial", []step{
			doS(S, St, "r1", "x", "s", 10, done),
			holdS(St, Cu, "h1", "s", "c", 4, done),
			postS(St, Cu, "h1", []int64{1}, done),
			balS(St, "s", 9, 0, 0),
			balS(Cu, "c", 1, 0, 0),
			postS(St, Cu, "h1", []int64{1}, doneBefore),
			postS(St, Cu, "h1", nil, ref("key_conflict")),
			postS(St, Cu, "h1", []int64{4}, ref("key_conflict")),
			postS(St, Cu, "h1", []int64{0}, ref("key_conflict")),
			holdS(St, Cu, "h2", "s", "c", 4, done),
			postS(St, Cu, "h2", []int64{0}, done),
			balS(St, "s", 9, 0, 0),
			statusS(St, Cu, "h2", "posted"),
		}},
		{"post partial with bounded helpers", []step{
			doS(S, aCredit, "r1", "x", "a", 1, done),
			holdS(aCredit, aCapped, "h1", "a", "k", 6, done),
			floorS(aCredit, "a", 6, 0, 6),
			roomS(aCapped, "k", 10, 0, 6),
			postS(aCredit, aCapped, "h1", []int64{2}, done),
			balS(aCredit, "a", -1, 0, 0),
			balS(aCapped, "k", 2, 0, 0),
			floorS(aCredit, "a", 4, 0, 0),
			roomS(aCapped, "k", 8, 0, 0),
		}},
		{"void", []step{
			doS(S, St, "r1", "x", "s", 10, done),
			holdS(St, Cu, "h1", "s", "c", 4, done),
			voidS(St, Cu, "h1", done),
			balS(St, "s", 10, 0, 0),
			balS(Cu, "c", 0, 0, 0),
			statusS(St, Cu, "h1", "voided"),
			voidS(St, Cu, "h1", doneBefore),
			postS(St, Cu, "h1", nil, ref("already_voided")),
			postS(St, Cu, "h1", []int64{2}, ref("already_voided")),
			// the key of a finished hold cannot hold again
			holdS(St, Cu, "h1", "s", "c", 4, doneBefore),
			balS(St, "s", 10, 0, 0),
			statusS(St, Cu, "h1", "voided"),
		}},
		{"expired", []step{
			doS(S, St, "r1", "x", "s", 10, done),
			holdS(St, Cu, "h1", "s", "c", 4, done),
			holdS(St, Cu, "h2", "s", "c", 1, done),
			advanceS(59 * time.Second),
			statusS(St, Cu, "h1", "held"),
			balS(St, "s", 10, 0, 5),
			advanceS(time.Second),
			statusS(St, Cu, "h1", "expired"),
			balS(St, "s", 10, 0, 0),
			postS(St, Cu, "h1", nil, ref("expired")),
			postS(St, Cu, "h1", []int64{1}, ref("expired")),
			voidS(St, Cu, "h2", ref("expired")),
			statusS(St, Cu, "h2", "expired"),
			holdS(St, Cu, "h1", "s", "c", 4, doneBefore),
			balS(St, "s", 10, 0, 0),
		}},
		{"status of no hold", []step{
			statusS(St, Cu, "nothing", "none"),
			doS(S, St, "r1", "x", "s", 1, done),
			holdS(St, Cu, "h1", "s", "c", 4, ref("out_of_stock")),
			statusS(St, Cu, "h1", "none"),
			postS(St, Cu, "h1", nil, ref("no_such_hold")),
			voidS(St, Cu, "h1", ref("no_such_hold")),
		}},
		{"over hold", []step{
			doS(S, St, "r1", "x", "s", 20, done),
			holdS(St, Cu, "h1", "s", "c", 3, done),
			postS(St, Cu, "h1", []int64{5}, ref("over_hold")),
			statusS(St, Cu, "h1", "held"),
			postS(St, Cu, "h1", []int64{3}, done),
			postS(St, Cu, "h1", []int64{5}, ref("key_conflict")),
			holdS(St, Cu, "h2", "s", "c", 3, done),
			voidS(St, Cu, "h2", done),
			postS(St, Cu, "h2", []int64{5}, ref("already_voided")),
			holdS(St, Cu, "h3", "s", "c", 3, done),
			advanceS(time.Minute),
			postS(St, Cu, "h3", []int64{5}, ref("expired")),
			postS(St, Cu, "h4", []int64{5}, ref("no_such_hold")),
			balS(St, "s", 17, 0, 0),
		}},
		{"done_before and key_conflict", []step{
			doS(S, St, "r1", "x", "s", 10, done),
			doS(S, St, "r1", "x", "s", 10, doneBefore),
			doS(S, St, "r1", "x", "s", 11, ref("key_conflict")),
			doS(S, St, "r1", "x", "t", 10, ref("key_conflict")),
			balS(St, "s", 10, 0, 0),
			balS(St, "t", 0, 0, 0),
			holdS(St, Cu, "h1", "s", "c", 4, done),
			holdS(St, Cu, "h1", "s", "c", 4, doneBefore),
			holdS(St, Cu, "h1", "s", "c", 5, ref("key_conflict")),
			holdS(St, Cu, "h1", "s", "d", 4, ref("key_conflict")),
			balS(St, "s", 10, 0, 4),
			// the six-event chain, retried
			doS(S, aSrc, "r2", "x", "p", 10, done),
			doS(aSrc, aDst, "m1", "p", "q", 3, done),
			doS(aSrc, aDst, "m1", "p", "q", 3, doneBefore),
			doS(aSrc, aDst, "m1", "p", "q", 2, ref("key_conflict")),
			balS(aSrc, "p", 7, 0, 0),
			balS(aDst, "q", 3, 0, 0),
			// keys are per kind and operation
			doS(S, aCust, "r1", "x", "s", 10, done),
		}},
		{"already_refused", []step{
			doS(S, St, "r1", "x", "s", 5, done),
			doS(St, Cu, "o1", "s", "c", 6, ref("out_of_stock")),
			doS(St, Cu, "o1", "s", "c", 6, ref("already_refused")),
			doS(S, St, "r2", "x", "s", 5, done),
			doS(St, Cu, "o1", "s", "c", 6, ref("already_refused")), // enough now, still refused
			doS(St, Cu, "o1", "s", "c", 1, ref("already_refused")), // other content
			holdS(St, Cu, "h1", "s", "c", 11, ref("out_of_stock")),
			holdS(St, Cu, "h1", "s", "c", 11, ref("already_refused")),
			holdS(St, Cu, "h1", "s", "c", 1, ref("already_refused")),
			// refused on a later event (the room), retried
			doS(S, aCapped, "k1", "x", "k", 11, ref("full")),
			doS(S, aCapped, "k1", "x", "k", 11, ref("already_refused")),
			doS(S, aCapped, "k1", "x", "k", 1, ref("already_refused")),
			balS(St, "s", 10, 0, 0),
			balS(aCapped, "k", 0, 0, 0),
		}},
		{"post before hold, then hold, then post", []step{
			doS(S, St, "r1", "x", "s", 5, done),
			postS(St, Cu, "h1", nil, ref("no_such_hold")),
			postS(St, Cu, "h1", []int64{2}, ref("no_such_hold")),
			voidS(St, Cu, "h1", ref("no_such_hold")),
			holdS(St, Cu, "h1", "s", "c", 4, done),
			postS(St, Cu, "h1", []int64{2}, done),
			balS(St, "s", 3, 0, 0),
			balS(Cu, "c", 2, 0, 0),
		}},
		{"void before hold, then hold, then void", []step{
			doS(S, St, "r1", "x", "s", 5, done),
			voidS(St, Cu, "h1", ref("no_such_hold")),
			holdS(St, Cu, "h1", "s", "c", 4, done),
			voidS(St, Cu, "h1", done),
			balS(St, "s", 5, 0, 0),
		}},
		{"same account", []step{
			doS(St, St, "o1", "s", "s", 1, ref("same_account")),
			holdS(St, St, "h1", "s", "s", 1, ref("same_account")),
			doS(S, St, "r1", "x", "s", 5, done),
			doS(St, St, "o2", "s", "t", 1, done),
			balS(St, "t", 1, 0, 0),
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) { newEnv(t).runAll(sc.steps) })
		// The same steps with every run of calls that do not read a hold
		// made among them sent as one Bulk: the same answers.
		t.Run(sc.name+"/bulk", func(t *testing.T) { newEnv(t).runBulk(sc.steps) })
	}
}

// runBulk runs steps as runAll does, but sends each run of calls as one
// Bulk; a run ends at a step that is not a call and before a post, void
// or status of a hold held in it.
func (e *env) runBulk(steps []step) {
	t := e.t
	t.Helper()
	var group []int
	held := map[string]bool{}
	flush := func() {
		if len(group) == 0 {
			return
		}
		ops := make([]chobotb.Op, len(group))
		for n, i := range group {
			s := steps[i]
			op := chobotb.Op{Kind: s.kind, Op: s.op, Values: chobotb.Values{s.key}, Amounts: s.amounts}
			if s.op == "do" || s.op == "hold" {
				op.Values = vals(s.key, s.from, s.to, s.n)
			}
			ops[n] = op
		}
		answers, err := e.b.Bulk(ctx, ops)
		if err != nil {
			t.Fatalf("bulk of steps %v: %v", group, err)
		}
		for n, i := range group {
			s, a := steps[i], answers[n]
			if a.Err != nil {
				t.Fatalf("step %d (%s %s) in a bulk: %v", i+1, s.op, s.key, a.Err)
			}
			got := a.Result.String()
			if s.op == "status" {
				got = string(a.State)
				if got == "" {
					got = "none"
				}
			}
			if got != s.want {
				t.Fatalf("step %d (%s %s) in a bulk of %d: got %s, want %s", i+1, s.op, s.key, len(group), got, s.want)
			}
		}
		group, held = nil, map[string]bool{}
	}
	for i, s := range steps {
		switch s.op {
		case "do", "hold", "post", "void", "status":
			if s.op != "do" && s.op != "hold" && held[s.key] {
				flush()
			}
			if s.op == "hold" {
				held[s.key] = true
			}
			group = append(group, i)
		default:
			flush()
			e.run(i, s)
		}
	}
	flush()
}

// TestOrder holds a kind of two moves, one of a literal amount: a partial
// post gives the amount of the other move, the literal posts whole.
func TestOrder(t *testing.T) {
	e := newEnv(t)
	e.runAll([]step{doS(aSupplier, aStock, "r1", "x", "s", 10, done)})
	hold := func(key string, n int64) chobo.Result {
		r, err := e.b.Call(ctx, kOrder, "hold", vals(key, "s", "c", n))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	post := func(key string, amounts []int64) string {
		r, err := e.b.Post(ctx, kOrder, chobotb.Values{key}, amounts)
		if err != nil {
			t.Fatal(err)
		}
		return r.String()
	}
	if r := hold("o1", 9); r.String() != ref("out_of_stock") { // 9 + 2 > 10
		t.Fatal(r)
	}
	if r := hold("o2", 5); r.Outcome != chobo.Done {
		t.Fatal(r)
	}
	e.runAll([]step{balS(aStock, "s", 10, 0, 7), balS(aCust, "c", 0, 5, 0), balS(aFee, "c", 0, 2, 0)})
	if got := post("o2", []int64{1}); got != done {
		t.Fatal(got)
	}
	e.runAll([]step{balS(aStock, "s", 7, 0, 0), balS(aCust, "c", 1, 0, 0), balS(aFee, "c", 2, 0, 0)})
	if got := post("o2", []int64{1}); got != doneBefore {
		t.Fatal(got)
	}
	if got := post("o2", nil); got != ref("key_conflict") {
		t.Fatal(got)
	}
	// the over-hold check looks at the amount moves only
	if r := hold("o3", 3); r.Outcome != chobo.Done {
		t.Fatal(r)
	}
	if got := post("o3", []int64{4}); got != ref("over_hold") {
		t.Fatal(got)
	}
	if got := post("o3", []int64{3}); got != done {
		t.Fatal(got)
	}
	e.runAll([]step{balS(aStock, "s", 2, 0, 0), balS(aFee, "c", 4, 0, 0)})
	// wrong number of post amounts, negative amount: errors before anything is sent
	e.m.ResetRequests()
	if _, err := e.b.Post(ctx, kOrder, chobotb.Values{"o3"}, []int64{1, 2}); err == nil {
		t.Error("two post amounts for one: no error")
	}
	var ae *chobo.AmountError
	if _, err := e.b.Post(ctx, kOrder, chobotb.Values{"o3"}, []int64{-1}); !errors.As(err, &ae) {
		t.Errorf("negative post amount: %v", err)
	}
	if n := e.m.Count(""); n != 0 {
		t.Errorf("%d requests sent for calls refused as errors", n)
	}
}

// ---- what is sent ----

func ops(rs []tbmodel.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s:%d", r.Op, r.Events()))
	}
	return out
}

func TestSameAccountSendsNothing(t *testing.T) {
	e := newEnv(t)
	for _, op := range []string{"do", "hold"} {
		r, err := e.b.Call(ctx, kindOf(op, aSrc, aSrc), op, vals("k", "p", "p", 1))
		if err != nil || r.String() != ref("same_account") {
			t.Fatalf("%s: %s %v", op, r, err)
		}
	}
	if n := e.m.Count(""); n != 0 {
		t.Fatalf("%d requests sent: %v", n, ops(e.m.Requests()))
	}
}

func TestNoSuchHoldOnlyLooksUp(t *testing.T) {
	e := newEnv(t)
	k := kindOf("hold", aSrc, aDst)
	if r, err := e.b.Post(ctx, k, chobotb.Values{"h"}, nil); err != nil || r.String() != ref("no_such_hold") {
		t.Fatal(r, err)
	}
	if r, err := e.b.Post(ctx, k, chobotb.Values{"h"}, []int64{1}); err != nil || r.String() != ref("no_such_hold") {
		t.Fatal(r, err)
	}
	if r, err := e.b.Void(ctx, k, chobotb.Values{"h"}); err != nil || r.String() != ref("no_such_hold") {
		t.Fatal(r, err)
	}
	got := ops(e.m.Requests())
	want := []string{"lookup_transfers:6", "lookup_transfers:6", "lookup_transfers:6"} // every place any layout puts an event of a hold of one move
	if !slices.Equal(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	lookups, _ := e.b.Def().Lookups("tenant", k, []string{"h"})
	if r := e.m.Requests()[0]; !slices.Equal(r.IDs, lookups) {
		t.Fatalf("looked up %v, want %v", r.IDs, lookups)
	}
}

func TestOverHoldSendsStatusChain(t *testing.T) {
	e := newEnv(t)
	e.runAll([]step{doS(aSupplier, aStock, "r1", "x", "s", 5, done), holdS(aStock, aCust, "h1", "s", "c", 3, done)})
	e.m.ResetRequests()
	e.runAll([]step{postS(aStock, aCust, "h1", []int64{4}, ref("over_hold"))})
	rs := e.m.Requests()
	if got := ops(rs); !slices.Equal(got, []string{"lookup_transfers:6", "create_transfers:2"}) {
		t.Fatalf("sent %v", got)
	}
	ts := rs[1].Transfers
	if ts[0].Flags&chobotb.TransferVoidPending == 0 || ts[1].DebitAccountID != ts[1].CreditAccountID {
		t.Fatalf("not a status chain: %+v", ts)
	}
	// nothing was written: the hold is still held, and a right-sized post works
	e.runAll([]step{balS(aStock, "s", 5, 0, 3), postS(aStock, aCust, "h1", []int64{3}, done)})
}

func TestStatusWritesNothing(t *testing.T) {
	e := newEnv(t)
	e.runAll([]step{doS(aSupplier, aStock, "r1", "x", "s", 5, done), holdS(aStock, aCust, "h1", "s", "c", 3, done)})
	e.m.ResetRequests()
	for range 3 {
		e.runAll([]step{statusS(aStock, aCust, "h1", "held")})
	}
	rs := e.m.Requests()
	if got := ops(rs); !slices.Equal(got, []string{"create_transfers:2", "create_transfers:2", "create_transfers:2"}) {
		t.Fatalf("sent %v", got)
	}
	seen := map[ids.ID]bool{}
	for _, r := range rs {
		for _, tr := range r.Transfers {
			if seen[tr.ID] {
				t.Error("a status chain used an id twice")
			}
			seen[tr.ID] = true
			if _, ok := e.m.Transfer(tr.ID); ok {
				t.Error("a status chain wrote a transfer")
			}
		}
	}
	e.runAll([]step{balS(aStock, "s", 5, 0, 3), statusS(aStock, aCust, "h1", "held")})
}

func TestAccountsMadeOnce(t *testing.T) {
	e := newEnv(t)
	e.runAll([]step{doS(aSupplier, aSrc, "r1", "x", "p", 10, done)})
	if got := ops(e.m.Requests()); !slices.Equal(got, []string{"create_accounts:5", "create_transfers:1", "create_transfers:4"}) {
		t.Fatalf("first call sent %v", got)
	}
	e.m.ResetRequests()
	e.runAll([]step{
		doS(aSupplier, aSrc, "r2", "x", "p", 1, done),
		doS(aSupplier, aSrc, "r1", "x", "p", 10, doneBefore),
		holdS(aSupplier, aSrc, "h1", "x", "p", 1, done),
	})
	if got := ops(e.m.Requests()); !slices.Equal(got, []string{"create_transfers:4", "create_transfers:4", "create_transfers:4"}) {
		t.Fatalf("later calls sent %v", got)
	}
	// A new account makes only what is new: dst(q), its room, the room's
	// shortfall and its floor, and the openings of room and floor.
	e.m.ResetRequests()
	e.runAll([]step{doS(aSrc, aDst, "m1", "p", "q", 1, done)})
	if got := ops(e.m.Requests()); !slices.Equal(got, []string{"create_accounts:4", "create_transfers:2", "create_transfers:8"}) {
		t.Fatalf("a new account sent %v", got)
	}
	// Another Book on the same model makes them again, and TigerBeetle says exists.
	b2 := chobotb.NewBook(e.m, testDef(), "tenant")
	if r, err := b2.Call(ctx, kindOf("do", aSrc, aDst), "do", vals("m2", "p", "q", 1)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
}

func TestAccountChanged(t *testing.T) {
	m := tbmodel.New()
	d1 := testDef()
	d1.Accounts[aStock].Lower = nil
	b1 := chobotb.NewBook(m, d1, "tenant")
	if r, err := b1.Call(ctx, kindOf("do", aStock, aCust), "do", vals("o1", "s", "c", 3)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	// The bound went from none to "at least 0": the account's flags differ.
	b2 := chobotb.NewBook(m, testDef(), "tenant")
	r, err := b2.Call(ctx, kindOf("do", aStock, aCust), "do", vals("o2", "s", "c", 3))
	if !errors.Is(err, chobotb.ErrAccountChanged) {
		t.Fatalf("%s, %v; want ErrAccountChanged", r, err)
	}
	// Another tenant is other accounts.
	b3 := chobotb.NewBook(m, testDef(), "other")
	if r, err := b3.Call(ctx, kindOf("do", aStock, aCust), "do", vals("o2", "s", "c", 3)); err != nil || r.String() != ref("out_of_stock") {
		t.Fatal(r, err)
	}
}

// A book whose bound differs from the one a floor or room was opened with
// does not fail: the account answers by what its floor or room holds
// until the migration moves it.
func TestBoundChangedKeepsItsFloorAndRoom(t *testing.T) {
	m := tbmodel.New()
	b1 := chobotb.NewBook(m, testDef(), "tenant")
	if r, err := b1.Call(ctx, kindOf("do", aSupplier, aCapped), "do", vals("r1", "x", "k", 6)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	d2 := testDef()
	d2.Accounts[aCapped].Upper.Value = 20
	b2 := chobotb.NewBook(m, d2, "tenant")
	// 6 + 5 is past the 10 the room holds, within the 20 of d2.
	if r, err := b2.Call(ctx, kindOf("do", aSupplier, aCapped), "do", vals("r2", "x", "k", 5)); err != nil || r.String() != ref("full") {
		t.Fatalf("%s, %v; want refused(full), by the bound the room holds", r, err)
	}
	if r, err := b2.Call(ctx, kindOf("do", aSupplier, aCapped), "do", vals("r3", "x", "k", 4)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	// A lower bound below zero is a floor: the same.
	if r, err := b1.Call(ctx, kindOf("do", aCredit, aCust), "do", vals("o1", "a", "c", 3)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	d3 := testDef()
	d3.Accounts[aCredit].Lower.Value = -7
	b3 := chobotb.NewBook(m, d3, "tenant")
	if r, err := b3.Call(ctx, kindOf("do", aCredit, aCust), "do", vals("o2", "a", "c", 3)); err != nil || r.String() != ref("over_limit") {
		t.Fatalf("%s, %v; want refused(over_limit), by the floor's -5", r, err)
	}
	// A new account of the kind is opened by the bound of the book that
	// makes it.
	if r, err := b3.Call(ctx, kindOf("do", aCredit, aCust), "do", vals("o3", "new", "c", 7)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
}

// An account made before its kind had a bound gets a floor or room that
// answers by no bound, until the migration; one made after gets the bound.
func TestBoundAddedOpensUnbounded(t *testing.T) {
	m := tbmodel.New()
	d1 := testDef()
	b1 := chobotb.NewBook(m, d1, "")
	if r, err := b1.Call(ctx, kindOf("do", aSupplier, aCust), "do", vals("r1", "x", "old", 8)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	d2 := testDef()
	d2.Accounts[aCust].Upper = bound(10, "cust_full")
	b2 := chobotb.NewBook(m, d2, "")
	if r, err := b2.Call(ctx, kindOf("do", aSupplier, aCust), "do", vals("r2", "x", "old", 5)); err != nil || r.Outcome != chobo.Done {
		t.Fatalf("%s, %v; want done: the old account has no bound until migrated", r, err)
	}
	if r, err := b2.Call(ctx, kindOf("do", aSupplier, aCust), "do", vals("r3", "x", "new", 11)); err != nil || r.String() != ref("cust_full") {
		t.Fatalf("%s, %v; want refused(cust_full): a new account has the bound", r, err)
	}
}

func TestChainTooLong(t *testing.T) {
	e := newEnv(t)
	if n := e.b.Def().ChainLength(kLong); n != chobotb.MaxEvents+1 {
		t.Fatalf("chain of %d", n)
	}
	r, err := e.b.Call(ctx, kLong, "do", vals("l1", "x", "c", 1))
	if err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("%s, %v; want an error", r, err)
	}
	if n := e.m.Count(""); n != 0 {
		t.Fatalf("%d requests sent: %v", n, ops(e.m.Requests()))
	}
}

func TestChainOfMaxEvents(t *testing.T) {
	d := testDef()
	// No event of it may be refused by a bound: no key guard.
	d.Transfers[kLong].Moves = d.Transfers[kLong].Moves[:chobotb.MaxEvents]
	m := tbmodel.New()
	b := chobotb.NewBook(m, d, "")
	r, err := b.Call(ctx, kLong, "do", vals("l1", "x", "c", 1))
	if err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	if bal, err := b.Balance(ctx, aCust, "c"); err != nil || bal.Posted != chobotb.MaxEvents {
		t.Fatal(bal, err)
	}
}

// TestGuardedChainOfMaxEvents: a chain with its key guard must fit one
// request: MaxEvents-1 moves out of a bounded account do, one more does
// not, and is not sent.
func TestGuardedChainOfMaxEvents(t *testing.T) {
	for _, moves := range []int{chobotb.MaxEvents - 1, chobotb.MaxEvents} {
		d := testDef()
		k := oneMove("drain", aStock, aCust, false)
		for len(k.Moves) < moves {
			k.Moves = append(k.Moves, k.Moves[0])
		}
		d.Transfers = append(d.Transfers, k)
		kind := len(d.Transfers) - 1
		if n := d.ChainLength(kind); n != moves+1 {
			t.Fatalf("%d moves: ChainLength %d", moves, n)
		}
		m := tbmodel.New()
		b := chobotb.NewBook(m, d, "")
		if r, err := b.Call(ctx, kindOf("do", aSupplier, aStock), "do", vals("f", "x", "s", 1000)); err != nil || r.Outcome != chobo.Done {
			t.Fatal(r, err)
		}
		r, err := b.Call(ctx, kind, "do", vals("l1", "s", "c", 1))
		if moves == chobotb.MaxEvents {
			if err == nil || !strings.Contains(err.Error(), "does not fit") {
				t.Fatalf("%d moves: %s, %v; want an error", moves, r, err)
			}
			continue
		}
		if err != nil || r.Outcome != chobo.Done {
			t.Fatalf("%d moves: %s, %v", moves, r, err)
		}
		if got := ops(m.Requests()); got[len(got)-1] != fmt.Sprint("create_transfers:", chobotb.MaxEvents) {
			t.Fatalf("sent %v", got)
		}
	}
}

func TestBalanceOutside64Bits(t *testing.T) {
	e := newEnv(t)
	e.runAll([]step{
		doS(aSupplier, aCust, "r1", "x", "c", math.MaxInt64, done),
		balS(aCust, "c", math.MaxInt64, 0, 0),
		balS(aSupplier, "x", -math.MaxInt64, 0, 0),
		// TigerBeetle keeps 128 bits and lets the second through
		doS(aSupplier, aCust, "r2", "x", "c", math.MaxInt64, done),
	})
	for _, c := range []struct {
		acct  int
		arg   string
		value string
	}{{aCust, "c", "18446744073709551614"}, {aSupplier, "x", "-18446744073709551614"}} {
		_, err := e.b.Balance(ctx, c.acct, c.arg)
		var be *chobotb.BalanceError
		if !errors.As(err, &be) || be.Field != "posted" || be.Value != c.value {
			t.Fatalf("%s: %v; want a *BalanceError of %s", c.arg, err, c.value)
		}
	}
	// bring it back into range
	e.runAll([]step{
		doS(aCust, aSupplier, "b1", "c", "x", math.MaxInt64, done),
		balS(aCust, "c", math.MaxInt64, 0, 0),
	})
}

func TestBalanceOfNoAccount(t *testing.T) {
	e := newEnv(t)
	if b, err := e.b.Balance(ctx, aStock, "never"); err != nil || b != (chobo.Balance{}) {
		t.Fatal(b, err)
	}
	if _, err := e.b.Balance(ctx, nAccounts, "x"); err == nil {
		t.Fatal("no such account kind: no error")
	}
}

// A client that fails is an error, not an answer.
type failing struct {
	chobotb.Client
	op  tbmodel.Op
	err error
}

func (f failing) CreateAccounts(ctx context.Context, a []chobotb.Account) ([]chobotb.Status, error) {
	if f.op == tbmodel.OpCreateAccounts {
		return nil, f.err
	}
	return f.Client.CreateAccounts(ctx, a)
}

func (f failing) CreateTransfers(ctx context.Context, t []chobotb.Transfer) ([]chobotb.Status, error) {
	if f.op == tbmodel.OpCreateTransfers {
		return nil, f.err
	}
	return f.Client.CreateTransfers(ctx, t)
}

func (f failing) LookupTransfers(ctx context.Context, i []ids.ID) ([]chobotb.Transfer, error) {
	if f.op == tbmodel.OpLookupTransfers {
		return nil, f.err
	}
	return f.Client.LookupTransfers(ctx, i)
}

func TestClientErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, op := range []tbmodel.Op{tbmodel.OpCreateAccounts, tbmodel.OpCreateTransfers, tbmodel.OpLookupTransfers} {
		b := chobotb.NewBook(failing{tbmodel.New(), op, boom}, testDef(), "")
		_, err1 := b.Call(ctx, kindOf("hold", aSupplier, aCust), "hold", vals("h", "x", "c", 1))
		_, err2 := b.Post(ctx, kindOf("hold", aSupplier, aCust), chobotb.Values{"h"}, nil)
		_, err3 := b.Void(ctx, kindOf("hold", aSupplier, aCust), chobotb.Values{"h"})
		_, err4 := b.Status(ctx, kindOf("hold", aSupplier, aCust), chobotb.Values{"h"})
		errs := []error{err1, err2, err3, err4}
		var want []bool
		switch op {
		case tbmodel.OpCreateAccounts:
			want = []bool{true, false, false, false}
		case tbmodel.OpCreateTransfers:
			want = []bool{true, false, false, true} // nothing held: post and void only look up
		case tbmodel.OpLookupTransfers:
			want = []bool{false, true, true, false}
		}
		for i, err := range errs {
			if (err != nil) != want[i] || err != nil && !errors.Is(err, boom) {
				t.Errorf("%s failing, call %d: %v", op, i, err)
			}
		}
	}
	// A deadline on ctx is passed on; a done ctx fails the call.
	c, cancel := context.WithCancel(ctx)
	cancel()
	b := chobotb.NewBook(tbmodel.New(), testDef(), "")
	if _, err := b.Call(c, kindOf("do", aSupplier, aCust), "do", vals("d", "x", "c", 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("done ctx: %v", err)
	}
}

// TestTogether: eight callers take the last one at once; one of them
// gets it, straight on the model or behind a network that packs their
// requests.
func TestTogether(t *testing.T) {
	for _, via := range []string{"model", "network", "packed"} {
		t.Run(via, func(t *testing.T) {
			for range 10 {
				m := tbmodel.New()
				var c chobotb.Client = m
				if via != "model" {
					c = tbmodel.NewNetwork(m, 200*time.Microsecond, via == "packed")
				}
				e := &env{t: t, m: m, b: chobotb.NewBook(c, testDef(), "tenant")}
				e.runAll([]step{doS(aSupplier, aStock, "r1", "x", "s", 1, done)})
				var wg sync.WaitGroup
				res := make([]string, 8)
				for i := range res {
					wg.Go(func() {
						r, err := e.b.Call(ctx, kindOf("hold", aStock, aCust), "hold", vals(fmt.Sprint("o", i), "s", fmt.Sprint("c", i), 1))
						if err != nil {
							t.Error(err)
						}
						res[i] = r.String()
					})
				}
				wg.Wait()
				n := 0
				for _, r := range res {
					switch r {
					case done:
						n++
					case ref("out_of_stock"):
					default:
						t.Fatalf("results %v", res)
					}
				}
				if n != 1 {
					t.Fatalf("results %v", res)
				}
				e.runAll([]step{balS(aStock, "s", 1, 0, 1)})
			}
		})
	}
}

// TestManyAccounts: a call that makes more than MaxEvents accounts sends
// them in requests of at most MaxEvents, accounts before openings, both
// before the chain.
func TestManyAccounts(t *testing.T) {
	// 36 × 7 events + the key guard = 253; 72 accounts + 144 floors and
	// rooms + 72 shortfalls (the floor's of each account moves take from,
	// the room's of each they put into) + the sink = 289.
	const moves = 36
	d := testDef()
	k := chobotb.TransferKind{Name: "wide", Definition: "wide", Params: []chobotb.Param{{Name: "id"}, {Name: "n", Amount: true}}, Key: []int{0}}
	for i := range 2 * moves {
		k.Params = append(k.Params, chobotb.Param{Name: fmt.Sprint("a", i)})
	}
	for i := range moves {
		k.Moves = append(k.Moves, chobotb.Move{Amount: 1,
			From: chobotb.Side{Account: aDst, Args: []int{2 + 2*i}}, To: chobotb.Side{Account: aDst, Args: []int{3 + 2*i}}})
	}
	d.Transfers = append(d.Transfers, k)
	kind := len(d.Transfers) - 1
	v := chobotb.Values{"w1", int64(3)}
	for i := range 2 * moves {
		v = append(v, fmt.Sprint("x", i))
	}
	m := tbmodel.New()
	b := chobotb.NewBook(m, d, "")
	r, err := b.Call(ctx, kind, "do", v)
	if err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	want := []string{"create_accounts:253", "create_accounts:36", "create_transfers:144", "create_transfers:253"}
	if got := ops(m.Requests()); !slices.Equal(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	for i := range 2 * moves {
		wantPosted := int64(3)
		if i%2 == 0 {
			wantPosted = -3
		}
		if bal, err := b.Balance(ctx, aDst, fmt.Sprint("x", i)); err != nil || bal.Posted != wantPosted {
			t.Fatalf("x%d: %+v %v", i, bal, err)
		}
	}
}

// TestTwoMovesOneBound: two moves into one bounded account open its room
// once and are checked one after the other.
func TestTwoMovesOneBound(t *testing.T) {
	d := testDef()
	k := oneMove("twice", aSupplier, aCapped, false)
	k.Moves = append(k.Moves, chobotb.Move{Amount: -1, Literal: 4, From: k.Moves[0].From, To: k.Moves[0].To})
	d.Transfers = append(d.Transfers, k)
	kind := len(d.Transfers) - 1
	p, err := d.Build("", kind, "do", vals("t1", "x", "k", 7))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Openings) != 1 || len(p.Accounts) != 5 {
		t.Fatalf("openings %d, accounts %v", len(p.Openings), p.Names)
	}
	if got := roles(p.Chain); !slices.Equal(got, []chobotb.Role{chobotb.RoleMove, chobotb.RoleRoomNet, chobotb.RoleRoomTake,
		chobotb.RoleMove, chobotb.RoleRoomNet, chobotb.RoleRoomTake, chobotb.RoleKeyGuard}) {
		t.Fatalf("roles %v", got)
	}
	if p.Chain[3].Move != 2 || p.Chain[5].Move != 2 {
		t.Fatal("move numbers")
	}
	m := tbmodel.New()
	b := chobotb.NewBook(m, d, "")
	for _, c := range []struct {
		key  string
		n    int64
		want string
	}{{"t1", 7, ref("full")}, {"t2", 6, done}, {"t3", 0, ref("full")}} {
		if r, err := b.Call(ctx, kind, "do", vals(c.key, "x", "k", c.n)); err != nil || r.String() != c.want {
			t.Fatalf("%s: %s %v, want %s", c.key, r, err, c.want)
		}
	}
	if bal, err := b.Balance(ctx, aCapped, "k"); err != nil || bal.Posted != 10 {
		t.Fatal(bal, err)
	}
}

// TestExpiredBeforeRelease: past the deadline, before TigerBeetle's pulse
// releases the hold, it reads as expired and cannot be posted or voided,
// while its amount is still counted.
func TestExpiredBeforeRelease(t *testing.T) {
	e := newEnv(t)
	e.m.SetPulse(false)
	e.runAll([]step{
		doS(aSupplier, aStock, "r1", "x", "s", 10, done),
		holdS(aStock, aCust, "h1", "s", "c", 4, done),
		advanceS(time.Hour),
		statusS(aStock, aCust, "h1", "expired"),
		balS(aStock, "s", 10, 0, 4),
		postS(aStock, aCust, "h1", nil, ref("expired")),
		postS(aStock, aCust, "h1", []int64{9}, ref("expired")),
		voidS(aStock, aCust, "h1", ref("expired")),
		doS(aStock, aCust, "o1", "s", "c", 7, ref("out_of_stock")),
		balS(aStock, "s", 10, 0, 4),
	})
	e.m.Pulse()
	e.runAll([]step{
		balS(aStock, "s", 10, 0, 0),
		statusS(aStock, aCust, "h1", "expired"),
		doS(aStock, aCust, "o2", "s", "c", 7, done),
	})
}

// TestRefusedKeyStaysRefused: once a bound refuses a key, every later
// call with it answers already_refused, with the same content or other,
// even after an earlier move of the chain stopped fitting on its own
// (design 2.3). The kinds have two moves: the first out of or into an
// account of each kind of bound, the second out of stock(b), empty, so
// that the first call is refused by the second move.
func TestRefusedKeyStaysRefused(t *testing.T) {
	params := []chobotb.Param{{Name: "id"}, {Name: "a"}, {Name: "b"}, {Name: "n", Amount: true}}
	second := chobotb.Move{Amount: 3, From: chobotb.Side{Account: aStock, Args: []int{2}}, To: chobotb.Side{Account: aCust, Args: []int{2}}}
	for _, c := range []struct {
		name   string
		first  chobotb.Move
		reason string // what the first move alone answers once it stopped fitting
		// fill makes the first move fit before the refusal (puts into
		// the account it takes from); spoil then makes it not fit.
		fill, spoil func(e *env)
	}{
		{"lower 0", chobotb.Move{Amount: 3, From: chobotb.Side{Account: aStock, Args: []int{1}}, To: chobotb.Side{Account: aCust, Args: []int{1}}}, "out_of_stock",
			func(e *env) { e.runAll([]step{doS(aSupplier, aStock, "f", "x", "a", 5, done)}) },
			func(e *env) { e.runAll([]step{doS(aStock, aCust, "s", "a", "c", 5, done)}) }},
		{"lower above 0", chobotb.Move{Amount: 3, From: chobotb.Side{Account: aSafety, Args: []int{1}}, To: chobotb.Side{Account: aCust, Args: []int{1}}}, "below_safety",
			func(e *env) { e.runAll([]step{doS(aSupplier, aSafety, "f", "x", "a", 5, done)}) },
			func(e *env) { e.runAll([]step{doS(aSafety, aCust, "s", "a", "c", 2, done)}) }},
		{"lower below 0", chobotb.Move{Amount: 3, From: chobotb.Side{Account: aCredit, Args: []int{1}}, To: chobotb.Side{Account: aCust, Args: []int{1}}}, "over_limit",
			func(*env) {},
			func(e *env) { e.runAll([]step{doS(aCredit, aCust, "s", "a", "c", 5, done)}) }},
		{"upper", chobotb.Move{Amount: 3, From: chobotb.Side{Account: aSupplier, Args: []int{1}}, To: chobotb.Side{Account: aCapped, Args: []int{1}}}, "full",
			func(*env) {},
			func(e *env) { e.runAll([]step{doS(aSupplier, aCapped, "s", "x", "a", 10, done)}) }},
	} {
		for _, op := range []string{"do", "hold"} {
			t.Run(c.name+"/"+op, func(t *testing.T) {
				d := testDef()
				k := chobotb.TransferKind{Name: "two", Definition: "two", Params: params, Key: []int{0},
					Moves: []chobotb.Move{c.first, second}}
				if op == "hold" {
					k.Pending, k.Timeout, k.PostAmounts = true, 60, []int{3}
				}
				d.Transfers = append(d.Transfers, k)
				kind := len(d.Transfers) - 1
				m := tbmodel.New()
				e := &env{t: t, m: m, b: chobotb.NewBook(m, d, "tenant")}
				call := func(key string, n int64) string {
					t.Helper()
					r, err := e.b.Call(ctx, kind, op, chobotb.Values{key, "a", "b", n})
					if err != nil {
						t.Fatal(err)
					}
					return r.String()
				}
				c.fill(e)
				if got := call("t-1", 1); got != ref("out_of_stock") {
					t.Fatalf("first call: %s, want it refused by the second move", got)
				}
				c.spoil(e)
				if got := call("fresh", 1); got != ref(c.reason) {
					t.Fatalf("a fresh key: %s, want the first move refused with %s", got, c.reason)
				}
				for _, n := range []int64{1, 2, 1} {
					if got := call("t-1", n); got != ref("already_refused") {
						t.Fatalf("t-1 again with %d: %s, want already_refused", n, got)
					}
				}
				// Room for the whole call now: the key still stays refused.
				e.runAll([]step{doS(aSupplier, aStock, "f2", "x", "b", 10, done)})
				if got := call("t-1", 1); got != ref("already_refused") {
					t.Fatalf("t-1 once the call fits: %s, want already_refused", got)
				}
			})
		}
	}
}

// TestHoldOfAnotherDefinition: a hold made under one definition of its
// transfer kind is neither posted nor voided under another, one move
// fewer or only another hash: key_conflict, nothing sent, nothing moved,
// alone or in a bulk. Its status reads as ever, and under its own
// definition it is posted.
func TestHoldOfAnotherDefinition(t *testing.T) {
	m := tbmodel.New()
	v1 := testDef()
	b1 := chobotb.NewBook(m, v1, "tenant")
	for _, c := range []struct {
		kind int
		op   string
		vals chobotb.Values
	}{
		{kindOf("do", aSupplier, aStock), "do", vals("r1", "x", "s", 20)},
		{kOrder, "hold", vals("o1", "s", "c", 3)},
		{kOrder, "hold", vals("o2", "s", "c", 4)},
	} {
		if r, err := b1.Call(ctx, c.kind, c.op, c.vals); err != nil || r.Outcome != chobo.Done {
			t.Fatal(r, err)
		}
	}
	held := func() chobo.Balance {
		t.Helper()
		bal, err := b1.Balance(ctx, aStock, "s")
		if err != nil {
			t.Fatal(err)
		}
		return bal
	}
	before := held()
	for _, c := range []struct {
		name   string
		change func(k *chobotb.TransferKind)
	}{
		{"one move fewer", func(k *chobotb.TransferKind) { k.Moves, k.Definition = k.Moves[:1], "order-v2" }},
		{"another hash only", func(k *chobotb.TransferKind) { k.Definition = "order-v3" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			v2 := testDef()
			c.change(&v2.Transfers[kOrder])
			b2 := chobotb.NewBook(m, v2, "tenant")
			m.ResetRequests()
			for _, op := range []string{"post", "void"} {
				var r chobo.Result
				var err error
				if op == "post" {
					r, err = b2.Post(ctx, kOrder, chobotb.Values{"o1"}, nil)
				} else {
					r, err = b2.Void(ctx, kOrder, chobotb.Values{"o1"})
				}
				if err != nil || r.String() != ref("key_conflict") {
					t.Fatalf("%s: %s, %v; want key_conflict", op, r, err)
				}
			}
			answers, err := b2.Bulk(ctx, []chobotb.Op{{Kind: kOrder, Op: "void", Values: chobotb.Values{"o2"}}, {Kind: kOrder, Op: "post", Values: chobotb.Values{"o2"}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range answers {
				if a.Err != nil || a.Result.String() != ref("key_conflict") {
					t.Fatalf("bulk: %+v; want key_conflict", a)
				}
			}
			for _, r := range m.Requests() {
				if r.Op != "lookup_transfers" {
					t.Errorf("sent %s", r.Op)
				}
			}
			if st, err := b2.Status(ctx, kOrder, chobotb.Values{"o1"}); err != nil || st != chobo.Held {
				t.Fatalf("status %q, %v", st, err)
			}
			if got := held(); got != before {
				t.Fatalf("stock(s) went from %+v to %+v", before, got)
			}
		})
	}
	if r, err := b1.Post(ctx, kOrder, chobotb.Values{"o1"}, nil); err != nil || r.Outcome != chobo.Done {
		t.Fatalf("post under its own definition: %s, %v", r, err)
	}
}
