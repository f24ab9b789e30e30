package chobotb

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// AccountFilter is TigerBeetle's filter of get_account_transfers: the
// transfers that name AccountID on the sides asked for (Debits, Credits;
// neither is nothing), with timestamps from TimestampMin to TimestampMax
// (both inclusive, 0 for no bound), of Code when not 0, at most Limit of
// them, oldest first or, with Reversed, newest first.
type AccountFilter struct {
	AccountID                 ids.ID
	Code                      uint16
	TimestampMin              uint64
	TimestampMax              uint64
	Limit                     uint32
	Debits, Credits, Reversed bool
}

// QueryFilter is TigerBeetle's filter of query_transfers: the transfers
// whose fields equal every one of UserData128, UserData64, Ledger and
// Code that is not 0 (chobo writes no user_data_32), with timestamps from TimestampMin to
// TimestampMax (both inclusive, 0 for no bound), at most Limit of them,
// oldest first or, with Reversed, newest first.
type QueryFilter struct {
	UserData128  ids.ID
	UserData64   uint64
	Ledger       uint32
	Code         uint16
	TimestampMin uint64
	TimestampMax uint64
	Limit        uint32
	Reversed     bool
}

// HistoryClient is a Client that can also read the transfers of an
// account and query transfers by their fields, which the reads of a
// ledger's history need and calls do not. A client that is only a Client
// cannot read history (ErrNoHistory).
type HistoryClient interface {
	Client
	HistoryReads
}

// HistoryReads are the two reads a HistoryClient adds to a Client.
type HistoryReads interface {
	GetAccountTransfers(ctx context.Context, f AccountFilter) ([]Transfer, error)
	QueryTransfers(ctx context.Context, f QueryFilter) ([]Transfer, error)
}

// ReadsOf is c's history reads, or, for a client that has none, reads
// that answer ErrNoHistory. A wrapper of a Client (one that shortens
// holds, records requests or serves them over a wire) passes the reads
// on through it, whatever client it wraps.
func ReadsOf(c Client) HistoryReads {
	if hc, ok := c.(HistoryClient); ok {
		return hc
	}
	return noReads{}
}

type noReads struct{}

func (noReads) GetAccountTransfers(context.Context, AccountFilter) ([]Transfer, error) {
	return nil, ErrNoHistory
}

func (noReads) QueryTransfers(context.Context, QueryFilter) ([]Transfer, error) {
	return nil, ErrNoHistory
}

// ErrNoHistory is the error of a read through a client that cannot read
// an account's transfers.
var ErrNoHistory = errors.New("chobotb: this client does not read an account's transfers")

// historyPage is how many records one read asks for: what a reply of a
// --development replica holds comfortably, far below its 8,189.
const historyPage = 4096

// entry is one side of one move of a call that took effect, as the
// records of TigerBeetle tell it, before it is named for the caller.
type entry struct {
	// ts is TigerBeetle's timestamp of the record; an expiry's is its
	// hold's deadline, and hold the timestamp of the hold's record, which
	// orders expiries of one deadline and tells them from a record.
	ts, hold uint64
	expire   bool
	id       ids.ID // the record's; for an expiry, the hold's move
	kind     int
	op       string
	move     int
	out      bool
	account  int // the account kind of the entry's side
	// timeout is a hold's, in seconds.
	timeout                 uint32
	posted, heldOut, heldIn int64
	after                   chobo.Balance
}

// before orders entries as they happened: by timestamp, an expiry before
// a record of its deadline's timestamp (TigerBeetle finds a hold expired
// at its exact deadline), expiries of one deadline in their holds' order.
func (e *entry) before(o *entry) bool {
	if e.ts != o.ts {
		return e.ts < o.ts
	}
	if e.expire != o.expire {
		return e.expire
	}
	return e.hold < o.hold
}

// cursor writes an entry's place: the timestamp, and for an expiry its
// hold's timestamp after an x.
func (e *entry) cursor() string {
	c := strconv.FormatUint(e.ts, 10)
	if e.expire {
		c += "x" + strconv.FormatUint(e.hold, 10)
	}
	return c
}

// parseCursor reads a cursor back as the entry place it names.
func parseCursor(c string) (entry, error) {
	ts, hold, exp := strings.Cut(c, "x")
	var e entry
	var err error
	if e.ts, err = strconv.ParseUint(ts, 10, 64); err == nil && exp {
		e.expire = true
		e.hold, err = strconv.ParseUint(hold, 10, 64)
	}
	if err != nil || e.cursor() != c {
		return entry{}, fmt.Errorf("chobotb: %q is not a cursor of a TigerBeetle statement", c)
	}
	return e, nil
}

