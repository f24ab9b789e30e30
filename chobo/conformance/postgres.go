package conformance

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/show"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
)

// SQL calls the book's functions directly, each call on whatever
// connection of the pool is free: the calls of a `together` run on
// separate connections at once. What the tables hold is read over a pool
// of its own, so that the calls can be made as a role that may call the
// book and nothing more.
type SQL struct {
	Book  *book.Book
	Model *model.Model  // the book's PostgreSQL client model
	Pool  *pgxpool.Pool // the calls
	Read  *pgxpool.Pool // the reads of the tables
	// Load loads the SQL of another version of the book named name into
	// its schema, in one transaction, as the role that owns it; nil:
	// deploy steps are refused.
	Load func(ctx context.Context, name, sql string) error

	// deployed is the version a deploy step put in place, shared by the
	// copies of s; it starts empty (Book and Model).
	deployed *deployedSQL
}

type deployedSQL struct {
	mu    sync.Mutex
	book  *book.Book
	model *model.Model
}

// NewSQL calls b's functions over calls and reads its tables over read,
// which may be the same pool.
func NewSQL(b *book.Book, calls, read *pgxpool.Pool) (SQL, error) {
	m, err := model.New(b, model.Postgres)
	return SQL{Book: b, Model: m, Pool: calls, Read: read, deployed: &deployedSQL{}}, err
}

// current is the version in place: the last one deployed, else Book.
func (s SQL) current() (*book.Book, *model.Model) {
	if s.deployed == nil {
		return s.Book, s.Model
	}
	s.deployed.mu.Lock()
	defer s.deployed.mu.Unlock()
	if s.deployed.book == nil {
		return s.Book, s.Model
	}
	return s.deployed.book, s.deployed.model
}

// DeployRefusal implements Deployer: the SQL pair runs any deploy a
// scenario may make, given a way to load SQL.
func (s SQL) DeployRefusal(*book.Book, []*book.Book) string {
	switch {
	case s.Load == nil:
		return "the SQL pair was given no way to load another version's SQL (SQL.Load)"
	case s.deployed == nil:
		return "the SQL pair was not made by NewSQL, which keeps the version in place"
	}
	return ""
}

// Deploy implements Deployer: it builds the SQL of v's test copy as the
// first version's is built, loads it into the same schema, and sends the
// calls after it as the new version's client model writes them.
func (s SQL) Deploy(ctx context.Context, v *Version) error {
	if why := s.DeployRefusal(nil, nil); why != "" {
		return fmt.Errorf("%s", why)
	}
	if v.Copy.Name != s.Book.Name {
		return fmt.Errorf("%s holds the book %s, not %s", v.File, v.Copy.Name, s.Book.Name)
	}
	sql, err := BuildSQL(v.File, v.Copy, v.CopySrc)
	if err != nil {
		return err
	}
	m, err := model.New(v.Copy, model.Postgres)
	if err != nil {
		return err
	}
	if err := s.Load(ctx, v.Copy.Name, sql); err != nil {
		return err
	}
	s.deployed.mu.Lock()
	defer s.deployed.mu.Unlock()
	s.deployed.book, s.deployed.model = v.Copy, m
	return nil
}

// Call implements Backend.
func (s SQL) Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error) {
	_, m := s.current()
	st, err := show.Statement(m, c, tenant)
	if err != nil {
		return interp.Result{}, err
	}
	var res, reason *string
	if err := s.Pool.QueryRow(ctx, st.SQL, WithCallID(st)...).Scan(&res, &reason); err != nil {
		return interp.Result{}, err
	}
	o, ok := interp.ParseOutcome(*res)
	if !ok {
		return interp.Result{}, fmt.Errorf("unknown result %q", *res)
	}
	r := interp.Result{Outcome: o}
	if reason != nil {
		r.Reason = *reason
	}
	return r, nil
}

// Expire implements Backend: it calls expire() once and says whether
// holds of tenant past their deadline are still held (another expire()
// may hold them).
func (s SQL) Expire(ctx context.Context, tenant string) (bool, error) {
	var n int
	b, m := s.current()
	if err := s.Pool.QueryRow(ctx, m.Expire, WithCallID(show.Expire(m))...).Scan(&n); err != nil {
		return false, err
	}
	return HeldPastDeadline(ctx, s.Read, b, tenant)
}

