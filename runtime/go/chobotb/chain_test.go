package chobotb_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// ---- the test book ----

// The account kinds of the test book. Every kind takes one string
// argument, so that tests can pick fresh accounts by it.
const (
	aSupplier = iota // outside, unbounded
	aStock           // at least 0 (out_of_stock)
	aCust            // unbounded
	aSafety          // at least 3 (below_safety)
	aCredit          // at least -5 (over_limit)
	aCapped          // at most 10 (full)
	aSrc             // at least 2 (src_low), at most 20 (src_full)
	aDst             // at least -4 (dst_low), at most 6 (dst_full)
	aFee             // unbounded
	nAccounts
)

func bound(v int64, reason string) *chobotb.Bound { return &chobotb.Bound{Value: v, Reason: reason} }

func testAccounts() []chobotb.AccountKind {
	return []chobotb.AccountKind{
		aSupplier: {Name: "supplier", Params: 1, Outside: true},
		aStock:    {Name: "stock", Params: 1, Lower: bound(0, "out_of_stock")},
		aCust:     {Name: "cust", Params: 1},
		aSafety:   {Name: "safety", Params: 1, Lower: bound(3, "below_safety")},
		aCredit:   {Name: "credit", Params: 1, Lower: bound(-5, "over_limit")},
		aCapped:   {Name: "capped", Params: 1, Upper: bound(10, "full")},
		aSrc:      {Name: "src", Params: 1, Lower: bound(2, "src_low"), Upper: bound(20, "src_full")},
		aDst:      {Name: "dst", Params: 1, Lower: bound(-4, "dst_low"), Upper: bound(6, "dst_full")},
		aFee:      {Name: "fee", Params: 1},
	}
}

// The parameters of every one-move kind: the key, the argument of the
// account moved from, of the account moved to, and the amount.
var moveParams = []chobotb.Param{{Name: "id"}, {Name: "from"}, {Name: "to"}, {Name: "n", Amount: true}}

// oneMove is a transfer kind with one move of n from the account kind
// `from` (named by param 1) to `to` (param 2), keyed by param 0.
func oneMove(name string, from, to int, pending bool) chobotb.TransferKind {
	t := chobotb.TransferKind{
		Name: name, Definition: "def-" + name, Params: moveParams, Key: []int{0}, Pending: pending,
		Moves: []chobotb.Move{{Amount: 3, From: chobotb.Side{Account: from, Args: []int{1}},
			To: chobotb.Side{Account: to, Args: []int{2}}}},
	}
	if pending {
		t.Timeout = 60
		t.PostAmounts = []int{3}
	}
	return t
}

// kindOf is the index in testDef's transfer kinds of the one-move kind
// from → to: a do, or a hold with a timeout of 60 s.
func kindOf(op string, from, to int) int {
	i := (from*nAccounts + to) * 2
	if op != "do" {
		i++
	}
	return i
}

// The kinds testDef adds after the one-move kinds.
var (
	// kOrder holds n from stock(from) to cust(to) and 2 (a literal) from
	// stock(from) to fee(to): params id, from, to, n.
	kOrder = nAccounts * nAccounts * 2
	// kLong does 254 moves of n from supplier(from) to cust(to).
	kLong = kOrder + 1
)

func testDef() *chobotb.Def {
	d := &chobotb.Def{Book: "testbook", Units: []chobotb.Unit{{Name: "piece", Scale: 0}}, Accounts: testAccounts()}
	names := []string{}
	for _, a := range d.Accounts {
		names = append(names, a.Name)
	}
	for f := range nAccounts {
		for t := range nAccounts {
			d.Transfers = append(d.Transfers,
				oneMove("do_"+names[f]+"_"+names[t], f, t, false),
				oneMove("hold_"+names[f]+"_"+names[t], f, t, true))
		}
	}
	order := oneMove("order", aStock, aCust, true)
	order.Moves = append(order.Moves, chobotb.Move{Amount: -1, Literal: 2,
		From: chobotb.Side{Account: aStock, Args: []int{1}}, To: chobotb.Side{Account: aFee, Args: []int{2}}})
	long := oneMove("long", aSupplier, aCust, false)
	for len(long.Moves) < chobotb.MaxEvents+1 {
		long.Moves = append(long.Moves, long.Moves[0])
	}
	d.Transfers = append(d.Transfers, order, long)
	if d.Transfers[kOrder].Name != "order" || d.Transfers[kLong].Name != "long" {
		panic("testDef: kind indexes are off")
	}
	return d
}

func vals(key, from, to string, n int64) chobotb.Values { return chobotb.Values{key, from, to, n} }