// at is a TigerBeetle timestamp as a time.
func at(ts uint64) time.Time { return time.Unix(0, int64(ts)).UTC() }

// historyClient is the book's client as a HistoryClient.
func (b *Book) historyClient() (HistoryClient, error) {
	hc, ok := b.c.(HistoryClient)
	if !ok {
		return nil, ErrNoHistory
	}
	return hc, nil
}

// accountOf checks an account kind and its arguments and names the
// account.
func (b *Book) accountOf(account int, args []string) (ids.ID, error) {
	if account < 0 || account >= len(b.def.Accounts) {
		return ids.ID{}, fmt.Errorf("chobotb: the book %s has no account kind %d", b.def.Book, account)
	}
	a := &b.def.Accounts[account]
	if len(args) != a.Params {
		return ids.ID{}, fmt.Errorf("chobotb: the account %s takes %d values, got %d", a.Name, a.Params, len(args))
	}
	if err := chobo.CheckSize(b.tenant, args...); err != nil {
		return ids.ID{}, err
	}
	return ids.Account(b.def.Book, b.tenant, a.Name, args...), nil
}

// Statement reads one page of the entries of an account of the kind,
// named by its arguments, as q asks: a record for each move of a do or a
// hold that names the account and for each post or void of such a hold,
// less the records that keep a lower bound (those that name the tenant's
// sink); and an expiry for each move of a hold that TigerBeetle finds
// expired, at the hold's deadline (TigerBeetle writes nothing when a hold
// times out). The entries have neither Key nor Args, which TigerBeetle
// keeps only as hashes; ID names the record, which a caller who knows a
// key can work out. From and To bound TigerBeetle's timestamps. Balances
// are summed from the account's first record, so the account needs no
// history flag, and a page reads the account's whole history.
func (b *Book) Statement(ctx context.Context, account int, args []string, q chobo.StatementQuery) (chobo.Statement, error) {
	limit, err := q.PageLimit()
	if err != nil {
		return chobo.Statement{}, err
	}
	kinds := map[int]bool{}
	for _, name := range q.Transfers {
		k := slices.IndexFunc(b.def.Transfers, func(t TransferKind) bool { return t.Name == name })
		if k < 0 {
			return chobo.Statement{}, fmt.Errorf("chobotb: the book %s has no transfer %q", b.def.Book, name)
		}
		kinds[k] = true
	}
	var past *entry
	if q.After != "" {
		p, err := parseCursor(q.After)
		if err != nil {
			return chobo.Statement{}, err
		}
		past = &p
	}
	hc, err := b.historyClient()
	if err != nil {
		return chobo.Statement{}, err
	}
	id, err := b.accountOf(account, args)
	if err != nil {
		return chobo.Statement{}, err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	all, err := b.accountEntries(ctx, hc, account, id)
	if err != nil {
		return chobo.Statement{}, err
	}
	page := chobo.Statement{Next: q.After, Entries: []chobo.Entry{}}
	for n := range all {
		e := &all[n]
		if q.Newest {
			e = &all[len(all)-1-n]
		}
		if past != nil && ((!q.Newest && !past.before(e)) || (q.Newest && !e.before(past))) {
			continue
		}
		t := at(e.ts)
		if (!q.From.IsZero() && t.Before(q.From)) || (!q.To.IsZero() && !t.Before(q.To)) {
			continue
		}
		if len(kinds) > 0 && !kinds[e.kind] {
			continue
		}
		if len(page.Entries) == limit {
			page.More = true
			break
		}
		page.Entries = append(page.Entries, b.named(e, append([]string{}, args...), true))
		page.Next = e.cursor()
	}
	return page, nil
}

// named is an entry as the caller reads it; args are its account's
// values, nil when they are not known, and after whether its balance
// after it is.
func (b *Book) named(e *entry, args []string, after bool) chobo.Entry {
	out := chobo.Entry{Transfer: b.def.Transfers[e.kind].Name, Op: e.op, ID: e.id.Hex(), Move: e.move, Out: e.out,
		Account: b.def.Accounts[e.account].Name, AccountArgs: args,
		Posted: e.posted, HeldIn: e.heldIn, HeldOut: e.heldOut, At: at(e.ts), Cursor: e.cursor()}
	if after {
		bal := e.after
		out.After = &bal
	}
	return out
}

// BalanceAt is what an account of the kind held at a time: after every
// entry of its statement at that time or before. It sums the account's
// entries from the first, as Statement does. A time TigerBeetle has not
// reached yet answers as the account stands, holds still held.
func (b *Book) BalanceAt(ctx context.Context, account int, args []string, t time.Time) (chobo.Balance, error) {
	hc, err := b.historyClient()
	if err != nil {
		return chobo.Balance{}, err
	}
	id, err := b.accountOf(account, args)
	if err != nil {
		return chobo.Balance{}, err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	all, err := b.accountEntries(ctx, hc, account, id)
	if err != nil {
		return chobo.Balance{}, err
	}
	var bal chobo.Balance
	for i := range all {
		if at(all[i].ts).After(t) {
			break
		}
		bal = all[i].after
	}
	return bal, nil
}

// readAll reads every record that one filter of get_account_transfers
// answers, page by page, oldest first.
func readAll(ctx context.Context, hc HistoryClient, f AccountFilter) ([]Transfer, error) {
	return everyPage(f.TimestampMin, func(min uint64) ([]Transfer, error) {
		f.TimestampMin, f.Limit = min, historyPage
		return hc.GetAccountTransfers(ctx, f)
	})
}

// everyPage asks read for pages of records, oldest first, each from the
// timestamp min, until one comes back short.
func everyPage(min uint64, read func(min uint64) ([]Transfer, error)) ([]Transfer, error) {
	var out []Transfer
	for {
		page, err := read(min)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < historyPage {
			return out, nil
		}
		min = page[len(page)-1].Timestamp + 1
	}
}

// accountEntries reads every entry of the account id of the kind, in the
// order they happened, each with the balance it left.
func (b *Book) accountEntries(ctx context.Context, hc HistoryClient, account int, id ids.ID) ([]entry, error) {
	records, err := readAll(ctx, hc, AccountFilter{AccountID: id, Debits: true, Credits: true})
	if err != nil {
		return nil, err
	}
	sink := b.tids.sink(b.def.Accounts[account].Unit)
	dec := newDecoder(b, hc)
	var out []entry
	if err := dec.lookup(ctx, records, id, sink); err != nil {
		return nil, err
	}
	holds := map[ids.ID]entry{}
	ended := map[ids.ID]bool{}
	var open []entry
	for _, r := range records {
		if r.DebitAccountID == sink || r.CreditAccountID == sink {
			continue // a lower bound's probe and its void: machinery
		}
		e := entry{ts: r.Timestamp, id: r.ID, out: r.DebitAccountID == id, account: account}
		amount, err := fit(r.Amount)
		if err != nil {
			return nil, err
		}
		if r.Flags&(TransferPostPending|TransferVoidPending) != 0 {
			h, ok := holds[r.PendingID]
			if !ok {
				return nil, fmt.Errorf("chobotb: record %s ends a hold %s the account does not show", r.ID.Hex(), r.PendingID.Hex())
			}
			ended[r.PendingID] = true
			out = append(out, ending(e, h, r, amount))
			continue
		}
		kind, move, err := dec.move(ctx, r, e.out, account)
		if err != nil {
			return nil, err
		}
		e.kind, e.move = kind, move
		switch {
		case r.Flags&TransferPending != 0:
			e.op, e.timeout = "hold", r.Timeout
			if e.out {
				e.heldOut = amount
			} else {
				e.heldIn = amount
			}
			out = append(out, e)
			holds[r.ID] = e
			if r.Timeout > 0 {
				open = append(open, e)
			}
		default:
			e.op, e.posted = "do", amount
			if e.out {
				e.posted = -amount
			}
			out = append(out, e)
		}
	}
	var last uint64
	if len(records) > 0 {
		last = records[len(records)-1].Timestamp
	}
	exps, err := b.expiries(ctx, open, ended, last)
	if err != nil {
		return nil, err
	}
	out = append(out, exps...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].before(&out[j]) })
	var bal chobo.Balance
	for i := range out {
		bal.Posted += out[i].posted
		bal.HeldOut += out[i].heldOut
		bal.HeldIn += out[i].heldIn
		out[i].after = bal
	}
	return out, nil
}

