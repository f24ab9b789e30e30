package chobotb

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// DefaultTimeout bounds a request whose context has no deadline of its
// own. TigerBeetle's official clients wait for ever for a replica that
// does not answer; a book never does.
const DefaultTimeout = 30 * time.Second

// ErrAccountChanged: an account the book uses exists in TigerBeetle with
// other flags, ledger, code or kind, so the book's accounts changed since
// it was made.
var ErrAccountChanged = errors.New("chobotb: an account exists in TigerBeetle with another definition: the book's account kinds changed")

// Book sends the calls of one book, for one tenant, through a Client.
// It is safe for concurrent use. It remembers which accounts and openings
// it has made, so each is sent once per Book.
type Book struct {
	c      Client
	def    *Def
	tenant string

	tids *tenantIDs // the ids every call of the tenant shares

	mu     sync.Mutex
	made   map[ids.ID]bool
	gather *gatherer // nil: every chain its own request
	events int       // the most events a request carries
}

// NewBook returns the book def over c for a tenant ("" by default).
func NewBook(c Client, def *Def, tenant string) *Book {
	return &Book{c: c, def: def, tenant: tenant, tids: def.tenantIDs(tenant), made: map[ids.ID]bool{}, events: MaxEvents}
}

// RequestEvents sets how many events the book puts in one request: the
// requests of a bulk call, and those that make accounts and openings.
// MaxEvents (253), the default, is what every replica takes; a cluster
// started without --development takes up to MaxRequestEvents (8,189), and
// fuller requests carry more calls in one round trip. A cluster that
// takes fewer than n refuses the request before anything is sent (the
// official client's "too much data"). Reads keep to MaxEvents.
func (b *Book) RequestEvents(n int) error {
	if n < 1 || n > MaxRequestEvents {
		return fmt.Errorf("chobotb: %d events a request: a request carries from 1 to %d", n, MaxRequestEvents)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = n
	return nil
}

// requestEvents is what RequestEvents set.
func (b *Book) requestEvents() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.events
}

// chainTooLong is the error of a chain that no request of n events holds.
func chainTooLong(chain, n int) error {
	return fmt.Errorf("chobotb: a chain of %d events does not fit one request of %d", chain, n)
}

// Def returns the book's definition.
func (b *Book) Def() *Def { return b.def }

// Tenant returns the tenant the book calls for.
func (b *Book) Tenant() string { return b.tenant }

// bounded gives ctx a deadline when it has none.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultTimeout)
}

func (b *Book) createTransfers(ctx context.Context, ts []Transfer) ([]Status, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	st, err := b.c.CreateTransfers(ctx, ts)
	if err == nil && len(st) != len(ts) {
		err = fmt.Errorf("chobotb: %d statuses for %d transfers", len(st), len(ts))
	}
	return st, err
}

func (b *Book) sendChain(ctx context.Context, chain []Event) ([]Status, error) {
	ts := make([]Transfer, len(chain))
	for i, e := range chain {
		ts[i] = e.Transfer
	}
	if g := b.gathering(); g != nil {
		return g.send(ctx, ts)
	}
	return b.createTransfers(ctx, ts)
}

// ensure makes the accounts and openings of a plan that this Book has not
// made yet: accounts first, then openings, in requests of at most
// MaxEvents, apart from the chain.
//
// An opening puts into a floor or room the distance from zero to its
// bound, which is right only for an account whose balance is zero: one
// that existed before its floor or room (a bound added to its kind since
// it was made) is opened with Unbounded instead, so that it keeps
// answering by the bound it had, none, until `chobo migrate` moves its
// floor or room onto the bound from its balance. An opening that exists
// with another amount is fine: the floor or room keeps the bound it
// holds until the migration reaches it.
func (b *Book) ensure(ctx context.Context, p *Plan) error {
	created := map[ids.ID]bool{}
	err := makeOnce(ctx, b, p.Accounts, func(a Account) ids.ID { return a.ID },
		func(ctx context.Context, as []Account) ([]Status, error) {
			ctx, cancel := bounded(ctx)
			defer cancel()
			st, err := b.c.CreateAccounts(ctx, as)
			for i, s := range st {
				if s == Created && i < len(as) {
					created[as[i].ID] = true
				}
			}
			return st, err
		}, ErrAccountChanged, "account")
	if err != nil {
		return err
	}
	openings, err := b.openingsFor(ctx, p, created)
	if err != nil {
		return err
	}
	return makeOnce(ctx, b, openings, func(o Transfer) ids.ID { return o.ID },
		b.createTransfers, nil, "opening")
}

