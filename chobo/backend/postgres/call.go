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
// post and void answer (result, reason); status answers one text. The
// call id's cast names pg_catalog: the type name would otherwise be looked
// up on the caller's path, where a lookalike uuid ahead of pg_catalog
// would take the id (integer is a keyword, always the catalog's).
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

// ExpireSQL gives back holds past their deadline.
func ExpireSQL(b *book.Book) string {
	return fmt.Sprintf("select %s.expire($1::pg_catalog.int4, $2::pg_catalog.uuid)", Ident(b.Name))
}

// HistorySQL are the statements a client reads a ledger's history with,
// one per read; docs/targets.md gives the functions' arguments and rows.
type HistorySQL struct {
	// Statement: $1 tenant, $2 account kind, $3 its values, $4 from and
	// $5 to (null: open), $6 transfer kinds (null: all), $7 newest first,
	// $8 how many rows at most, $9 the cursor to start past (null: the
	// start). A row per entry.
	Statement string
	// Call: $1 tenant, $2 transfer kind, $3 key values. The same rows,
	// oldest first.
	Call string
	// OpenHolds: $1 tenant, $2 account kind and $3 its values (null: any
	// account), $4 transfer kind (null: any). A row per move of each hold.
	OpenHolds string
	// BalanceAt: $1 tenant, $2 account kind, $3 its values, $4 the time.
	BalanceAt string
}

// entryColumns are the columns of a row of a statement and of a call's
// entries, in the order clients scan them.
const entryColumns = "cursor, kind, op, key, args, move, out, account, account_args, posted, held_in, held_out, " +
	"after_posted, after_held_in, after_held_out, at"

// openHoldColumns are the columns of a row of the open holds.
const openHoldColumns = "kind, key, move, from_account, from_args, to_account, to_args, amount, created, deadline"

var openHoldOut = strings.Split(strings.ReplaceAll(openHoldColumns, " ", ""), ",")

// History gives the history statements of b.
func History(b *book.Book) HistorySQL {
	s := Ident(b.Name)
	return HistorySQL{
		Statement: fmt.Sprintf("select %s from %s.history_statement($1, $2, $3::pg_catalog.text[], $4::pg_catalog.timestamptz, $5::pg_catalog.timestamptz, $6::pg_catalog.text[], $7::pg_catalog.bool, $8::pg_catalog.int4, $9::pg_catalog.int8)", entryColumns, s),
		Call:      fmt.Sprintf("select %s from %s.history_call($1, $2, $3::pg_catalog.text[])", entryColumns, s),
		OpenHolds: fmt.Sprintf("select %s from %s.history_open_holds($1, $2, $3::pg_catalog.text[], $4)", openHoldColumns, s),
		BalanceAt: fmt.Sprintf("select posted, held_in, held_out from %s.history_balance($1, $2, $3::pg_catalog.text[], $4::pg_catalog.timestamptz)", s),
	}
}
