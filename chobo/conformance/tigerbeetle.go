package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// TigerBeetle is a TigerBeetle client under test (Calls, usually the
// Process of a tigerbeetle-go driver) with what reads TigerBeetle beside
// it (Raw: the model itself, or a client of its own to a replica), so
// that the client does not vouch for its own writes.
//
// TigerBeetle cannot list the accounts of a tenant, so the ledger read
// back covers the accounts and holds the scenario's calls named. It has
// no notion of an account a call touched without moving anything, so
// accounts at zero are left out on both sides (HidesZeroAccounts).
type TigerBeetle struct {
	Calls   Backend
	Raw     chobotb.Client
	Book    *book.Book
	Replica bool // a real replica, which gives holds back on its own clock
	// Pulse, when set, has the model give back holds past their deadline.
	Pulse func()

	def  *chobotb.Def
	once sync.Once
	mu   sync.Mutex
	seen map[string]*named // by tenant
	// first is the version the TigerBeetle was made with: a run that
	// deploys puts it back before its first call. since are the tenants
	// called since then, whose accounts a deploy migrates.
	first *book.Book
	since []string
}

type named struct {
	accounts map[string]namedAccount // by name
	holds    map[string]namedHold    // by name
}

type namedAccount struct {
	kind int
	args []string
}

type namedHold struct {
	kind int
	key  []string
}

func (t *TigerBeetle) init() {
	t.once.Do(func() {
		t.def = tigerbeetle.Def(t.Book)
		t.seen = map[string]*named{}
		t.first = t.Book
	})
}

// HeldPastDeadline implements Reader: TigerBeetle gives holds back itself.
func (t *TigerBeetle) HeldPastDeadline(context.Context, string) (bool, error) { return false, nil }

// LetsSixtyFourBitsThrough says that TigerBeetle keeps 128-bit balances:
// RunAll holds a scenario that leaves 64 bits to what design 4.4 says
// TigerBeetle does there instead of to the interpreter.
func (t *TigerBeetle) LetsSixtyFourBitsThrough() bool { return true }

// HidesZeroAccounts implements the option of the same name.
func (t *TigerBeetle) HidesZeroAccounts() bool { return true }

// Call notes the accounts and hold a call names, then makes it.
func (t *TigerBeetle) Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error) {
	t.init()
	t.note(c, tenant)
	return t.Calls.Call(ctx, c, tenant)
}

func (t *TigerBeetle) note(c interp.Call, tenant string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.seen[tenant]
	if n == nil {
		n = &named{accounts: map[string]namedAccount{}, holds: map[string]namedHold{}}
		t.seen[tenant] = n
	}
	if !slices.Contains(t.since, tenant) {
		t.since = append(t.since, tenant)
	}
	tr := c.Transfer
	if c.Op == book.Do || c.Op == book.Hold {
		for _, m := range tr.Moves {
			for _, r := range []book.AccountRef{m.From, m.To} {
				args := make([]string, len(r.Args))
				for i, p := range r.Args {
					args[i] = c.Strings[p.Name]
				}
				n.accounts[Name(r.Account.Name, args)] = namedAccount{r.Account.Index, args}
			}
		}
	}
	if tr.Pending != nil {
		key := keyOf(c)
		n.holds[Name(tr.Name, key)] = namedHold{tr.Index, key}
	}
}

// Expire gives TigerBeetle the time to give back holds past their
// deadline. The model does so at its next request; a replica at its next
// pulse, about 100 ms after a deadline when idle and later when the
// machine is busy. A replica has given them back for certain only when
// its accounts hold nothing more than the holds still held: while every
// hold of the tenant has ended and an account still counts something as
// held, the holds remain (and the pass asks again).
func (t *TigerBeetle) Expire(ctx context.Context, tenant string) (bool, error) {
	t.init()
	if t.Pulse != nil {
		t.Pulse()
	}
	if !t.Replica {
		return false, nil
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(300 * time.Millisecond):
	}
	accounts, holds, err := t.read(ctx, tenant)
	if err != nil {
		return false, err
	}
	for _, h := range holds {
		if h.state == chobo.Held {
			return false, nil // what it holds cannot be told from the rest
		}
	}
	for _, a := range accounts {
		if a.bal.HeldIn != 0 || a.bal.HeldOut != 0 {
			return true, nil
		}
	}
	return false, nil
}