// openingsFor is the plan's openings that this Book has not made, each
// with the amount it opens with: the bound's distance from zero when its
// account was made by this ensure or has nothing on it, else Unbounded.
func (b *Book) openingsFor(ctx context.Context, p *Plan, created map[ids.ID]bool) ([]Transfer, error) {
	owner := map[ids.ID]ids.ID{} // floor or room → its account
	for _, a := range p.Accounts {
		owner[a.ID] = a.UserData128
	}
	var todo []Transfer
	var ask []ids.ID
	asked := map[ids.ID]bool{}
	b.mu.Lock()
	for _, o := range p.Openings {
		if b.made[o.ID] {
			continue
		}
		todo = append(todo, o)
		if acc := owner[o.CreditAccountID]; !created[acc] && !asked[acc] {
			asked[acc] = true
			ask = append(ask, acc)
		}
	}
	b.mu.Unlock()
	if len(ask) == 0 {
		return todo, nil
	}
	found, err := lookupAccounts(ctx, b.c, ask, nil)
	if err != nil {
		return nil, err
	}
	for i := range todo {
		if a, ok := found[owner[todo[i].CreditAccountID]]; ok && !empty(a) {
			todo[i].Amount = Unbounded
		}
	}
	return todo, nil
}

// lookupAccounts looks the accounts of list up, MaxEvents at a time, by
// id; sent, when set, is told of each request (the migration counts them).
func lookupAccounts(ctx context.Context, c Client, list []ids.ID, sent func()) (map[ids.ID]Account, error) {
	found := make(map[ids.ID]Account, len(list))
	for len(list) > 0 {
		n := min(len(list), MaxEvents)
		ctx, cancel := bounded(ctx)
		as, err := c.LookupAccounts(ctx, list[:n])
		cancel()
		if sent != nil {
			sent()
		}
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			found[a.ID] = a
		}
		list = list[n:]
	}
	return found, nil
}

// empty reports whether nothing was ever posted or is held on an account.
func empty(a Account) bool {
	return a.DebitsPosted.IsZero() && a.CreditsPosted.IsZero() && a.DebitsPending.IsZero() && a.CreditsPending.IsZero()
}

// Unbounded is what a floor or room holds for a side that has no bound:
// further than any balance of 64 bits can go. An account made before its
// kind had the bound gets it until `chobo migrate` moves it onto the
// bound, and an account whose kind lost the bound gets it from the
// migration, so that a bound added again later starts from none.
var Unbounded = U128{Hi: 1}

// makeOnce creates the records of items that b has not made yet, through
// create, as many at a time as a request of b carries, and remembers them.
// A record that exists already is fine. One that exists with other fields
// is changed, or, when changed is nil (openings), fine when only its
// amount differs.
func makeOnce[T any](ctx context.Context, b *Book, items []T, id func(T) ids.ID,
	create func(context.Context, []T) ([]Status, error), changed error, what string) error {
	b.mu.Lock()
	var todo []T
	for _, it := range items {
		if !b.made[id(it)] {
			todo = append(todo, it)
		}
	}
	most := b.events
	b.mu.Unlock()
	for len(todo) > 0 {
		n := min(len(todo), most)
		st, err := create(ctx, todo[:n])
		if err == nil && len(st) != n {
			err = fmt.Errorf("chobotb: %d statuses for %d %ss", len(st), n, what)
		}
		if err != nil {
			return err
		}
		for i, s := range st {
			switch {
			case s == Created || s == Exists:
			case s == ExistsWithDifferentAmount && changed == nil:
			case s.ExistsWithDifferent() && changed != nil:
				return fmt.Errorf("%w (%s %s: %s)", changed, what, id(todo[i]).Hex(), s)
			default:
				return fmt.Errorf("chobotb: creating %s %s: TigerBeetle answered %s", what, id(todo[i]).Hex(), s)
			}
		}
		b.mu.Lock()
		for _, it := range todo[:n] {
			b.made[id(it)] = true
		}
		b.mu.Unlock()
		todo = todo[n:]
	}
	return nil
}

