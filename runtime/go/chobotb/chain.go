package chobotb

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/ids"
)

// Role says what an event of a chain is for.
type Role string

// The roles of the events of a hold or do chain, in the order one move
// lays them out, then the roles of post, void and status chains.
const (
	// RoleMove is the move itself, from its account to the other.
	RoleMove Role = "move"
	// RoleProbe holds the lower bound L > 0 of the account a move takes
	// from: it passes only when L is still there after the move.
	RoleProbe Role = "lower_probe"
	// RoleProbeVoid voids the probe at once.
	RoleProbeVoid Role = "lower_probe_void"
	// RoleFloorTake takes the amount from the floor account of an account
	// whose lower bound is below zero.
	RoleFloorTake Role = "floor_take"
	// RoleRoomGive gives the amount back to the room account of an account
	// with an upper bound that the move takes from.
	RoleRoomGive Role = "room_give"
	// RoleRoomTake takes the amount from the room account of an account
	// with an upper bound that the move puts into.
	RoleRoomTake Role = "room_take"
	// RoleFloorGive gives the amount back to the floor account of an
	// account whose lower bound is below zero that the move puts into.
	RoleFloorGive Role = "floor_give"
	// RoleFloorNet and RoleRoomNet come just before a floor_take or a
	// room_take: they pay what the floor or room has towards its
	// shortfall, a transfer with both balancing flags from the floor or
	// room to its shortfall account, which moves as much as the one has
	// and the other owes (0 when nothing is owed). A narrowed bound that
	// leaves an account outside sets its floor or room to zero and makes
	// the shortfall owe the rest (Migrate); so the take after the netting
	// finds the floor or room empty until the account is back inside,
	// however it came back (moves, posts, voids or expiries of holds).
	// The netting is never pending, so no void undoes it, and nothing
	// refuses it; it carries the sink's code, so the chain's records that
	// history reads by the kind's code leave it out, and its id comes
	// after every position of the layout, so the other events keep the
	// ids they had before chains netted.
	RoleFloorNet Role = "floor_net"
	RoleRoomNet  Role = "room_net"
	// RoleKeyGuard comes after the chain of a do or hold in which two
	// events or more may be refused by a bound, outside the chain, with
	// the id of the chain's first event: a void of a transfer that never
	// exists (ids.Never). When the chain was written, now or before, the id
	// is taken and the guard is answered exists_with_different_flags,
	// writing nothing. When it was not, the guard is refused with
	// pending_transfer_not_found, which uses the id up, so every later call
	// with the key stops at the chain's first event with id_already_failed
	// (already_refused) before any bound is looked at again.
	RoleKeyGuard Role = "key_guard"
	// RolePost and RoleVoid end one pending event of a hold.
	RolePost Role = "post"
	RoleVoid Role = "void"
	// RoleStatusVoid and RoleStatusFail make the status chain: a void
	// linked to a transfer that always fails, so nothing is written and
	// the void's answer tells where the hold stands.
	RoleStatusVoid Role = "status_void"
	RoleStatusFail Role = "status_fail"
)

// Event is one transfer of a chain and what it is for.
type Event struct {
	Transfer
	Role Role
	Move int // the move it belongs to, from 1; 0 for a status chain
	// Reason is the refusal when TigerBeetle answers exceeds_credits for
	// this event: the bound the event keeps. Empty for an event that no
	// bound refuses.
	Reason string
}

// Plan is everything a do or hold call sends: the accounts it touches
// (floor, room and sink accounts included, each once, first use first),
// the opening transfers of its floor and room accounts, and its chain.
type Plan struct {
	Accounts []Account
	// Names name the accounts, one per account: stock(A-1),
	// floor(stock(A-1)), room(…), sink(unit).
	Names    []string
	Openings []Transfer
	Chain    []Event
	// SameAccount: a move would go from an account to itself. Nothing is
	// sent; the call is refused with same_account.
	SameAccount bool
}

