package chobotb

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strconv"

	"github.com/chobo-lang/chobo/chobo/ids"
)

// AccountQuery is TigerBeetle's filter of query_accounts: the accounts
// whose fields equal every one of UserData128, Ledger and Code that is not
// 0, with timestamps from TimestampMin to TimestampMax (both inclusive, 0
// for no bound), at most Limit of them, oldest first.
type AccountQuery struct {
	UserData128  ids.ID
	Ledger       uint32
	Code         uint16
	TimestampMin uint64
	TimestampMax uint64
	Limit        uint32
}

// AccountQuerier is a client that can find accounts by their fields,
// which the migration of bounds needs and calls do not.
type AccountQuerier interface {
	QueryAccounts(ctx context.Context, f AccountQuery) ([]Account, error)
}

// MigrateClient is what Migrate sends through.
type MigrateClient interface {
	Client
	AccountQuerier
}

// MigrateOptions says which accounts a migration reaches and how it
// reports.
type MigrateOptions struct {
	// Version is the book's version (`book NAME vN`), part of the id of
	// every transfer the migration makes.
	Version int
	// Tenants are the tenants whose accounts are migrated; none is the
	// default tenant "" alone.
	Tenants []string
	// Progress, when set, is told the counts after every request.
	Progress func(MigrateProgress)
}

// MigrateProgress counts what a migration did so far.
type MigrateProgress struct {
	Seen     int // accounts of the book read
	Changed  int // floors and rooms moved onto the book's bound
	Requests int // requests sent
}

// Left is an account whose floor or room a migration left on the bound
// it held, so that it answers by that bound, and why:
//
//   - Outside: the book narrowed the bound past where the account stands
//     on that side (its posted balance less what it holds out, for a
//     floor; plus what is held into it, for a room). Moving the floor or
//     room would take it below zero, which its flag refuses.
//   - HeldBefore: the floor or room is newer than holds of the account
//     still open, made by clients of a version without the bound, which
//     did not move it. Once those holds end, the account can be moved.
//
// A later run of the same version moves it, once it is back inside or
// its holds have ended.
type Left struct {
	Tenant  string
	Kind    string
	Account ids.ID
	Side    string // "floor" or "room"
	Bound   int64  // the book's
	// Reach is where the account stands on that side.
	Reach      string
	HeldBefore bool
}

func (o Left) String() string {
	side, cmp := "at least", "less"
	if o.Side == "room" {
		side, cmp = "at most", "more"
	}
	tenant := ""
	if o.Tenant != "" {
		tenant = fmt.Sprintf(" of tenant %q", o.Tenant)
	}
	if o.HeldBefore {
		return fmt.Sprintf("%s %s%s: holds made before its %s are open; the book says %s %d", o.Kind, o.Account.Hex(), tenant, o.Side, side, o.Bound)
	}
	return fmt.Sprintf("%s %s%s: the book says %s %d, the account stands at %s (%s)", o.Kind, o.Account.Hex(), tenant, side, o.Bound, o.Reach, cmp)
}

// ErrLeft: some accounts were left on the bound they had (Left); every
// other account was moved.
var ErrLeft = errors.New("chobotb: some accounts were left on the bound they had")

// MigrateReport is what a migration did, and the accounts it left.
type MigrateReport struct {
	MigrateProgress
	Left []Left
}

// migrateChunk is how many accounts one lookup reads with their floor and
// room: three records each in one reply of at most MaxEvents.
const migrateChunk = MaxEvents / 3