// Call sends a do or a hold of the transfer kind with its values in
// declaration order.
func (b *Book) Call(ctx context.Context, kind int, op string, vals Values) (chobo.Result, error) {
	if err := b.checkSize(vals); err != nil {
		return chobo.Result{}, err
	}
	p, err := b.def.build(b.tenant, b.tids, kind, op, vals, false)
	if err != nil {
		return chobo.Result{}, err
	}
	if p.SameAccount {
		return refused(ReasonSameAccount), nil
	}
	if n := b.requestEvents(); len(p.Chain) > n {
		return chobo.Result{}, chainTooLong(len(p.Chain), n)
	}
	if err := b.ensure(ctx, p); err != nil {
		return chobo.Result{}, err
	}
	st, err := b.sendChain(ctx, p.Chain)
	if err != nil {
		return chobo.Result{}, err
	}
	if laidOutOtherwise(p.Chain, st) {
		same, err := b.sameCalls(ctx, [][]Event{p.Chain})
		switch {
		case err != nil:
			return chobo.Result{}, err
		case same[0]:
			return chobo.Result{Outcome: chobo.DoneBefore}, nil
		case !b.def.HasLegacy(kind):
			return refused(ReasonKeyConflict), nil
		}
	}
	if b.def.madeByLegacy(kind, st) {
		return b.sendLegacy(ctx, func(d *Def) ([]Event, error) {
			p, err := d.build(b.tenant, b.tids, kind, op, vals, false)
			if err != nil {
				return nil, err
			}
			return p.Chain, nil
		})
	}
	return Read(p.Chain, st)
}

// held reads a hold: the events a post or void ends and the amounts it
// holds, one per move (HoldOf); nil when there is no hold.
func (b *Book) held(ctx context.Context, kind int, key []string) ([]HoldEvent, []uint64, error) {
	lookups, err := b.def.Lookups(b.tenant, kind, key)
	if err != nil {
		return nil, nil, err
	}
	found, err := b.lookupAll(ctx, lookups)
	if err != nil {
		return nil, nil, err
	}
	return b.def.holdOf(b.tids.sink, kind, lookups, found)
}

// Post posts a hold, named by its key's values in key order. amounts are
// the transfer kind's post amounts in declaration order, or nil to post
// the whole hold.
func (b *Book) Post(ctx context.Context, kind int, key Values, amounts []int64) (chobo.Result, error) {
	if err := b.checkPostAmounts(kind, amounts); err != nil {
		return chobo.Result{}, err
	}
	if err := b.checkSize(key); err != nil {
		return chobo.Result{}, err
	}
	k := keyText(key)
	hold, held, err := b.held(ctx, kind, k)
	if errors.Is(err, errOtherDefinition) {
		return refused(ReasonKeyConflict), nil
	}
	if err != nil || held == nil {
		return refused(ReasonNoSuchHold), err
	}
	want, over := b.postAmounts(kind, held, amounts)
	if over {
		s, err := b.status(ctx, kind, k)
		if err != nil {
			return chobo.Result{}, err
		}
		return overHoldAnswer(s), nil
	}
	chain, err := b.def.FinishOf(b.tenant, kind, "post", k, want, hold)
	if err != nil {
		return chobo.Result{}, err
	}
	st, err := b.sendChain(ctx, chain)
	if err != nil {
		return chobo.Result{}, err
	}
	if b.def.madeByLegacy(kind, st) {
		return b.sendLegacy(ctx, func(d *Def) ([]Event, error) { return d.FinishOf(b.tenant, kind, "post", k, want, hold) })
	}
	return Read(chain, st)
}