// ending is the entry e of the record r that posts (amount) or voids the
// hold whose entry on the same account is h.
func ending(e, h entry, r Transfer, amount int64) entry {
	e.kind, e.move = h.kind, h.move
	e.op = "void"
	if r.Flags&TransferPostPending != 0 {
		e.op, e.posted = "post", amount
	}
	held := h.heldOut + h.heldIn
	if e.out {
		e.posted, e.heldOut = -e.posted, -held
	} else {
		e.heldIn = -held
	}
	return e
}

// expiries are the entries of the moves of open holds that no record
// ended and that TigerBeetle finds expired. A deadline at or before the
// account's last record (last) has passed on TigerBeetle's clock; a later
// one is asked of it, with a status chain that writes nothing.
func (b *Book) expiries(ctx context.Context, open []entry, ended map[ids.ID]bool, last uint64) ([]entry, error) {
	var out, ask []entry
	for _, h := range open {
		switch {
		case ended[h.id]:
		case h.ts+uint64(h.timeout)*1e9 <= last:
			out = append(out, expiry(h))
		default:
			ask = append(ask, h)
		}
	}
	expired, err := b.expired(ctx, ask)
	if err != nil {
		return nil, err
	}
	for i, h := range ask {
		if expired[i] {
			out = append(out, expiry(h))
		}
	}
	return out, nil
}