// WithCallID is the arguments of st with a new call id where --show
// prints its stand-in: each statement so sent is a call of its own, as a
// client's new call would be.
func WithCallID(st show.Sent) []any {
	if !st.CallID {
		return st.Args
	}
	n := len(st.Args) - 1
	return append(st.Args[:n:n], chobopg.NewCallID())
}

// Ledger implements Backend.
func (s SQL) Ledger(ctx context.Context, tenant string) ([]string, []string, error) {
	b, _ := s.current()
	return PostgresLedger(ctx, s.Read, b, tenant)
}

// HeldPastDeadline says whether holds of tenant past their deadline are
// still held.
func HeldPastDeadline(ctx context.Context, pool *pgxpool.Pool, b *book.Book, tenant string) (bool, error) {
	var left bool
	err := pool.QueryRow(ctx, fmt.Sprintf(
		`select exists (select 1 from %s.holds where tenant = $1 and state = 'held' and deadline <= clock_timestamp())`,
		postgres.Ident(b.Name)), tenant).Scan(&left)
	return left, err
}

// PostgresLedger reads the accounts and holds of a tenant. Every account
// the tables know is read through the book's own balance function, as a
// caller would read it.
func PostgresLedger(ctx context.Context, pool *pgxpool.Pool, b *book.Book, tenant string) ([]string, []string, error) {
	s := postgres.Ident(b.Name)
	m, err := model.New(b, model.Postgres)
	if err != nil {
		return nil, nil, err
	}
	found, err := accountsOf(ctx, pool, s, tenant)
	if err != nil {
		return nil, nil, err
	}
	var accounts []string
	for _, a := range found {
		bal, err := readBalance(ctx, pool, m, tenant, a)
		if err != nil {
			return nil, nil, err
		}
		accounts = append(accounts, AccountLine(Name(a.kind, a.args), bal))
	}
	rows, err := pool.Query(ctx, fmt.Sprintf(`select kind, key, state from %s.holds where tenant = $1`, s), tenant)
	if err != nil {
		return nil, nil, err
	}
	var holds []string
	for rows.Next() {
		var kind, state string
		var key []string
		if err := rows.Scan(&kind, &key, &state); err != nil {
			return nil, nil, err
		}
		holds = append(holds, Name(kind, key)+" "+state)
	}
	return accounts, holds, rows.Err()
}

// storedAccount is an account row: its kind and argument values.
type storedAccount struct {
	kind string
	args []string
}

