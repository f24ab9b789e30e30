// Package tbmodel is a TEST DOUBLE of the part of TigerBeetle 0.17.9 that
// chobo uses. It is not TigerBeetle, does not talk to TigerBeetle, and must
// never stand in for it outside tests.
//
// A Model keeps accounts, transfers and pending transfers in memory and
// answers the four operations of chobotb.Client the way a single
// TigerBeetle 0.17.9 replica answered them in the observations of
// the project's tigerbeetle-observations.md and design 4.2, with the
// order of checks taken from TigerBeetle's state machine
// (src/state_machine.zig: create_account, create_transfer,
// post_or_void_pending_transfer, create_transfer_exists,
// post_or_void_pending_transfer_exists, execute_create and
// CreateTransferResult.transient in src/tigerbeetle.zig).
//
// What it models:
//
//   - create_accounts: validation in TigerBeetle's order (reserved_flag,
//     id_must_not_be_zero / _int_max, then exists / exists_with_different_flags
//     / _user_data_128 / _ledger / _code, then flags_are_mutually_exclusive,
//     the four *_must_be_zero balances, ledger_ and code_must_not_be_zero);
//     timestamp_must_be_zero.
//   - create_transfers: single-phase, pending (timeout in seconds, 0 = never
//     expires), post_pending (an amount up to the pending amount, or
//     chobotb.AmountMax for the whole; zero ids, ledger, code and
//     user_data_128 are taken from the pending transfer) and void_pending;
//     the balance flags debits_must_not_exceed_credits and
//     credits_must_not_exceed_debits; u128 overflow statuses; the
//     idempotency checks (exists and exists_with_different_*) field by field
//     in TigerBeetle's order, including the observed rule that a retried post
//     is `exists` only for the posted amount or AmountMax when the whole was
//     posted.
//   - balancing_debit and balancing_credit on a single-phase or pending
//     transfer: the amount is cut to what the debit account has (its posted
//     credits less its posted and pending debits) and to what the credit
//     account lacks (its posted debits less its posted and pending credits),
//     down to 0, which is no error; the transfer is recorded with the amount
//     it moved, and one sent again is `exists` with that amount or more.
//   - linked chains for both operations: all or nothing; the failing event
//     gets its status and every other event of the chain, earlier ones
//     included, gets linked_event_failed; a chain left open at the end of the
//     request gives linked_event_chain_open; any status but `created`,
//     `exists` included, breaks a chain.
//   - used-up ids: an event refused with a transient status
//     (debit_account_not_found, credit_account_not_found,
//     pending_transfer_not_found, exceeds_credits, exceeds_debits) records its
//     id, and any later transfer with that id gets id_already_failed whatever
//     its content. Other refusals leave the id free.
//   - time: the model has its own clock in nanoseconds (see Start, Now and
//     Advance). Every event of a create request takes the next nanosecond, so
//     timestamps strictly increase. A pending transfer expires at its
//     timestamp + timeout; the deadline itself counts as expired. Expired
//     holds are released ("pulse") when the clock is advanced and before a
//     create request is applied, unless SetPulse(false) holds the pulse back;
//     a post or void past the deadline gets pending_transfer_expired whether
//     or not the hold has been released.
//   - lookups: the records found, in the order asked, missing ones left out.
//   - get_account_transfers (history.go): the records that name an account,
//     by timestamp, as a replica answered them; an expiry leaves none.
//   - the request limit: more events in one call than the model's limit
//     (chobotb.MaxEvents, a --development replica's; SetRequestLimit sets
//     another, up to chobotb.MaxRequestEvents, a production replica's) is
//     refused before anything is applied, with the Go client's error text.
//
// What it leaves out: imported events, closing and closed accounts, a
// post or void with a balancing flag (such flags make the call fail with
// ErrNotModelled),
// user_data_32 (chobo writes none), the history flag and
// get_account_balances, the query operations but get_account_transfers,
// the pulse's batch limit (the model releases every expired hold at once), and anything
// about networking, sessions or replicas.
//
// A Model is safe for concurrent use: one mutex, so requests are applied
// one at a time, as TigerBeetle applies them. Every call is recorded (see
// Requests, Count and SetHook); Recorder wraps any chobotb.Client the same
// way.
package tbmodel

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Start is the model's clock when New returns: nanoseconds since the Unix
// epoch, like TigerBeetle's timestamps (2023-11-14T22:13:20Z).
const Start uint64 = 1_700_000_000_000_000_000