func roles(chain []chobotb.Event) []chobotb.Role {
	var out []chobotb.Role
	for _, e := range chain {
		out = append(out, e.Role)
	}
	return out
}

// ---- Build ----

func TestBuildRoles(t *testing.T) {
	d := testDef()
	R := func(rs ...chobotb.Role) []chobotb.Role { return rs }
	cases := []struct {
		name     string
		from, to int
		roles    []chobotb.Role
		reasons  []string
		accounts int // accounts the plan makes, helpers included
		openings []int64
	}{
		{"unbounded", aSupplier, aCust, R(chobotb.RoleMove), []string{""}, 2, nil},
		{"lower 0 from", aStock, aCust, R(chobotb.RoleMove), []string{"out_of_stock"}, 2, nil},
		{"lower 0 to", aSupplier, aStock, R(chobotb.RoleMove), []string{""}, 2, nil},
		{"L>0 from", aSafety, aCust, R(chobotb.RoleMove, chobotb.RoleProbe, chobotb.RoleProbeVoid),
			[]string{"below_safety", "below_safety", ""}, 3, nil},
		{"L>0 to", aSupplier, aSafety, R(chobotb.RoleMove), []string{""}, 2, nil},
		{"L<0 from", aCredit, aCust, R(chobotb.RoleMove, chobotb.RoleFloorNet, chobotb.RoleFloorTake), []string{"", "", "over_limit"}, 5, []int64{5}},
		{"L<0 to", aSupplier, aCredit, R(chobotb.RoleMove, chobotb.RoleFloorGive), []string{"", ""}, 4, []int64{5}},
		{"upper from", aCapped, aCust, R(chobotb.RoleMove, chobotb.RoleRoomGive), []string{"", ""}, 4, []int64{10}},
		{"upper to", aSupplier, aCapped, R(chobotb.RoleMove, chobotb.RoleRoomNet, chobotb.RoleRoomTake), []string{"", "", "full"}, 5, []int64{10}},
		// The longest move: seven events, in the layout's order.
		{"L>0 and upper to L<0 and upper", aSrc, aDst,
			R(chobotb.RoleMove, chobotb.RoleProbe, chobotb.RoleProbeVoid, chobotb.RoleRoomGive, chobotb.RoleRoomNet, chobotb.RoleRoomTake, chobotb.RoleFloorGive),
			[]string{"src_low", "src_low", "", "", "", "dst_full", ""}, 7, []int64{20, 6, 4}},
		{"L<0 and upper to L>0 and upper", aDst, aSrc,
			R(chobotb.RoleMove, chobotb.RoleFloorNet, chobotb.RoleFloorTake, chobotb.RoleRoomGive, chobotb.RoleRoomNet, chobotb.RoleRoomTake),
			[]string{"", "", "dst_low", "", "", "src_full"}, 8, []int64{4, 6, 20}},
	}
	for _, c := range cases {
		for _, op := range []string{"do", "hold"} {
			t.Run(c.name+"/"+op, func(t *testing.T) {
				kind := kindOf(op, c.from, c.to)
				p, err := d.Build("t1", kind, op, vals("k1", "a", "b", 7))
				if err != nil {
					t.Fatal(err)
				}
				if p.SameAccount {
					t.Fatal("SameAccount")
				}
				if d.ChainLength(kind) != len(p.Chain) {
					t.Errorf("ChainLength %d, chain %d", d.ChainLength(kind), len(p.Chain))
				}
				chain := unguarded(t, p.Chain)
				if got := roles(chain); !slices.Equal(got, c.roles) {
					t.Fatalf("roles %v, want %v", got, c.roles)
				}
				// The ids: each event's layout position, the nettings
				// numbered on after the layout's last.
				pos, net := 0, len(chain)-nettingsOf(chain)
				if len(p.Chain) > len(chain) {
					net++ // the key guard's position
				}
				for i, e := range chain {
					id := pos
					if e.Role == chobotb.RoleFloorNet || e.Role == chobotb.RoleRoomNet {
						id, net = net, net+1
					} else {
						pos++
					}
					if e.Reason != c.reasons[i] {
						t.Errorf("event %d (%s): reason %q, want %q", i, e.Role, e.Reason, c.reasons[i])
					}
					if e.Move != 1 {
						t.Errorf("event %d: move %d", i, e.Move)
					}
					linked := e.Flags&chobotb.TransferLinked != 0
					if linked != (i < len(chain)-1) {
						t.Errorf("event %d: linked %v", i, linked)
					}
					if want := ids.Transfer("testbook", "t1", d.Transfers[kind].Name, op, []string{"k1"}, id); e.ID != want {
						t.Errorf("event %d: id %s, want %s", i, e.ID.Hex(), want.Hex())
					}
					pending := e.Flags&chobotb.TransferPending != 0
					switch e.Role {
					case chobotb.RoleProbe:
						if !pending || e.Timeout != 0 || e.Amount != chobotb.U64(uint64(d.Accounts[c.from].Lower.Value)) {
							t.Errorf("probe: %+v", e.Transfer)
						}
					case chobotb.RoleProbeVoid:
						if e.Flags&chobotb.TransferVoidPending == 0 || e.PendingID != p.Chain[i-1].ID || !e.Amount.IsZero() {
							t.Errorf("probe void: %+v", e.Transfer)
						}
					case chobotb.RoleFloorNet, chobotb.RoleRoomNet:
						// Posted even in a hold, as much as the floor or room
						// can pay, from it to its shortfall, under the sink's
						// code; the take after it is from the same floor or
						// room.
						take := chain[i+1]
						want := chobotb.Transfer{ID: e.ID, DebitAccountID: take.DebitAccountID, CreditAccountID: ids.Shortfall(take.DebitAccountID),
							Amount: chobotb.Unbounded, UserData128: take.UserData128, UserData64: take.UserData64, Ledger: take.Ledger,
							Code: ids.Code("testbook", "sink", "piece"), Flags: chobotb.TransferBalancing | chobotb.TransferLinked}
						if e.Transfer != want {
							t.Errorf("netting: %+v, want %+v", e.Transfer, want)
						}
					default:
						if pending != (op == "hold") {
							t.Errorf("event %d (%s): pending %v", i, e.Role, pending)
						}
						if e.Amount != chobotb.U64(7) {
							t.Errorf("event %d (%s): amount %s", i, e.Role, e.Amount)
						}
						if op == "hold" && e.Timeout != 60 || op == "do" && e.Timeout != 0 {
							t.Errorf("event %d (%s): timeout %d", i, e.Role, e.Timeout)
						}
					}
				}
				if len(p.Accounts) != c.accounts || len(p.Names) != c.accounts {
					t.Errorf("accounts %v, want %d", p.Names, c.accounts)
				}
				var opened []int64
				for _, o := range p.Openings {
					opened = append(opened, int64(o.Amount.Lo))
				}
				if !slices.Equal(opened, c.openings) {
					t.Errorf("openings %v, want %v", opened, c.openings)
				}
			})
		}
	}
}

