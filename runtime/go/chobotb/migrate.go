package chobotb

import (
	"context"
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

// Left is an account a migration reports on one side (its floor or its
// room):
//
//   - HeldBefore: the floor or room is newer than holds of the account
//     still open, made by clients of a version without the bound, which
//     did not move it. The migration left it on the bound it held (none),
//     so that it answers by that bound; once those holds end, a later run
//     of the same version moves it. These are MigrateReport.Left.
//   - Outside (HeldBefore false): the book narrowed the bound past where
//     the account stands on that side (its posted balance less what it
//     holds out, for a floor; plus what is held into it, for a room). The
//     migration moved it all the same: its floor or room is empty and its
//     shortfall owes the rest, so that a call that takes it further out
//     is refused with the bound's reason, one that brings it back is
//     done, and once it is back inside the bound holds as for any
//     account. These are MigrateReport.Outside, for the operator's
//     information.
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

// MigrateReport is what a migration did, the accounts it left and those
// it moved that stand outside their new bound.
type MigrateReport struct {
	MigrateProgress
	Left    []Left
	Outside []Left
}

// migrateChunk is how many accounts one lookup reads with their floor and
// room and the shortfall of each: five records each in one reply of at
// most MaxEvents.
const migrateChunk = MaxEvents / 5

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
// Every move goes through the floor's or room's shortfall account (ids.
// Shortfall), in one linked pair: a narrowing makes the shortfall owe the
// difference, a widening puts it into the floor or room, and then a
// netting (both balancing flags) pays from the floor or room what the
// shortfall owes, as much as it has. An account the narrowed bound leaves
// outside ends with its floor or room empty and its shortfall owing how
// far outside it stands; the chains net before every take from a floor
// or room, so it answers as any account outside its bound does (see
// Left). Neither event can be refused, so nothing a call does between
// the read and the move makes the move land wrong.
//
// An account with holds open that its floor or room does not carry is
// left as it is, and reported, with ErrLeft.
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
	// t is the move, into the floor or room from the sink when it widens,
	// from the shortfall to the sink when it narrows; events are what is
	// sent for it: the move and the netting after it, linked.
	t       Transfer
	events  []Transfer
	tenant  string
	kind    int
	account ids.ID
	helper  ids.ID
	side    string
	reach   *big.Int
	outside bool
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
			h := s.id(x.ID)
			helpers = append(helpers, h, ids.Shortfall(h))
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
			h := s.id(x.ID)
			all = append(all, h, ids.Shortfall(h))
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
			// open made the shortfall of every floor and room there is.
			q, ok := m.move(tenant, k, owner, h, now[ids.Shortfall(h.ID)], s)
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
// account keeps answering by the bound it had, none, until its move. It
// makes the shortfall of every floor and room there is or it makes, with
// nothing owed (no opening), which every move of a migration goes
// through.
func (m *migration) open(ctx context.Context, tenant string, k int, owners []Account, sides []migrateSide, found map[ids.ID]Account) error {
	a := &m.d.Accounts[k]
	unit := a.Unit
	sink := ids.Sink(m.d.Book, tenant, m.d.Units[unit].Name)
	var accounts []Account
	var openings []Transfer
	add := func(x Account) {
		if len(accounts) == 0 {
			accounts = append(accounts, Account{ID: sink, Ledger: m.f.ledgers[unit], Code: m.f.sinkCodes[unit]})
		}
		accounts = append(accounts, x)
	}
	for _, x := range owners {
		for _, s := range sides {
			h := s.id(x.ID)
			_, there := found[h]
			if !there && s.bound != nil {
				add(Account{ID: h, UserData128: x.ID, Ledger: m.f.ledgers[unit],
					Code: m.f.accountCodes[k], Flags: AccountDebitsMustNotExceedCredits})
				openings = append(openings, Transfer{ID: ids.Opening(h), DebitAccountID: sink, CreditAccountID: h,
					Amount: Unbounded, Ledger: m.f.ledgers[unit], Code: m.f.sinkCodes[unit]})
				there = true
			}
			if _, short := found[ids.Shortfall(h)]; there && !short {
				add(Account{ID: ids.Shortfall(h), UserData128: h, Ledger: m.f.ledgers[unit],
					Code: m.f.accountCodes[k], Flags: AccountCreditsMustNotExceedDebits})
			}
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
	if len(openings) == 0 {
		return nil
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
// balances: the floor holds the account's posted balance less the lower
// bound, the room the upper bound less it, each less what its shortfall
// owes (its posted debits less its posted credits; a shortfall that is
// not there, the zero Account, owes nothing). Holds count on the safe
// side, as the bound checks them: what is held out of the account on its
// floor's side, what is held into it on its room's. A hold made since the
// floor or room existed moved it too, pending, and cancels out; one made
// before (a bound added to the kind) counts as if it were posted.
func Held(side string, owner, helper, shortfall Account) *big.Int {
	has := new(big.Int).Sub(posted(helper), u128Int(helper.DebitsPending))
	has.Add(has, posted(shortfall)) // credits less debits: less what it owes
	if side == "floor" {
		reach := new(big.Int).Sub(posted(owner), u128Int(owner.DebitsPending))
		return reach.Sub(reach, has)
	}
	reach := new(big.Int).Add(posted(owner), u128Int(owner.CreditsPending))
	return reach.Add(reach, has)
}

// NetID is the id of the netting a migration sends after its move of a
// floor or room (MoveID).
func NetID(move ids.ID) ids.ID { return ids.Sum("bound-net", move.Hex()) }

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
// when it is not there, with its netting.
func (m *migration) move(tenant string, k int, owner, h, short Account, s migrateSide) (queued, bool) {
	a := &m.d.Accounts[k]
	held := Held(s.name, owner, h, short)
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
	shortID := ids.Shortfall(h.ID)
	t := Transfer{ID: MoveID(m.d.Book, m.o.Version, h.ID),
		DebitAccountID: sink, CreditAccountID: h.ID, Ledger: m.f.ledgers[a.Unit], Code: m.f.sinkCodes[a.Unit]}
	if in.Sign() < 0 {
		// Narrowed: the shortfall owes the difference, and the netting
		// pays it from what the floor or room has.
		in.Neg(in)
		t.DebitAccountID, t.CreditAccountID = shortID, sink
	}
	t.Amount, _ = U128Of(in)
	first := t
	first.Flags |= TransferLinked
	net := Transfer{ID: NetID(t.ID), DebitAccountID: h.ID, CreditAccountID: shortID, Amount: Unbounded,
		Ledger: t.Ledger, Code: t.Code, Flags: TransferBalancing}
	reach := posted(owner)
	if s.name == "floor" {
		reach.Sub(reach, u128Int(owner.DebitsPending))
	} else {
		reach.Add(reach, u128Int(owner.CreditsPending))
	}
	outside := s.bound != nil && (s.name == "floor" && reach.Cmp(want) < 0 || s.name == "room" && reach.Cmp(want) > 0)
	return queued{t: t, events: []Transfer{first, net}, tenant: tenant, kind: k, account: owner.ID, helper: h.ID,
		side: s.name, reach: reach, outside: outside}, true
}

// leave reports an account whose floor or room stays where it is
// (heldBefore), or one moved that stands outside its new bound.
func (m *migration) leave(q queued, heldBefore bool) {
	a := &m.d.Accounts[q.kind]
	o := Left{Tenant: q.tenant, Kind: a.Name, Account: q.account, Side: q.side, Reach: q.reach.String(), HeldBefore: heldBefore}
	if q.side == "floor" {
		o.Bound = a.Lower.Value
	} else {
		o.Bound = a.Upper.Value
	}
	if heldBefore {
		m.report.Left = append(m.report.Left, o)
	} else {
		m.report.Outside = append(m.report.Outside, o)
	}
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
			case first == Created && s == Created:
				m.report.Changed++
				if q.outside {
					m.leave(q, false)
				}
			case first == Exists || first.ExistsWithDifferent():
				m.resent = append(m.resent, q)
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
		h := q.helper
		now, err := m.lookup(ctx, []ids.ID{q.account, h, ids.Shortfall(h)})
		if err != nil {
			return err
		}
		for _, s := range m.sides(&m.d.Accounts[q.kind]) {
			if s.name != q.side {
				continue
			}
			if _, again := m.move(q.tenant, q.kind, now[q.account], now[h], now[ids.Shortfall(h)], s); again {
				return fmt.Errorf("chobotb: the %s of %s was moved under version %d before and does not hold the book's bound: give the book a new version number and migrate again", q.side, q.account.Hex(), m.o.Version)
			}
			m.report.Changed++
		}
	}
	return nil
}
