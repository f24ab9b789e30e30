package doc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Statements is what an operator reads of a ledger's history, shown on
// one scenario of the page: for each account kind, the statement of one
// account of it (the first the scenario touches), and the holds still
// open when the scenario ends. The entries are the interpreter's
// (interp.State.Statement), the same a client's statement reads from a
// database.
type Statements struct {
	Number int // the scenario's number, as the stepper counts
	Title  string
	Steps  int // its steps: a link opens the stepper at the last
	// Accounts are one statement per account kind the scenario touches,
	// in the book's order.
	Accounts []AccountStatement
	// Untouched are the account kinds the scenario leaves alone.
	Untouched []string
	Holds     []OpenHoldRow
}

// AccountStatement is the statement of one account: its first entries,
// and how many follow.
type AccountStatement struct {
	Account string
	Entries []EntryRow
	More    int
	// MoreText says how many entries follow, when any do.
	MoreText string
}

// EntryRow is one entry as the page writes it, its amounts at their
// unit's scale with their digits grouped.
type EntryRow struct {
	Time   string // "at the start", "after 15 minutes"
	Call   string // the transfer, the operation and the key: redeem.post(checkout: c-1)
	Move   string // "1 out", "1 in"
	Change string // "held out +10", "posted -10, held out -10"
	After  string // the balance it left
}

// OpenHoldRow is a hold still open when the scenario ends.
type OpenHoldRow struct {
	Hold     string
	Created  string
	Deadline string
	Moves    string
}

// statementLimit is the most entries one statement shows: a page weighs
// what the design allows, and a few entries show what each kind of entry
// looks like; the stepper has the rest.
const statementLimit = 4

// statementsOf picks the scenario the statements are shown on and
// writes them. The scenario is one of scs (the team's, then the
// generated ones, numbered from 1 in that order) that runs one call
// after another (a `together` has several ways to end, a statement
// one): of those, the ones whose history reaches the most account kinds
// of the book (all of them, when one does); of those, the ones whose
// entries are of the most kinds (do, hold, post, void, expire), which
// show the most of what a statement holds; of those, the one with the
// fewest entries, which the page shows whole the most often; the first
// of equals. nil when no scenario writes any entry.
func statementsOf(b *book.Book, scs []scenario.Scenario, lang diag.Lang) *Statements {
	best := -1
	var bestState *interp.State
	var bestScore [3]int
	for i, sc := range scs {
		s := replay(b, sc)
		if s == nil {
			continue
		}
		kinds, ops, entries := reach(s)
		if kinds == 0 {
			continue
		}
		score := [3]int{kinds, ops, -entries}
		if best < 0 || slices.Compare(score[:], bestScore[:]) > 0 {
			best, bestScore, bestState = i, score, s
		}
	}
	if best < 0 {
		return nil
	}
	s := bestState
	v := &Statements{Number: best + 1, Title: groupNumbers(scs[best].Title(lang)), Steps: len(scs[best].Steps)}
	for _, k := range b.Accounts {
		acc, ok := firstOf(s, k)
		if !ok {
			v.Untouched = append(v.Untouched, k.Name)
			continue
		}
		all, _ := s.Statement(acc, interp.Filter{})
		page, _ := s.Statement(acc, interp.Filter{Limit: statementLimit})
		st := AccountStatement{Account: acc.String(), More: len(all.Entries) - len(page.Entries)}
		for _, e := range page.Entries {
			st.Entries = append(st.Entries, entryRow(e, lang))
		}
		switch {
		case st.More == 1:
			st.MoreText = T("1 more entry follows.", "このあと 1 件続きます。").In(lang)
		case st.More > 1:
			st.MoreText = T(fmt.Sprintf("%d more entries follow.", st.More), fmt.Sprintf("このあと %d 件続きます。", st.More)).In(lang)
		}
		v.Accounts = append(v.Accounts, st)
	}
	for _, h := range s.OpenHolds(nil, nil) {
		v.Holds = append(v.Holds, openHoldRow(h, lang))
	}
	return v
}

// replay runs a scenario of calls and passes on a ledger that keeps its
// history, and returns the ledger at its end; nil for a scenario with a
// `together`. A call that cannot be made, or fails, writes nothing, as
// on a database.
func replay(b *book.Book, sc scenario.Scenario) *interp.State {
	if slices.ContainsFunc(sc.Steps, func(st scenario.Step) bool { return st.Together != nil }) {
		return nil
	}
	s := interp.New(b)
	s.KeepHistory()
	for _, st := range sc.Steps {
		switch {
		case st.Call != nil:
			if st.Call.Bad == "" {
				_, _ = s.Apply(st.Call.Call)
			}
		case st.Read != nil:
		default:
			_, _ = s.Pass(st.Pass)
		}
	}
	return s
}