// unguarded returns the chain of a do or hold without its key guard, and
// checks that the guard is there exactly when an event other than the
// first, or two or more, may be refused by a bound.
func unguarded(t *testing.T, chain []chobotb.Event) []chobotb.Event {
	t.Helper()
	refusable := 0
	for _, e := range chain {
		if e.Reason != "" {
			refusable++
		}
	}
	guarded := len(chain) > 0 && chain[len(chain)-1].Role == chobotb.RoleKeyGuard
	if guarded != (refusable >= 2 || refusable == 1 && chain[0].Reason == "") {
		t.Fatalf("%d events a bound may refuse, and a key guard: %v", refusable, guarded)
	}
	if !guarded {
		return chain
	}
	checkGuard(t, chain)
	return chain[:len(chain)-1]
}

// checkGuard checks that a do or hold chain ends with its key guard: an
// event outside the chain (the chain's last event is not linked to it),
// with the id of the chain's first event, voiding a transfer chobo never
// makes.
func checkGuard(t *testing.T, chain []chobotb.Event) {
	t.Helper()
	n := len(chain) - 1
	if n < 1 {
		t.Fatalf("a chain of %d events has no room for a guard", len(chain))
	}
	g := chain[n]
	want := chobotb.Transfer{ID: chain[0].ID, PendingID: ids.Never(), Flags: chobotb.TransferVoidPending}
	if g.Role != chobotb.RoleKeyGuard || g.Move != 0 || g.Reason != "" || g.Transfer != want {
		t.Errorf("last event %+v, want the key guard %+v", g, want)
	}
	if chain[n-1].Flags&chobotb.TransferLinked != 0 {
		t.Errorf("the chain's last event (%s) is linked to the guard", chain[n-1].Role)
	}
}

