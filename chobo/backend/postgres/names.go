package postgres

import (
	"fmt"
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

// ParamName is the SQL name of a book parameter.
func ParamName(name string) string { return "p_" + name }

// Check reports every identifier the SQL would hold that PostgreSQL would
// cut (E061): the schema (the book's name), functions and parameters.
func Check(b *book.Book) diag.List {
	var l diag.List
	// One diagnostic per declaration: the first name of it found too long.
	seen := map[book.Pos]bool{}
	report := func(name string, pos book.Pos, what diag.Text) {
		if len(name) <= MaxIdent || seen[pos] {
			return
		}
		seen[pos] = true
		l.Add(diag.Diagnostic{Code: "E061", Severity: diag.Error, File: b.File, Line: pos.Line, Col: pos.Col,
			Message: diag.T(
				fmt.Sprintf("%s `%s` is %d bytes; PostgreSQL keeps %d and would cut the rest without a word", what.En, name, len(name), MaxIdent),
				fmt.Sprintf("%s `%s` は %d バイトあります。PostgreSQL は %d バイトまでしか持たず、残りを黙って切り捨てます", what.Ja, name, len(name), MaxIdent)),
			Hint: diag.T("shorten the name in the book (in Japanese a character takes 3 bytes, so 21 characters fit)",
				"帳簿の名前を短くしてください(日本語は一字 3 バイトなので 21 字まで)"),
		})
	}
	report(b.Name, b.Pos, diag.T("the schema", "スキーマの名前"))
	for _, t := range b.Transfers {
		for _, op := range t.Ops() {
			report(FuncName(t, string(op)), t.Pos, diag.T("the function", "関数の名前"))
		}
		if t.Pending != nil {
			report(FuncName(t, "status"), t.Pos, diag.T("the function", "関数の名前"))
		}
		for _, p := range t.Params {
			report(ParamName(p.Name), p.Pos, diag.T("the parameter", "引数の名前"))
		}
	}
	for _, a := range b.Accounts {
		report(BalanceName(a), a.Pos, diag.T("the function", "関数の名前"))
		for i, p := range a.Params {
			report(ParamName(p), a.ParamPos[i], diag.T("the parameter", "引数の名前"))
		}
	}
	return l
}
