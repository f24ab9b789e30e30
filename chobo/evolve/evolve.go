// Package evolve compares a book with the version of it that is already
// deployed and reports the changes the database cannot follow.
//
// Neither an account's identity nor a transfer's id holds the book's
// version, so accounts and holds carry on from one version to the next.
// That is what makes some edits unsafe: an account keeps the unit it was
// made with, and on TigerBeetle the side of 0 its lower bound is on
// (E050), every key is recorded with the definition hash of its transfer
// kind (E051), and a kind that disappears leaves its balances and holds
// behind (W107). A bound may change in place: W110 says what the change
// does to the accounts already made.
//
// The previous version is a model (Previous), read from a book or from
// the `chobo api` JSON of one; both give the same diagnostics.
package evolve

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
)

// Compare reports what changed from prev to b that stored data cannot
// follow. Declarations are matched by name, so moving them around the
// file changes nothing; descriptions, comments, the version number and
// tax markings are not stored and are not compared. The diagnostics point
// into b's file, sorted by place.
func Compare(prev *Previous, b *book.Book) diag.List {
	c := &comparer{prev: prev, old: prev.Book, cur: b,
		accountChanged: map[string]bool{}, explained: map[string]bool{}, boundMoved: map[string]bool{}}
	c.bookName()
	for _, oa := range c.old.Accounts {
		if na := c.cur.Account(oa.Name); na != nil {
			c.account(oa, na)
		} else {
			c.accountGone(oa)
		}
	}
	for _, ot := range c.old.Transfers {
		if nt := c.cur.Transfer(ot.Name); nt != nil {
			c.transfer(ot, nt)
		} else {
			c.transferGone(ot)
		}
	}
	c.hashes()
	c.names()
	c.l.Sort()
	return c.l
}

type comparer struct {
	prev     *Previous
	old, cur *book.Book
	l        diag.List
	// accountChanged holds the account kinds with an E050: the transfers
	// that move through them change their definitions too, which the E050
	// says in a note rather than in an E051 of their own.
	accountChanged map[string]bool
	// explained holds the transfer kinds whose change of definition some
	// diagnostic has already named.
	explained map[string]bool
	// boundMoved holds the transfer kinds that move through an account
	// kind whose bounds changed.
	boundMoved map[string]bool
}

func (c *comparer) add(code string, pos book.Pos, msg diag.Text, notes []diag.Text, hint diag.Text) {
	if pos.Line == 0 {
		pos = c.cur.Pos // a removal has no line of its own: the book line stands for the whole file
	}
	sev := diag.Error
	if strings.HasPrefix(code, "W") {
		sev = diag.Warning
	}
	c.l.Add(diag.Diagnostic{Code: code, Severity: sev, File: c.cur.File, Line: pos.Line, Col: pos.Col,
		Message: msg, Notes: notes, Hint: hint})
}

func q(s string) string { return "`" + s + "`" }

// arrow writes a change the one way every message does: `old` → `new`,
// with "none" for a side that is absent.
func arrow(old, new string) diag.Text {
	side := func(s string) diag.Text {
		if s == "" {
			return diag.T("none", "なし")
		}
		return diag.T(q(s), q(s))
	}
	o, n := side(old), side(new)
	return diag.T(o.En+" → "+n.En, o.Ja+" → "+n.Ja)
}

// before quotes the declaration of the previous version, one or more
// lines of it.
func before(lines ...string) diag.Text {
	var qs []string
	for _, l := range lines {
		if l != "" {
			qs = append(qs, q(l))
		}
	}
	s := strings.Join(qs, " … ")
	return diag.T("before: "+s, "前のバージョン: "+s)
}

func listEn(names []string) string {
	qs := make([]string, len(names))
	for i, n := range names {
		qs[i] = q(n)
	}
	if len(qs) <= 2 {
		return strings.Join(qs, " and ")
	}
	return strings.Join(qs[:len(qs)-1], ", ") + " and " + qs[len(qs)-1]
}