// reach counts the account kinds a ledger's history reaches, the kinds
// of its entries, and its entries.
func reach(s *interp.State) (kinds, ops, entries int) {
	seen := map[interp.EntryOp]bool{}
	for _, k := range s.Book.Accounts {
		a, ok := firstOf(s, k)
		if !ok {
			continue
		}
		kinds++
		p, _ := s.Statement(a, interp.Filter{})
		for _, e := range p.Entries {
			seen[e.Op] = true
		}
		entries += len(p.Entries)
	}
	return kinds, len(seen), entries
}

// firstOf is the account of kind k the history reaches first: the one
// whose first entry comes before those of the others of its kind.
func firstOf(s *interp.State, k *book.Account) (interp.Account, bool) {
	var first interp.Account
	at := int64(-1)
	for _, a := range s.Accounts() {
		if a.Account.Kind != k {
			continue
		}
		p, _ := s.Statement(a.Account, interp.Filter{Limit: 1})
		if len(p.Entries) == 0 {
			continue
		}
		if seq := p.Entries[0].Seq; at < 0 || seq < at {
			first, at = a.Account, seq
		}
	}
	return first, at >= 0
}

func entryRow(e interp.Entry, lang diag.Lang) EntryRow {
	scale := e.Account.Kind.Unit.Scale
	var key []string
	for i, p := range e.Call.Transfer.Key {
		key = append(key, p.Name+": "+diag.Printable(e.Key[i]))
	}
	side := T("out", "出").In(lang)
	if !e.Out {
		side = T("in", "入").In(lang)
	}
	call := e.Call.Transfer.Name + "." + string(e.Op) + "(" + strings.Join(key, ", ") + ")"
	if e.Op == interp.Expire && lang == diag.Japanese {
		// No one calls an expiry: the Japanese page says what happened,
		// as it says it of a pass that expires a hold.
		call = e.Call.Transfer.Name + "(" + strings.Join(key, ", ") + ") の期限切れ"
	}
	return EntryRow{
		Time:   timeText(e.Time, lang),
		Call:   call,
		Move:   fmt.Sprintf("%d %s", e.Move, side),
		Change: changeText(e, lang),
		After:  balanceText(e.After, scale, lang),
	}
}

// timeText is a time of the ledger's clock as the page says it: from
// the start of the scenario, in the largest unit that divides it.
func timeText(secs int64, lang diag.Lang) string {
	if secs == 0 {
		return T("at the start", "開始時").In(lang)
	}
	l := lifetimeText(secs, lang)
	return T("after "+l, l+"後").In(lang)
}

// changeText is interp.Entry.ChangeText with the page's grouped amounts.
func changeText(e interp.Entry, lang diag.Lang) string {
	scale := e.Account.Kind.Unit.Scale
	names := [3]diag.Text{T("posted", "確定"), T("held out", "出ていく仮押さえ"), T("held in", "入ってくる仮押さえ")}
	var parts []string
	for i, d := range []int64{e.Posted, e.HeldOut, e.HeldIn} {
		if d != 0 {
			sign := "+"
			if d < 0 {
				sign = ""
			}
			parts = append(parts, names[i].In(lang)+" "+sign+amount(d, scale))
		}
	}
	if len(parts) == 0 {
		return names[0].In(lang) + " 0"
	}
	return strings.Join(parts, T(", ", "、").In(lang))
}

// balanceText writes a balance in one cell, its digits grouped: posted,
// and what is held in parentheses when anything is.
func balanceText(b interp.Balance, scale int, lang diag.Lang) string {
	text := amount(b.Posted, scale)
	var held []string
	if b.HeldOut != 0 {
		held = append(held, T("held out ", "出ていく仮押さえ ").In(lang)+amount(b.HeldOut, scale))
	}
	if b.HeldIn != 0 {
		held = append(held, T("held in ", "入ってくる仮押さえ ").In(lang)+amount(b.HeldIn, scale))
	}
	if len(held) > 0 {
		text = diag.Paren(lang, text, strings.Join(held, T(", ", "、").In(lang)))
	}
	return text
}

func openHoldRow(h *interp.Hold, lang diag.Lang) OpenHoldRow {
	r := OpenHoldRow{Hold: h.Name(), Created: timeText(h.Created, lang), Deadline: T("never expires", "期限なし").In(lang)}
	if h.Transfer.Pending.Expires {
		r.Deadline = timeText(h.Deadline, lang)
	}
	var moves []string
	for i, a := range h.Amounts {
		amt := amount(a, h.From[i].Kind.Unit.Scale)
		moves = append(moves, T(fmt.Sprintf("%s from %s to %s", amt, h.From[i], h.To[i]),
			fmt.Sprintf("%s を %s から %s へ", amt, h.From[i], h.To[i])).In(lang))
	}
	r.Moves = strings.Join(moves, T("; ", "。").In(lang))
	return r
}