// checkPostAmounts checks the amounts of a partial post (nil: in full).
func (b *Book) checkPostAmounts(kind int, amounts []int64) error {
	t, err := b.def.transfer(kind)
	if err != nil {
		return err
	}
	if amounts != nil && len(amounts) != len(t.PostAmounts) {
		return fmt.Errorf("chobotb: a post of %s takes %d amounts, got %d", t.Name, len(t.PostAmounts), len(amounts))
	}
	for i, a := range amounts {
		if err := chobo.CheckAmount(t.Params[t.PostAmounts[i]].Name, a); err != nil {
			return err
		}
	}
	return nil
}

// postAmounts is what a post sends for each move, given what the hold
// holds, and whether that is more than it holds for some move.
func (b *Book) postAmounts(kind int, held []uint64, amounts []int64) (want []uint64, over bool) {
	t := &b.def.Transfers[kind]
	want = held
	if amounts != nil {
		byParam := map[int]int64{}
		for i, p := range t.PostAmounts {
			byParam[p] = amounts[i]
		}
		want = make([]uint64, len(t.Moves))
		for i, m := range t.Moves {
			if m.Amount < 0 {
				want[i] = held[i] // a literal amount always posts whole
			} else {
				want[i] = uint64(byParam[m.Amount])
			}
		}
	}
	for i := range want {
		if want[i] > held[i] {
			return want, true
		}
	}
	return want, false
}

// overHoldAnswer answers a post of more than the hold holds from the
// hold's state. TigerBeetle checks the amount before the hold's state,
// the reference interpreter the state first, so the client reads the
// state and answers as the interpreter.
func overHoldAnswer(s chobo.HoldState) chobo.Result {
	switch s {
	case chobo.Held:
		return refused(ReasonOverHold)
	case chobo.Posted:
		return refused(ReasonKeyConflict)
	case chobo.Voided:
		return refused(ReasonAlreadyVoided)
	case chobo.Expired:
		return refused(ReasonExpired)
	}
	return refused(ReasonNoSuchHold)
}

// Void voids a hold, named by its key's values in key order.
func (b *Book) Void(ctx context.Context, kind int, key Values) (chobo.Result, error) {
	if err := b.checkSize(key); err != nil {
		return chobo.Result{}, err
	}
	k := keyText(key)
	hold, held, err := b.held(ctx, kind, k)
	if errors.Is(err, errOtherDefinition) {
		return refused(ReasonKeyConflict), nil
	}
	if err != nil || held == nil {
		return refused(ReasonNoSuchHold), err
	}
	chain, err := b.def.FinishOf(b.tenant, kind, "void", k, nil, hold)
	if err != nil {
		return chobo.Result{}, err
	}
	st, err := b.sendChain(ctx, chain)
	if err != nil {
		return chobo.Result{}, err
	}
	if b.def.madeByLegacy(kind, st) {
		return b.sendLegacy(ctx, func(d *Def) ([]Event, error) { return d.FinishOf(b.tenant, kind, "void", k, nil, hold) })
	}
	return Read(chain, st)
}

// Status reads where a hold stands, "" when there is none, writing nothing.
func (b *Book) Status(ctx context.Context, kind int, key Values) (chobo.HoldState, error) {
	if err := b.checkSize(key); err != nil {
		return "", err
	}
	return b.status(ctx, kind, keyText(key))
}

// checkSize refuses, before anything is sent, a call whose tenant or
// text values are longer than every backend stores (chobo.CheckSize).
func (b *Book) checkSize(vals Values) error {
	var buf [8]string // on the stack for a call of a few text values
	texts := buf[:0]
	for _, v := range vals {
		if s, ok := v.(string); ok {
			texts = append(texts, s)
		}
	}
	return chobo.CheckSize(b.tenant, texts...)
}