// Migrate moves the floor and room of every existing account of the book
// onto the bounds def gives, from what each one holds now: the floor
// holds the balance less the lower bound, the room the upper bound less
// the balance (each with its holds, on the safe side), so that the bound
// a floor or room keeps today is read back from the two balances, with
// no record of the book it was made under. A side without a bound in def
// is moved to Unbounded; a side with a bound whose floor or room was
// never made gets one, opened Unbounded, then moved like the others.
//
// Every move has an id of the book, its version and the floor or room
// (MoveID): a move resent after its answer was lost is the same
// transfer, which TigerBeetle makes once; a second run finds every bound
// in place and sends nothing; a run stopped part-way leaves each floor or
// room on its old bound or its new one, and the next run moves what is
// left. Calls keep a floor or room in step with its account (every move
// of the account moves it too, in the same chain), so what a migration
// reads stays true until its move lands.
//
// An account a narrowed bound would leave outside is left as it is (its
// move is refused by the floor's or room's own flag, at the moment it
// would land), and so is one with holds open that its floor or room does
// not carry: both are reported, with ErrLeft.
func Migrate(ctx context.Context, c MigrateClient, d *Def, o MigrateOptions) (MigrateReport, error) {
	m := &migration{c: c, d: d, o: o, f: d.ids()}
	tenants := o.Tenants
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	for _, tenant := range tenants {
		for k := range d.Accounts {
			if err := m.kind(ctx, tenant, k); err != nil {
				return m.report, err
			}
		}
	}
	if err := m.flush(ctx); err != nil {
		return m.report, err
	}
	if err := m.verify(ctx); err != nil {
		return m.report, err
	}
	if len(m.report.Left) > 0 {
		return m.report, ErrLeft
	}
	return m.report, nil
}

type migration struct {
	c      MigrateClient
	d      *Def
	o      MigrateOptions
	f      *fixedIDs
	report MigrateReport
	// queued moves, sent MaxEvents at a time, with what each is for.
	queue []queued
	// resent are the moves TigerBeetle already had: read again at the
	// end, to tell a lost answer (the bound is in place) from a move of
	// this version made before the bound moved again.
	resent []queued
}

type queued struct {
	// t is the move; events are what is sent for it: the move alone when
	// it widens, else a pending probe of the same amount out of the floor
	// or room and its void before it, linked, so that a floor or room
	// that cannot give that much refuses the probe, whose id is random,
	// and the move's id stays free for a later run.
	t       Transfer
	events  []Transfer
	tenant  string
	kind    int
	account ids.ID
	side    string
	reach   *big.Int
}

func (m *migration) request() {
	m.report.Requests++
	if m.o.Progress != nil {
		m.o.Progress(m.report.MigrateProgress)
	}
}

// kind migrates the accounts of one kind of one tenant, a page of the
// query at a time, oldest first.
func (m *migration) kind(ctx context.Context, tenant string, k int) error {
	a := &m.d.Accounts[k]
	q := AccountQuery{UserData128: ids.Kind(m.d.Book, tenant, a.Name), Ledger: m.f.ledgers[a.Unit],
		Code: m.f.accountCodes[k], Limit: MaxEvents}
	for {
		page, err := m.query(ctx, q)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		m.report.Seen += len(page)
		for len(page) > 0 {
			n := min(len(page), migrateChunk)
			if err := m.chunk(ctx, tenant, k, page[:n]); err != nil {
				return err
			}
			q.TimestampMin = page[n-1].Timestamp + 1
			page = page[n:]
		}
	}
}

func (m *migration) query(ctx context.Context, q AccountQuery) ([]Account, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	page, err := m.c.QueryAccounts(ctx, q)
	m.request()
	return page, err
}

// side is the floor or the room of an account kind as def has it.
type migrateSide struct {
	name  string
	id    func(ids.ID) ids.ID
	bound *big.Int // nil: no bound on that side
}

func (m *migration) sides(a *AccountKind) []migrateSide {
	floor := migrateSide{name: "floor", id: ids.Floor}
	if a.Lower != nil && a.Lower.Value < 0 {
		floor.bound = big.NewInt(a.Lower.Value)
	}
	room := migrateSide{name: "room", id: ids.Room}
	if a.Upper != nil {
		room.bound = big.NewInt(a.Upper.Value)
	}
	return []migrateSide{floor, room}
}