// ErrTooMuchData is what the official Go client returns, before sending
// anything, for a request of more events than the replica takes.
var ErrTooMuchData = errors.New("too much data was sent or requested in this batch")

// ErrNotModelled is returned, before anything is applied, for a request that
// uses a part of TigerBeetle the model does not have (imported events,
// closing or closed accounts, a balancing post or void).
var ErrNotModelled = errors.New("tbmodel: feature of TigerBeetle not modelled")

// The state of a pending transfer, as TigerBeetle keeps it.
type pendingStatus uint8

const (
	pending pendingStatus = iota + 1
	posted
	voided
	expired
)

func (s pendingStatus) String() string {
	switch s {
	case pending:
		return "pending"
	case posted:
		return "posted"
	case voided:
		return "voided"
	case expired:
		return "expired"
	}
	return ""
}

type pendingState struct {
	status    pendingStatus
	expiresAt uint64 // 0: never
}

// Model is the in-process test double of TigerBeetle. Make one with New.
type Model struct {
	mu        sync.Mutex
	now       uint64
	pulse     bool
	accounts  map[ids.ID]chobotb.Account
	transfers map[ids.ID]chobotb.Transfer
	pending   map[ids.ID]pendingState // by the pending transfer's id
	failed    map[ids.ID]struct{}     // ids used up by a transient refusal
	undo      []func()                // non-nil while a linked chain is open
	scope     bool
	log       []Request
	hook      func(Request)
	wall      bool // the clock follows the machine's clock
	limit     int  // the most events a request carries
}

var _ chobotb.Client = (*Model)(nil)

// New returns an empty model whose clock reads Start and whose pulse is on.
func New() *Model {
	return &Model{
		limit:     chobotb.MaxEvents,
		now:       Start,
		pulse:     true,
		accounts:  map[ids.ID]chobotb.Account{},
		transfers: map[ids.ID]chobotb.Transfer{},
		pending:   map[ids.ID]pendingState{},
		failed:    map[ids.ID]struct{}{},
	}
}

// Now is the model's clock: the timestamp of the last event it applied, or
// where Advance left it.
func (m *Model) Now() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock on by d (at least 0) and, when the pulse is on,
// releases every pending transfer whose deadline has come, as TigerBeetle's
// idle pulse does within 100 ms of a deadline.
func (m *Model) Advance(d time.Duration) {
	if d < 0 {
		panic("tbmodel: Advance with a negative duration")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now += uint64(d)
	if m.pulse {
		m.expire(m.now)
	}
}

// SetPulse turns the automatic release of expired holds on or off. With it
// off, an expired hold stays counted in its accounts' pending balances until
// Pulse is called or the pulse is turned on again; posts and voids to it are
// refused with pending_transfer_expired all the same. That is the window a
// real replica has between a deadline and its next pulse.
func (m *Model) SetPulse(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pulse = on
	if on {
		m.expire(m.now)
	}
}

// Pulse releases every pending transfer whose deadline has come, now,
// whether or not the automatic pulse is on.
func (m *Model) Pulse() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.catchUp()
	m.expire(m.now)
}

// FollowWallClock makes the clock keep up with the machine's clock: before
// each request it moves to the machine's time when that is later. Holds
// then expire in real time, as on a replica, which is what a conformance
// run that waits out its passes needs.
func (m *Model) FollowWallClock() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.wall = true
	m.catchUp()
}

// catchUp is called with m.mu held.
func (m *Model) catchUp() {
	if !m.wall {
		return
	}
	if w := uint64(time.Now().UnixNano()); w > m.now {
		m.now = w
	}
}

// Account reads an account without making a request (nothing is recorded).
func (m *Model) Account(id ids.ID) (chobotb.Account, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[id]
	return a, ok
}

// Transfer reads a transfer without making a request (nothing is recorded).
func (m *Model) Transfer(id ids.ID) (chobotb.Transfer, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.transfers[id]
	return t, ok
}

// PendingState tells what became of a pending transfer: "pending",
// "posted", "voided" or "expired" ("expired" only once released), or "" when
// id is not a pending transfer. TigerBeetle has no such lookup; it is here
// for tests.
func (m *Model) PendingState(id ids.ID) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pending[id].status.String()
}

// IDFailed reports whether id has been used up by a transient refusal, so
// that any transfer with it gets id_already_failed.
func (m *Model) IDFailed(id ids.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.failed[id]
	return ok
}

