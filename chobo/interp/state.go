// Package interp is the reference interpreter: the meaning of a book.
// Every backend chobo generates is tested against what it answers.
//
// State is one tenant's ledger. Time moves only when the caller says so
// (Pass); a hold whose deadline is reached expires at that instant.
package interp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

// Balance is one account's amounts: posted, and held on the way out and
// on the way in.
type Balance struct {
	Posted  int64
	HeldOut int64
	HeldIn  int64
}

// Account names one account: its kind and the values of its parameters.
type Account struct {
	Kind *book.Account
	Args []string
}

// String writes the account as `stock(s-1)`, or just the kind's name
// when it has no parameters.
func (a Account) String() string { return book.KindArgs(a.Kind.Name, a.Args) }

func (a Account) id() string { return a.Kind.Name + "\x00" + strings.Join(a.Args, "\x00") }

// HoldState is where a hold is in its life.
type HoldState int

const (
	Held HoldState = iota
	Posted
	Voided
	HoldExpired
)

func (s HoldState) String() string {
	switch s {
	case Posted:
		return "posted"
	case Voided:
		return "voided"
	case HoldExpired:
		return "expired"
	}
	return "held"
}

// Hold is one hold: what each move holds and where the hold stands.
type Hold struct {
	Transfer *book.Transfer
	Key      []string // the key values, in key order
	Amounts  []int64  // per move, as held
	From, To []Account
	State    HoldState
	Created  int64
	Deadline int64 // meaningful when Transfer.Pending.Expires
}

// Name writes the hold as `reserve(o-1, s-1)`. A resolved transfer always
// has a key, so the bare form of KindArgs never shows here.
func (h *Hold) Name() string { return book.KindArgs(h.Transfer.Name, h.Key) }

func (h *Hold) expires() bool { return h.Transfer.Pending.Expires }

// keyRecord remembers what a key was first used for.
type keyRecord struct {
	content      string
	boundRefusal bool
}

// State is the ledger of one tenant.
type State struct {
	Book *book.Book
	Now  int64 // seconds since the start

	balances map[string]*Balance
	accounts []Account // every account touched
	holds    map[string]*Hold
	keys     map[string]keyRecord
	hist     *history // nil unless KeepHistory was called
}

// New returns an empty ledger for b.
func New(b *book.Book) *State {
	return &State{Book: b, balances: map[string]*Balance{}, holds: map[string]*Hold{}, keys: map[string]keyRecord{}}
}

// Clone returns an independent copy, for exploring orders of concurrent
// calls.
func (s *State) Clone() *State {
	c := &State{Book: s.Book, Now: s.Now,
		balances: make(map[string]*Balance, len(s.balances)),
		accounts: slices.Clone(s.accounts),
		holds:    make(map[string]*Hold, len(s.holds)),
		keys:     make(map[string]keyRecord, len(s.keys)),
	}
	for k, v := range s.balances {
		b := *v
		c.balances[k] = &b
	}
	for k, v := range s.holds {
		h := *v
		c.holds[k] = &h
	}
	for k, v := range s.keys {
		c.keys[k] = v
	}
	if s.hist != nil {
		c.hist = s.hist.clone()
	}
	return c
}

// Balance returns the balance of a, zero when it was never touched.
func (s *State) Balance(a Account) Balance {
	if b := s.balances[a.id()]; b != nil {
		return *b
	}
	return Balance{}
}

func (s *State) touch(a Account) *Balance { return s.touchID(a, a.id()) }

// touchID is touch for an account whose id is known.
func (s *State) touchID(a Account, id string) *Balance {
	b := s.balances[id]
	if b == nil {
		b = &Balance{}
		s.balances[id] = b
		s.accounts = append(s.accounts, a)
	}
	return b
}

// AccountBalance is an account with its balance.
type AccountBalance struct {
	Account Account
	Balance Balance
}

// Accounts lists every account a call has touched, ordered by the
// declaration of their kinds, then by their argument values. The order
// does not depend on the order of the calls, so two ledgers that hold
// the same list them the same way.
func (s *State) Accounts() []AccountBalance {
	out := make([]AccountBalance, 0, len(s.accounts))
	for _, a := range s.accounts {
		out = append(out, AccountBalance{a, *s.balances[a.id()]})
	}
	slices.SortFunc(out, func(x, y AccountBalance) int {
		if d := x.Account.Kind.Index - y.Account.Kind.Index; d != 0 {
			return d
		}
		return slices.Compare(x.Account.Args, y.Account.Args)
	})
	return out
}

// Holds lists every hold, ordered by the declaration of their transfer
// kinds, then by their key values: like Accounts, independent of the
// order of the calls.
func (s *State) Holds() []*Hold {
	out := make([]*Hold, 0, len(s.holds))
	for _, h := range s.holds {
		out = append(out, h)
	}
	slices.SortFunc(out, func(x, y *Hold) int {
		if d := x.Transfer.Index - y.Transfer.Index; d != 0 {
			return d
		}
		return slices.Compare(x.Key, y.Key)
	})
	return out
}

// Pass moves the clock forward and expires every hold whose deadline is
// reached, all at once. It returns the holds that expired, in the order
// of Holds.
func (s *State) Pass(seconds int64) ([]*Hold, error) {
	if seconds < 0 {
		return nil, fmt.Errorf("time cannot go back (%d seconds)", seconds)
	}
	s.Now += seconds
	var out []*Hold
	for _, h := range s.Holds() {
		if h.State == Held && h.expires() && s.Now >= h.Deadline {
			s.release(h)
			h.State = HoldExpired
			s.record(holdCall(h), Expire, h.Key, holdChanges(h, nil))
			out = append(out, h)
		}
	}
	return out, nil
}

// release gives back what a hold held.
func (s *State) release(h *Hold) {
	for i, amt := range h.Amounts {
		s.touch(h.From[i]).HeldOut -= amt
		s.touch(h.To[i]).HeldIn -= amt
	}
}

// Deploy puts the version nb of the book in place of the one s runs
// under, as a deployment does between two calls: balances, holds, keys
// and the history carry over untouched, and every call from now on runs
// under nb's bounds. Accounts and holds are matched by kind name, which
// is all an account's id or a hold's key holds; a kind nb no longer has
// stays as it was, as its rows would stay in a database. The caller
// checks that nb may follow the book in place (no E050 or E051): this
// only moves the ledger over.
func (s *State) Deploy(nb *book.Book) {
	s.Book = nb
	account := func(a Account) Account {
		if k := nb.Account(a.Kind.Name); k != nil {
			a.Kind = k
		}
		return a
	}
	transfer := func(t *book.Transfer) *book.Transfer {
		if n := nb.Transfer(t.Name); n != nil {
			return n
		}
		return t
	}
	// The slices are made anew: a clone shares them with the ledger it
	// was cloned from, which keeps the version it had.
	accounts := make([]Account, len(s.accounts))
	for i, a := range s.accounts {
		accounts[i] = account(a)
	}
	s.accounts = accounts
	for id, h := range s.holds {
		nh := *h
		nh.Transfer = transfer(h.Transfer)
		nh.From, nh.To = make([]Account, len(h.From)), make([]Account, len(h.To))
		for i := range h.From {
			nh.From[i], nh.To[i] = account(h.From[i]), account(h.To[i])
		}
		s.holds[id] = &nh
	}
	if s.hist != nil {
		entries := make([]Entry, len(s.hist.entries))
		for i, e := range s.hist.entries {
			e.Call.Transfer = transfer(e.Call.Transfer)
			e.Account = account(e.Account)
			entries[i] = e
		}
		s.hist.entries = entries
	}
}