// through names the definitions of the transfer kinds ts, which move
// through an account, followed by verb agreeing with them: "the
// definition of `a`, which moves through it, changes".
func through(ts []string, verb string) string {
	if verb == "" {
		verb = "change"
	}
	if len(ts) == 1 {
		return fmt.Sprintf("the definition of %s, which moves through it, %ss", listEn(ts), verb)
	}
	return fmt.Sprintf("the definitions of %s, which move through it, %s", listEn(ts), verb)
}

func listJa(names []string) string {
	qs := make([]string, len(names))
	for i, n := range names {
		qs[i] = q(n)
	}
	return strings.Join(qs, "、")
}

func (c *comparer) bookName() {
	if c.old.Name == c.cur.Name {
		return
	}
	ch := arrow(c.old.Name, c.cur.Name)
	c.add("W107", c.cur.Pos,
		diag.T(fmt.Sprintf("the book was renamed, %s: the database keeps the balances and holds under the old name, and under the new one the book starts empty", ch.En),
			fmt.Sprintf("帳簿の名前が変わりました(%s)。残高と仮押さえはデータベースに前の名前で残り、新しい名前の帳簿は空から始まります", ch.Ja)),
		[]diag.Text{before(bookLine(c.old))},
		diag.T(fmt.Sprintf("keep the name %s on the `book` line: the name is part of every account's id and of the database schema, so a new name starts a new, empty book; rename only to start afresh, once the old book's balances are moved out by its own transfers", q(c.old.Name)),
			fmt.Sprintf("`book` の行の名前は %s のままにしてください。名前はどの勘定の ID にもデータベースのスキーマにも入るので、新しい名前は新しい空の帳簿になります。名前を変えるのは一から始めるときだけにし、その前に前の帳簿の残高を前の帳簿の振替で移しておきます", q(c.old.Name))))
}

// touches reports whether a move of t takes from or puts into the account
// kind named account.
func touches(t *book.Transfer, account string) bool {
	for _, m := range t.Moves {
		if m.From.Account.Name == account || m.To.Account.Name == account {
			return true
		}
	}
	return false
}

// throughAccount lists the transfer kinds, in the new book's order, that
// move through the account kind in both versions: their definition hashes
// hold its unit and bounds, so they change with it.
func (c *comparer) throughAccount(account string) (names []string, holds bool) {
	for _, nt := range c.cur.Transfers {
		ot := c.old.Transfer(nt.Name)
		if ot == nil || !touches(ot, account) || !touches(nt, account) {
			continue
		}
		names = append(names, nt.Name)
		holds = holds || ot.Pending != nil
	}
	return names, holds
}

// change says what changed in an account kind, for the hint of E050.
type change int

const (
	otherChange change = iota
	// crossingChange is a lower bound that crossed 0, the one change of
	// a bound that stays an E050.
	crossingChange
	scaleChange
)

