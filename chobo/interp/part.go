package interp

import (
	"maps"
	"slices"

	"github.com/chobo-lang/chobo/chobo/book"
)

// The functions here let an explorer of concurrent orders (chobo/scenario)
// avoid walking the same future twice: Same finds ledgers that answer
// every call alike, and Part cuts out of a ledger what some calls can
// see, so that the orders of a `together` are walked once for all the
// ledgers that differ only elsewhere.

// Same reports whether s and o are the same ledger: the same clock, every
// touched balance, every hold and every key used alike. Two ledgers that
// are the same answer every future call and pass alike, however they were
// reached.
func (s *State) Same(o *State) bool {
	if s.Now != o.Now || len(s.balances) != len(o.balances) || len(s.holds) != len(o.holds) || len(s.keys) != len(o.keys) {
		return false
	}
	for id, b := range s.balances {
		if ob := o.balances[id]; ob == nil || *ob != *b {
			return false
		}
	}
	for id, h := range s.holds {
		if oh := o.holds[id]; oh == nil || !sameHold(h, oh) {
			return false
		}
	}
	for id, r := range s.keys {
		if or, ok := o.keys[id]; !ok || or != r {
			return false
		}
	}
	return true
}

func sameHold(h, o *Hold) bool {
	return h.Transfer == o.Transfer && h.State == o.State && h.Created == o.Created && h.Deadline == o.Deadline &&
		slices.Equal(h.Key, o.Key) && slices.Equal(h.Amounts, o.Amounts) &&
		slices.EqualFunc(h.From, o.From, sameAccount) && slices.EqualFunc(h.To, o.To, sameAccount)
}

func sameAccount(a, b Account) bool { return a.Kind == b.Kind && slices.Equal(a.Args, b.Args) }

// Part is a part of a ledger: some accounts, keys and holds, by id.
type Part struct {
	accounts, keys, holds map[string]bool
}

// PartFor returns the part of s that the calls can read or change, in
// any order and whatever they answer: the keys they use, the holds they
// name, and the accounts their moves reach, or, for a post or a void,
// the accounts of the hold they name. A hold one of the calls may make
// reaches accounts that call names itself. It must cover everything
// Apply reads; the clock is always shared.
func (s *State) PartFor(calls []Call) Part {
	p := Part{accounts: map[string]bool{}, keys: map[string]bool{}, holds: map[string]bool{}}
	for _, c := range calls {
		t := c.Transfer
		vals := keyValues(c)
		switch c.Op {
		case book.Post, book.Void:
			hid := holdID(t, vals)
			p.holds[hid] = true
			p.keys[keyID(t, book.Post, vals)] = true
			if h := s.holds[hid]; h != nil {
				for i := range h.From {
					p.accounts[h.From[i].id()] = true
					p.accounts[h.To[i].id()] = true
				}
			}
		default:
			p.keys[keyID(t, c.Op, vals)] = true
			p.holds[holdID(t, vals)] = true
			from, to, _ := sides(c)
			for i := range from {
				p.accounts[from[i].id()] = true
				p.accounts[to[i].id()] = true
			}
		}
	}
	return p
}

// Only returns a ledger that holds the part p of s, and nothing else.
func (s *State) Only(p Part) *State {
	o := &State{Book: s.Book, Now: s.Now, balances: map[string]*Balance{}, holds: map[string]*Hold{}, keys: map[string]keyRecord{}}
	for _, a := range s.accounts {
		if id := a.id(); p.accounts[id] {
			b := *s.balances[id]
			o.balances[id] = &b
			o.accounts = append(o.accounts, a)
		}
	}
	for id := range p.holds {
		if h := s.holds[id]; h != nil {
			c := *h
			o.holds[id] = &c
		}
	}
	for id := range p.keys {
		if r, ok := s.keys[id]; ok {
			o.keys[id] = r
		}
	}
	return o
}

// With returns a copy of s whose part p is what o holds of it: the
// ledger s becomes when calls limited to p turn Only(p) into o.
//
// The result keeps no history: the entries the calls wrote on o would
// have to be woven into those of s in an order the parts do not know.
func (s *State) With(o *State, p Part) *State {
	c := s.Clone()
	c.hist = nil
	for id := range p.accounts {
		delete(c.balances, id)
	}
	c.accounts = slices.DeleteFunc(c.accounts, func(a Account) bool { return p.accounts[a.id()] })
	for _, a := range o.accounts {
		if id := a.id(); p.accounts[id] {
			b := *o.balances[id]
			c.balances[id] = &b
			c.accounts = append(c.accounts, a)
		}
	}
	for id := range p.holds {
		delete(c.holds, id)
		if h := o.holds[id]; h != nil {
			hc := *h
			c.holds[id] = &hc
		}
	}
	maps.DeleteFunc(c.keys, func(id string, _ keyRecord) bool { return p.keys[id] })
	for id := range p.keys {
		if r, ok := o.keys[id]; ok {
			c.keys[id] = r
		}
	}
	return c
}