// Ledger reads the accounts and holds the tenant's calls named, straight
// from TigerBeetle: accounts by their ids, holds by the status chain.
func (t *TigerBeetle) Ledger(ctx context.Context, tenant string) ([]string, []string, error) {
	accounts, holds, err := t.read(ctx, tenant)
	if err != nil {
		return nil, nil, err
	}
	var accLines, holdLines []string
	for _, a := range accounts {
		// An account that is not there reads as zero, and zero is left out.
		if a.bal != (interp.Balance{}) {
			accLines = append(accLines, AccountLine(a.name, a.bal))
		}
	}
	for _, h := range holds {
		if h.state != "" {
			holdLines = append(holdLines, h.name+" "+string(h.state))
		}
	}
	return accLines, holdLines, nil
}

type readAccount struct {
	name string
	bal  interp.Balance
}

type readHold struct {
	name  string
	state chobo.HoldState
}

// read looks up every account and hold the tenant's calls named, in
// the order of their names.
func (t *TigerBeetle) read(ctx context.Context, tenant string) ([]readAccount, []readHold, error) {
	t.init()
	t.mu.Lock()
	n := t.seen[tenant]
	var accNames, holdNames []string
	if n != nil {
		for name := range n.accounts {
			accNames = append(accNames, name)
		}
		for name := range n.holds {
			holdNames = append(holdNames, name)
		}
	}
	t.mu.Unlock()
	sort.Strings(accNames)
	sort.Strings(holdNames)
	var accounts []readAccount
	var holds []readHold
	reader := chobotb.NewBook(t.Raw, t.def, tenant)
	for _, name := range accNames {
		a := n.accounts[name]
		if chobo.CheckSize(tenant, a.args...) != nil {
			continue // named by a call no client sends: never made
		}
		bal, err := reader.Balance(ctx, a.kind, a.args...)
		if err != nil {
			return nil, nil, err
		}
		accounts = append(accounts, readAccount{name, interp.Balance{Posted: bal.Posted, HeldIn: bal.HeldIn, HeldOut: bal.HeldOut}})
	}
	for _, name := range holdNames {
		h := n.holds[name]
		if chobo.CheckSize(tenant, h.key...) != nil {
			continue // named by a call no client sends: never made
		}
		key := make(chobotb.Values, len(h.key))
		for i, v := range h.key {
			key[i] = v
		}
		state, err := reader.Status(ctx, h.kind, key)
		if err != nil {
			return nil, nil, err
		}
		holds = append(holds, readHold{name, state})
	}
	return accounts, holds, nil
}

// withoutZeroAccounts drops the accounts at zero from an Observed, for a
// backend that cannot tell them from accounts never touched.
func withoutZeroAccounts(o Observed) Observed {
	var keep []string
	for _, a := range o.Accounts {
		if !strings.HasSuffix(a, " posted 0 held_in 0 held_out 0") {
			keep = append(keep, a)
		}
	}
	o.Accounts = keep
	return o
}

// ShortenTimeouts passes requests on to c with the timeout of every hold
// that expires cut to the test copy's Lifetime. TigerBeetle counts a hold's
// lifetime itself, from the timeout the client sends; a client generated
// from the book as written sends the book's lifetimes, and this makes them
// the test copy's, as Shorten does to the book's text. Probes of lower
// bounds, which never expire, keep their timeout of 0.
func ShortenTimeouts(c chobotb.Client) chobotb.Client { return shortened{c} }

type shortened struct{ chobotb.Client }

