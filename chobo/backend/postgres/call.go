package postgres

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

// Params lists the book parameters an operation's function takes, after
// the tenant, in order: every parameter for do and hold; the key for void
// and status; the key and then the amounts the moves use for post.
func Params(t *book.Transfer, op string) []*book.Param {
	switch op {
	case "do", "hold":
		return t.Params
	case "post":
		return append(append([]*book.Param{}, t.Key...), t.PostAmounts()...)
	}
	return t.Key
}

func placeholders(n int) string {
	var ps []string
	for i := 1; i <= n; i++ {
		ps = append(ps, fmt.Sprintf("$%d", i))
	}
	return strings.Join(ps, ", ")
}

// CallSQL is the statement a client sends for an operation: do, hold,
// post and void answer (result, reason) and take the call's id last, as
// text cast to uuid so that every driver may send it as a string (the
// type named in pg_catalog, since a name the statement leaves unqualified
// is looked up on the caller's path); status answers one text.
func CallSQL(b *book.Book, t *book.Transfer, op string) string {
	fn := Ident(b.Name) + "." + Ident(FuncName(t, op))
	n := 1 + len(Params(t, op))
	if op == "status" {
		return fmt.Sprintf("select %s(%s)", fn, placeholders(n))
	}
	return fmt.Sprintf("select result, reason from %s(%s, $%d::pg_catalog.uuid)", fn, placeholders(n), n+1)
}

// BalanceSQL is the statement that reads an account kind.
func BalanceSQL(b *book.Book, a *book.Account) string {
	fn := Ident(b.Name) + "." + Ident(BalanceName(a))
	return fmt.Sprintf("select posted, held_in, held_out from %s(%s)", fn, placeholders(1+len(a.Params)))
}

// ExpireSQL gives back holds past their deadline: it takes the most to
// give back (integer is a keyword of SQL's, never looked up on a path)
// and the call's id.
func ExpireSQL(b *book.Book) string {
	return fmt.Sprintf("select %s.expire($1::integer, $2::pg_catalog.uuid)", Ident(b.Name))
}
