package chobopg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// History is what a generated client reads a book's history with: the
// statements of the client model (model.History), and the parameter
// names of each transfer kind, which the rows give by position only.
type History struct {
	Statement, Call, OpenHolds, BalanceAt string
	// Kinds holds the names of each transfer kind's parameters, by the
	// kind's name in the book.
	Kinds map[string]Kind
}

// Kind is what names the values a row gives of a call of one transfer
// kind: Args as a do or a hold takes them, Key in key order, and Amounts
// as a post in part gives them.
type Kind struct {
	Args, Key, Amounts []string
}

// names is how the values of a call of op are named: every parameter
// of a do or a hold, the key and then the amounts of a post in part
// (the key alone for a post in full), the key of a void or an expiry.
func (k Kind) names(op string, n int) []string {
	switch op {
	case "do", "hold":
		return k.Args
	case "post":
		if n > len(k.Key) {
			return append(slices.Clip(k.Key), k.Amounts...)
		}
	}
	return k.Key
}

// ErrNoRows is the error of a history read over a Querier that can read
// one row only: the reads take many, and need Query as *pgx.Conn,
// *pgxpool.Pool and pgx.Tx have it.
var ErrNoRows = errors.New("chobo: a history read needs a Querier with Query (*pgx.Conn, *pgxpool.Pool, pgx.Tx); nothing was sent")