func (s shortened) CreateTransfers(ctx context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	out := make([]chobotb.Transfer, len(ts))
	for i, t := range ts {
		if t.Flags&chobotb.TransferPending != 0 && t.Timeout > 0 {
			t.Timeout = uint32(Lifetime / time.Second)
		}
		out[i] = t
	}
	return s.Client.CreateTransfers(ctx, out)
}

// The history reads pass through: a shortened replica still reads its
// records for a client's statement.

func (s shortened) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(s.Client).GetAccountTransfers(ctx, f)
}

func (s shortened) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(s.Client).QueryTransfers(ctx, f)
}

// QueryAccounts passes through too: a deploy migrates the accounts of
// the client the calls go through.
func (s shortened) QueryAccounts(ctx context.Context, f chobotb.AccountQuery) ([]chobotb.Account, error) {
	q, ok := s.Client.(chobotb.AccountQuerier)
	if !ok {
		return nil, fmt.Errorf("the TigerBeetle client %T cannot query accounts", s.Client)
	}
	return q.QueryAccounts(ctx, f)
}

var (
	_ chobotb.HistoryClient = shortened{}
	_ chobotb.MigrateClient = shortened{}
)

// LeavesSixtyFourBits reports whether a balance leaves 64 bits in some
// run of a scenario: the interpreter and PostgreSQL fail that call,
// TigerBeetle keeps 128-bit balances and lets it through (docs/targets.md).
func LeavesSixtyFourBits(refs []scenario.Outcome) bool {
	for _, o := range refs {
		for _, r := range o.Results {
			if leaves64(r) {
				return true
			}
		}
	}
	return false
}

// leaves64 reports whether the interpreter failed a call because a
// balance would leave 64 bits.
func leaves64(r scenario.OpResult) bool { return strings.Contains(r.Failed, "out of 64 bits") }

// CallBulk notes the accounts and holds of every call, then sends them as
// one bulk call when Calls can (see BulkCaller).
func (t *TigerBeetle) CallBulk(ctx context.Context, calls []interp.Call, tenant string) ([]interp.Result, []error, error) {
	t.init()
	b, ok := t.Calls.(BulkCaller)
	if !ok {
		return nil, nil, &DriverError{Msg: "the TigerBeetle client under test takes no bulk calls"}
	}
	for _, c := range calls {
		t.note(c, tenant)
	}
	return b.CallBulk(ctx, calls, tenant)
}

// Runtime calls a book through chobotb.Book, the runtime every generated
// tigerbeetle-go client calls, in this process: one call at a time
// (Call) or many as one Bulk (CallBulk).
type Runtime struct {
	Client chobotb.Client
	Def    *chobotb.Def
	// Book, the book Def is of, names the parameters of the accounts a
	// history read names (ReadHistory).
	Book *book.Book

	mu    sync.Mutex
	books map[string]*chobotb.Book // by tenant
	// Bulks counts the bulk calls of more than one call, Calls the calls
	// they carried.
	Bulks, Calls int
}

func (r *Runtime) book(tenant string) *chobotb.Book {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.books == nil {
		r.books = map[string]*chobotb.Book{}
	}
	b := r.books[tenant]
	if b == nil {
		b = chobotb.NewBook(r.Client, r.Def, tenant)
		r.books[tenant] = b
	}
	return b
}

// Call implements Backend.
func (r *Runtime) Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error) {
	res, errs, err := r.CallBulk(ctx, []interp.Call{c}, tenant)
	if err != nil {
		return interp.Result{}, err
	}
	return res[0], errs[0]
}

