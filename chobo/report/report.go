// Package report builds the per-operation refusal report `chobo check`
// prints after the diagnostics: for every transfer kind and operation,
// the reasons a call may be refused with, each backed by calls that the
// interpreter refuses that way, and what the key of each transfer means.
package report

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/search"
)

// Refusal is one reason an operation may be refused with.
type Refusal struct {
	Reason string
	// Bound describes the bound behind a bound's reason, such as
	// "stock(sku) at least 0"; empty for chobo's own reasons.
	Bound string
	// Account and Lower say which bound that is: the lower or the upper
	// one of Account. Account is nil for chobo's own reasons.
	Account *book.Account
	Lower   bool
	// Moves are the moves (from 1, in order) whose account, named by the
	// move as Ref (`stock(to_sku)`), crosses the bound of words Limit
	// (`at least 0`) in some call the search found: in a transfer of
	// several moves, which move refuses is what a reader needs, since two
	// moves may take from accounts of one kind, or give one reason for
	// different bounds. Moves naming the account alike share a refusal.
	Moves   []int
	Ref     string
	Limit   string
	Example search.Example
}

// Operation lists the refusals of one operation of one transfer kind.
type Operation struct {
	Transfer *book.Transfer
	Op       book.Op
	Refusals []Refusal
}

// Report is the whole report of a book.
type Report struct {
	Operations []Operation
	Keys       []*book.Transfer
}

// Build searches every candidate reason of every operation and keeps
// those the search reached.
func Build(b *book.Book) Report { return BuildWith(b, search.New(b)) }

// BuildWith is Build with a searcher that has searched the book before,
// whose findings it reuses.
func BuildWith(b *book.Book, s *search.Searcher) Report {
	var r Report
	for _, t := range b.Transfers {
		for _, op := range t.Ops() {
			o := Operation{Transfer: t, Op: op}
			for _, c := range candidates(t, op) {
				if c.Account != nil {
					c = reached(s, t, c)
				} else if ex, ok := s.Refusal(t, op, c.Reason); ok {
					c.Example = ex
				}
				if len(c.Example.Steps) > 0 {
					o.Refusals = append(o.Refusals, c)
				}
			}
			r.Operations = append(r.Operations, o)
		}
		r.Keys = append(r.Keys, t)
	}
	return r
}

// reached keeps of c's moves those the search finds a call refused at,
// each bound searched at its own move; the example is the first move's.
func reached(s *search.Searcher, t *book.Transfer, c Refusal) Refusal {
	var moves []int
	for _, mv := range c.Moves {
		if ex, ok := s.AtMove(t, mv, c.Lower, nil); ok {
			if len(moves) == 0 {
				c.Example = ex
			}
			moves = append(moves, mv)
		}
	}
	c.Moves = moves
	return c
}

// candidates lists the reasons worth searching for, in the order the
// report prints them.
func candidates(t *book.Transfer, op book.Op) []Refusal {
	switch op {
	case book.Post:
		return reasons(book.KeyConflict, book.AlreadyVoided, book.Expired, book.OverHold, book.NoSuchHold)
	case book.Void:
		return reasons(book.AlreadyPosted, book.Expired, book.NoSuchHold)
	}
	var out []Refusal
	seen := map[string]int{}
	add := func(reason string, m *book.Move, ref book.AccountRef, b *book.Bound, lower bool) {
		word := "at most"
		if lower {
			word = "at least"
		}
		acc := ref.Account
		limit := word + " " + book.FormatAmount(b.Value, acc.Unit.Scale)
		r := Refusal{Reason: reason, Bound: acc.Shape() + " " + limit, Account: acc, Lower: lower,
			Moves: []int{m.Index}, Ref: ref.String(), Limit: limit}
		k := r.Reason + "\x00" + r.Bound + "\x00" + r.Ref
		if i, ok := seen[k]; ok {
			out[i].Moves = append(out[i].Moves, m.Index)
			return
		}
		seen[k] = len(out)
		out = append(out, r)
	}
	sameKind := false
	for _, m := range t.Moves {
		if lo := m.From.Account.Lower; lo != nil {
			add(lo.Reason, m, m.From, lo, true)
		}
		if up := m.To.Account.Upper; up != nil {
			add(up.Reason, m, m.To, up, false)
		}
		sameKind = sameKind || m.From.Account == m.To.Account
	}
	if sameKind {
		out = append(out, Refusal{Reason: book.SameAccount})
	}
	out = append(out, Refusal{Reason: book.KeyConflict}, Refusal{Reason: book.AlreadyRefused})
	return out
}

func reasons(names ...string) []Refusal {
	out := make([]Refusal, len(names))
	for i, n := range names {
		out[i] = Refusal{Reason: n}
	}
	return out
}