// rowsQuerier is a Querier that reads many rows.
type rowsQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// readRows sends sql as send does (in the connection's turn, sent again
// after a retryable failure) and hands every row of its answer to scan;
// reset starts over before each sending, so that an answer read in part
// before a failure is not kept.
func readRows(ctx context.Context, q Querier, sql string, args []any, reset func(), scan func(pgx.Rows) error) error {
	if _, ok := unwrap(q).(rowsQuerier); !ok {
		return ErrNoRows
	}
	_, err := sendWith(ctx, q, args, func(q Querier, args []any) error {
		reset()
		rows, err := q.(rowsQuerier).Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	return err
}

// entryRow is a row of a statement or of a call's entries, in the order
// of the statement's columns.
type entryRow struct {
	cursor                              int64
	kind, op                            string
	key, args                           []string
	move                                int32
	out                                 bool
	account                             string
	accountArgs                         []string
	posted, heldIn, heldOut             int64
	afterPosted, afterHeldIn, afterHeld *int64
	at                                  time.Time
}

func scanEntry(rows pgx.Rows) (entryRow, error) {
	var r entryRow
	err := rows.Scan(&r.cursor, &r.kind, &r.op, &r.key, &r.args, &r.move, &r.out, &r.account, &r.accountArgs,
		&r.posted, &r.heldIn, &r.heldOut, &r.afterPosted, &r.afterHeldIn, &r.afterHeld, &r.at)
	return r, err
}

// entry is the row as a client gives it: its values named from the
// book's parameters. A kind the book no longer has leaves Args nil, as
// there are no names to give them.
func (h *History) entry(r entryRow) (chobo.Entry, error) {
	e := chobo.Entry{Transfer: r.kind, Op: r.op, Key: r.key, Move: int(r.move), Out: r.out,
		Account: r.account, AccountArgs: r.accountArgs, Posted: r.posted, HeldIn: r.heldIn, HeldOut: r.heldOut,
		At: r.at.UTC(), Cursor: strconv.FormatInt(r.cursor, 10)}
	if e.AccountArgs == nil {
		e.AccountArgs = []string{}
	}
	if k, ok := h.Kinds[r.kind]; ok && r.args != nil {
		names := k.names(r.op, len(r.args))
		if len(names) != len(r.args) {
			return chobo.Entry{}, fmt.Errorf("chobo: an entry of %s.%s gives %d values, and the book names %d", r.kind, r.op, len(r.args), len(names))
		}
		e.Args = make(map[string]string, len(names))
		for i, n := range names {
			e.Args[n] = r.args[i]
		}
	}
	switch {
	case r.afterPosted != nil && r.afterHeldIn != nil && r.afterHeld != nil:
		e.After = &chobo.Balance{Posted: *r.afterPosted, HeldIn: *r.afterHeldIn, HeldOut: *r.afterHeld}
	case r.afterPosted != nil || r.afterHeldIn != nil || r.afterHeld != nil:
		return chobo.Entry{}, fmt.Errorf("chobo: an entry of %s.%s has a balance after it in part", r.kind, r.op)
	}
	return e, nil
}

// ParseCursor reads a cursor a PostgreSQL statement gave: the number of
// the account's entry, in decimal. Anything else is an error.
func ParseCursor(c string) (int64, error) {
	n, err := strconv.ParseInt(c, 10, 64)
	if err != nil || n < 1 || strconv.FormatInt(n, 10) != c {
		return 0, fmt.Errorf("chobo: %q is not a cursor a statement of this ledger gave; nothing was sent", c)
	}
	return n, nil
}

// values is a list of values to send as text[]: never null, as pgx
// would send a nil slice.
func values(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// ReadStatement reads a page of the entries of an account (its kind and
// values) as q says. Everything the query is wrong about (its limit, its
// cursor, a transfer kind the book does not have) is an error before
// anything is sent. The page asks for one row more than its limit: that
// row, when it comes, says there is more, and is left out.
func ReadStatement(ctx context.Context, q Querier, h *History, tenant, account string, args []string, sq chobo.StatementQuery) (chobo.Statement, error) {
	limit, err := sq.PageLimit()
	if err != nil {
		return chobo.Statement{}, err
	}
	var after any
	if sq.After != "" {
		n, err := ParseCursor(sq.After)
		if err != nil {
			return chobo.Statement{}, err
		}
		after = n
	}
	var kinds any
	if len(sq.Transfers) > 0 {
		for _, t := range sq.Transfers {
			if _, ok := h.Kinds[t]; !ok {
				return chobo.Statement{}, fmt.Errorf("chobo: the book has no transfer %q; nothing was sent", t)
			}
		}
		kinds = slices.Clone(sq.Transfers)
	}
	if err := chobo.CheckSize(tenant, append([]string{account}, args...)...); err != nil {
		return chobo.Statement{}, err
	}
	rows, err := readEntryRows(ctx, q, h.Statement,
		[]any{tenant, account, values(args), timeOrNull(sq.From), timeOrNull(sq.To), kinds, sq.Newest, limit + 1, after})
	if err != nil {
		return chobo.Statement{}, err
	}
	st := chobo.Statement{Next: sq.After}
	if len(rows) > limit {
		rows, st.More = rows[:limit], true
	}
	for _, r := range rows {
		e, err := h.entry(r)
		if err != nil {
			return chobo.Statement{}, err
		}
		st.Entries = append(st.Entries, e)
		st.Next = e.Cursor
	}
	return st, nil
}

// readEntryRows reads the rows of a statement or of a call's entries;
// a sending made again starts the rows over.
func readEntryRows(ctx context.Context, q Querier, sql string, args []any) ([]entryRow, error) {
	var rows []entryRow
	err := readRows(ctx, q, sql, args,
		func() { rows = rows[:0] },
		func(r pgx.Rows) error {
			e, err := scanEntry(r)
			rows = append(rows, e)
			return err
		})
	return rows, err
}

func timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// ReadCallEntries reads every entry written under one key of a transfer
// kind, oldest first: a do's, or a hold's and then those of its post,
// void or expiry. A key no call took effect with has none.
func ReadCallEntries(ctx context.Context, q Querier, h *History, tenant, kind string, key []string) ([]chobo.Entry, error) {
	if err := chobo.CheckSize(tenant, append([]string{kind}, key...)...); err != nil {
		return nil, err
	}
	rows, err := readEntryRows(ctx, q, h.Call, []any{tenant, kind, values(key)})
	if err != nil {
		return nil, err
	}
	var out []chobo.Entry
	for _, r := range rows {
		e, err := h.entry(r)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadOpenHolds reads the holds still held that move from or to an
// account (account "" for any) and are of a transfer kind (kind "" for
// any), oldest first, each with every move it holds.
func ReadOpenHolds(ctx context.Context, q Querier, h *History, tenant, account string, args []string, kind string) ([]chobo.OpenHold, error) {
	if err := chobo.CheckSize(tenant, append([]string{account, kind}, args...)...); err != nil {
		return nil, err
	}
	var acc, vals, k any
	if account != "" {
		acc, vals = account, values(args)
	}
	if kind != "" {
		k = kind
	}
	var out []chobo.OpenHold
	err := readRows(ctx, q, h.OpenHolds, []any{tenant, acc, vals, k},
		func() { out = out[:0] },
		func(rows pgx.Rows) error {
			var (
				hold     chobo.OpenHold
				m        chobo.HoldMove
				move     int32
				deadline *time.Time
			)
			err := rows.Scan(&hold.Transfer, &hold.Key, &move, &m.From, &m.FromArgs, &m.To, &m.ToArgs, &m.Amount,
				&hold.Created, &deadline)
			if err != nil {
				return err
			}
			m.Move = int(move)
			m.FromArgs, m.ToArgs = values(m.FromArgs), values(m.ToArgs)
			// A hold's moves come one after another, in move order.
			if n := len(out); n > 0 && out[n-1].Transfer == hold.Transfer && slices.Equal(out[n-1].Key, hold.Key) {
				out[n-1].Moves = append(out[n-1].Moves, m)
				return nil
			}
			hold.Created = hold.Created.UTC()
			if deadline != nil {
				hold.Deadline = deadline.UTC()
			}
			hold.Moves = []chobo.HoldMove{m}
			out = append(out, hold)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadBalanceAt reads what an account held at a time: after every entry
// made at that time or before.
func ReadBalanceAt(ctx context.Context, q Querier, h *History, tenant, account string, args []string, at time.Time) (chobo.Balance, error) {
	if at.IsZero() {
		return chobo.Balance{}, errors.New("chobo: a balance at a time needs the time; nothing was sent")
	}
	if err := chobo.CheckSize(tenant, append([]string{account}, args...)...); err != nil {
		return chobo.Balance{}, err
	}
	var posted, heldIn, heldOut *int64
	if err := QueryRow(ctx, q, h.BalanceAt, []any{tenant, account, values(args), at}, &posted, &heldIn, &heldOut); err != nil {
		return chobo.Balance{}, err
	}
	if posted == nil || heldIn == nil || heldOut == nil {
		return chobo.Balance{}, fmt.Errorf("chobo: the server answered no balance of %s at %s", account, at.UTC().Format(time.RFC3339Nano))
	}
	return chobo.Balance{Posted: *posted, HeldIn: *heldIn, HeldOut: *heldOut}, nil
}
