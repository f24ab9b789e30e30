package check

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/search"
)

// flows records which account kinds some move takes from or puts into.
type flows struct {
	takenFrom map[*book.Account]bool
	putInto   map[*book.Account]bool
}

func flowsOf(b *book.Book) flows {
	f := flows{map[*book.Account]bool{}, map[*book.Account]bool{}}
	for _, t := range b.Transfers {
		for _, m := range t.Moves {
			f.takenFrom[m.From.Account] = true
			f.putInto[m.To.Account] = true
		}
	}
	return f
}

func (f flows) used(a *book.Account) bool { return f.takenFrom[a] || f.putInto[a] }

// onlyFills reports the shape W101 speaks of: an account inside the book
// that moves put into and none takes from.
func (f flows) onlyFills(a *book.Account) bool {
	return !a.Outside && f.putInto[a] && !f.takenFrom[a]
}

func warn(b *book.Book, code string, pos book.Pos, msg, hint diag.Text) diag.Diagnostic {
	return diag.Diagnostic{Code: code, Severity: diag.Warning, File: b.File,
		Line: pos.Line, Col: pos.Col, Message: msg, Hint: hint}
}

// Unused reports declarations nothing uses (W105): a unit no account or
// parameter is counted in, an account no move touches, a parameter that
// is neither in the key nor in a move.
func Unused(b *book.Book, _ *search.Searcher) diag.List {
	var l diag.List
	unitUsed := map[*book.Unit]bool{}
	for _, a := range b.Accounts {
		unitUsed[a.Unit] = true
	}
	for _, t := range b.Transfers {
		for _, p := range t.Params {
			unitUsed[p.Unit] = true
		}
	}
	for _, u := range b.Units {
		if !unitUsed[u] {
			l.Add(warn(b, "W105", u.Pos,
				diag.T(fmt.Sprintf("the unit `%s` is not used: no account or parameter counts in it", u.Name),
					fmt.Sprintf("単位 `%s` は使われていません。この単位で数える勘定も引数もありません", u.Name)),
				diag.T("remove the unit, or give it to the account or parameter that should count in it",
					"単位を消すか、この単位で数えるはずの勘定か引数に付けてください")))
		}
	}
	f := flowsOf(b)
	for _, a := range b.Accounts {
		if !f.used(a) {
			l.Add(warn(b, "W105", a.Pos,
				diag.T(fmt.Sprintf("the account `%s` is not used: no transfer moves from or to it", a.Name),
					fmt.Sprintf("勘定 `%s` は使われていません。この勘定から、またはこの勘定へ動かす振替がありません", a.Name)),
				diag.T("remove the account, or write the transfer that moves through it",
					"勘定を消すか、この勘定を通る振替を書いてください")))
		}
	}
	for _, t := range b.Transfers {
		used := map[*book.Param]bool{}
		for _, p := range t.Key {
			used[p] = true
		}
		for _, m := range t.Moves {
			used[m.Amount.Param] = true
			for _, p := range m.From.Args {
				used[p] = true
			}
			for _, p := range m.To.Args {
				used[p] = true
			}
		}
		for _, p := range t.Params {
			if !used[p] {
				l.Add(warn(b, "W105", p.Pos,
					diag.T(fmt.Sprintf("the parameter `%s` of `%s` is not used: it is neither in the key nor in a move", p.Name, t.Name),
						fmt.Sprintf("`%s` の引数 `%s` は使われていません。`key` にも移動にもありません", t.Name, p.Name)),
					diag.T("remove the parameter, or use it in the key or a move",
						"引数を消すか、`key` か移動で使ってください")))
			}
		}
	}
	return l
}

// IneffectiveBounds reports bounds no move can reach (W106): an upper
// bound on an account nothing is put into, a lower bound on one nothing
// is taken from. Accounts that W105 (unused) or W101 (only filled) speak
// of are left to those.
func IneffectiveBounds(b *book.Book, _ *search.Searcher) diag.List {
	var l diag.List
	f := flowsOf(b)
	for _, a := range b.Accounts {
		if !f.used(a) || f.onlyFills(a) {
			continue
		}
		if a.Upper != nil && !f.putInto[a] {
			l.Add(warn(b, "W106", a.Upper.Pos,
				diag.T(fmt.Sprintf("the upper bound of `%s` never acts: no move puts into it", a.Name),
					fmt.Sprintf("`%s` の上限は効きません。この勘定へ入れる移動がありません", a.Name)),
				diag.T("remove the bound, or write the transfer that fills the account",
					"境界を消すか、この勘定へ入れる振替を書いてください")))
		}
		if a.Lower != nil && !f.takenFrom[a] {
			l.Add(warn(b, "W106", a.Lower.Pos,
				diag.T(fmt.Sprintf("the lower bound of `%s` never acts: no move takes from it", a.Name),
					fmt.Sprintf("`%s` の下限は効きません。この勘定から取る移動がありません", a.Name)),
				diag.T("remove the bound, or write the transfer that takes from the account",
					"境界を消すか、この勘定から取る振替を書いてください")))
		}
	}
	return l
}