// slot is the place of an event in the chain of a kind, known from the
// kind alone: post and void find the pending events of a hold by it.
type slot struct {
	role Role
	move int
}

// layout lists the events one do or hold of t lays out, in order.
func (d *Def) layout(t *TransferKind) []slot {
	var out []slot
	for i, m := range t.Moves {
		from, to := &d.Accounts[m.From.Account], &d.Accounts[m.To.Account]
		n := i + 1
		out = append(out, slot{RoleMove, n})
		if from.Lower != nil && from.Lower.Value > 0 {
			out = append(out, slot{RoleProbe, n}, slot{RoleProbeVoid, n})
		}
		if from.Lower != nil && from.Lower.Value < 0 {
			out = append(out, slot{RoleFloorTake, n})
		}
		if from.Upper != nil {
			out = append(out, slot{RoleRoomGive, n})
		}
		if to.Upper != nil {
			out = append(out, slot{RoleRoomTake, n})
		}
		if to.Lower != nil && to.Lower.Value < 0 {
			out = append(out, slot{RoleFloorGive, n})
		}
	}
	if d.guarded(t) {
		out = append(out, slot{RoleKeyGuard, 0})
	}
	return out
}

// tags are the DefinitionTags a hold of the transfer kind may carry: its
// definition's, and the legacy hash's earlier versions of chobo tagged it
// with (0 when not known); none for a kind there is not.
func (d *Def) tags(kind int) [2]uint64 {
	if kind < 0 || kind >= len(d.Transfers) {
		return [2]uint64{}
	}
	t := &d.Transfers[kind]
	out := [2]uint64{DefinitionTag(t.Definition)}
	if t.Legacy != "" {
		out[1] = DefinitionTag(t.Legacy)
	}
	return out
}

// Guarded reports whether a do or hold of the transfer kind sends a key
// guard after its chain.
func (d *Def) Guarded(kind int) bool { return d.guarded(&d.Transfers[kind]) }

// guarded reports whether a do or hold of t sends a key guard: when an
// event of its chain other than the first may be refused by a bound, or
// two or more may. The guard uses the first event's id up on a refusal,
// so a retry is answered at the first event, whatever bounds the chain
// keeps by then: the move of a kind keeps its place and id when a deploy
// adds or removes the events of a bound after it, where a later event's
// id may not be sent again. A chain whose only refusable event is its
// first uses that id up itself.
func (d *Def) guarded(t *TransferKind) bool {
	n, first := 0, false
	for i, m := range t.Moves {
		from, to := &d.Accounts[m.From.Account], &d.Accounts[m.To.Account]
		if l := from.Lower; l != nil {
			n++ // the move itself, its floor_take, or its probe
			if l.Value > 0 {
				n++ // the move and its probe
			}
			first = first || i == 0 && l.Value == 0
		}
		if to.Upper != nil {
			n++ // room_take
		}
	}
	return n >= 2 || n == 1 && !first
}

// ChainLength is how many events the longest request of one call of a
// transfer kind carries: its do or hold chain with its nettings and the
// key guard after it, if it has one. Post and void chains are shorter.
func (d *Def) ChainLength(kind int) int {
	l := d.layout(&d.Transfers[kind])
	return len(l) + nettings(l)
}

// nettings is how many nettings a chain of the layout carries: one
// before each take from a floor or room.
func nettings(l []slot) int {
	n := 0
	for _, s := range l {
		if s.role == RoleFloorTake || s.role == RoleRoomTake {
			n++
		}
	}
	return n
}

// accountID is the id of the account a side of a move names.
func (d *Def) accountID(tenant string, tids *tenantIDs, s Side, vals Values) ids.ID {
	if len(s.Args) == 0 {
		return tids.plainID(s.Account)
	}
	args := make([]string, len(s.Args))
	for i, p := range s.Args {
		args[i] = text(vals[p])
	}
	return ids.Account(d.Book, tenant, d.Accounts[s.Account].Name, args...)
}

