package search

import (
	"slices"

	"github.com/chobo-lang/chobo/chobo/book"
)

// shadowed reports whether no call of t's do (or hold) can be refused at
// move (1-based) by the lower bound of the account the move takes from
// (lower) or the upper bound of the account it puts into: an earlier move
// of t checks the same bound of the same account, and for every amount
// the account stands no better there than it does at move. A call that
// got past the earlier check gets past this one too, so searching for it
// would only spend work. A transfer whose moves go back and forth
// between two accounts has most of its moves shadowed this way.
//
// Only what holds for every call counts: the reasoning stops at a move
// between the two that names an account of the same kind with other
// arguments, which a call may make the same account.
func shadowed(t *book.Transfer, move int, lower bool) bool {
	if move < 2 || move > len(t.Moves) {
		return false
	}
	m := t.Moves[move-1]
	r := m.To
	if lower {
		r = m.From
	}
	if m.Bound(lower) == nil {
		return false
	}
	hold := t.Pending != nil
	// d is how much better off the account stands at move than at the
	// earlier move j, as a sum of the transfer's amounts: for a lower
	// bound what it holds, for an upper bound the room it has. j walks
	// back from move; each step adds what lies between j-1 and j.
	d := newLinear(t)
	for j := move; j > 1; j-- {
		prev, cur := t.Moves[j-2], t.Moves[j-1]
		if aliases(prev, r) || aliases(cur, r) {
			return false
		}
		if lower {
			// The take of move j is counted at j and not at j-1; the put
			// of move j-1 (not in a hold) reached the account before the
			// check at j and not before the one at j-1.
			if sameRef(cur.From, r) {
				d.sub(cur.Amount)
			}
			if !hold && sameRef(prev.To, r) {
				d.add(prev.Amount)
			}
		} else {
			if sameRef(cur.To, r) {
				d.sub(cur.Amount)
			}
			if !hold && sameRef(prev.From, r) {
				d.add(prev.Amount)
			}
		}
		if d.overflow {
			return false
		}
		checked := prev.To
		if lower {
			checked = prev.From
		}
		if sameRef(checked, r) && d.nonNegative() {
			return true
		}
	}
	return false
}

func sameRef(a, b book.AccountRef) bool {
	return a.Account == b.Account && slices.Equal(a.Args, b.Args)
}

// aliases reports whether a side of m names an account of r's kind with
// other arguments: one a call may make r itself.
func aliases(m *book.Move, r book.AccountRef) bool {
	for _, side := range []book.AccountRef{m.From, m.To} {
		if side.Account == r.Account && !sameRef(side, r) {
			return true
		}
	}
	return false
}

// linear is a sum of a transfer's amount parameters, each times a whole
// number, and a constant.
type linear struct {
	coef     []int64 // by parameter index
	constant int64
	overflow bool
}

func newLinear(t *book.Transfer) linear { return linear{coef: make([]int64, len(t.Params))} }

func (l *linear) add(a book.Amount) { l.plus(a, 1) }
func (l *linear) sub(a book.Amount) { l.plus(a, -1) }

func (l *linear) plus(a book.Amount, sign int64) {
	if a.Param != nil {
		l.coef[a.Param.Index] += sign
		return
	}
	v := sign * a.Literal
	r := l.constant + v
	if (v > 0 && r < l.constant) || (v < 0 && r > l.constant) {
		l.overflow = true
	}
	l.constant = r
}

// nonNegative reports whether the sum is zero or more for every choice
// of amounts, all of which are zero or more.
func (l *linear) nonNegative() bool {
	if l.overflow || l.constant < 0 {
		return false
	}
	for _, c := range l.coef {
		if c < 0 {
			return false
		}
	}
	return true
}