// accountChange reports one E050 on the account kind na.
func (c *comparer) accountChange(oa, na *book.Account, pos book.Pos, msg diag.Text, old []string, what change) {
	first := !c.accountChanged[na.Name]
	c.accountChanged[na.Name] = true
	notes := []diag.Text{before(append([]string{accountLine(oa)}, old...)...)}
	if na.Unit.Pos == pos && pos != na.Pos {
		notes[0] = before(append(old, accountLine(oa))...) // the unit line first, as the book has it
	}
	// A bound is no part of a transfer's definition: the transfers
	// through an account whose lower bound crossed 0 keep theirs.
	if ts, holds := c.throughAccount(na.Name); len(ts) > 0 && what != crossingChange {
		for _, t := range ts {
			c.explained[t] = true
		}
		if first {
			n := diag.T(through(ts, "")+" with it: a call made before and retried is refused with key_conflict",
				fmt.Sprintf("ここを通る %s の定義も一緒に変わり、前に呼んだ操作のリトライは key_conflict で拒否されます", listJa(ts)))
			if holds {
				n = diag.T(n.En+", and a hold made before can no longer be posted or voided",
					fmt.Sprintf("ここを通る %s の定義も一緒に変わり、前に呼んだ操作のリトライは key_conflict で拒否され、前に作った仮押さえは確定も取消もできなくなります", listJa(ts)))
			}
			notes = append(notes, n)
		}
	}
	hint := diag.T(
		fmt.Sprintf("keep %s as it was; for the new shape, declare an account kind under a new name (such as %s) and a transfer that moves the balance from %s into it",
			q(na.Name), q(na.Name+"_2"), q(na.Name)),
		fmt.Sprintf("%s は前のままにしてください。新しい形が要るなら、新しい名前の勘定の種類(%s など)を宣言し、%s の残高をそこへ移す振替を書きます",
			q(na.Name), q(na.Name+"_2"), q(na.Name)))
	switch what {
	case crossingChange:
		hint = diag.T(
			fmt.Sprintf("keep the lower bound of %s on its side of 0: a bound may change in place only as long as it does not cross 0 (W110); for a lower bound on the other side, declare an account kind under a new name (such as %s) and a transfer that moves the balance from %s into it",
				q(na.Name), q(na.Name+"_2"), q(na.Name)),
			fmt.Sprintf("%s の下限は 0 の同じ側に置いてください。境界はその場で変えられますが(W110)、0 をまたぐことはできません。反対の側の下限が要るなら、新しい名前の勘定の種類(%s など)を宣言し、%s の残高をそこへ移す振替を書きます",
				q(na.Name), q(na.Name+"_2"), q(na.Name)))
	case scaleChange:
		// A new account kind in the same unit would have the new scale
		// too; the finer step needs a unit of its own, and a move stays
		// within one unit, so the balance crosses through outside
		// accounts.
		u, nu := na.Unit.Name, fmt.Sprintf("%s_%d", na.Unit.Name, na.Unit.Scale)
		hint = diag.T(
			fmt.Sprintf("keep the unit %s at scale %d; for the finer step, declare a new unit (such as `unit %s scale %d`) and new account kinds in it, and move each balance out to an outside account of %s and in from an outside account of %s",
				q(u), oa.Unit.Scale, nu, na.Unit.Scale, q(u), q(nu)),
			fmt.Sprintf("単位 %s は scale %d のままにしてください。最小単位を変えるなら、新しい単位(`unit %s scale %d` など)とその単位の新しい勘定の種類を宣言し、残高は %s の外の勘定へ出して %s の外の勘定から入れる、二つの移動で移します",
				q(u), oa.Unit.Scale, nu, na.Unit.Scale, q(u), q(nu)))
	}
	c.add("E050", pos, msg, notes, hint)
}

func (c *comparer) account(oa, na *book.Account) {
	subject := diag.T("the account kind "+q(na.Name), "勘定の種類 "+q(na.Name))
	rows := diag.T("its accounts already in the database", "データベースにある勘定")
	sameUnit := false
	switch {
	case oa.Unit.Name != na.Unit.Name:
		ch := arrow(oa.Unit.Name, na.Unit.Name)
		c.accountChange(oa, na, na.Pos, diag.T(
			fmt.Sprintf("%s changed its unit, %s: the balances already in the database are amounts of %s", subject.En, ch.En, q(oa.Unit.Name)),
			fmt.Sprintf("%s の単位が変わりました(%s)。データベースにある残高は %s で数えた額です", subject.Ja, ch.Ja, q(oa.Unit.Name))), nil, otherChange)
	case oa.Unit.Scale != na.Unit.Scale:
		one := int64(math.Pow10(oa.Unit.Scale))
		was, now := book.FormatAmount(one, oa.Unit.Scale), book.FormatAmount(one, na.Unit.Scale)
		c.accountChange(oa, na, na.Unit.Pos, diag.T(
			fmt.Sprintf("the unit %s of %s changed its scale, %d → %d: balances already in the database count the old smallest step, so %s would read as %s",
				q(na.Unit.Name), subject.En, oa.Unit.Scale, na.Unit.Scale, was, now),
			fmt.Sprintf("%s の単位 %s の scale が変わりました(%d → %d)。データベースにある残高は前の最小単位で数えてあるので、%s が %s と読まれます",
				subject.Ja, q(na.Unit.Name), oa.Unit.Scale, na.Unit.Scale, was, now)), []string{unitLine(oa.Unit)}, scaleChange)
	default:
		sameUnit = true
	}
	if oa.Outside != na.Outside {
		msg := diag.T(
			fmt.Sprintf("%s is now %s: %s were made with the bounds of an account inside the book", subject.En, q("outside"), rows.En),
			fmt.Sprintf("%s が %s になりました。%sは、中の勘定として境界つきで作ってあります", subject.Ja, q("outside"), rows.Ja))
		if oa.Outside {
			msg = diag.T(
				fmt.Sprintf("%s is no longer %s: %s were made without bounds", subject.En, q("outside"), rows.En),
				fmt.Sprintf("%s が %s でなくなりました。%sは境界なしで作ってあります", subject.Ja, q("outside"), rows.Ja))
		}
		c.accountChange(oa, na, na.Pos, msg, nil, otherChange)
	}
	if !slices.Equal(oa.Params, na.Params) {
		ch := arrow(oa.Shape(), na.Shape())
		c.accountChange(oa, na, na.Pos, diag.T(
			fmt.Sprintf("%s changed its parameters, %s: %s are named by the old arguments, and the new ones find none of them", subject.En, ch.En, rows.En),
			fmt.Sprintf("%s の引数が変わりました(%s)。%sは前の引数で名前が付いていて、新しい引数からはどれも見つかりません", subject.Ja, ch.Ja, rows.Ja)), nil, otherChange)
	}
	// A bound is judged apart from the rest: after a change of unit,
	// outside or parameters, that diagnostic says it all.
	if !sameUnit || oa.Outside != na.Outside || c.accountChanged[na.Name] {
		return
	}
	for _, lower := range []bool{true, false} {
		c.boundChange(oa, na, lower)
	}
}