// accountName writes the account a side names: stock(A-1), or the bare kind.
func (d *Def) accountName(s Side, vals Values) string {
	name := d.Accounts[s.Account].Name
	if len(s.Args) == 0 {
		return name
	}
	args := make([]string, len(s.Args))
	for i, p := range s.Args {
		args[i] = text(vals[p])
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// accountFlags: a lower bound of 0 or more is kept by TigerBeetle's flag.
func accountFlags(a *AccountKind) uint16 {
	if a.Lower != nil && a.Lower.Value >= 0 {
		return AccountDebitsMustNotExceedCredits
	}
	return 0
}

// Build lays out what a do or hold call of the transfer kind sends. Values
// are the call's arguments in declaration order.
func (d *Def) Build(tenant string, kind int, op string, vals Values) (*Plan, error) {
	// One call needs the ids of the few kinds it names: they are worked
	// out as it asks for them, not those of every kind of the book.
	return d.build(tenant, &tenantIDs{d: d, tenant: tenant}, kind, op, vals, true)
}

// build is Build with the tenant's shared ids worked out already (a Book
// keeps them); without named, the plan has no Names, which a call never
// reads and which cost a string per account.
//
// A call is laid out in three steps: the accounts each move names, which
// decide alone whether anything is sent (same_account); then, move by
// move, the move and the events that keep its accounts' bounds, in the
// order of layout; then the links and the key guard.
func (d *Def) build(tenant string, tids *tenantIDs, kind int, op string, vals Values, named bool) (*Plan, error) {
	t, err := d.transfer(kind)
	if err != nil {
		return nil, err
	}
	if err := t.check(vals); err != nil {
		return nil, err
	}
	switch {
	case op == "do" && !t.Pending:
	case op == "hold" && t.Pending:
	default:
		return nil, fmt.Errorf("chobotb: %s has no operation %s", t.Name, op)
	}
	b := &planner{d: d, t: t, tenant: tenant, tids: tids, vals: vals, named: named, p: &Plan{}}
	sides := b.sides()
	if b.p.SameAccount {
		return b.p, nil
	}
	b.start(kind, op)
	for i, m := range t.Moves {
		if err := b.move(i+1, m, sides[i][0], sides[i][1]); err != nil {
			return nil, err
		}
	}
	link(b.p.Chain)
	if d.guarded(t) {
		b.p.Chain = append(b.p.Chain, guard(b.p.Chain[0].ID))
	}
	return b.p, nil
}

// planner is what build keeps while it lays out one call.
type planner struct {
	d      *Def
	t      *TransferKind
	tenant string
	tids   *tenantIDs
	vals   Values
	named  bool
	p      *Plan
	fixed  *fixedIDs
	seen   []ids.ID // the accounts of the plan so far: a handful, read in a line
	// seenBuf holds seen while a call names no more accounts than it has
	// room for, as nearly every call does
	seenBuf [8]ids.ID
	// pos is the layout position of the next event; net that of the next
	// netting, counted on from the end of the layout.
	pos, net int

	// What every event of the call's chain carries.
	op      string
	keyVals []string
	user    ids.ID // the content's id, in user_data_128
	code    uint16
	flags   uint16 // pending on a hold
	timeout uint32 // the kind's, on a hold
	tag     uint64 // DefinitionTag, on a hold
	// ledger is that of the account the current move takes from: every
	// event of a move is on it.
	ledger uint32
}

// side is one end of a move: the account, its kind and its name.
type side struct {
	id   ids.ID
	kind int
	a    *AccountKind
	name string
}

// sides works out the accounts at both ends of every move, and whether
// one goes from an account to itself.
func (b *planner) sides() [][2]side {
	d := b.d
	out := make([][2]side, len(b.t.Moves))
	end := func(s Side) side {
		e := side{id: d.accountID(b.tenant, b.tids, s, b.vals), kind: s.Account, a: &d.Accounts[s.Account]}
		if b.named {
			e.name = d.accountName(s, b.vals)
		}
		return e
	}
	for i, m := range b.t.Moves {
		out[i] = [2]side{end(m.From), end(m.To)}
		if out[i][0].id == out[i][1].id {
			b.p.SameAccount = true
		}
	}
	return out
}

// start works out what every event of the call carries.
func (b *planner) start(kind int, op string) {
	b.fixed = b.d.ids()
	b.seen = b.seenBuf[:0]
	// room for a move's two accounts and the helpers of their bounds, in
	// one allocation where growing from nothing took several
	b.p.Accounts = make([]Account, 0, 4)
	b.net = b.fixed.layoutLens[kind]
	b.op, b.code, b.keyVals = op, b.fixed.transferCodes[kind], b.t.keyValues(b.vals)
	b.user = ids.Content(b.d.Book, b.tenant, b.t.Name, op, b.t.Definition, Content(b.vals))
	if op == "hold" {
		b.timeout, b.flags, b.tag = b.t.Timeout, TransferPending, DefinitionTag(b.t.Definition)
	}
}

// has reports whether the plan has the account id already.
func (b *planner) has(id ids.ID) bool { return slices.Contains(b.seen, id) }

// account adds an account to the plan the first time it is named.
func (b *planner) account(a Account, name string) {
	if b.has(a.ID) {
		return
	}
	b.seen = append(b.seen, a.ID)
	b.p.Accounts = append(b.p.Accounts, a)
	if b.named {
		b.p.Names = append(b.p.Names, name)
	}
}

// sink is the tenant's sink account of a unit, added to the plan.
func (b *planner) sink(unit int) ids.ID {
	id := b.tids.sink(unit)
	if !b.has(id) {
		b.account(Account{ID: id, Ledger: b.fixed.ledgers[unit], Code: b.fixed.sinkCodes[unit]}, "sink("+b.d.Units[unit].Name+")")
	}
	return id
}

// opened is a floor or room account of owner (role says which), added to
// the plan with the opening that puts amount into it from the sink: the
// distance from zero to the bound it keeps.
func (b *planner) opened(role string, owner side, id ids.ID, amount int64) (ids.ID, error) {
	if amount < 0 {
		return id, fmt.Errorf("chobotb: the bounds of %s cannot be kept in TigerBeetle: a room or floor would open below zero", owner.a.Name)
	}
	unit := owner.a.Unit
	s := b.sink(unit)
	if !b.has(id) {
		b.account(Account{ID: id, UserData128: owner.id, Ledger: b.fixed.ledgers[unit],
			Code: b.fixed.accountCodes[owner.kind], Flags: AccountDebitsMustNotExceedCredits}, role+"("+owner.name+")")
		b.p.Openings = append(b.p.Openings, Transfer{ID: ids.Opening(id), DebitAccountID: s, CreditAccountID: id,
			Amount: U64(uint64(amount)), Ledger: b.fixed.ledgers[unit], Code: b.fixed.sinkCodes[unit]})
	}
	return id, nil
}

// add appends an event to the chain; its id is its place in the layout.
func (b *planner) add(s slot, debit, credit ids.ID, amount uint64, flags uint16, timeout uint32, pendingID ids.ID, reason string) {
	pos := b.pos
	b.pos++
	b.p.Chain = append(b.p.Chain, Event{Role: s.role, Move: s.move, Reason: reason, Transfer: Transfer{
		ID: ids.Transfer(b.d.Book, b.tenant, b.t.Name, b.op, b.keyVals, pos), DebitAccountID: debit, CreditAccountID: credit,
		Amount: U64(amount), PendingID: pendingID, UserData128: b.user, UserData64: b.tag, Timeout: timeout,
		Ledger: b.ledger, Code: b.code, Flags: flags}})
}

// netting appends the netting of the floor or room h of owner (see
// RoleRoomNet), with its shortfall account added to the plan.
func (b *planner) netting(role Role, n int, owner side, h ids.ID) {
	short := ids.Shortfall(h)
	unit := owner.a.Unit
	if !b.has(short) {
		var name string
		if b.named {
			name = "shortfall(" + strings.TrimSuffix(string(role), "_net") + "(" + owner.name + "))"
		}
		b.account(Account{ID: short, UserData128: h, Ledger: b.fixed.ledgers[unit],
			Code: b.fixed.accountCodes[owner.kind], Flags: AccountCreditsMustNotExceedDebits}, name)
	}
	pos := b.net
	b.net++
	b.p.Chain = append(b.p.Chain, Event{Role: role, Move: n, Transfer: Transfer{
		ID: ids.Transfer(b.d.Book, b.tenant, b.t.Name, b.op, b.keyVals, pos), DebitAccountID: h, CreditAccountID: short,
		Amount: Unbounded, UserData128: b.user, UserData64: b.tag, Ledger: b.fixed.ledgers[unit], Code: b.fixed.sinkCodes[unit],
		Flags: TransferBalancing}})
}

// move lays out move n (from 1) and the events that keep the bounds of
// its two accounts, in the order of layout.
func (b *planner) move(n int, m Move, from, to side) error {
	for _, s := range []side{from, to} {
		b.account(Account{ID: s.id, UserData128: b.tids.kind(s.kind), Ledger: b.fixed.ledgers[s.a.Unit],
			Code: b.fixed.accountCodes[s.kind], Flags: accountFlags(s.a)}, s.name)
	}
	amount := m.Literal
	if m.Amount >= 0 {
		amount = b.vals[m.Amount].(int64)
	}
	if amount < 0 {
		return fmt.Errorf("chobotb: move %d of %s moves %d", n, b.t.Name, amount)
	}
	a := uint64(amount)
	b.ledger = b.fixed.ledgers[from.a.Unit]
	// A lower bound of 0 or more is kept by the account's own flag: the
	// move itself is the event TigerBeetle refuses.
	lower := from.a.Lower
	var reason string
	if lower != nil && lower.Value >= 0 {
		reason = lower.Reason
	}
	b.add(slot{RoleMove, n}, from.id, to.id, a, b.flags, b.timeout, ids.ID{}, reason)
	if lower != nil && lower.Value > 0 {
		b.probe(n, from)
	}
	return b.floorsAndRooms(n, a, from, to)
}

// floorsAndRooms lays out the events of move n that keep the bounds a
// flag or a probe cannot: each moves the amount a between a floor or room
// account and the sink in step with the move, so that the helper holds
// the distance from its account's balance to the bound, and its own flag
// refuses the event that would cross it.
func (b *planner) floorsAndRooms(n int, a uint64, from, to side) error {
	if lower := from.a.Lower; lower != nil && lower.Value < 0 {
		f, err := b.opened("floor", from, ids.Floor(from.id), -lower.Value)
		if err != nil {
			return err
		}
		b.netting(RoleFloorNet, n, from, f)
		b.add(slot{RoleFloorTake, n}, f, b.sink(from.a.Unit), a, b.flags, b.timeout, ids.ID{}, lower.Reason)
	}
	if from.a.Upper != nil {
		r, err := b.opened("room", from, ids.Room(from.id), from.a.Upper.Value)
		if err != nil {
			return err
		}
		b.add(slot{RoleRoomGive, n}, b.sink(from.a.Unit), r, a, b.flags, b.timeout, ids.ID{}, "")
	}
	if to.a.Upper != nil {
		r, err := b.opened("room", to, ids.Room(to.id), to.a.Upper.Value)
		if err != nil {
			return err
		}
		b.netting(RoleRoomNet, n, to, r)
		b.add(slot{RoleRoomTake, n}, r, b.sink(to.a.Unit), a, b.flags, b.timeout, ids.ID{}, to.a.Upper.Reason)
	}
	if to.a.Lower != nil && to.a.Lower.Value < 0 {
		f, err := b.opened("floor", to, ids.Floor(to.id), -to.a.Lower.Value)
		if err != nil {
			return err
		}
		b.add(slot{RoleFloorGive, n}, b.sink(to.a.Unit), f, a, b.flags, b.timeout, ids.ID{}, "")
	}
	return nil
}

// probe keeps a lower bound L > 0 of the account a move takes from: after
// the move, a pending transfer of L from it must still pass, and is
// voided at once, so that nothing stays held.
func (b *planner) probe(n int, from side) {
	lower := from.a.Lower
	pos := len(b.p.Chain)
	b.add(slot{RoleProbe, n}, from.id, b.sink(from.a.Unit), uint64(lower.Value), TransferPending, 0, ids.ID{}, lower.Reason)
	b.add(slot{RoleProbeVoid, n}, ids.ID{}, ids.ID{}, 0, TransferVoidPending, 0, b.p.Chain[pos].ID, "")
	// A void takes its ledger and code from the probe.
	last := &b.p.Chain[len(b.p.Chain)-1]
	last.Ledger, last.Code = 0, 0
}

// guard is the key guard of a chain whose first event has the id first.
func guard(first ids.ID) Event {
	return Event{Role: RoleKeyGuard, Transfer: Transfer{ID: first, PendingID: ids.Never(), Flags: TransferVoidPending}}
}

// DefinitionTag is what every event of a hold's chain carries in
// user_data_64: the definition hash of the transfer kind (8 bytes, as
// hex), as a number; 1 when the hash is zero, since 0 means none. Post
// and void compare it with their own, so that a hold made under another
// definition is never ended by this one's chain.
func DefinitionTag(definition string) uint64 {
	v, err := strconv.ParseUint(definition, 16, 64)
	if err != nil || len(definition) != 16 {
		// Not a hash as chobo writes them: the first 8 bytes of its SHA-256.
		sum := sha256.Sum256([]byte(definition))
		v = binary.BigEndian.Uint64(sum[:8])
	}
	if v == 0 {
		v = 1
	}
	return v
}

// link sets the linked flag on every event but the last.
func link(chain []Event) {
	for i := range chain {
		if i < len(chain)-1 {
			chain[i].Flags |= TransferLinked
		}
	}
}

// reach is how many places of a hold's chain one move can take under any
// layout: the move, a probe and its void (a lower bound above zero, which
// never turns into a floor: the lower bound cannot cross zero between
// versions), a room_give, a room_take and a floor_give. A floor_take
// needs a lower bound below zero, so it never comes with a probe.
const reach = 6

// Lookups are the ids of every place a hold of the kind can have put an
// event at, under this layout or any other a version of the book lays
// its chain out by: what post and void read before they send anything.
// A new version that adds or removes a floor, room or probe on an account
// a hold moves through moves the hold's later events to other places, and
// a hold made before the deploy is ended after it: so post and void read
// a few more ids (reach per move, one request as before) and end what
// they find (HoldOf), not what this version would have laid out.
// Nettings, which come after a layout's end, may be among them; HoldOf
// leaves them out.
func (d *Def) Lookups(tenant string, kind int, key []string) ([]ids.ID, error) {
	t, err := d.transfer(kind)
	if err != nil {
		return nil, err
	}
	out := make([]ids.ID, reach*len(t.Moves))
	for pos := range out {
		out[pos] = ids.Transfer(d.Book, tenant, t.Name, "hold", key, pos)
	}
	return out, nil
}

// MoveIDs are the ids of a hold's moves as this version lays them out,
// one per move in order: where the reads of a hold's records find them.
func (d *Def) MoveIDs(tenant string, kind int, key []string) ([]ids.ID, error) {
	t, err := d.transfer(kind)
	if err != nil {
		return nil, err
	}
	var out []ids.ID
	for pos, s := range d.layout(t) {
		if s.role == RoleMove {
			out = append(out, ids.Transfer(d.Book, tenant, t.Name, "hold", key, pos))
		}
	}
	return out, nil
}

// HoldEvent is one event of a hold that a post or void ends: a pending event
// of its chain other than a probe, as the ledger keeps it, and its move.
type HoldEvent struct {
	Transfer
	Move int // from 1
}

// HoldOf reads a hold of the kind from what a lookup of its Lookups found
// (by id): the events a post or void ends, in the order of its chain, and
// what each move holds. Both are nil when there is no hold. It goes by
// the events found, not by this version's layout, so a hold made under
// another layout is ended whole:
//   - only pending events are ended: a netting, a probe's void and the
//     events of no hold are not pending;
//   - a probe is pending but voided by the event after it, so it is left
//     out;
//   - every other event belongs to the move before it: a move's accounts
//     are the book's, its satellites' are a floor or room and the sink of
//     its unit, so a found event that names no sink starts the next move.
//
// An event tagged by another definition of the kind is
// errOtherDefinition.
func (d *Def) HoldOf(tenant string, kind int, lookups []ids.ID, found map[ids.ID]Transfer) ([]HoldEvent, []uint64, error) {
	return d.holdOf(func(u int) ids.ID { return ids.Sink(d.Book, tenant, d.Units[u].Name) }, kind, lookups, found)
}

func (d *Def) holdOf(sink func(int) ids.ID, kind int, lookups []ids.ID, found map[ids.ID]Transfer) ([]HoldEvent, []uint64, error) {
	t, err := d.transfer(kind)
	if err != nil {
		return nil, nil, err
	}
	tags := d.tags(kind)
	sinks := d.sinksOf(sink)
	var hold []HoldEvent
	var amounts []uint64
	for pos, id := range lookups {
		e, ok := found[id]
		if !ok {
			continue
		}
		if e.UserData64 != 0 && e.UserData64 != tags[0] && e.UserData64 != tags[1] {
			return nil, nil, errOtherDefinition
		}
		if e.Flags&TransferPending == 0 {
			continue
		}
		if pos+1 < len(lookups) {
			if v, ok := found[lookups[pos+1]]; ok && v.Flags&TransferVoidPending != 0 && v.PendingID == e.ID {
				continue // a probe
			}
		}
		if !sinks.named(e) {
			if e.Amount.Hi != 0 {
				return nil, nil, fmt.Errorf("chobotb: the lookup of a hold answered another transfer")
			}
			amounts = append(amounts, e.Amount.Lo)
		} else if len(amounts) == 0 {
			return nil, nil, fmt.Errorf("chobotb: the lookup of a hold found an event of no move")
		}
		hold = append(hold, HoldEvent{Transfer: e, Move: len(amounts)})
	}
	switch len(amounts) {
	case 0:
		return nil, nil, nil
	case len(t.Moves):
		return hold, amounts, nil
	}
	return nil, nil, fmt.Errorf("chobotb: %d of the %d moves of a hold were found", len(amounts), len(t.Moves))
}

// sinkSet is a tenant's sink accounts, one per unit: every floor, room
// and probe event names one, and no move does, which is how a hold's or
// call's records tell their moves whatever layout wrote them.
type sinkSet map[ids.ID]bool

// sinksOf is the sinkSet of the sink of each unit.
func (d *Def) sinksOf(sink func(unit int) ids.ID) sinkSet {
	s := make(sinkSet, len(d.Units))
	for u := range d.Units {
		s[sink(u)] = true
	}
	return s
}

// named reports whether r names a sink: true of a floor, room or probe
// event, false of a move.
func (s sinkSet) named(r Transfer) bool { return s[r.DebitAccountID] || s[r.CreditAccountID] }

// Finish lays out the chain that posts or voids a hold this version laid
// out: one event per pending event of the hold (the probes were voided
// already), in the hold's order. amounts are what each move posts, in
// move order; a void sends none.
func (d *Def) Finish(tenant string, kind int, op string, key []string, amounts []uint64) ([]Event, error) {
	t, err := d.transfer(kind)
	if err != nil {
		return nil, err
	}
	var hold []HoldEvent
	for pos, s := range d.layout(t) {
		if s.role == RoleProbe || s.role == RoleProbeVoid || s.role == RoleKeyGuard {
			continue
		}
		hold = append(hold, HoldEvent{Transfer: Transfer{ID: ids.Transfer(d.Book, tenant, t.Name, "hold", key, pos)}, Move: s.move})
	}
	return d.FinishOf(tenant, kind, op, key, amounts, hold)
}

// FinishOf lays out the chain that posts or voids the hold whose events
// HoldOf read, whatever layout made it: one event per held event, in
// order, each ending it with its move's amount. The ids count the chain's
// own events, as for every layout, so the chain that ends a hold is the
// same before a deploy and after it, and a post or void sent again after
// the deploy meets what it wrote before.
func (d *Def) FinishOf(tenant string, kind int, op string, key []string, amounts []uint64, hold []HoldEvent) ([]Event, error) {
	t, err := d.transfer(kind)
	if err != nil {
		return nil, err
	}
	if !t.Pending || (op != "post" && op != "void") {
		return nil, fmt.Errorf("chobotb: %s has no operation %s", t.Name, op)
	}
	if op == "post" && len(amounts) != len(t.Moves) {
		return nil, fmt.Errorf("chobotb: a post of %s gives %d amounts for %d moves", t.Name, len(amounts), len(t.Moves))
	}
	content, role, flag := "", RoleVoid, TransferVoidPending
	if op == "post" {
		content, role, flag = PostContent(amounts), RolePost, TransferPostPending
	}
	user := ids.Content(d.Book, tenant, t.Name, op, t.Definition, content)
	chain := make([]Event, 0, len(hold))
	for i, h := range hold {
		if h.Move < 1 || h.Move > len(t.Moves) {
			return nil, fmt.Errorf("chobotb: an event of a hold of %s is of no move", t.Name)
		}
		e := Event{Role: role, Move: h.Move, Transfer: Transfer{
			ID:          ids.Transfer(d.Book, tenant, t.Name, op, key, i),
			PendingID:   h.ID,
			UserData128: user, Flags: flag}}
		if op == "post" {
			e.Amount = U64(amounts[h.Move-1])
		}
		chain = append(chain, e)
	}
	link(chain)
	return chain, nil
}

// StatusChain is the chain that reads where a hold stands without
// writing anything: a void of the hold's first event, linked to a
// transfer from an account to itself, which TigerBeetle always refuses.
// The two ids are fresh random ones on every call, so no retry of a
// status ever meets an earlier one.
func (d *Def) StatusChain(tenant string, kind int, key []string, voidID, failID ids.ID) ([]Event, error) {
	t, err := d.transfer(kind)
	if err != nil {
		return nil, err
	}
	if !t.Pending {
		return nil, fmt.Errorf("chobotb: %s does not hold", t.Name)
	}
	held := ids.Transfer(d.Book, tenant, t.Name, "hold", key, 0)
	return d.statusChainOn(held, kind, t.Moves[0].From.Account, voidID, failID), nil
}

// statusChainOn is the status chain on one move of a hold of the kind, by
// the move's id; account is an account kind of the move, whose unit's
// ledger the failing transfer names.
func (d *Def) statusChainOn(move ids.ID, kind, account int, voidID, failID ids.ID) []Event {
	unit := d.Accounts[account].Unit
	chain := []Event{
		{Role: RoleStatusVoid, Transfer: Transfer{ID: voidID, PendingID: move, Flags: TransferVoidPending}},
		{Role: RoleStatusFail, Transfer: Transfer{ID: failID, DebitAccountID: move, CreditAccountID: move,
			Amount: U64(1), Ledger: d.ledger(unit), Code: d.ids().transferCodes[kind]}},
	}
	link(chain)
	return chain
}

// KeyValues are the key's values of a call, as its ids hash them.
func (d *Def) KeyValues(kind int, vals Values) []string { return d.Transfers[kind].keyValues(vals) }