// chunk migrates up to migrateChunk accounts of kind k: it makes the
// floors and rooms the book's bounds need and that are not there, then
// reads every account with its floor and room in one lookup (one moment
// of the ledger) and queues the moves.
func (m *migration) chunk(ctx context.Context, tenant string, k int, owners []Account) error {
	a := &m.d.Accounts[k]
	sides := m.sides(a)
	var helpers []ids.ID
	for _, x := range owners {
		for _, s := range sides {
			helpers = append(helpers, s.id(x.ID))
		}
	}
	found, err := m.lookup(ctx, helpers)
	if err != nil {
		return err
	}
	if err := m.open(ctx, tenant, k, owners, sides, found); err != nil {
		return err
	}
	var all []ids.ID
	for _, x := range owners {
		all = append(all, x.ID)
		for _, s := range sides {
			all = append(all, s.id(x.ID))
		}
	}
	now, err := m.lookup(ctx, all)
	if err != nil {
		return err
	}
	for _, x := range owners {
		owner, ok := now[x.ID]
		if !ok {
			return fmt.Errorf("chobotb: the account %s was found by a query and not by its id", x.ID.Hex())
		}
		for _, s := range sides {
			h, ok := now[s.id(x.ID)]
			if !ok {
				continue // no bound, and no floor or room ever made
			}
			q, ok := m.move(tenant, k, owner, h, s)
			switch {
			case !ok:
			case s.bound != nil && !carries(s.name, owner, h):
				m.leave(q, true)
			default:
				m.queue = append(m.queue, q)
			}
		}
	}
	if len(m.queue) >= MaxEvents {
		return m.flush(ctx)
	}
	return nil
}

func (m *migration) lookup(ctx context.Context, list []ids.ID) (map[ids.ID]Account, error) {
	return lookupAccounts(ctx, m.c, list, m.request)
}

// open makes the floors and rooms the bounds of kind k need and that the
// accounts do not have yet, with the sink, and opens them Unbounded: the
// account keeps answering by the bound it had, none, until its move.
func (m *migration) open(ctx context.Context, tenant string, k int, owners []Account, sides []migrateSide, found map[ids.ID]Account) error {
	a := &m.d.Accounts[k]
	unit := a.Unit
	sink := ids.Sink(m.d.Book, tenant, m.d.Units[unit].Name)
	var accounts []Account
	var openings []Transfer
	for _, x := range owners {
		for _, s := range sides {
			h := s.id(x.ID)
			if _, ok := found[h]; ok || s.bound == nil {
				continue
			}
			if len(accounts) == 0 {
				accounts = append(accounts, Account{ID: sink, Ledger: m.f.ledgers[unit], Code: m.f.sinkCodes[unit]})
			}
			accounts = append(accounts, Account{ID: h, UserData128: x.ID, Ledger: m.f.ledgers[unit],
				Code: m.f.accountCodes[k], Flags: AccountDebitsMustNotExceedCredits})
			openings = append(openings, Transfer{ID: ids.Opening(h), DebitAccountID: sink, CreditAccountID: h,
				Amount: Unbounded, Ledger: m.f.ledgers[unit], Code: m.f.sinkCodes[unit]})
		}
	}
	if len(accounts) == 0 {
		return nil
	}
	ctx1, cancel := bounded(ctx)
	st, err := m.c.CreateAccounts(ctx1, accounts)
	cancel()
	m.request()
	if err != nil {
		return err
	}
	for i, s := range st {
		if s != Created && s != Exists {
			return fmt.Errorf("%w (account %s: %s)", ErrAccountChanged, accounts[i].ID.Hex(), s)
		}
	}
	ctx2, cancel := bounded(ctx)
	st, err = m.c.CreateTransfers(ctx2, openings)
	cancel()
	m.request()
	if err != nil {
		return err
	}
	for i, s := range st {
		// Another amount: a call opened it first, from a balance of zero.
		if s != Created && s != Exists && s != ExistsWithDifferentAmount {
			return fmt.Errorf("chobotb: opening %s: TigerBeetle answered %s", openings[i].CreditAccountID.Hex(), s)
		}
	}
	return nil
}

// carries reports whether every hold open on an account moved its floor
// or room too: a floor is taken from by a hold out of the account and
// given to by one into it, a room the other way round. A hold made by a
// client of a version whose kind had no bound on that side did not, and
// its end would move the account without its floor or room.
func carries(side string, owner, h Account) bool {
	if side == "floor" {
		return owner.DebitsPending == h.DebitsPending && owner.CreditsPending == h.CreditsPending
	}
	return owner.CreditsPending == h.DebitsPending && owner.DebitsPending == h.CreditsPending
}

