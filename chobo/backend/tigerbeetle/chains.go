package tigerbeetle

import (
	"fmt"
	"strconv"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Chain is what one operation of a transfer kind sends to TigerBeetle,
// written in the book's terms: accounts by their kind and the parameter
// names that pick one (stock(sku), floor(stock(sku)), sink(pcs)), amounts
// by the parameter or the number that gives them. It is read off the
// chains the runtime builds for a call whose every string is its
// parameter's name, so that it is the runtime's layout, not a copy of it.
type Chain struct {
	Transfer string
	Op       string
	// Accounts are what a do or hold makes before its chain (each once,
	// first use first); Openings the transfers that open its floor and room
	// accounts.
	Accounts []ChainAccount
	Openings []ChainOpening
	// Lookups are, for post and void, the hold's moves, whose amounts are
	// read before anything is sent: their places in the hold's chain as
	// this version lays it out, from 0. The client looks up every place a
	// layout may use (chobotb.Def.Lookups), and finds the moves of a hold
	// another version laid out by what the records name.
	Lookups []int
	Events  []ChainEvent
}

// ChainAccount is an account a call makes, and what it is for: "account"
// (of the book), "floor" or "room" (the distance to a bound of one),
// "shortfall" (what a floor or room owes, when a narrowed bound left its
// account outside) or "sink" (where bounds are opened from and probes go,
// one per unit).
type ChainAccount struct {
	Name string
	Role string
}

// ChainOpening is the transfer that puts a floor or room account's
// distance to its bound into it, from the sink.
type ChainOpening struct {
	Account string
	Amount  int64
}

// ChainEvent is one transfer of a chain.
type ChainEvent struct {
	Role string // chobotb's roles: move, lower_probe, …, post, void, status_void, status_fail
	Move int    // the move it belongs to, from 1; 0 for a status chain
	// Debit and Credit name the accounts; empty for an event that takes
	// them from the pending transfer it ends.
	Debit, Credit string
	// Amount is the parameter or the number moved; "held" for a post (what
	// the hold holds, or the part of it the call names), "owed" for a
	// netting (as much as the floor or room has and its shortfall owes),
	// empty for a void or a status chain.
	Amount  string
	Pending bool // a pending transfer (a hold's, or a probe)
	Linked  bool // linked to the next event
	// Ends is the place in the hold's chain of the pending event it posts
	// or voids; -1 when it ends none.
	Ends int
	// Reason is the refusal when TigerBeetle finds no room for this event.
	Reason string
	// IDOf is the place in this chain of the event whose id this one
	// carries too (the key guard carries the first event's); -1 when its
	// id is its own.
	IDOf int
}

// Chains lays out every operation of every transfer kind of b, in the
// book's order: do or hold, then post, void and status.
func Chains(b *book.Book) ([]Chain, error) {
	d := Def(b)
	var out []Chain
	for i, t := range b.Transfers {
		vals := make(chobotb.Values, len(t.Params))
		for j, p := range t.Params {
			if p.IsAmount() {
				vals[j] = int64(1)
			} else {
				vals[j] = p.Name
			}
		}
		first := "do"
		if t.Pending != nil {
			first = "hold"
		}
		c, plan, err := made(d, b, i, first, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		if t.Pending == nil {
			continue
		}
		key := d.KeyValues(i, vals)
		lookups, err := d.MoveIDs("", i, key)
		if err != nil {
			return nil, err
		}
		holdEvents := map[ids.ID]int{} // the hold's events by id: their places
		for pos, e := range plan.Chain {
			if e.Role != chobotb.RoleKeyGuard { // it carries the id of the first
				holdEvents[e.ID] = pos
			}
		}
		var places []int
		for _, id := range lookups {
			places = append(places, holdEvents[id])
		}
		for _, op := range []string{"post", "void"} {
			var amounts []uint64
			if op == "post" {
				amounts = make([]uint64, len(t.Moves))
			}
			evs, err := d.Finish("", i, op, key, amounts)
			if err != nil {
				return nil, err
			}
			c := Chain{Transfer: t.Name, Op: op, Lookups: places}
			for _, e := range evs {
				ce := event(e, nil)
				ce.Ends = holdEvents[e.PendingID]
				if op == "post" {
					ce.Amount = "held"
				}
				c.Events = append(c.Events, ce)
			}
			out = append(out, c)
		}
		evs, err := d.StatusChain("", i, key, ids.ID{15: 1}, ids.ID{15: 2})
		if err != nil {
			return nil, err
		}
		c = Chain{Transfer: t.Name, Op: "status"}
		for _, e := range evs {
			ce := event(e, nil)
			if e.Role == chobotb.RoleStatusVoid {
				ce.Ends = holdEvents[e.PendingID]
			}
			c.Events = append(c.Events, ce)
		}
		out = append(out, c)
	}
	return out, nil
}

// made lays out a do or hold, and returns the plan it read it from.
func made(d *chobotb.Def, b *book.Book, kind int, op string, vals chobotb.Values) (Chain, *chobotb.Plan, error) {
	t := b.Transfers[kind]
	c := Chain{Transfer: t.Name, Op: op}
	p, err := d.Build("", kind, op, vals)
	if err != nil {
		return c, nil, err
	}
	if p.SameAccount {
		return c, nil, fmt.Errorf("%s: a move of %s goes from an account to itself whatever the call", b.File, t.Name)
	}
	names := map[ids.ID]string{}
	sinks := map[ids.ID]bool{}
	for _, u := range b.Units {
		sinks[ids.Sink(b.Name, "", u.Name)] = true
	}
	for i, a := range p.Accounts {
		names[a.ID] = p.Names[i]
		role := "account"
		switch {
		case sinks[a.ID]:
			role = "sink"
		case a.ID == ids.Floor(a.UserData128):
			role = "floor"
		case a.ID == ids.Room(a.UserData128):
			role = "room"
		case a.ID == ids.Shortfall(a.UserData128):
			role = "shortfall"
		}
		c.Accounts = append(c.Accounts, ChainAccount{Name: p.Names[i], Role: role})
	}
	for _, o := range p.Openings {
		c.Openings = append(c.Openings, ChainOpening{Account: names[o.CreditAccountID], Amount: int64(o.Amount.Lo)})
	}
	for _, e := range p.Chain {
		ce := event(e, names)
		switch e.Role {
		case chobotb.RoleProbe:
			ce.Amount = strconv.FormatUint(e.Amount.Lo, 10)
		case chobotb.RoleProbeVoid:
			ce.Amount = ""
		case chobotb.RoleKeyGuard:
			ce.Amount, ce.IDOf = "", 0
		case chobotb.RoleFloorNet, chobotb.RoleRoomNet:
			ce.Amount = "owed"
		default:
			ce.Amount = moveAmount(t.Moves[e.Move-1])
		}
		c.Events = append(c.Events, ce)
	}
	// A void ends the probe just before it.
	for i, e := range p.Chain {
		if e.Role == chobotb.RoleProbeVoid {
			c.Events[i].Ends = i - 1
		}
	}
	return c, p, nil
}

func moveAmount(m *book.Move) string {
	if m.Amount.Param != nil {
		return m.Amount.Param.Name
	}
	return strconv.FormatInt(m.Amount.Literal, 10)
}

func event(e chobotb.Event, names map[ids.ID]string) ChainEvent {
	return ChainEvent{
		Role: string(e.Role), Move: e.Move,
		Debit: names[e.DebitAccountID], Credit: names[e.CreditAccountID],
		Pending: e.Flags&chobotb.TransferPending != 0,
		Linked:  e.Flags&chobotb.TransferLinked != 0,
		Ends:    -1,
		Reason:  e.Reason,
		IDOf:    -1,
	}
}