func (b *Book) status(ctx context.Context, kind int, key []string) (chobo.HoldState, error) {
	chain, err := b.statusChain(kind, key)
	if err != nil {
		return "", err
	}
	st, err := b.sendChain(ctx, chain)
	if err != nil {
		return "", err
	}
	return ReadStatus(st)
}

// statusChain is a status chain with two fresh random ids.
func (b *Book) statusChain(kind int, key []string) ([]Event, error) {
	var v, f ids.ID
	if _, err := rand.Read(v[:]); err != nil {
		return nil, err
	}
	if _, err := rand.Read(f[:]); err != nil {
		return nil, err
	}
	return b.def.StatusChain(b.tenant, kind, key, valid(v), valid(f))
}

// valid keeps a random id off the two values TigerBeetle refuses.
func valid(id ids.ID) ids.ID {
	if id == (ids.ID{}) {
		id[15] = 1
	}
	if id == (ids.ID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
		id[15] = 0xfe
	}
	return id
}

func keyText(key Values) []string {
	out := make([]string, len(key))
	for i, v := range key {
		out[i] = text(v)
	}
	return out
}

// BalanceError is a balance that does not fit 64 bits. TigerBeetle keeps
// 128; the reference interpreter and PostgreSQL refuse the move that
// would leave 64 bits, TigerBeetle lets it through, and the client says so
// when the balance is read.
type BalanceError struct {
	Account string
	Field   string
	Value   string
}

func (e *BalanceError) Error() string {
	return fmt.Sprintf("chobotb: the %s balance of %s is %s, outside 64 bits", e.Field, e.Account, e.Value)
}

// Balance reads an account of the kind, named by its arguments.
func (b *Book) Balance(ctx context.Context, account int, args ...string) (chobo.Balance, error) {
	if account < 0 || account >= len(b.def.Accounts) {
		return chobo.Balance{}, fmt.Errorf("chobotb: the book %s has no account kind %d", b.def.Book, account)
	}
	if err := chobo.CheckSize(b.tenant, args...); err != nil {
		return chobo.Balance{}, err
	}
	name := b.def.Accounts[account].Name
	id := ids.Account(b.def.Book, b.tenant, name, args...)
	ctx, cancel := bounded(ctx)
	defer cancel()
	found, err := b.c.LookupAccounts(ctx, []ids.ID{id})
	if err != nil || len(found) == 0 {
		return chobo.Balance{}, err
	}
	return BalanceOf(name, found[0])
}

// BalanceOf reads the balance of an account record as chobo counts it:
// posted is credits less debits; an error when a figure leaves 64 bits.
func BalanceOf(name string, a Account) (chobo.Balance, error) {
	fits := func(field string, v U128, neg bool) (int64, error) {
		if v.Hi != 0 || v.Lo > 1<<63 || (v.Lo == 1<<63 && !neg) {
			s := v.String()
			if neg {
				s = "-" + s
			}
			return 0, &BalanceError{Account: name, Field: field, Value: s}
		}
		if neg {
			return -int64(v.Lo), nil
		}
		return int64(v.Lo), nil
	}
	var out chobo.Balance
	var err error
	if d, under := a.CreditsPosted.Sub(a.DebitsPosted); under {
		neg, _ := a.DebitsPosted.Sub(a.CreditsPosted)
		out.Posted, err = fits("posted", neg, true)
	} else {
		out.Posted, err = fits("posted", d, false)
	}
	if err != nil {
		return chobo.Balance{}, err
	}
	if out.HeldIn, err = fits("held_in", a.CreditsPending, false); err != nil {
		return chobo.Balance{}, err
	}
	if out.HeldOut, err = fits("held_out", a.DebitsPending, false); err != nil {
		return chobo.Balance{}, err
	}
	return out, nil
}