func (c *comparer) accountGone(oa *book.Account) {
	c.add("W107", c.cur.Pos,
		diag.T(fmt.Sprintf("the account kind %s is gone from the book: the balances of its accounts stay in the database, where no call can move them any more", q(oa.Name)),
			fmt.Sprintf("勘定の種類 %s が帳簿から無くなりました。その勘定の残高はデータベースに残り、もうどの呼び出しからも動かせません", q(oa.Name))),
		[]diag.Text{before(accountLine(oa), boundLine(oa, true), boundLine(oa, false))},
		diag.T("before removing an account kind, move its balances out with a transfer, or keep it; once every balance is 0, removing it loses nothing",
			"勘定の種類を消す前に、振替で残高を移すか、残しておいてください。残高がどれも 0 なら、消しても失うものはありません"))
}

func (c *comparer) transferGone(ot *book.Transfer) {
	msg := diag.T(fmt.Sprintf("the transfer kind %s is gone from the book: a call made before and retried now fails instead of getting its answer", q(ot.Name)),
		fmt.Sprintf("振替の種類 %s が帳簿から無くなりました。前に呼んだ操作をリトライすると、答えの代わりにエラーになります", q(ot.Name)))
	hint := diag.T("remove a transfer kind only once no caller retries it; until then keep it next to the kind that replaces it",
		"振替の種類は、どの呼び出し元もリトライしなくなってから消してください。それまでは、代わりの振替の種類と並べて残しておきます")
	if ot.Pending != nil {
		msg = diag.T(fmt.Sprintf("the transfer kind %s is gone from the book: its holds stay held in the database, where nothing can post or void them, and a call made before and retried now fails", q(ot.Name)),
			fmt.Sprintf("振替の種類 %s が帳簿から無くなりました。その仮押さえはデータベースに押さえたまま残り、確定も取消もできません。前に呼んだ操作をリトライするとエラーになります", q(ot.Name)))
		hint = diag.T("remove a transfer kind that holds only once none of its holds is still held and no caller retries it; until then keep it next to the kind that replaces it",
			"仮押さえの振替の種類は、押さえ中の仮押さえが無くなり、どの呼び出し元もリトライしなくなってから消してください。それまでは、代わりの振替の種類と並べて残しておきます")
	}
	c.add("W107", c.cur.Pos, msg, []diag.Text{before(transferLine(ot), pendingLine(ot.Pending))}, hint)
}