// accountsOf lists the account rows of a tenant in the schema s.
func accountsOf(ctx context.Context, pool *pgxpool.Pool, s, tenant string) ([]storedAccount, error) {
	rows, err := pool.Query(ctx, fmt.Sprintf(`select kind, args from %s.accounts where tenant = $1`, s), tenant)
	if err != nil {
		return nil, err
	}
	var out []storedAccount
	for rows.Next() {
		var a storedAccount
		if err := rows.Scan(&a.kind, &a.args); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// readBalance reads one account through the statement of its kind's
// balance reader in the model.
func readBalance(ctx context.Context, pool *pgxpool.Pool, m *model.Model, tenant string, a storedAccount) (interp.Balance, error) {
	var bal interp.Balance
	reader := m.Account(a.kind)
	if reader == nil || len(reader.Params) != len(a.args) {
		return bal, fmt.Errorf("the tables hold an account %s the book does not have", Name(a.kind, a.args))
	}
	args := []any{tenant}
	for _, v := range a.args {
		args = append(args, v)
	}
	err := pool.QueryRow(ctx, reader.Statement, args...).Scan(&bal.Posted, &bal.HeldIn, &bal.HeldOut)
	return bal, err
}

// EntriesBalance reports accounts of the book whose balance (the row, and
// the shards of an account without bounds) differs from the sum of their
// entries, or whose history (account_entries) disagrees with them: other
// sums, or, for an account with bounds, numbers that are not 1 to its
// counter or a balance after an entry that is not the sum up to it (an
// account without bounds keeps none).
func EntriesBalance(ctx context.Context, pool *pgxpool.Pool, b *book.Book) ([]string, error) {
	s := postgres.Ident(b.Name)
	rows, err := pool.Query(ctx, fmt.Sprintf(`
select a.tenant, a.kind, a.args
  from %[1]s.accounts a
  left join (select tenant, account, sum(posted) p, sum(held_in) hi, sum(held_out) ho
               from %[1]s.entries group by tenant, account) e
    on e.tenant = a.tenant and e.account = a.id
  left join (select tenant, id, sum(posted) p, sum(held_in) hi, sum(held_out) ho
               from %[1]s.account_shards group by tenant, id) s
    on s.tenant = a.tenant and s.id = a.id
  left join (select tenant, account, sum(posted) p, sum(held_in) hi, sum(held_out) ho, count(*) n, max(seq) last,
                    bool_and(after_posted = run_p and after_held_in = run_hi and after_held_out = run_ho) after_ok,
                    bool_and(after_posted is null and after_held_in is null and after_held_out is null) no_after
               from (select *, sum(posted) over w run_p, sum(held_in) over w run_hi, sum(held_out) over w run_ho
                       from %[1]s.account_entries
                     window w as (partition by tenant, account order by seq)) r
              group by tenant, account) h
    on h.tenant = a.tenant and h.account = a.id
 where a.posted + coalesce(s.p, 0) <> coalesce(e.p, 0) or a.held_in + coalesce(s.hi, 0) <> coalesce(e.hi, 0)
    or a.held_out + coalesce(s.ho, 0) <> coalesce(e.ho, 0)
    or coalesce(h.p, 0) <> coalesce(e.p, 0) or coalesce(h.hi, 0) <> coalesce(e.hi, 0) or coalesce(h.ho, 0) <> coalesce(e.ho, 0)
    or case when a.lower_bound is null and a.upper_bound is null
            then not coalesce(h.no_after, true)
            else coalesce(h.n, 0) <> a.entry_seq or coalesce(h.last, 0) <> a.entry_seq or not coalesce(h.after_ok, true) end`, s))
	if err != nil {
		return nil, err
	}
	var bad []string
	for rows.Next() {
		var tenant, kind string
		var args []string
		if err := rows.Scan(&tenant, &kind, &args); err != nil {
			return nil, err
		}
		bad = append(bad, tenant+": "+Name(kind, args))
	}
	return bad, rows.Err()
}

// ReadHistory implements HistoryReader: the reads go through the
// statements of the client model, on the pool the calls go through, as
// a generated client sends them (chobopg's readers), and come back as a
// driver writes them. A read the server refuses is an answer's Error.
func (s SQL) ReadHistory(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	res := protocol.Response{ID: req.ID}
	b, m := s.current()
	if m.History == nil {
		res.Error = "the client model has no history statements"
		return res, nil
	}
	h := history(b, m)
	var err error
	switch req.Op {
	case protocol.Statement:
		q := chobo.StatementQuery{Newest: req.Newest, Transfers: req.Transfers, Limit: req.Limit, After: req.After}
		if q.From, err = optionalTime(req.From); err == nil {
			q.To, err = optionalTime(req.To)
		}
		var st chobo.Statement
		if err == nil {
			st, err = chobopg.ReadStatement(ctx, s.Pool, h, req.Tenant, req.Account, s.accountArgs(req.Account, req.Args), q)
		}
		entries := protoEntries(st.Entries)
		res.Entries, res.Next, res.More = &entries, st.Next, st.More
	case protocol.Entries:
		var key []string
		if t := b.Transfer(req.Transfer); t != nil {
			for _, p := range t.Key {
				key = append(key, req.Args[p.Name])
			}
		}
		var es []chobo.Entry
		es, err = chobopg.ReadCallEntries(ctx, s.Pool, h, req.Tenant, req.Transfer, key)
		entries := protoEntries(es)
		res.Entries = &entries
	case protocol.Holds:
		var hs []chobo.OpenHold
		hs, err = chobopg.ReadOpenHolds(ctx, s.Pool, h, req.Tenant, req.Account, s.accountArgs(req.Account, req.Args), req.Transfer)
		holds := []protocol.Hold{}
		for _, oh := range hs {
			holds = append(holds, protoHold(oh))
		}
		res.Holds = &holds
	case protocol.BalanceAt:
		var at time.Time
		var b chobo.Balance
		if at, err = time.Parse(protocol.TimeFormat, req.At); err == nil {
			b, err = chobopg.ReadBalanceAt(ctx, s.Pool, h, req.Tenant, req.Account, s.accountArgs(req.Account, req.Args), at)
		}
		res.Posted, res.HeldIn, res.HeldOut = protocol.FormatAmount(b.Posted), protocol.FormatAmount(b.HeldIn), protocol.FormatAmount(b.HeldOut)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		return protocol.Response{ID: req.ID, Error: err.Error()}, nil
	}
	return res, nil
}

// history is what chobopg reads the history with: the model's
// statements and the names of every transfer kind's values.
func history(b *book.Book, m *model.Model) *chobopg.History {
	hs := m.History
	h := &chobopg.History{Statement: hs.Statement, Call: hs.Call, OpenHolds: hs.OpenHolds, BalanceAt: hs.BalanceAt,
		Kinds: map[string]chobopg.Kind{}}
	for _, t := range b.Transfers {
		var k chobopg.Kind
		for _, p := range t.Params {
			k.Args = append(k.Args, p.Name)
		}
		for _, p := range t.Key {
			k.Key = append(k.Key, p.Name)
		}
		if t.Pending != nil {
			for _, p := range t.PostAmounts() {
				k.Amounts = append(k.Amounts, p.Name)
			}
		}
		h.Kinds[t.Name] = k
	}
	return h
}

// accountArgs are an account's values in the order of its kind's
// parameters, from the request's by name.
func (s SQL) accountArgs(kind string, args map[string]string) []string {
	out := []string{}
	for _, a := range s.Book.Accounts {
		if a.Name == kind {
			for _, p := range a.Params {
				out = append(out, args[p])
			}
		}
	}
	return out
}

func optionalTime(text string) (time.Time, error) {
	if text == "" {
		return time.Time{}, nil
	}
	return time.Parse(protocol.TimeFormat, text)
}

// protoEntries writes entries as a driver does.
func protoEntries(es []chobo.Entry) []protocol.Entry {
	out := []protocol.Entry{}
	for _, e := range es {
		pe := protocol.Entry{Transfer: e.Transfer, Op: e.Op, Key: e.Key, Args: e.Args, ID: e.ID, Move: e.Move,
			Out: e.Out, Account: e.Account, AccountArgs: e.AccountArgs, Posted: protocol.FormatAmount(e.Posted),
			HeldIn: protocol.FormatAmount(e.HeldIn), HeldOut: protocol.FormatAmount(e.HeldOut),
			At: e.At.UTC().Format(protocol.TimeFormat), Cursor: e.Cursor}
		if e.After != nil {
			pe.After = &protocol.Amounts{Posted: protocol.FormatAmount(e.After.Posted),
				HeldIn: protocol.FormatAmount(e.After.HeldIn), HeldOut: protocol.FormatAmount(e.After.HeldOut)}
		}
		out = append(out, pe)
	}
	return out
}

// protoHold writes an open hold as a driver does.
func protoHold(h chobo.OpenHold) protocol.Hold {
	ph := protocol.Hold{Transfer: h.Transfer, Key: h.Key, ID: h.ID, Moves: []protocol.HoldMove{}, Created: h.Created.UTC().Format(protocol.TimeFormat)}
	if !h.Deadline.IsZero() {
		ph.Deadline = h.Deadline.UTC().Format(protocol.TimeFormat)
	}
	for _, m := range h.Moves {
		ph.Moves = append(ph.Moves, protocol.HoldMove{Move: m.Move, From: m.From, FromArgs: m.FromArgs,
			To: m.To, ToArgs: m.ToArgs, Amount: protocol.FormatAmount(m.Amount)})
	}
	return ph
}
