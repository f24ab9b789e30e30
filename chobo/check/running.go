package check

import (
	"fmt"
	"slices"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/search"
)

// The analyses below speak of what calls do, so each one prints the calls
// that get there, found and run on the interpreter by package search. A
// finding without such calls is not reported.

func sameRef(a, b book.AccountRef) bool {
	return a.Account == b.Account && slices.Equal(a.Args, b.Args)
}

func withOps(d diag.Diagnostic, ex search.Example) diag.Diagnostic {
	d.Operations = ex.Operations()
	return d
}

// SameAccount reports moves whose two sides are always one account
// (E012): same kind, same arguments. Every call is refused.
func SameAccount(b *book.Book, s *search.Searcher) diag.List {
	var l diag.List
	for _, t := range b.Transfers {
		for _, m := range t.Moves {
			if !sameRef(m.From, m.To) {
				continue
			}
			ex, ok := s.SameAccount(t)
			if !ok {
				continue
			}
			acc := m.From.String()
			l.Add(withOps(diag.Diagnostic{Code: "E012", Severity: diag.Error, File: b.File,
				Line: m.Pos.Line, Col: m.Pos.Col,
				Message: diag.T(
					fmt.Sprintf("move %d takes from %s and puts into the same account: every call of `%s` is refused with same_account", m.Index, acc, t.Name),
					fmt.Sprintf("%dつ目の移動は %s から取り、同じ勘定へ入れます。`%s` の呼び出しはどれも same_account で拒否されます", m.Index, acc, t.Name)),
				Hint: diag.T("give the two sides different accounts, or different parameters as arguments",
					"移動の元と先を別の勘定にするか、別の引数を渡してください"),
			}, ex))
		}
	}
	return l
}

// OnlyFilled reports accounts inside the book that moves put into and
// none takes from (W101): their balance can only grow.
func OnlyFilled(b *book.Book, s *search.Searcher) diag.List {
	var l diag.List
	f := flowsOf(b)
	for _, a := range b.Accounts {
		if !f.onlyFills(a) {
			continue
		}
		for _, t := range b.Transfers {
			if !slices.ContainsFunc(t.Moves, func(m *book.Move) bool { return m.To.Account == a }) {
				continue
			}
			ex, ok := s.Success(t)
			if !ok {
				continue
			}
			l.Add(withOps(warn(b, "W101", a.Pos,
				diag.T(fmt.Sprintf("`%s` only fills: moves put into it and none takes from it, so its balance can only grow", a.Name),
					fmt.Sprintf("`%s` は増える一方です。入れる移動はあるのに、取る移動がどこにもありません", a.Name)),
				diag.T(fmt.Sprintf("write the transfer that takes from `%s`, or mark it outside when it stands for the world beyond the book", a.Name),
					fmt.Sprintf("`%s` から取る振替を書くか、帳簿の外を表す勘定なら outside にしてください", a.Name))), ex))
			break
		}
	}
	return l
}

// AlwaysRefused reports transfers that every call with an amount above
// zero is refused (W102): a move takes from an account that nothing puts
// into, and whose lower bound is zero or more.
func AlwaysRefused(b *book.Book, s *search.Searcher) diag.List {
	var l diag.List
	f := flowsOf(b)
	for _, t := range b.Transfers {
		for _, m := range t.Moves {
			src := m.From.Account
			if src.Outside || src.Lower == nil || src.Lower.Value < 0 || f.putInto[src] {
				continue
			}
			ex, ok := s.AtMove(t, m.Index, true, nil)
			if !ok {
				continue
			}
			// The bound as the book writes it: at the unit's scale.
			lower := book.FormatAmount(src.Lower.Value, src.Unit.Scale)
			// A call that moves 0 goes through; only a move of a fixed
			// amount is refused every time.
			always := diag.T("for any amount above 0 ", " 0 より大きい額では")
			if m.Amount.Param == nil {
				always = diag.Text{}
			}
			l.Add(withOps(warn(b, "W102", m.Pos,
				diag.T(fmt.Sprintf("`%s` is always refused %swith %s: move %d takes from %s, which no move puts into, and it may not go below its lower bound %s", t.Name, always.En, src.Lower.Reason, m.Index, m.From.String(), lower),
					fmt.Sprintf("`%s` は%sいつも %s で拒否されます。%dつ目の移動が %s から取りますが、そこへ入れる移動がどこにもないので、下限 %s を下回れません", t.Name, always.Ja, src.Lower.Reason, m.Index, m.From.String(), lower)),
				diag.T(fmt.Sprintf("write the transfer that puts into `%s`", src.Name),
					fmt.Sprintf("`%s` へ入れる振替を書いてください", src.Name))), ex))
			break
		}
	}
	return l
}