// posted is an account's credits less its debits, posted only.
func posted(a Account) *big.Int {
	return new(big.Int).Sub(u128Int(a.CreditsPosted), u128Int(a.DebitsPosted))
}

func u128Int(v U128) *big.Int {
	hi := new(big.Int).SetUint64(v.Hi)
	return hi.Lsh(hi, 64).Or(hi, new(big.Int).SetUint64(v.Lo))
}

// U128Of is v as a U128, false when v is negative or needs more than 128
// bits.
func U128Of(v *big.Int) (U128, bool) {
	if v.Sign() < 0 || v.BitLen() > 128 {
		return U128{}, false
	}
	lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0)))
	hi := new(big.Int).Rsh(v, 64)
	return U128{Hi: hi.Uint64(), Lo: lo.Uint64()}, true
}

// Held reads the bound a floor or room keeps for its account, from the
// two balances: the floor holds the account's posted balance less the
// lower bound, the room the upper bound less it. Holds count on the safe
// side, as the bound checks them: what is held out of the account on its
// floor's side, what is held into it on its room's. A hold made since the
// floor or room existed moved it too, pending, and cancels out; one made
// before (a bound added to the kind) counts as if it were posted.
func Held(side string, owner, helper Account) *big.Int {
	if side == "floor" {
		reach := new(big.Int).Sub(posted(owner), u128Int(owner.DebitsPending))
		return reach.Sub(reach, new(big.Int).Sub(posted(helper), u128Int(helper.DebitsPending)))
	}
	reach := new(big.Int).Add(posted(owner), u128Int(owner.CreditsPending))
	return reach.Add(reach, new(big.Int).Sub(posted(helper), u128Int(helper.DebitsPending)))
}

// MoveID is the id of the move of a floor or room by a migration to the
// book's version: one per version and floor or room. Calls never change
// the bound a floor or room keeps, so every run of one version computes
// the same move for it until that move lands, and none after: a move
// resent after its answer was lost is the transfer TigerBeetle has, and
// is made once.
func MoveID(book string, version int, helper ids.ID) ids.ID {
	return ids.Sum("bound", book, strconv.Itoa(version), helper.Hex())
}

// unboundedInt is Unbounded as a bound: below every lower bound, above
// every upper one.
var unboundedInt = u128Int(Unbounded)

// move is the transfer that puts a floor or room on the book's bound,
// when it is not there.
func (m *migration) move(tenant string, k int, owner, h Account, s migrateSide) (queued, bool) {
	a := &m.d.Accounts[k]
	held := Held(s.name, owner, h)
	want := s.bound
	if want == nil {
		want = unboundedInt
		if s.name == "floor" {
			want = new(big.Int).Neg(unboundedInt)
		}
		// A side without a bound that is far enough out already stays.
		if (s.name == "floor" && held.Cmp(want) <= 0) || (s.name == "room" && held.Cmp(want) >= 0) {
			return queued{}, false
		}
	}
	if held.Cmp(want) == 0 {
		return queued{}, false
	}
	// More into the helper widens: a lower floor, a higher room.
	in := new(big.Int).Sub(want, held)
	if s.name == "floor" {
		in.Neg(in)
	}
	sink := ids.Sink(m.d.Book, tenant, m.d.Units[a.Unit].Name)
	t := Transfer{ID: MoveID(m.d.Book, m.o.Version, h.ID),
		DebitAccountID: sink, CreditAccountID: h.ID, Ledger: m.f.ledgers[a.Unit], Code: m.f.sinkCodes[a.Unit]}
	if in.Sign() < 0 {
		in.Neg(in)
		t.DebitAccountID, t.CreditAccountID = h.ID, sink
	}
	t.Amount, _ = U128Of(in)
	events := []Transfer{t}
	if t.DebitAccountID == h.ID {
		var probe ids.ID
		if _, err := rand.Read(probe[:]); err != nil {
			panic(err) // crypto/rand does not fail on the systems Go runs on
		}
		probe = valid(probe)
		events = []Transfer{
			{ID: probe, DebitAccountID: h.ID, CreditAccountID: sink, Amount: t.Amount, Ledger: t.Ledger, Code: t.Code,
				Flags: TransferPending | TransferLinked},
			{ID: valid(ids.Sum("bound-probe-void", probe.Hex())), PendingID: probe, Flags: TransferVoidPending | TransferLinked},
			t,
		}
	}
	reach := posted(owner)
	if s.name == "floor" {
		reach.Sub(reach, u128Int(owner.DebitsPending))
	} else {
		reach.Add(reach, u128Int(owner.CreditsPending))
	}
	return queued{t: t, events: events, tenant: tenant, kind: k, account: owner.ID, side: s.name, reach: reach}, true
}