// CallBulk implements BulkCaller.
func (r *Runtime) CallBulk(ctx context.Context, calls []interp.Call, tenant string) ([]interp.Result, []error, error) {
	ops := make([]chobotb.Op, len(calls))
	for i, c := range calls {
		ops[i] = RuntimeOp(c)
	}
	if len(calls) > 1 {
		r.mu.Lock()
		r.Bulks++
		r.Calls += len(calls)
		r.mu.Unlock()
	}
	answers, err := r.book(tenant).Bulk(ctx, ops)
	if err != nil {
		return nil, nil, err
	}
	res := make([]interp.Result, len(calls))
	errs := make([]error, len(calls))
	for i, a := range answers {
		if errs[i] = a.Err; a.Err != nil {
			continue
		}
		switch a.Result.Outcome {
		case chobo.Done:
			res[i] = interp.Result{Outcome: interp.Done}
		case chobo.DoneBefore:
			res[i] = interp.Result{Outcome: interp.DoneBefore}
		case chobo.Refused:
			res[i] = interp.Result{Outcome: interp.Refused, Reason: a.Result.Reason}
		default:
			errs[i] = fmt.Errorf("chobotb answered the outcome %q", a.Result.Outcome)
		}
	}
	return res, errs, nil
}

// Expire and Ledger are the TigerBeetle reader's; Runtime only calls.
func (r *Runtime) Expire(context.Context, string) (bool, error) { return false, nil }

func (r *Runtime) Ledger(context.Context, string) ([]string, []string, error) { return nil, nil, nil }

// RuntimeOp writes an interpreter call as a call of chobotb.Book.Bulk: a
// do or hold with its values in declaration order, a post, void or status
// with its key's values in key order and a partial post's amounts. Every
// value is checked as the generated client's Call methods check it
// (chobo.CheckText, chobo.CheckAmount): a value they refuse is the call's
// Err, and nothing of it is sent.
func RuntimeOp(c interp.Call) chobotb.Op {
	t := c.Transfer
	op := chobotb.Op{Kind: t.Index, Op: string(c.Op)}
	value := func(p *book.Param) any {
		if p.IsAmount() {
			if err := chobo.CheckAmount(p.Name, c.Amounts[p.Name]); err != nil && op.Err == nil {
				op.Err = err
			}
			return c.Amounts[p.Name]
		}
		if err := chobo.CheckText(p.Name, c.Strings[p.Name]); err != nil && op.Err == nil {
			op.Err = err
		}
		return c.Strings[p.Name]
	}
	switch c.Op {
	case book.Do, book.Hold:
		for _, p := range t.Params {
			op.Values = append(op.Values, value(p))
		}
	default:
		for _, p := range t.Key {
			op.Values = append(op.Values, value(p))
		}
		if c.Op == book.Post && len(c.Amounts) > 0 {
			for _, p := range t.PostAmounts() {
				op.Amounts = append(op.Amounts, c.Amounts[p.Name])
			}
		}
	}
	return op
}

// ReadHistory implements HistoryReader through chobotb.Book's reads, as
// a generated tigerbeetle-go client makes them: kinds by their index in
// the definition, values in the order of their parameters.
func (r *Runtime) ReadHistory(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	res := protocol.Response{ID: req.ID}
	b := r.book(req.Tenant)
	account, args := -1, []string(nil)
	if r.Book != nil {
		for _, a := range r.Book.Accounts {
			if a.Name == req.Account {
				account = a.Index
				for _, p := range a.Params {
					args = append(args, req.Args[p])
				}
			}
		}
	}
	kind := -1
	var key chobotb.Values
	var err error
	for i, t := range r.Def.Transfers {
		if t.Name == req.Transfer {
			kind = i
			for _, k := range t.Key {
				p := t.Params[k]
				if !p.Amount {
					key = append(key, req.Args[p.Name])
					continue
				}
				v, perr := protocol.ParseAmount(req.Args[p.Name])
				if perr != nil && err == nil {
					err = perr
				}
				key = append(key, v)
			}
		}
	}
	switch {
	case err != nil:
	case req.Op == protocol.Statement:
		q := chobo.StatementQuery{Newest: req.Newest, Transfers: req.Transfers, Limit: req.Limit, After: req.After}
		if q.From, err = optionalTime(req.From); err == nil {
			q.To, err = optionalTime(req.To)
		}
		var st chobo.Statement
		if err == nil {
			st, err = b.Statement(ctx, account, args, q)
		}
		entries := protoEntries(st.Entries)
		res.Entries, res.Next, res.More = &entries, st.Next, st.More
	case req.Op == protocol.Entries:
		var es []chobo.Entry
		es, err = b.CallEntries(ctx, kind, key)
		entries := protoEntries(es)
		res.Entries = &entries
	case req.Op == protocol.Holds:
		var hs []chobo.OpenHold
		hs, err = b.OpenHolds(ctx, account, args, kind)
		holds := []protocol.Hold{}
		for _, h := range hs {
			holds = append(holds, protoHold(h))
		}
		res.Holds = &holds
	case req.Op == protocol.BalanceAt:
		var at time.Time
		var bal chobo.Balance
		if at, err = time.Parse(protocol.TimeFormat, req.At); err == nil {
			bal, err = b.BalanceAt(ctx, account, args, at)
		}
		res.Posted, res.HeldIn, res.HeldOut = protocol.FormatAmount(bal.Posted), protocol.FormatAmount(bal.HeldIn), protocol.FormatAmount(bal.HeldOut)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		return protocol.Response{ID: req.ID, Error: err.Error()}, nil
	}
	return res, nil
}