// MoveOrder reports transfers that post at once and can be refused only
// because of the order of their moves (W103): a move takes from an
// account that a later move puts into (lower bound), or puts into one a
// later move takes from (upper bound).
func MoveOrder(b *book.Book, s *search.Searcher) diag.List {
	var l diag.List
	for _, t := range b.Transfers {
		if t.Pending != nil {
			continue
		}
		for i, m := range t.Moves {
			// A move has two sides, and each can be refused too early: the
			// account it takes from, the account it puts into. Each side
			// gets its own warning, with the first later move that shows
			// it, so that one pair of moves (a swap: 1 takes from A and
			// puts into B, 2 takes from B and puts into A) gives both.
			//
			// What a later move is asked about is only the amount it
			// moves: a later move that moves the amount of one asked
			// about before gets the same answer, and is skipped.
			for _, side := range []orderCheck{takenBeforePut, putBeforeTaken} {
				asked := map[book.Amount]bool{}
				for _, later := range t.Moves[i+1:] {
					if asked[later.Amount] {
						continue
					}
					d, ok, searched := side(s, b, t, m, later)
					if ok {
						l.Add(d)
						break
					}
					if searched {
						asked[later.Amount] = true
					}
				}
			}
		}
	}
	return l
}

// orderCheck looks for one order problem of move m with a later move of
// the same transfer; searched reports whether the pair was one to search.
// Before it asks for an example that later's amount would have covered,
// it asks for any refusal at m, which the searcher keeps: when there is
// none, no later move need be asked about.
type orderCheck func(s *search.Searcher, b *book.Book, t *book.Transfer, m, later *book.Move) (d diag.Diagnostic, ok, searched bool)

// moved is what move mv moves in call c.
func moved(c interp.Call, mv *book.Move) int64 {
	if mv.Amount.Param != nil {
		return c.Amounts[mv.Amount.Param.Name]
	}
	return mv.Amount.Literal
}

// takenBeforePut: m takes from an account with a lower bound that later
// puts into.
func takenBeforePut(s *search.Searcher, b *book.Book, t *book.Transfer, m, later *book.Move) (diag.Diagnostic, bool, bool) {
	if lo := m.From.Account.Lower; lo != nil && sameRef(m.From, later.To) {
		if _, any := s.AtMove(t, m.Index, true, nil); !any {
			return diag.Diagnostic{}, false, true
		}
		// Refused at m although what later brings would cover it.
		ex, ok := s.AtMove(t, m.Index, true, func(c interp.Call, d *interp.BoundDetail) bool {
			return d.Balance.Posted-d.Balance.HeldOut-d.Amount+moved(c, later) >= lo.Value
		})
		if !ok {
			return diag.Diagnostic{}, false, true
		}
		acc := m.From.String()
		return withOps(warn(b, "W103", m.Pos,
			diag.T(fmt.Sprintf("move %d takes from %s before move %d puts into it: when %s is short at that point, the call is refused with %s, even when the two moves together would leave enough", m.Index, acc, later.Index, acc, lo.Reason),
				fmt.Sprintf("%dつ目の移動が %s から取ったあとで、%dつ目の移動がそこへ入れます。その時点で %s が足りなければ、2つの移動を合わせれば足りるときでも、%s で拒否されます", m.Index, acc, later.Index, acc, lo.Reason)),
			diag.T(fmt.Sprintf("write the move that puts into %s first", acc),
				fmt.Sprintf("%s へ入れる移動を先に書いてください", acc))), ex), true, true
	}
	return diag.Diagnostic{}, false, false
}