// leave reports an account whose floor or room stays where it is.
func (m *migration) leave(q queued, heldBefore bool) {
	a := &m.d.Accounts[q.kind]
	o := Left{Tenant: q.tenant, Kind: a.Name, Account: q.account, Side: q.side, Reach: q.reach.String(), HeldBefore: heldBefore}
	if q.side == "floor" {
		o.Bound = a.Lower.Value
	} else {
		o.Bound = a.Upper.Value
	}
	m.report.Left = append(m.report.Left, o)
}

// flush sends the queued moves in requests of at most MaxEvents events,
// a move's events never split.
func (m *migration) flush(ctx context.Context) error {
	for len(m.queue) > 0 {
		var batch []queued
		var ts []Transfer
		for _, q := range m.queue {
			if len(ts)+len(q.events) > MaxEvents {
				break
			}
			batch = append(batch, q)
			ts = append(ts, q.events...)
		}
		c, cancel := bounded(ctx)
		st, err := m.c.CreateTransfers(c, ts)
		cancel()
		if err == nil && len(st) != len(ts) {
			err = fmt.Errorf("chobotb: %d statuses for %d transfers", len(st), len(ts))
		}
		m.request()
		if err != nil {
			return err
		}
		at := 0
		for _, q := range batch {
			first, s := st[at], st[at+len(q.events)-1]
			at += len(q.events)
			switch {
			case s == Created:
				m.report.Changed++
			case s == Exists || s.ExistsWithDifferent():
				m.resent = append(m.resent, q)
			case len(q.events) > 1 && first == ExceedsCredits:
				// The floor or room cannot give that much: the account
				// stands outside the narrowed bound, holds counted.
				m.leave(q, false)
			default:
				return fmt.Errorf("chobotb: moving the %s of %s: TigerBeetle answered %s, then %s", q.side, q.account.Hex(), first, s)
			}
		}
		m.queue = m.queue[len(batch):]
	}
	return nil
}

// verify reads again the floors and rooms whose move TigerBeetle already
// had. A move resent after its answer was lost left the bound in place.
// One that finds the bound elsewhere was made by an earlier run of the
// same version number towards another bound (two books given one
// version number), or the account moved without its floor or room since
// (calls of clients from before its kind had the bound): only a new
// version number moves it again.
func (m *migration) verify(ctx context.Context) error {
	for _, q := range m.resent {
		h := q.t.CreditAccountID
		if q.t.DebitAccountID != ids.Sink(m.d.Book, q.tenant, m.d.Units[m.d.Accounts[q.kind].Unit].Name) {
			h = q.t.DebitAccountID
		}
		now, err := m.lookup(ctx, []ids.ID{q.account, h})
		if err != nil {
			return err
		}
		for _, s := range m.sides(&m.d.Accounts[q.kind]) {
			if s.name != q.side {
				continue
			}
			if _, again := m.move(q.tenant, q.kind, now[q.account], now[h], s); again {
				return fmt.Errorf("chobotb: the %s of %s was moved under version %d before and does not hold the book's bound: give the book a new version number and migrate again", q.side, q.account.Hex(), m.o.Version)
			}
			m.report.Changed++
		}
	}
	return nil
}