func TestBuildAccounts(t *testing.T) {
	d := testDef()
	p, err := d.Build("t1", kindOf("do", aSrc, aDst), "do", vals("k", "a", "b", 1))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"src(a)", "dst(b)", "sink(piece)", "room(src(a))", "room(dst(b))", "shortfall(room(dst(b)))", "floor(dst(b))"}
	if !slices.Equal(p.Names, want) {
		t.Fatalf("names %v, want %v", p.Names, want)
	}
	src := ids.Account("testbook", "t1", "src", "a")
	dst := ids.Account("testbook", "t1", "dst", "b")
	sink := ids.Sink("testbook", "t1", "piece")
	wantIDs := []ids.ID{src, dst, sink, ids.Room(src), ids.Room(dst), ids.Shortfall(ids.Room(dst)), ids.Floor(dst)}
	wantFlags := []uint16{chobotb.AccountDebitsMustNotExceedCredits, 0, 0,
		chobotb.AccountDebitsMustNotExceedCredits, chobotb.AccountDebitsMustNotExceedCredits,
		chobotb.AccountCreditsMustNotExceedDebits, chobotb.AccountDebitsMustNotExceedCredits}
	for i, a := range p.Accounts {
		if a.ID != wantIDs[i] || a.Flags != wantFlags[i] {
			t.Errorf("%s: id %s flags %d", p.Names[i], a.ID.Hex(), a.Flags)
		}
		if a.Ledger != ids.Ledger("piece", 0) {
			t.Errorf("%s: ledger %d", p.Names[i], a.Ledger)
		}
	}
	// A shortfall opens with nothing owed: it has no opening.
	opened := []ids.ID{ids.Room(src), ids.Room(dst), ids.Floor(dst)}
	if len(p.Openings) != len(opened) {
		t.Errorf("%d openings", len(p.Openings))
	}
	for i, o := range p.Openings {
		if o.DebitAccountID != sink || o.CreditAccountID != opened[i] || o.ID != ids.Opening(opened[i]) {
			t.Errorf("opening %d: %+v", i, o)
		}
	}
	// The chain: move, probe, probe void, room give, room net, room take,
	// floor give; then the key guard.
	checkGuard(t, p.Chain)
	c := p.Chain[:len(p.Chain)-1]
	pairs := [][2]ids.ID{{src, dst}, {src, sink}, {}, {sink, ids.Room(src)}, {ids.Room(dst), ids.Shortfall(ids.Room(dst))},
		{ids.Room(dst), sink}, {sink, ids.Floor(dst)}}
	for i, e := range c {
		if e.DebitAccountID != pairs[i][0] || e.CreditAccountID != pairs[i][1] {
			t.Errorf("event %d (%s): %s → %s", i, e.Role, e.DebitAccountID.Hex(), e.CreditAccountID.Hex())
		}
	}
	// A tenant is part of every id.
	p2, _ := d.Build("t2", kindOf("do", aSrc, aDst), "do", vals("k", "a", "b", 1))
	if p2.Chain[0].ID == c[0].ID || p2.Accounts[0].ID == p.Accounts[0].ID {
		t.Error("tenants t1 and t2 share ids")
	}
}

func TestBuildContent(t *testing.T) {
	d := testDef()
	k := kindOf("do", aStock, aCust)
	p1, _ := d.Build("", k, "do", vals("k", "a", "b", 1))
	p2, _ := d.Build("", k, "do", vals("k", "a", "b", 2))
	p3, _ := d.Build("", k, "do", vals("k", "a", "b", 1))
	if p1.Chain[0].ID != p2.Chain[0].ID {
		t.Error("the same key gave two ids")
	}
	if p1.Chain[0].UserData128 == p2.Chain[0].UserData128 {
		t.Error("other content, same user_data_128")
	}
	if p1.Chain[0].UserData128 != p3.Chain[0].UserData128 {
		t.Error("same content, other user_data_128")
	}
	d2 := testDef()
	d2.Transfers[k].Definition = "changed"
	p4, _ := d2.Build("", k, "do", vals("k", "a", "b", 1))
	if p4.Chain[0].UserData128 == p1.Chain[0].UserData128 {
		t.Error("another definition, same user_data_128")
	}
	if got := chobotb.Content(vals("k", "a", "b", 1)); got != `["k","a","b",1]` {
		t.Errorf("Content %s", got)
	}
}

func TestBuildSameAccount(t *testing.T) {
	d := testDef()
	p, err := d.Build("", kindOf("do", aStock, aStock), "do", vals("k", "a", "a", 1))
	if err != nil || !p.SameAccount || len(p.Chain) != 0 || len(p.Accounts) != 0 {
		t.Fatalf("%+v, %v", p, err)
	}
	p, err = d.Build("", kindOf("do", aStock, aStock), "do", vals("k", "a", "b", 1))
	if err != nil || p.SameAccount {
		t.Fatalf("%+v, %v", p, err)
	}
}