// putBeforeTaken: m puts into an account with an upper bound that later
// takes from.
func putBeforeTaken(s *search.Searcher, b *book.Book, t *book.Transfer, m, later *book.Move) (diag.Diagnostic, bool, bool) {
	if up := m.To.Account.Upper; up != nil && sameRef(m.To, later.From) {
		if _, any := s.AtMove(t, m.Index, false, nil); !any {
			return diag.Diagnostic{}, false, true
		}
		ex, ok := s.AtMove(t, m.Index, false, func(c interp.Call, d *interp.BoundDetail) bool {
			return d.Balance.Posted+d.Balance.HeldIn+d.Amount-moved(c, later) <= up.Value
		})
		if !ok {
			return diag.Diagnostic{}, false, true
		}
		acc := m.To.String()
		return withOps(warn(b, "W103", m.Pos,
			diag.T(fmt.Sprintf("move %d puts into %s before move %d takes from it: when %s is near its upper bound at that point, the call is refused with %s, even when the two moves together would stay within it", m.Index, acc, later.Index, acc, up.Reason),
				fmt.Sprintf("%dつ目の移動が %s へ入れたあとで、%dつ目の移動がそこから取ります。その時点で %s が上限に近ければ、2つの移動を合わせれば収まるときでも、%s で拒否されます", m.Index, acc, later.Index, acc, up.Reason)),
			diag.T(fmt.Sprintf("write the move that takes from %s first", acc),
				fmt.Sprintf("%s から取る移動を先に書いてください", acc))), ex), true, true
	}
	return diag.Diagnostic{}, false, false
}

// HoldsOwnMoves reports holds in which a move relies on what another move
// of the same hold brings (W104): held amounts do not count, whichever
// order the moves are in.
func HoldsOwnMoves(b *book.Book, s *search.Searcher) diag.List {
	var l diag.List
	for _, t := range b.Transfers {
		if t.Pending == nil {
			continue
		}
		for _, m := range t.Moves {
			for _, other := range t.Moves {
				if other == m {
					continue
				}
				if d, ok := holdsOwn(s, b, t, m, other); ok {
					l.Add(d)
					break
				}
			}
		}
	}
	return l
}

func holdsOwn(s *search.Searcher, b *book.Book, t *book.Transfer, m, other *book.Move) (diag.Diagnostic, bool) {
	if lo := m.From.Account.Lower; lo != nil && sameRef(m.From, other.To) {
		ex, ok := s.AtMove(t, m.Index, true, nil)
		if !ok {
			return diag.Diagnostic{}, false
		}
		acc := m.From.String()
		return withOps(warn(b, "W104", m.Pos,
			diag.T(fmt.Sprintf("in a hold, what move %d puts into %s is held coming in, and does not count when move %d takes from %s: unless %s has enough already, the hold is refused with %s", other.Index, acc, m.Index, acc, acc, lo.Reason),
				fmt.Sprintf("仮押さえでは、%dつ目の移動が %s へ入れる額は入ってくる仮押さえになり、%dつ目の移動が %s から取るときに数えられません。%s にはじめから足りるだけの残高が無ければ、%s で拒否されます", other.Index, acc, m.Index, acc, acc, lo.Reason)),
			diag.T(fmt.Sprintf("have what it takes in %s beforehand, or take it in another transfer after the hold is posted", acc),
				fmt.Sprintf("取る分をはじめから %s に入れておくか、確定のあとで取る別の振替にしてください", acc))), ex), true
	}
	if up := m.To.Account.Upper; up != nil && sameRef(m.To, other.From) {
		ex, ok := s.AtMove(t, m.Index, false, nil)
		if !ok {
			return diag.Diagnostic{}, false
		}
		acc := m.To.String()
		return withOps(warn(b, "W104", m.Pos,
			diag.T(fmt.Sprintf("in a hold, what move %d takes from %s is held going out, and makes no room when move %d puts into %s: unless %s has room already, the hold is refused with %s", other.Index, acc, m.Index, acc, acc, up.Reason),
				fmt.Sprintf("仮押さえでは、%dつ目の移動が %s から取る額は出ていく仮押さえになり、%dつ目の移動が %s へ入れるときの空きになりません。%s にはじめから空きが無ければ、%s で拒否されます", other.Index, acc, m.Index, acc, acc, up.Reason)),
			diag.T(fmt.Sprintf("keep room in %s beforehand, or put into it in another transfer after the hold is posted", acc),
				fmt.Sprintf("%s の空きをはじめから作っておくか、確定のあとで入れる別の振替にしてください", acc))), ex), true
	}
	return diag.Diagnostic{}, false
}
