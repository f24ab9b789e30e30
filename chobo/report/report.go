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
				if ex, ok := s.Refusal(t, op, c.Reason); ok {
					c.Example = ex
					o.Refusals = append(o.Refusals, c)
				}
			}
			r.Operations = append(r.Operations, o)
		}
		r.Keys = append(r.Keys, t)
	}
	return r
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
	seen := map[string]bool{}
	add := func(reason string, acc *book.Account, b *book.Bound, lower bool) {
		word := "at most"
		if lower {
			word = "at least"
		}
		r := Refusal{Reason: reason, Bound: acc.Shape() + " " + word + " " + book.FormatAmount(b.Value, acc.Unit.Scale), Account: acc, Lower: lower}
		if !seen[r.Reason+"\x00"+r.Bound] {
			seen[r.Reason+"\x00"+r.Bound] = true
			out = append(out, r)
		}
	}
	sameKind := false
	for _, m := range t.Moves {
		if lo := m.From.Account.Lower; lo != nil {
			add(lo.Reason, m.From.Account, lo, true)
		}
		if up := m.To.Account.Upper; up != nil {
			add(up.Reason, m.To.Account, up, false)
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
