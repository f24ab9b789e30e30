package postgres

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
)

// MaxIdent is the longest identifier PostgreSQL keeps, in bytes. Longer
// ones are cut without a word, so two names could become one.
const MaxIdent = 63

// Ident quotes a name for SQL.
func Ident(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Lit writes a string literal.
func Lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// FuncName is the SQL function of an operation: "reserve_hold".
func FuncName(t *book.Transfer, op string) string { return t.Name + "_" + op }

// BalanceName is the SQL function that reads an account kind.
func BalanceName(a *book.Account) string { return "balance_" + a.Name }

// ParamName is the SQL name of a book parameter: p_ and its name. Every
// function's first parameter, the tenant, is chobo's own p_tenant, so a
// book parameter named tenant takes a $ after it, a character no name of
// a book has.
func ParamName(name string) string {
	if name == "tenant" {
		return "p_tenant$"
	}
	return "p_" + name
}

// CallIDParam is the last parameter of every operation function (do,
// hold, post, void) and of expire(): the id a client gives one call and
// sends again, unchanged, with each sending of it, so that a sending can
// tell its own first one from another caller's. It ends in $, which no
// name of a book has, so no parameter a book names (p_ and its name, or
// p_tenant$) can ever be it.
const CallIDParam = "p_call_id$"

// Check reports every identifier the SQL would hold that PostgreSQL would
// cut (E061): the schema (the book's name), functions and parameters.
func Check(b *book.Book) diag.List {
	var l diag.List
	// One diagnostic per declaration: the first name of it found too long.
	seen := map[book.Pos]bool{}
	// The identifier is pre + name + post, where name is what the book
	// writes: the hint gives the room left for name, which is what the
	// user can change.
	report := func(pre, name, post string, pos book.Pos, what, owner diag.Text) {
		ident := pre + name + post
		if len(ident) <= MaxIdent || seen[pos] {
			return
		}
		seen[pos] = true
		l.Add(diag.Diagnostic{Code: "E061", Severity: diag.Error, File: b.File, Line: pos.Line, Col: pos.Col,
			Message: diag.T(
				fmt.Sprintf("%s `%s` is %d bytes; PostgreSQL keeps %d and would cut the rest without a word", what.En, ident, len(ident), MaxIdent),
				fmt.Sprintf("%s `%s` は %d バイトあります。PostgreSQL の識別子は %d バイトまでで、超えた分は黙って切り捨てられます", what.Ja, ident, len(ident), MaxIdent)),
			Hint: lengthHint(pre, name, post, owner),
		})
	}
	report("", b.Name, "", b.Pos, diag.T("the schema", "スキーマの名前"), diag.T("the book's name", "帳簿の名前"))
	for _, t := range b.Transfers {
		ops := t.Ops()
		if t.Pending != nil {
			ops = append(ops, "status")
		}
		// Longest first: the one diagnostic of the transfer then names
		// its longest function, and its hint the room that fits them all
		// (`_status` leaves less than `_hold`).
		slices.SortStableFunc(ops, func(a, b book.Op) int { return len(b) - len(a) })
		for _, op := range ops {
			report("", t.Name, strings.TrimPrefix(FuncName(t, string(op)), t.Name), t.Pos, diag.T("the function", "関数の名前"), diag.T("the transfer's name", "振替の名前"))
		}
		for _, p := range t.Params {
			report(strings.TrimSuffix(ParamName(p.Name), p.Name), p.Name, "", p.Pos, diag.T("the parameter", "引数の名前"), diag.T("the parameter's name", "引数の名前"))
		}
	}
	for _, a := range b.Accounts {
		report(strings.TrimSuffix(BalanceName(a), a.Name), a.Name, "", a.Pos, diag.T("the function", "関数の名前"), diag.T("the account's name", "勘定の名前"))
		for i, p := range a.Params {
			report(strings.TrimSuffix(ParamName(p), p), p, "", a.ParamPos[i], diag.T("the parameter", "引数の名前"), diag.T("the parameter's name", "引数の名前"))
		}
	}
	l = append(l, sameFunctionName(b)...)
	return l
}

// sameFunctionName reports two functions of the SQL that would get one
// name (E062): the balance of an account `do` and the do of a transfer
// `balance` are both balance_do. Only a transfer's name and an account's
// can meet this way; the later declaration is named.
func sameFunctionName(b *book.Book) diag.List {
	type owner struct {
		what diag.Text
		pos  book.Pos
	}
	byName := map[string]owner{}
	for _, t := range b.Transfers {
		ops := t.Ops()
		if t.Pending != nil {
			ops = append(ops, "status")
		}
		for _, op := range ops {
			byName[FuncName(t, string(op))] = owner{diag.T(fmt.Sprintf("the %s of transfer `%s`", op, t.Name), fmt.Sprintf("振替 `%s` の %s の関数", t.Name, op)), t.Pos}
		}
	}
	var l diag.List
	for _, a := range b.Accounts {
		name := BalanceName(a)
		first, ok := byName[name]
		if !ok {
			continue
		}
		pos, other := a.Pos, first.what
		if first.pos.Line > pos.Line {
			pos = first.pos
		}
		l.Add(diag.Diagnostic{Code: "E062", Severity: diag.Error, File: b.File, Line: pos.Line, Col: pos.Col,
			Message: diag.T(
				fmt.Sprintf("the SQL function `%s` would be both the balance of account `%s` and %s", name, a.Name, other.En),
				fmt.Sprintf("SQL の関数 `%s` が、勘定 `%s` の残高の関数と、%sの両方になります", name, a.Name, other.Ja)),
			Hint: diag.T(
				fmt.Sprintf("rename the account `%s` or the transfer: a balance function is `balance_` and the account's name, an operation's the transfer's name, `_` and the operation", a.Name),
				fmt.Sprintf("勘定 `%s` か振替の名前を変えてください。残高の関数は `balance_` と勘定の名前、操作の関数は振替の名前と `_` と操作の名前です", a.Name)),
		})
	}
	return l
}

// lengthHint says how long the name the book writes (owner says whose:
// the transfer's, the account's…) may be once chobo has added pre or post
// to it: in bytes, and in characters of ASCII and of Japanese (3 bytes
// each in UTF-8), the two scripts books are written in.
func lengthHint(pre, name, post string, owner diag.Text) diag.Text {
	room := MaxIdent - len(pre) - len(post)
	fit := fmt.Sprintf("%d bytes (%d ASCII characters, or %d Japanese characters of 3 bytes each)", room, room, room/3)
	fitJa := fmt.Sprintf("%d バイト以内(英数字なら %d 字、一字 3 バイトの日本語なら %d 字)に縮めてください", room, room, room/3)
	switch {
	case pre != "":
		return diag.T(
			fmt.Sprintf("`%s` goes in front of `%s`, which leaves it %d of the %d bytes: shorten %s to %s", pre, name, room, MaxIdent, owner.En, fit),
			fmt.Sprintf("`%s` の前に `%s` が付くので、%d バイトのうち残りは %d バイトです。%sを %s", name, pre, MaxIdent, room, owner.Ja, fitJa))
	case post != "":
		return diag.T(
			fmt.Sprintf("`%s` goes after `%s`, which leaves it %d of the %d bytes: shorten %s to %s", post, name, room, MaxIdent, owner.En, fit),
			fmt.Sprintf("`%s` の後に `%s` が付くので、%d バイトのうち残りは %d バイトです。%sを %s", name, post, MaxIdent, room, owner.Ja, fitJa))
	}
	return diag.T(
		fmt.Sprintf("shorten %s `%s` to %s", owner.En, name, fit),
		fmt.Sprintf("%s `%s` を %s", owner.Ja, name, fitJa))
}