// transferChange reports one E051 on the transfer kind nt.
func (c *comparer) transferChange(ot, nt *book.Transfer, pos book.Pos, what diag.Text, old string) {
	c.explained[nt.Name] = true
	after := diag.T("its definition hash changes, so a call made before and retried is refused with key_conflict",
		"定義のハッシュが変わるので、前に呼んだ操作をリトライすると key_conflict で拒否されます")
	hint := diag.T(
		fmt.Sprintf("keep %s as it was and declare the new behaviour as a transfer kind under a new name (such as %s); remove the old one (W107) once no call made before is retried",
			q(nt.Name), q(nt.Name+"_2")),
		fmt.Sprintf("%s は前のままにし、新しい動きは新しい名前の振替の種類(%s など)として宣言してください。前に呼んだ操作がもうリトライされなくなってから、古い方を消します(W107)",
			q(nt.Name), q(nt.Name+"_2")))
	if ot.Pending != nil {
		after = diag.T(after.En+", and a hold made before can no longer be posted or voided",
			"定義のハッシュが変わるので、前に呼んだ操作をリトライすると key_conflict で拒否され、前に作った仮押さえは確定も取消もできなくなります")
		hint = diag.T(
			fmt.Sprintf("keep %s as it was and declare the new behaviour as a transfer kind under a new name (such as %s); remove the old one (W107) once none of its holds is still held and no call made before is retried",
				q(nt.Name), q(nt.Name+"_2")),
			fmt.Sprintf("%s は前のままにし、新しい動きは新しい名前の振替の種類(%s など)として宣言してください。押さえ中の仮押さえが無くなり、前に呼んだ操作がもうリトライされなくなってから、古い方を消します(W107)",
				q(nt.Name), q(nt.Name+"_2")))
	}
	notes := []diag.Text{before(transferLine(ot), old), c.hashNote(nt)}
	c.add("E051", pos, diag.T(what.En+": "+after.En, what.Ja+"。"+after.Ja), notes, hint)
}

func (c *comparer) hashNote(nt *book.Transfer) diag.Text {
	ch := arrow(c.prev.Definitions[nt.Name], nt.Definition())
	return diag.T("definition hash: "+ch.En, "定義のハッシュ: "+ch.Ja)
}

func (c *comparer) transfer(ot, nt *book.Transfer) {
	subject := diag.T("the transfer kind "+q(nt.Name), "振替の種類 "+q(nt.Name))
	if o, n := transferShape(ot), transferShape(nt); o != n {
		ch := arrow(o, n)
		c.transferChange(ot, nt, nt.Pos, diag.T(
			fmt.Sprintf("%s changed its parameters, %s", subject.En, ch.En),
			fmt.Sprintf("%s の引数が変わりました(%s)", subject.Ja, ch.Ja)), "")
	}
	if o, n := keyLine(ot), keyLine(nt); o != n {
		pos := nt.KeyPos
		if pos.Line == 0 {
			pos = nt.Pos
		}
		ch := arrow(o, n)
		c.transferChange(ot, nt, pos, diag.T(
			fmt.Sprintf("%s changed its key, %s", subject.En, ch.En),
			fmt.Sprintf("%s のキーが変わりました(%s)", subject.Ja, ch.Ja)), o)
	}
	if o, n := pendingLine(ot.Pending), pendingLine(nt.Pending); o != n {
		pos := nt.Pos
		if nt.Pending != nil {
			pos = nt.Pending.Pos
		}
		ch := arrow(o, n)
		c.transferChange(ot, nt, pos, diag.T(
			fmt.Sprintf("%s changed whether and how it holds, %s", subject.En, ch.En),
			fmt.Sprintf("%s の仮押さえの終わり方が変わりました(%s)", subject.Ja, ch.Ja)), o)
	}
	for i := 0; i < max(len(ot.Moves), len(nt.Moves)); i++ {
		switch {
		case i >= len(nt.Moves):
			om := ot.Moves[i]
			c.transferChange(ot, nt, nt.Pos, diag.T(
				fmt.Sprintf("%s lost move %d, %s", subject.En, i+1, arrow(moveLine(om), "").En),
				fmt.Sprintf("%s の移動 %d が無くなりました(%s)", subject.Ja, i+1, arrow(moveLine(om), "").Ja)), moveLine(om))
		case i >= len(ot.Moves):
			nm := nt.Moves[i]
			c.transferChange(ot, nt, nm.Pos, diag.T(
				fmt.Sprintf("%s has a new move %d, %s", subject.En, i+1, arrow("", moveLine(nm)).En),
				fmt.Sprintf("%s に移動 %d が増えました(%s)", subject.Ja, i+1, arrow("", moveLine(nm)).Ja)), "")
		case !sameMove(ot.Moves[i], nt.Moves[i]):
			om, nm := ot.Moves[i], nt.Moves[i]
			ch := arrow(moveLine(om), moveLine(nm))
			c.transferChange(ot, nt, nm.Pos, diag.T(
				fmt.Sprintf("%s changed move %d, %s", subject.En, i+1, ch.En),
				fmt.Sprintf("%s の移動 %d が変わりました(%s)", subject.Ja, i+1, ch.Ja)), moveLine(om))
		}
	}
}