// expiry is the entry of a hold's move given back at its deadline.
func expiry(h entry) entry {
	e := h
	e.hold, e.ts = h.ts, h.ts+uint64(h.timeout)*1e9
	e.expire, e.op = true, "expire"
	e.posted, e.heldOut, e.heldIn = 0, -h.heldOut, -h.heldIn
	return e
}

// expired says which of the hold moves TigerBeetle finds expired.
func (b *Book) expired(ctx context.Context, moves []entry) ([]bool, error) {
	st, err := b.holdStates(ctx, moves)
	out := make([]bool, len(st))
	for i, s := range st {
		out[i] = s == chobo.Expired
	}
	return out, err
}

// holdStates asks TigerBeetle where each of the hold moves stands: for
// each, a void of it linked to a transfer TigerBeetle always refuses
// (the status chain of Status, on the move's own id), many to a request.
// Nothing is written; the void's answer is where the move stands.
func (b *Book) holdStates(ctx context.Context, moves []entry) ([]chobo.HoldState, error) {
	out := make([]chobo.HoldState, len(moves))
	const pairs = MaxEvents / 2
	for start := 0; start < len(moves); start += pairs {
		end := min(start+pairs, len(moves))
		var req []Transfer
		for _, m := range moves[start:end] {
			chain, err := b.def.statusOf(m.id, m.kind, m.account)
			if err != nil {
				return nil, err
			}
			req = append(req, chain[0].Transfer, chain[1].Transfer)
		}
		st, err := b.createTransfers(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(st) != len(req) {
			return nil, fmt.Errorf("chobotb: %d statuses for %d events", len(st), len(req))
		}
		for i := range end - start {
			s, err := ReadStatus(st[2*i : 2*i+2])
			if err != nil {
				return nil, err
			}
			out[start+i] = s
		}
	}
	return out, nil
}

// statusOf is a status chain on one move of a hold, by the move's id,
// with fresh random ids.
func (d *Def) statusOf(move ids.ID, kind, account int) ([]Event, error) {
	var v, f ids.ID
	for _, id := range []*ids.ID{&v, &f} {
		if err := randomID(id); err != nil {
			return nil, err
		}
	}
	return d.statusChainOn(move, kind, account, v, f), nil
}

// decoder tells the transfer kind and the move of a do's or a hold's
// record.
type decoder struct {
	b      *Book
	hc     HistoryClient
	byCode map[uint16]int
	// kindOf is the account kind of an account, by id, as looked up.
	kindOf map[ids.ID]int
	// chains are the records of a call's chain, by its content hash,
	// oldest first, as queried.
	chains map[ids.ID][]Transfer
}

func newDecoder(b *Book, hc HistoryClient) *decoder {
	f := b.def.ids()
	d := &decoder{b: b, hc: hc, byCode: map[uint16]int{}, kindOf: map[ids.ID]int{}, chains: map[ids.ID][]Transfer{}}
	for k, c := range f.transferCodes {
		d.byCode[c] = k
	}
	return d
}

// move tells the kind and the move of r, a do's or a hold's record on
// an account of the kind account, on the side out says. The kinds of the
// two accounts most often tell the move alone. When two moves of the
// kind join the same kinds the same way, the record's place in its
// chain tells it: the chain is every record with the call's content hash
// in user_data_128 and the kind's code, and the book lays a chain out
// the same for every call of the kind.
func (d *decoder) move(ctx context.Context, r Transfer, out bool, account int) (int, int, error) {
	k, ok := d.byCode[r.Code]
	if !ok {
		return 0, 0, fmt.Errorf("chobotb: record %s has code %d, of no transfer kind of the book", r.ID.Hex(), r.Code)
	}
	other := r.CreditAccountID
	if !out {
		other = r.DebitAccountID
	}
	otherKind, err := d.accountKind(ctx, other)
	if err != nil {
		return 0, 0, err
	}
	if otherKind < 0 {
		return 0, 0, fmt.Errorf("chobotb: record %s names an account %s of no account kind of the book", r.ID.Hex(), other.Hex())
	}
	t := &d.b.def.Transfers[k]
	var cands []int
	for i, m := range t.Moves {
		from, to := m.From.Account, m.To.Account
		if (out && from == account && to == otherKind) || (!out && to == account && from == otherKind) {
			cands = append(cands, i+1)
		}
	}
	switch len(cands) {
	case 0:
		return 0, 0, fmt.Errorf("chobotb: record %s is of no move of %s", r.ID.Hex(), t.Name)
	case 1:
		return k, cands[0], nil
	}
	chain, ok := d.chains[r.UserData128]
	if !ok {
		chain, err = d.hc.QueryTransfers(ctx, QueryFilter{UserData128: r.UserData128, Code: r.Code, Limit: MaxEvents + 1})
		if err != nil {
			return 0, 0, err
		}
		d.chains[r.UserData128] = chain
	}
	layout := d.b.def.layout(t)
	pos := slices.IndexFunc(chain, func(c Transfer) bool { return c.ID == r.ID })
	if pos < 0 || pos >= len(layout) || layout[pos].role != RoleMove || !slices.Contains(cands, layout[pos].move) {
		return 0, 0, fmt.Errorf("chobotb: record %s is not where a move of %s is in its chain", r.ID.Hex(), t.Name)
	}
	return k, layout[pos].move, nil
}

// lookup finds the kinds of the accounts on the other side of the
// records of the account id, in as few lookups as they fit.
func (d *decoder) lookup(ctx context.Context, records []Transfer, id, sink ids.ID) error {
	var others []ids.ID
	seen := map[ids.ID]bool{}
	for _, r := range records {
		o := r.DebitAccountID
		if o == id {
			o = r.CreditAccountID
		}
		if o != sink && r.PendingID == (ids.ID{}) && !seen[o] {
			seen[o] = true
			others = append(others, o)
		}
	}
	for start := 0; start < len(others); start += MaxEvents {
		found, err := d.b.c.LookupAccounts(ctx, others[start:min(start+MaxEvents, len(others))])
		if err != nil {
			return err
		}
		for _, a := range found {
			d.learn(a)
		}
	}
	return nil
}

// learn keeps the kind of an account, when it is one of the book's for
// the tenant: its code is the kind's and user_data_128 the kind's id,
// which hashes the tenant.
func (d *decoder) learn(a Account) {
	for k, c := range d.b.def.ids().accountCodes {
		if c == a.Code && a.UserData128 == d.b.tids.kind(k) {
			d.kindOf[a.ID] = k
		}
	}
}

// accountKind is the kind of a book's account of the tenant, -1 for an
// account that is none.
func (d *decoder) accountKind(ctx context.Context, id ids.ID) (int, error) {
	if k, ok := d.kindOf[id]; ok {
		return k, nil
	}
	found, err := d.b.c.LookupAccounts(ctx, []ids.ID{id})
	if err != nil {
		return 0, err
	}
	for _, a := range found {
		d.learn(a)
	}
	if k, ok := d.kindOf[id]; ok {
		return k, nil
	}
	return -1, nil
}

// randomID fills id with a fresh random id TigerBeetle takes.
func randomID(id *ids.ID) error {
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	*id = valid(*id)
	return nil
}

// fit reads an amount of a record that must fit 63 bits, as chobo's
// amounts do.
func fit(v U128) (int64, error) {
	if v.Hi != 0 || v.Lo >= 1<<63 {
		return 0, fmt.Errorf("chobotb: an amount of %s is outside 64 bits", v)
	}
	return int64(v.Lo), nil
}

// sideArgs are the values of the account at one side of a move, as far
// as the key tells them: every value when the account's parameters are
// all key parameters (none for an account without parameters), nil when
// one is not, TigerBeetle keeping the others only as hashes.
func sideArgs(t *TransferKind, s Side, key []string) []string {
	out := []string{}
	for _, p := range s.Args {
		i := slices.Index(t.Key, p)
		if i < 0 {
			return nil
		}
		out = append(out, key[i])
	}
	return out
}

// CallEntries reads every entry the call of the kind with the key wrote,
// oldest first: a do's, or a hold's and then those of its post, void or
// expiry, both sides of every move, as the reference interpreter lists
// them. Each id the call can have written is known from the key, so one
// lookup finds them; a hold none of whose moves a post or void ended is
// asked whether it expired. The entries carry the key but not the other
// arguments; an entry's account values are there when the key holds
// them; and After is nil, the balance after an entry being the sum of
// its account's history (a statement of the account has it).
func (b *Book) CallEntries(ctx context.Context, kind int, key Values) ([]chobo.Entry, error) {
	t, err := b.def.transfer(kind)
	if err != nil {
		return nil, err
	}
	if len(key) != len(t.Key) {
		return nil, fmt.Errorf("chobotb: %s has a key of %d values, got %d", t.Name, len(t.Key), len(key))
	}
	if err := b.checkSize(key); err != nil {
		return nil, err
	}
	kv := keyText(key)
	ops := []string{"do"}
	if t.Pending {
		ops = []string{"hold", "post", "void"}
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	places, byID, err := b.callRecords(ctx, t, kv, ops)
	if err != nil {
		return nil, err
	}
	moves, held, ended, err := callMoves(kind, b.callSlots(kind, t, ops, places, byID), byID)
	if err != nil {
		return nil, err
	}
	if t.Pending && t.Timeout > 0 && len(held) > 0 && len(ended) == 0 {
		exps, err := b.callExpiries(ctx, t, moves)
		if err != nil {
			return nil, err
		}
		moves = append(moves, exps...)
	}
	sort.SliceStable(moves, func(i, j int) bool { return moves[i].before(&moves[j]) })
	return b.bothSides(t, kv, moves), nil
}

// callSlot is one id a call may have written: by which operation, for
// which move.
type callSlot struct {
	op   string
	move int
	id   ids.ID
}

// callRecords looks up every id the call of t with the key kv can have
// written, whatever layout the version that wrote it had: a do's or
// hold's every place (reach a move), a post's or void's every event (one
// fewer a move: no probe's void). It gives the ids by operation and the
// records found.
func (b *Book) callRecords(ctx context.Context, t *TransferKind, kv []string, ops []string) (map[string][]ids.ID, map[ids.ID]Transfer, error) {
	places := map[string][]ids.ID{}
	var idList []ids.ID
	for _, op := range ops {
		n := reach * len(t.Moves)
		if op == "post" || op == "void" {
			n = (reach - 1) * len(t.Moves)
		}
		for pos := range n {
			id := ids.Transfer(b.def.Book, b.tenant, t.Name, op, kv, pos)
			places[op] = append(places[op], id)
			idList = append(idList, id)
		}
	}
	// A reply holds as many records as a request holds events.
	byID := map[ids.ID]Transfer{}
	for start := 0; start < len(idList); start += MaxEvents {
		found, err := b.c.LookupTransfers(ctx, idList[start:min(start+MaxEvents, len(idList))])
		if err != nil {
			return nil, nil, err
		}
		for _, r := range found {
			byID[r.ID] = r
		}
	}
	return places, byID, nil
}

// callSlots are the records of the call found, in order, each with its
// move: the do's or hold's moves are the records that name no sink (see
// HoldOf); a netting has the sink's code, a probe's void ends the probe;
// a post or void names the move it ends.
func (b *Book) callSlots(kind int, t *TransferKind, ops []string, places map[string][]ids.ID, byID map[ids.ID]Transfer) []callSlot {
	sinks := b.def.sinksOf(b.tids.sink)
	code := b.def.ids().transferCodes[kind]
	var want []callSlot
	moveOf := map[ids.ID]int{} // the do's or hold's moves, by id
	for _, id := range places[ops[0]] {
		r, ok := byID[id]
		if !ok || r.Code != code || r.Flags&(TransferPostPending|TransferVoidPending) != 0 ||
			sinks.named(r) || len(moveOf) == len(t.Moves) {
			continue
		}
		moveOf[id] = len(moveOf) + 1
		want = append(want, callSlot{ops[0], moveOf[id], id})
	}
	for _, op := range ops[1:] {
		for _, id := range places[op] {
			if r, ok := byID[id]; ok && moveOf[r.PendingID] > 0 {
				want = append(want, callSlot{op, moveOf[r.PendingID], id})
			}
		}
	}
	return want
}

// callMoves is one entry per record of the call (its out side; the in
// side follows from it), with the hold's records by move and the moves
// a post or void ended.
func callMoves(kind int, want []callSlot, byID map[ids.ID]Transfer) (moves []entry, held map[int]Transfer, ended map[int]bool, err error) {
	held, ended = map[int]Transfer{}, map[int]bool{}
	for _, w := range want {
		r, ok := byID[w.id]
		if !ok {
			continue
		}
		amount, err := fit(r.Amount)
		if err != nil {
			return nil, nil, nil, err
		}
		e := entry{ts: r.Timestamp, id: r.ID, kind: kind, op: w.op, move: w.move, timeout: r.Timeout}
		switch w.op {
		case "do":
			e.posted = amount
		case "hold":
			e.heldOut = amount
			held[w.move] = r
		default:
			h, ok := held[w.move]
			if !ok {
				return nil, nil, nil, fmt.Errorf("chobotb: record %s ends a hold that is not there", r.ID.Hex())
			}
			ended[w.move] = true
			if e.heldOut, err = fit(h.Amount); err != nil {
				return nil, nil, nil, err
			}
			if w.op == "post" {
				e.posted = amount
			}
		}
		moves = append(moves, e)
	}
	return moves, held, ended, nil
}

// callExpiries are the entries of a hold none of whose moves a post or
// void ended, when TigerBeetle finds it expired: each move released as a
// void releases it, at the deadline.
func (b *Book) callExpiries(ctx context.Context, t *TransferKind, moves []entry) ([]entry, error) {
	var hs []entry
	for _, e := range moves {
		e.account = t.Moves[e.move-1].From.Account
		hs = append(hs, e)
	}
	exp, err := b.expired(ctx, hs[:1])
	if err != nil || !exp[0] {
		return nil, err
	}
	var out []entry
	for _, h := range hs {
		e := h
		e.hold, e.ts = h.ts, h.ts+uint64(h.timeout)*1e9
		e.expire, e.op = true, "expire"
		out = append(out, e)
	}
	return out, nil
}

// bothSides writes each move's entries on both its accounts: the out
// side, where a do posts away, a hold holds out, an end releases what
// was held and posts away what it posts; and the in side.
func (b *Book) bothSides(t *TransferKind, kv []string, moves []entry) []chobo.Entry {
	out := []chobo.Entry{}
	for _, m := range moves {
		mv := t.Moves[m.move-1]
		o, in := m, m
		o.out, o.account = true, mv.From.Account
		in.account = mv.To.Account
		switch m.op {
		case "do":
			o.posted = -m.posted
		case "hold":
			in.heldOut, in.heldIn = 0, m.heldOut
		default:
			o.posted, o.heldOut = -m.posted, -m.heldOut
			in.heldOut, in.heldIn = 0, -m.heldOut
		}
		for _, e := range []entry{o, in} {
			side := mv.To
			if e.out {
				side = mv.From
			}
			ne := b.named(&e, sideArgs(t, side, kv), false)
			ne.Key = slices.Clone(kv)
			out = append(out, ne)
		}
	}
	return out
}

// OpenHolds lists the holds still held that move from or to the account
// of the kind account named by args (any account when account is -1)
// and are of the transfer kind kind (any when -1), oldest first. A hold
// read by account comes from the account's records; by kind alone, from
// every record of the kind's code, kept to the tenant by the accounts
// they name. A hold's moves are those of its chain, found by its content
// hash; Key is nil, and ID the id of the hold's first move. A hold move
// no record ended is asked whether it expired.
func (b *Book) OpenHolds(ctx context.Context, account int, args []string, kind int) ([]chobo.OpenHold, error) {
	d := b.def
	if kind < -1 || kind >= len(d.Transfers) {
		return nil, fmt.Errorf("chobotb: the book %s has no transfer kind %d", d.Book, kind)
	}
	hc, err := b.historyClient()
	if err != nil {
		return nil, err
	}
	var id ids.ID
	if account != -1 {
		if id, err = b.accountOf(account, args); err != nil {
			return nil, err
		}
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	records, err := b.holdRecords(ctx, hc, account, id, kind)
	if err != nil {
		return nil, err
	}
	dec := newDecoder(b, hc)
	firsts, calls := holdFirsts(d, dec, records, kind)
	// A hold whose deadline is at or before the last record read has
	// expired on TigerBeetle's clock: nothing more is asked of it.
	var last uint64
	for _, r := range records {
		last = max(last, r.Timestamp)
	}
	sinks := d.sinksOf(b.tids.sink)
	var out []chobo.OpenHold
	var heads []entry
	for _, c := range calls {
		r := firsts[c]
		k := dec.byCode[r.Code]
		t := &d.Transfers[k]
		if t.Timeout > 0 && r.Timestamp+uint64(t.Timeout)*1e9 <= last {
			continue
		}
		h, head, err := b.openHold(ctx, hc, dec, r, k, sinks, account, id, args)
		if err != nil {
			return nil, err
		}
		if h != nil {
			out, heads = append(out, *h), append(heads, head)
		}
	}
	states, err := b.holdStates(ctx, heads)
	if err != nil {
		return nil, err
	}
	var open []chobo.OpenHold
	for i, h := range out {
		if states[i] == chobo.Held {
			open = append(open, h)
		}
	}
	sort.SliceStable(open, func(i, j int) bool {
		a, c := open[i], open[j]
		if !a.Created.Equal(c.Created) {
			return a.Created.Before(c.Created)
		}
		if a.Transfer != c.Transfer {
			return a.Transfer < c.Transfer
		}
		return a.ID < c.ID
	})
	return open, nil
}

// holdRecords are the records open holds are looked for among: those of
// the account id when account is not -1, else every record of the codes
// of the kinds that hold (kind, or any when -1).
func (b *Book) holdRecords(ctx context.Context, hc HistoryClient, account int, id ids.ID, kind int) ([]Transfer, error) {
	if account != -1 {
		return readAll(ctx, hc, AccountFilter{AccountID: id, Debits: true, Credits: true})
	}
	codes := b.def.ids().transferCodes
	var records []Transfer
	for k := range b.def.Transfers {
		if (kind == -1 || k == kind) && b.def.Transfers[k].Pending {
			rs, err := queryAll(ctx, hc, QueryFilter{Code: codes[k]})
			if err != nil {
				return nil, err
			}
			records = append(records, rs...)
		}
	}
	return records, nil
}

// holdFirsts are the first pending records not ended of each hold of
// kind (any when -1) among records, by the call's content hash, and
// those hashes in the order the holds were first met.
func holdFirsts(d *Def, dec *decoder, records []Transfer, kind int) (map[ids.ID]Transfer, []ids.ID) {
	ended := map[ids.ID]bool{}
	for _, r := range records {
		if r.Flags&(TransferPostPending|TransferVoidPending) != 0 {
			ended[r.PendingID] = true
		}
	}
	firsts := map[ids.ID]Transfer{}
	var calls []ids.ID
	for _, r := range records {
		if r.Flags&TransferPending == 0 || ended[r.ID] {
			continue
		}
		k, ok := dec.byCode[r.Code]
		if !ok || (kind != -1 && k != kind) || !d.Transfers[k].Pending {
			continue
		}
		if f, ok := firsts[r.UserData128]; !ok || r.Timestamp < f.Timestamp {
			if !ok {
				calls = append(calls, r.UserData128)
			}
			firsts[r.UserData128] = r
		}
	}
	return firsts, calls
}

// openHold reads the chain of the hold of kind k whose first record is
// r, and gives the hold with its moves and the entry its state is asked
// by; nil when the chain is not a hold's of this tenant. account, id and
// args are the account read by, when it is not -1.
func (b *Book) openHold(ctx context.Context, hc HistoryClient, dec *decoder, r Transfer, k int, sinks sinkSet,
	account int, id ids.ID, args []string) (*chobo.OpenHold, entry, error) {
	d := b.def
	t := &d.Transfers[k]
	chain, err := hc.QueryTransfers(ctx, QueryFilter{UserData128: r.UserData128, Code: r.Code, Limit: MaxEvents + 1})
	if err != nil {
		return nil, entry{}, err
	}
	if len(chain) == 0 || chain[0].Flags&TransferPending == 0 || len(chain) > reach*len(t.Moves) {
		return nil, entry{}, nil // not a hold's chain: the voids of a kind share one hash
	}
	from, err := dec.accountKind(ctx, chain[0].DebitAccountID)
	if err != nil || from < 0 {
		return nil, entry{}, err // from < 0: another tenant's
	}
	h := chobo.OpenHold{Transfer: t.Name, ID: chain[0].ID.Hex(), Created: at(chain[0].Timestamp)}
	// the timeout the hold was sent with, which TigerBeetle expires it
	// by, and not the book's: a sender may have given it another
	if chain[0].Timeout > 0 {
		h.Deadline = at(chain[0].Timestamp + uint64(chain[0].Timeout)*1e9)
	}
	argsOf := func(acc ids.ID, a int) []string {
		switch {
		case account != -1 && acc == id:
			return append([]string{}, args...)
		case d.Accounts[a].Params == 0:
			return []string{}
		}
		return nil
	}
	// The moves are the chain's pending records that name no sink, in
	// order, whatever layout the version that made the hold had (see
	// HoldOf): a probe and the floor and room events name the sink.
	moves := 0
	for _, rec := range chain {
		if rec.Flags&TransferPending == 0 || sinks.named(rec) || moves == len(t.Moves) {
			continue
		}
		moves++
		mv := t.Moves[moves-1]
		amount, err := fit(rec.Amount)
		if err != nil {
			return nil, entry{}, err
		}
		h.Moves = append(h.Moves, chobo.HoldMove{Move: moves, From: d.Accounts[mv.From.Account].Name,
			To: d.Accounts[mv.To.Account].Name, FromArgs: argsOf(rec.DebitAccountID, mv.From.Account),
			ToArgs: argsOf(rec.CreditAccountID, mv.To.Account), Amount: amount})
	}
	return &h, entry{id: chain[0].ID, kind: k, account: from}, nil
}

// queryAll reads every record one filter of query_transfers answers,
// page by page, oldest first.
func queryAll(ctx context.Context, hc HistoryClient, f QueryFilter) ([]Transfer, error) {
	return everyPage(f.TimestampMin, func(min uint64) ([]Transfer, error) {
		f.TimestampMin, f.Limit = min, historyPage
		return hc.QueryTransfers(ctx, f)
	})
}