func TestBuildErrors(t *testing.T) {
	d := testDef()
	cases := []struct {
		name string
		kind int
		op   string
		v    chobotb.Values
	}{
		{"no kind", len(d.Transfers), "do", vals("k", "a", "b", 1)},
		{"hold of a do", kindOf("do", aStock, aCust), "hold", vals("k", "a", "b", 1)},
		{"do of a hold", kindOf("hold", aStock, aCust), "do", vals("k", "a", "b", 1)},
		{"post through Build", kindOf("hold", aStock, aCust), "post", vals("k", "a", "b", 1)},
		{"too few values", kindOf("do", aStock, aCust), "do", chobotb.Values{"k", "a", "b"}},
		{"negative amount", kindOf("do", aStock, aCust), "do", vals("k", "a", "b", -1)},
		{"string for amount", kindOf("do", aStock, aCust), "do", chobotb.Values{"k", "a", "b", "1"}},
		{"amount for string", kindOf("do", aStock, aCust), "do", chobotb.Values{int64(1), "a", "b", int64(1)}},
		{"int for amount", kindOf("do", aStock, aCust), "do", chobotb.Values{"k", "a", "b", 1}},
	}
	for _, c := range cases {
		if p, err := d.Build("", c.kind, c.op, c.v); err == nil {
			t.Errorf("%s: no error, %+v", c.name, p)
		}
	}
	// A negative upper bound cannot open a room.
	d.Accounts[aCapped].Upper.Value = -1
	if _, err := d.Build("", kindOf("do", aSupplier, aCapped), "do", vals("k", "a", "b", 1)); err == nil {
		t.Error("negative upper bound: no error")
	}
}

// ---- Lookups, Finish, StatusChain ----

func TestLookupsAndFinish(t *testing.T) {
	d := testDef()
	for _, c := range []struct {
		name     string
		kind     int
		postRole []chobotb.Role
	}{
		{"six", kindOf("hold", aSrc, aDst), []chobotb.Role{chobotb.RoleMove, chobotb.RoleRoomGive, chobotb.RoleRoomTake, chobotb.RoleFloorGive}},
		{"floor take", kindOf("hold", aDst, aSrc), []chobotb.Role{chobotb.RoleMove, chobotb.RoleFloorTake, chobotb.RoleRoomGive, chobotb.RoleRoomTake}},
		{"order", kOrder, []chobotb.Role{chobotb.RoleMove, chobotb.RoleMove}},
		{"probe only", kindOf("hold", aSafety, aCust), []chobotb.Role{chobotb.RoleMove}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := d.Build("t", c.kind, "hold", vals("k1", "a", "b", 5))
			if err != nil {
				t.Fatal(err)
			}
			// The pending events of the hold, in order: what post and void end.
			var held []chobotb.Event
			var moves []ids.ID
			for _, e := range p.Chain {
				if e.Role == chobotb.RoleMove {
					moves = append(moves, e.ID)
				}
				switch e.Role {
				case chobotb.RoleProbe, chobotb.RoleProbeVoid, chobotb.RoleKeyGuard, chobotb.RoleFloorNet, chobotb.RoleRoomNet:
				default:
					held = append(held, e)
				}
			}
			if got := roles(held); !slices.Equal(got, c.postRole) {
				t.Fatalf("held roles %v, want %v", got, c.postRole)
			}
			lookups, err := d.MoveIDs("t", c.kind, []string{"k1"})
			if err != nil || !slices.Equal(lookups, moves) {
				t.Fatalf("MoveIDs %v %v, want %v", lookups, err, moves)
			}
			// What post and void read takes in every event of the
			// layout; nettings, which come after it, need not be.
			all, err := d.Lookups("t", c.kind, []string{"k1"})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Chain {
				switch e.Role {
				case chobotb.RoleKeyGuard, chobotb.RoleFloorNet, chobotb.RoleRoomNet:
					continue
				}
				if !slices.Contains(all, e.ID) {
					t.Errorf("Lookups miss the %s of move %d", e.Role, e.Move)
				}
			}
			amounts := make([]uint64, len(d.Transfers[c.kind].Moves))
			for i := range amounts {
				amounts[i] = uint64(10 + i)
			}
			for _, op := range []string{"post", "void"} {
				var am []uint64
				if op == "post" {
					am = amounts
				}
				chain, err := d.Finish("t", c.kind, op, []string{"k1"}, am)
				if err != nil {
					t.Fatal(err)
				}
				if len(chain) != len(held) {
					t.Fatalf("%s: %d events for %d held", op, len(chain), len(held))
				}
				for i, e := range chain {
					if e.PendingID != held[i].ID || e.Move != held[i].Move {
						t.Errorf("%s event %d: pending %s move %d, want %s (%s) move %d", op, i, e.PendingID.Hex(), e.Move, held[i].ID.Hex(), held[i].Role, held[i].Move)
					}
					if e.ID != ids.Transfer("testbook", "t", d.Transfers[c.kind].Name, op, []string{"k1"}, i) {
						t.Errorf("%s event %d: id", op, i)
					}
					if (e.Flags&chobotb.TransferLinked != 0) != (i < len(chain)-1) {
						t.Errorf("%s event %d: linked", op, i)
					}
					if e.Ledger != 0 || e.Code != 0 || e.DebitAccountID != (ids.ID{}) || e.CreditAccountID != (ids.ID{}) {
						t.Errorf("%s event %d: fields not left to the hold: %+v", op, i, e.Transfer)
					}
					switch op {
					case "post":
						if e.Role != chobotb.RolePost || e.Flags&chobotb.TransferPostPending == 0 || e.Amount != chobotb.U64(amounts[e.Move-1]) {
							t.Errorf("post event %d: %+v", i, e)
						}
					case "void":
						if e.Role != chobotb.RoleVoid || e.Flags&chobotb.TransferVoidPending == 0 || !e.Amount.IsZero() {
							t.Errorf("void event %d: %+v", i, e)
						}
					}
				}
			}
		})
	}
	if _, err := d.Finish("t", kindOf("do", aStock, aCust), "post", []string{"k"}, []uint64{1}); err == nil {
		t.Error("Finish of a do: no error")
	}
	if _, err := d.Finish("t", kOrder, "post", []string{"k"}, []uint64{1}); err == nil {
		t.Error("Finish with too few amounts: no error")
	}
	if _, err := d.Finish("t", kOrder, "hold", []string{"k"}, nil); err == nil {
		t.Error("Finish of hold: no error")
	}
}