// expire is TigerBeetle's pulse: it releases, in deadline order, every
// pending transfer still pending whose deadline is at or before ts.
func (m *Model) expire(ts uint64) {
	var due []ids.ID
	for id, p := range m.pending {
		if p.status == pending && p.expiresAt != 0 && p.expiresAt <= ts {
			due = append(due, id)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		a, b := m.pending[due[i]], m.pending[due[j]]
		if a.expiresAt != b.expiresAt {
			return a.expiresAt < b.expiresAt
		}
		return m.transfers[due[i]].Timestamp < m.transfers[due[j]].Timestamp
	})
	for _, id := range due {
		p := m.transfers[id]
		dr, cr := m.accounts[p.DebitAccountID], m.accounts[p.CreditAccountID]
		dr.DebitsPending, _ = dr.DebitsPending.Sub(p.Amount)
		cr.CreditsPending, _ = cr.CreditsPending.Sub(p.Amount)
		m.putAccount(dr)
		m.putAccount(cr)
		st := m.pending[id]
		st.status = expired
		m.putPending(id, st)
	}
}

// The writes below go through these three so that an open linked chain
// can take them back.

func (m *Model) putAccount(a chobotb.Account) {
	if m.scope {
		old, had := m.accounts[a.ID]
		m.undo = append(m.undo, func() {
			if had {
				m.accounts[a.ID] = old
			} else {
				delete(m.accounts, a.ID)
			}
		})
	}
	m.accounts[a.ID] = a
}

func (m *Model) putTransfer(t chobotb.Transfer) {
	if m.scope {
		old, had := m.transfers[t.ID]
		m.undo = append(m.undo, func() {
			if had {
				m.transfers[t.ID] = old
			} else {
				delete(m.transfers, t.ID)
			}
		})
	}
	m.transfers[t.ID] = t
}

func (m *Model) putPending(id ids.ID, st pendingState) {
	if m.scope {
		old, had := m.pending[id]
		m.undo = append(m.undo, func() {
			if had {
				m.pending[id] = old
			} else {
				delete(m.pending, id)
			}
		})
	}
	m.pending[id] = st
}

func (m *Model) scopeOpen() {
	m.scope = true
	m.undo = m.undo[:0]
}

func (m *Model) scopeClose(persist bool) {
	if !persist {
		for i := len(m.undo) - 1; i >= 0; i-- {
			m.undo[i]()
		}
	}
	m.scope = false
	m.undo = m.undo[:0]
}

// execute is TigerBeetle's execute_create: it applies n events one by one,
// in linked chains, and answers one status per event.
func (m *Model) execute(
	n int,
	linked func(i int) bool,
	timestamped func(i int) bool,
	apply func(i int, ts uint64) chobotb.Status,
	usedUp func(i int, s chobotb.Status),
) []chobotb.Status {
	results := make([]chobotb.Status, n)
	base := m.now
	m.now += uint64(n)
	chain, broken := -1, false
	for i := 0; i < n; i++ {
		var r chobotb.Status
		switch {
		case linked(i) && i == n-1:
			if chain < 0 {
				chain = i
				m.scopeOpen()
			}
			r = LinkedEventChainOpen
		default:
			if linked(i) && chain < 0 {
				chain = i
				m.scopeOpen()
			}
			switch {
			case broken:
				r = chobotb.LinkedEventFailed
			case timestamped(i):
				r = TimestampMustBeZero
			default:
				r = apply(i, base+uint64(i)+1)
			}
		}
		results[i] = r
		if r != chobotb.Created {
			if chain >= 0 && !broken {
				broken = true
				m.scopeClose(false)
				for j := chain; j < i; j++ {
					results[j] = chobotb.LinkedEventFailed
				}
			}
			usedUp(i, r)
		}
		if chain >= 0 && (!linked(i) || r == LinkedEventChainOpen) {
			if !broken {
				m.scopeClose(true)
			}
			chain, broken = -1, false
		}
	}
	return results
}