// sameMove compares two moves as written: the same amount parameter or
// literal (by value, so that `1` and `1.00` agree when only the unit's
// scale changed, which E050 reports), and the same accounts picked by the
// same parameters.
func sameMove(om, nm *book.Move) bool {
	amount := func(m *book.Move) string {
		if m.Amount.Param != nil {
			return "param " + m.Amount.Param.Name
		}
		s := book.FormatAmount(m.Amount.Literal, m.From.Account.Unit.Scale)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return "literal " + s
	}
	return amount(om) == amount(nm) && om.From.String() == nm.From.String() && om.To.String() == nm.To.String()
}

// hashes is the last word on transfers: one whose definition hash differs
// from the recorded one, with no diagnostic that names why, still gets an
// E051. It happens when the previous version is `chobo api` output whose
// hashes another version of chobo computed. The legacy hash (bounds
// included), which earlier versions recorded, is one the backends accept
// as the kind's own.
func (c *comparer) hashes() {
	for _, nt := range c.cur.Transfers {
		old, ok := c.prev.Definitions[nt.Name]
		if !ok || old == "" || c.explained[nt.Name] || old == nt.Definition() || old == nt.LegacyDefinition() {
			continue
		}
		ot := c.old.Transfer(nt.Name)
		if c.boundMoved[nt.Name] && old == ot.LegacyDefinition() {
			c.legacyBounds(ot, nt)
			continue
		}
		c.transferChange(ot, nt, nt.Pos, diag.T(
			fmt.Sprintf("the transfer kind %s has another definition hash than the previous version recorded, though none of the parts compared here changed; the previous version may come from another version of chobo", q(nt.Name)),
			fmt.Sprintf("振替の種類 %s の定義のハッシュが、前のバージョンに記録されたものと違います。ここで比べた部分はどれも変わっていないので、前のバージョンは別のバージョンの chobo が書いたのかもしれません", q(nt.Name))), "")
	}
}

// legacyBounds reports a transfer kind recorded with its legacy hash,
// which holds the bounds of the accounts it moves through, when one of
// those bounds changed: the backends take that hash as the kind's only
// while the bounds are the ones it was computed from.
func (c *comparer) legacyBounds(ot, nt *book.Transfer) {
	c.explained[nt.Name] = true
	en := fmt.Sprintf("the transfer kind %s was recorded with the hash an earlier chobo gave it, which holds the bounds of the accounts it moves through, and one of those bounds changed: the backends no longer take that hash as the kind's, so a call made before and retried is refused with key_conflict", q(nt.Name))
	ja := fmt.Sprintf("振替の種類 %s は、以前の chobo が付けたハッシュで記録されています。このハッシュは通る勘定の境界を含み、その境界が変わりました。バックエンドはこのハッシュをこの種類のものと認めなくなるので、前に呼んだ操作をリトライすると key_conflict で拒否されます", q(nt.Name))
	if ot.Pending != nil {
		en += ", and a hold made before can no longer be posted or voided"
		ja += "。前に作った仮押さえは確定も取消もできなくなります"
	}
	c.add("E051", nt.Pos, diag.T(en, ja), []diag.Text{before(transferLine(ot)), c.hashNote(nt)},
		diag.T("deploy this chobo with the bounds as they were first, and change them in the version after: once the keys are recorded with the new hash, which leaves bounds out, a bound may change",
			"まずこの chobo を、境界を前のままにしてデプロイし、境界は次のバージョンで変えてください。境界を含まない新しいハッシュでキーが記録されていれば、境界を変えられます"))
}