func TestStatusChain(t *testing.T) {
	d := testDef()
	v, f := ids.Sum("x", "v"), ids.Sum("x", "f")
	c, err := d.StatusChain("t", kOrder, []string{"k1"}, v, f)
	if err != nil {
		t.Fatal(err)
	}
	held := ids.Transfer("testbook", "t", "order", "hold", []string{"k1"}, 0)
	if len(c) != 2 || c[0].Role != chobotb.RoleStatusVoid || c[1].Role != chobotb.RoleStatusFail {
		t.Fatalf("%+v", c)
	}
	if c[0].ID != v || c[0].PendingID != held || c[0].Flags != chobotb.TransferVoidPending|chobotb.TransferLinked {
		t.Errorf("void: %+v", c[0])
	}
	if c[1].ID != f || c[1].DebitAccountID != c[1].CreditAccountID || c[1].Flags != 0 || c[1].Ledger == 0 || c[1].Code == 0 {
		t.Errorf("fail: %+v", c[1])
	}
	if _, err := d.StatusChain("t", kindOf("do", aStock, aCust), []string{"k"}, v, f); err == nil {
		t.Error("status of a do: no error")
	}
}

// ---- Read and ReadStatus ----

func TestRead(t *testing.T) {
	// A chain of three: a move refused by "out_of_stock", a room take
	// refused by "full", and a room give that no bound refuses.
	chain := []chobotb.Event{
		{Role: chobotb.RoleMove, Reason: "out_of_stock"},
		{Role: chobotb.RoleRoomTake, Reason: "full"},
		{Role: chobotb.RoleRoomGive},
	}
	const (
		C  = chobotb.Created
		LF = chobotb.LinkedEventFailed
	)
	S := func(s ...chobotb.Status) []chobotb.Status { return s }
	cases := []struct {
		name string
		st   []chobotb.Status
		want string // a result, or "error"
	}{
		{"all created", S(C, C, C), "done"},
		{"exists on the first", S(chobotb.Exists, LF, LF), "done_before"},
		{"exists on a later event", S(LF, chobotb.Exists, LF), "refused(key_conflict)"},
		{"exists on the last", S(LF, LF, chobotb.Exists), "refused(key_conflict)"},
		{"exists_with_different_amount", S(chobotb.ExistsWithDifferentAmount, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_user_data_128", S(chobotb.ExistsWithDifferentUserData128, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_flags", S(chobotb.ExistsWithDifferentFlags, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_debit_account_id", S(chobotb.ExistsWithDifferentDebitAccount, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_credit_account_id", S(chobotb.ExistsWithDifferentCreditAccount, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_pending_id", S(chobotb.ExistsWithDifferentPendingID, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_timeout", S(chobotb.ExistsWithDifferentTimeout, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_ledger", S(chobotb.ExistsWithDifferentLedger, LF, LF), "refused(key_conflict)"},
		{"exists_with_different_code", S(chobotb.ExistsWithDifferentCode, LF, LF), "refused(key_conflict)"},
		{"exists_with_different on a later event", S(LF, chobotb.ExistsWithDifferentAmount, LF), "refused(key_conflict)"},
		{"id_already_failed", S(LF, chobotb.IDAlreadyFailed, LF), "refused(already_refused)"},
		{"exceeds_credits on the move", S(chobotb.ExceedsCredits, LF, LF), "refused(out_of_stock)"},
		{"exceeds_credits on the room take", S(LF, chobotb.ExceedsCredits, LF), "refused(full)"},
		{"exceeds_credits where no bound refuses", S(LF, LF, chobotb.ExceedsCredits), "error"},
		{"accounts_must_be_different", S(chobotb.AccountsMustBeDifferent, LF, LF), "refused(same_account)"},
		{"pending_transfer_already_posted", S(chobotb.PendingTransferAlreadyPosted, LF, LF), "refused(already_posted)"},
		{"pending_transfer_already_voided", S(chobotb.PendingTransferAlreadyVoided, LF, LF), "refused(already_voided)"},
		{"pending_transfer_expired", S(chobotb.PendingTransferExpired, LF, LF), "refused(expired)"},
		{"exceeds_pending_transfer_amount", S(chobotb.ExceedsPendingTransferAmount, LF, LF), "refused(over_hold)"},
		{"the first that decides wins", S(LF, chobotb.ExceedsCredits, chobotb.IDAlreadyFailed), "refused(full)"},
		{"pending_transfer_not_found", S(chobotb.PendingTransferNotFound, LF, LF), "error"},
		{"debit_account_not_found", S(chobotb.DebitAccountNotFound, LF, LF), "error"},
		{"exceeds_debits", S(chobotb.ExceedsDebits, LF, LF), "error"},
		{"an unknown status", S(C, C, "linked_event_chain_open"), "error"},
		{"all linked_event_failed", S(LF, LF, LF), "error"},
		{"created and linked_event_failed", S(C, LF, C), "error"},
		{"too few statuses", S(C, C), "error"},
		{"too many statuses", S(C, C, C, C), "error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := chobotb.Read(chain, c.st)
			if c.want == "error" {
				if err == nil {
					t.Fatalf("got %s, want an error", r)
				}
				if len(c.st) == len(chain) {
					var ue *chobotb.UnexpectedError
					if !errors.As(err, &ue) {
						t.Fatalf("error %v is not an *UnexpectedError", err)
					}
					if ue.Status == chobotb.Created {
						t.Errorf("UnexpectedError names %s", ue.Status)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.String() != c.want {
				t.Fatalf("got %s, want %s", r, c.want)
			}
		})
	}
}

// TestReadGuard: the key guard after a chain never decides the answer,
// and any status it cannot get is an error of the client.
func TestReadGuard(t *testing.T) {
	chain := []chobotb.Event{
		{Role: chobotb.RoleMove, Reason: "a_short"},
		{Role: chobotb.RoleMove, Reason: "b_short"},
		{Role: chobotb.RoleKeyGuard},
	}
	const (
		C    = chobotb.Created
		LF   = chobotb.LinkedEventFailed
		EWDF = chobotb.ExistsWithDifferentFlags
		PTNF = chobotb.PendingTransferNotFound
		IAF  = chobotb.IDAlreadyFailed
	)
	S := func(s ...chobotb.Status) []chobotb.Status { return s }
	cases := []struct {
		name string
		st   []chobotb.Status
		want string
	}{
		{"written now", S(C, C, EWDF), "done"},
		{"written before", S(chobotb.Exists, LF, EWDF), "done_before"},
		{"written before with other content", S(chobotb.ExistsWithDifferentAmount, LF, EWDF), "refused(key_conflict)"},
		{"refused by the second move: the guard uses the key up", S(LF, chobotb.ExceedsCredits, PTNF), "refused(b_short)"},
		{"refused by the first move: its id was the guard's", S(chobotb.ExceedsCredits, LF, IAF), "refused(a_short)"},
		{"a used-up key", S(IAF, LF, IAF), "refused(already_refused)"},
		{"a key a client without the guard used up", S(LF, IAF, PTNF), "refused(already_refused)"},
		{"the guard created", S(C, C, C), "error"},
		{"the guard exists", S(C, C, chobotb.Exists), "error"},
		{"the guard with other amounts", S(C, C, chobotb.ExistsWithDifferentAmount), "error"},
		{"the guard linked", S(C, C, LF), "error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := chobotb.Read(chain, c.st)
			if c.want == "error" {
				var ue *chobotb.UnexpectedError
				if !errors.As(err, &ue) || ue.Role != chobotb.RoleKeyGuard {
					t.Fatalf("got %s, %v; want an *UnexpectedError of the guard", r, err)
				}
				return
			}
			if err != nil || r.String() != c.want {
				t.Fatalf("got %s, %v; want %s", r, err, c.want)
			}
		})
	}
}

func TestReadStatus(t *testing.T) {
	const LF = chobotb.LinkedEventFailed
	cases := []struct {
		a, b chobotb.Status
		want chobo.HoldState
		err  bool
	}{
		{LF, chobotb.AccountsMustBeDifferent, chobo.Held, false},
		{chobotb.PendingTransferAlreadyPosted, LF, chobo.Posted, false},
		{chobotb.PendingTransferAlreadyVoided, LF, chobo.Voided, false},
		{chobotb.PendingTransferExpired, LF, chobo.Expired, false},
		{chobotb.PendingTransferNotFound, LF, "", false},
		{chobotb.Created, chobotb.Created, "", true},
		{chobotb.Created, chobotb.AccountsMustBeDifferent, "", true},
		{LF, LF, "", true},
		{chobotb.PendingTransferAlreadyPosted, chobotb.AccountsMustBeDifferent, "", true},
		{chobotb.IDAlreadyFailed, LF, "", true},
		{"something_else", LF, "", true},
	}
	for _, c := range cases {
		got, err := chobotb.ReadStatus([]chobotb.Status{c.a, c.b})
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s, %s: %q, %v; want %q (error %v)", c.a, c.b, got, err, c.want, c.err)
		}
	}
	if _, err := chobotb.ReadStatus([]chobotb.Status{chobotb.PendingTransferNotFound}); err == nil {
		t.Error("one status: no error")
	}
}

// ---- balances ----

func TestBalanceOf(t *testing.T) {
	u := chobotb.U64
	big := chobotb.U128{Hi: 1}
	cases := []struct {
		name string
		a    chobotb.Account
		want chobo.Balance
		err  string // the field of the *BalanceError
	}{
		{"zero", chobotb.Account{}, chobo.Balance{}, ""},
		{"posted", chobotb.Account{CreditsPosted: u(10), DebitsPosted: u(3), CreditsPending: u(2), DebitsPending: u(1)},
			chobo.Balance{Posted: 7, HeldIn: 2, HeldOut: 1}, ""},
		{"negative", chobotb.Account{CreditsPosted: u(3), DebitsPosted: u(10)}, chobo.Balance{Posted: -7}, ""},
		{"max", chobotb.Account{CreditsPosted: u(1<<63 - 1)}, chobo.Balance{Posted: 1<<63 - 1}, ""},
		{"min", chobotb.Account{DebitsPosted: u(1 << 63)}, chobo.Balance{Posted: -1 << 63}, ""},
		{"over max", chobotb.Account{CreditsPosted: u(1 << 63)}, chobo.Balance{}, "posted"},
		{"under min", chobotb.Account{DebitsPosted: u(1<<63 + 1)}, chobo.Balance{}, "posted"},
		{"128 bits", chobotb.Account{CreditsPosted: big}, chobo.Balance{}, "posted"},
		{"big but offset", chobotb.Account{CreditsPosted: big, DebitsPosted: big}, chobo.Balance{}, ""},
		{"held in", chobotb.Account{CreditsPending: u(1 << 63)}, chobo.Balance{}, "held_in"},
		{"held out", chobotb.Account{DebitsPending: big}, chobo.Balance{}, "held_out"},
	}
	for _, c := range cases {
		got, err := chobotb.BalanceOf("x", c.a)
		var be *chobotb.BalanceError
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		case c.err != "" && (!errors.As(err, &be) || be.Field != c.err):
			t.Errorf("%s: %+v, %v; want a *BalanceError on %s", c.name, got, err, c.err)
		}
	}
}

// Content writes what encoding/json writes for the list, whatever the
// strings hold: the bytes go into every content hash, which clients in
// other languages must reproduce.
func FuzzContentIsJSON(f *testing.F) {
	for _, s := range []string{"", "A-1", "a\"b", "a\\b", "<&>", "\u2028", "日本", "\x00", "\xff", "tab\there"} {
		f.Add(s, int64(3))
	}
	f.Fuzz(func(t *testing.T, s string, n int64) {
		vals := chobotb.Values{s, n, "x" + s}
		want, err := json.Marshal([]any(vals))
		if err != nil {
			t.Fatal(err)
		}
		if got := chobotb.Content(vals); got != string(want) {
			t.Errorf("Content(%q) = %s, want %s", vals, got, want)
		}
	})
}

// nettingsOf counts the nettings of a chain.
func nettingsOf(chain []chobotb.Event) int {
	n := 0
	for _, e := range chain {
		if e.Role == chobotb.RoleFloorNet || e.Role == chobotb.RoleRoomNet {
			n++
		}
	}
	return n
}