// SetRequestLimit sets how many events a request may carry, as a replica's
// start decides: chobotb.MaxEvents (the default, --development) up to
// chobotb.MaxRequestEvents (a replica without it).
func (m *Model) SetRequestLimit(n int) {
	if n < 1 || n > chobotb.MaxRequestEvents {
		panic("tbmodel: SetRequestLimit out of range")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limit = n
}

// begin checks a call before it is applied: the context, and the limit.
func (m *Model) begin(ctx context.Context, n int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n > m.limit {
		return ErrTooMuchData
	}
	return nil
}

// CreateAccounts implements chobotb.Client.
func (m *Model) CreateAccounts(ctx context.Context, accounts []chobotb.Account) ([]chobotb.Status, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req := Request{Op: OpCreateAccounts, Accounts: append([]chobotb.Account(nil), accounts...)}
	req.Err = m.begin(ctx, len(accounts))
	if req.Err == nil {
		req.Err = accountsModelled(accounts)
	}
	if req.Err == nil {
		m.catchUp()
		if m.pulse {
			m.expire(m.now)
		}
		req.Statuses = m.execute(len(accounts),
			func(i int) bool { return accounts[i].Flags&chobotb.AccountLinked != 0 },
			func(i int) bool { return accounts[i].Timestamp != 0 },
			func(i int, ts uint64) chobotb.Status { return m.createAccount(accounts[i], ts) },
			func(int, chobotb.Status) {}, // create_accounts has no transient statuses
		)
	}
	m.record(req)
	return append([]chobotb.Status(nil), req.Statuses...), req.Err
}

// CreateTransfers implements chobotb.Client.
func (m *Model) CreateTransfers(ctx context.Context, transfers []chobotb.Transfer) ([]chobotb.Status, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req := Request{Op: OpCreateTransfers, Transfers: append([]chobotb.Transfer(nil), transfers...)}
	req.Err = m.begin(ctx, len(transfers))
	if req.Err == nil {
		req.Err = transfersModelled(transfers)
	}
	if req.Err == nil {
		m.catchUp()
		if m.pulse {
			m.expire(m.now)
		}
		req.Statuses = m.execute(len(transfers),
			func(i int) bool { return transfers[i].Flags&chobotb.TransferLinked != 0 },
			func(i int) bool { return transfers[i].Timestamp != 0 },
			func(i int, ts uint64) chobotb.Status { return m.createTransfer(transfers[i], ts) },
			func(i int, s chobotb.Status) {
				if Transient(s) {
					m.failed[transfers[i].ID] = struct{}{}
				}
			},
		)
	}
	m.record(req)
	return append([]chobotb.Status(nil), req.Statuses...), req.Err
}

// LookupAccounts implements chobotb.Client. A lookup does not release
// expired holds by itself: it reads what the last pulse left.
func (m *Model) LookupAccounts(ctx context.Context, idList []ids.ID) ([]chobotb.Account, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req := Request{Op: OpLookupAccounts, IDs: append([]ids.ID(nil), idList...)}
	req.Err = m.begin(ctx, len(idList))
	if req.Err == nil {
		req.FoundAccounts = []chobotb.Account{}
		for _, id := range idList {
			if a, ok := m.accounts[id]; ok {
				req.FoundAccounts = append(req.FoundAccounts, a)
			}
		}
	}
	m.record(req)
	return append([]chobotb.Account(nil), req.FoundAccounts...), req.Err
}

// LookupTransfers implements chobotb.Client. Ids used up by a refusal are
// not transfers and are not found.
func (m *Model) LookupTransfers(ctx context.Context, idList []ids.ID) ([]chobotb.Transfer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req := Request{Op: OpLookupTransfers, IDs: append([]ids.ID(nil), idList...)}
	req.Err = m.begin(ctx, len(idList))
	if req.Err == nil {
		req.FoundTransfers = []chobotb.Transfer{}
		for _, id := range idList {
			if t, ok := m.transfers[id]; ok {
				req.FoundTransfers = append(req.FoundTransfers, t)
			}
		}
	}
	m.record(req)
	return append([]chobotb.Transfer(nil), req.FoundTransfers...), req.Err
}

func accountsModelled(accounts []chobotb.Account) error {
	for i, a := range accounts {
		if a.Flags&(accountImported|accountClosed) != 0 {
			return fmt.Errorf("%w: account %d has flags %#x (imported or closed)", ErrNotModelled, i, a.Flags)
		}
	}
	return nil
}

func transfersModelled(transfers []chobotb.Transfer) error {
	const unmodelled = transferClosingDebit | transferClosingCredit | transferImported
	const balancing = transferBalancingDebit | transferBalancingCredit
	for i, t := range transfers {
		if t.Flags&unmodelled != 0 {
			return fmt.Errorf("%w: transfer %d has flags %#x (closing or imported)", ErrNotModelled, i, t.Flags)
		}
		// What a replica answers to a post or void that balances was not
		// observed; chobo sends none.
		if t.Flags&balancing != 0 && isPostOrVoid(t) {
			return fmt.Errorf("%w: transfer %d has flags %#x (a balancing post or void)", ErrNotModelled, i, t.Flags)
		}
	}
	return nil
}