// DeployRefusal implements Deployer. A client driven as a process is
// built for one version, so only calls through Runtime, in this process,
// take another version's chains. A retry across a deploy that lays a do
// or hold chain out otherwise answers as the interpreter does: chobotb
// judges it by what the call means; and a hold made before such a deploy
// is posted or voided after it by the events its lookup finds.
func (t *TigerBeetle) DeployRefusal(first *book.Book, versions []*book.Book) string {
	var why []string
	if _, ok := t.Calls.(*Runtime); !ok {
		why = append(why, "its client runs as a process built for one version of the book and cannot take another's chains between two calls")
	}
	return strings.Join(why, "; and ")
}

// Deploy implements Deployer: the calls after it go through the chains
// of v's definition, and the ledger is read by it. The floors and rooms
// of the accounts of every tenant called since the run began are moved
// onto v's bounds by chobotb.Migrate, through the client the calls use,
// as an operator runs `chobo migrate` before the new clients start.
func (t *TigerBeetle) Deploy(ctx context.Context, v *Version) error {
	rt, ok := t.Calls.(*Runtime)
	if !ok {
		return fmt.Errorf("the client runs as a process built for one version of the book")
	}
	t.init()
	def := tigerbeetle.Def(v.Copy)
	t.mu.Lock()
	t.Book, t.def = v.Copy, def
	if v.Copy == t.first {
		t.since = nil // a run starts
	}
	tenants := slices.Clone(t.since)
	t.mu.Unlock()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	// Each tenant's chobotb.Book is made anew with the new definition, as
	// a client of the new version starts.
	rt.Def, rt.Book, rt.books = def, v.Copy, nil
	if len(tenants) == 0 {
		return nil
	}
	mc, ok := rt.Client.(chobotb.MigrateClient)
	if !ok {
		return fmt.Errorf("the TigerBeetle client %T cannot query accounts, which the migration of bounds needs", rt.Client)
	}
	rep, err := chobotb.Migrate(ctx, mc, def, chobotb.MigrateOptions{Version: v.Copy.Version, Tenants: tenants})
	if errors.Is(err, chobotb.ErrLeft) {
		return leftOnOldBound(v, rep.Left)
	}
	return err
}

// leftOnOldBound is why a run cannot go on once the migration left
// accounts on the bound they had (chobotb.Left): such an account answers
// by that bound on TigerBeetle, where the interpreter holds it to the new
// one, so the answers after the deploy are not comparable.
func leftOnOldBound(v *Version, left []chobotb.Left) error {
	var lines []string
	for _, l := range left {
		lines = append(lines, l.String())
	}
	return &DeployNotRun{Why: fmt.Sprintf("deploying %s, `chobo migrate` left %d floor or room accounts on the bound they had, which answer by it on TigerBeetle and not as the interpreter: %s",
		v.File, len(left), strings.Join(lines, "; "))}
}
