package tbmodel

import (
	"context"
	"sync"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Op names one of the four operations of chobotb.Client, by TigerBeetle's
// name for it.
type Op string

// The operations.
const (
	OpCreateAccounts  Op = "create_accounts"
	OpCreateTransfers Op = "create_transfers"
	OpLookupAccounts  Op = "lookup_accounts"
	OpLookupTransfers Op = "lookup_transfers"
)

// Request is one call made through a chobotb.Client: what was sent and
// what came back. Only the fields of its Op are set. A call refused before
// it was applied (a done context, more than chobotb.MaxEvents events, a
// feature not modelled) is recorded too, with Err set and no answer.
type Request struct {
	Op             Op
	Accounts       []chobotb.Account  // create_accounts: the events sent
	Transfers      []chobotb.Transfer // create_transfers: the events sent
	IDs            []ids.ID           // lookups: the ids asked for
	Statuses       []chobotb.Status   // creates: one status per event
	FoundAccounts  []chobotb.Account  // lookup_accounts: the answer
	FoundTransfers []chobotb.Transfer // lookup_transfers: the answer
	Err            error
}

// Events is how many events or ids the request carried.
func (r Request) Events() int {
	return len(r.Accounts) + len(r.Transfers) + len(r.IDs)
}

// record is called with m.mu held.
func (m *Model) record(r Request) {
	m.log = append(m.log, r)
	if m.hook != nil {
		m.hook(r)
	}
}

// SetHook makes the model call f after every call it records, while the
// model is still locked: f sees requests in the order they were applied,
// and must not call the model. A nil f removes the hook.
func (m *Model) SetHook(f func(Request)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = f
}

// Requests returns every call made to the model so far, oldest first.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.log...)
}

// Count is how many calls of op the model has recorded (all ops when op is
// ""), refused ones included.
func (m *Model) Count(op Op) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return count(m.log, op)
}

// ResetRequests forgets the recorded calls; the state is kept.
func (m *Model) ResetRequests() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = nil
}

func count(log []Request, op Op) int {
	if op == "" {
		return len(log)
	}
	n := 0
	for _, r := range log {
		if r.Op == op {
			n++
		}
	}
	return n
}

// Recorder wraps any chobotb.Client (a Model, or the adapter of the
// official client) and records every call made through it, as the Model
// does. It is safe for concurrent use when the wrapped client is.
type Recorder struct {
	Client chobotb.Client

	mu  sync.Mutex
	log []Request
}

var _ chobotb.Client = (*Recorder)(nil)

// NewRecorder wraps c.
func NewRecorder(c chobotb.Client) *Recorder { return &Recorder{Client: c} }

func (r *Recorder) add(req Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, req)
}

// Requests returns every call made through r so far, in the order they
// returned.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.log...)
}

// Count is how many calls of op went through r (all ops when op is "").
func (r *Recorder) Count(op Op) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return count(r.log, op)
}

// Reset forgets the recorded calls.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = nil
}

// CreateAccounts implements chobotb.Client.
func (r *Recorder) CreateAccounts(ctx context.Context, accounts []chobotb.Account) ([]chobotb.Status, error) {
	req := Request{Op: OpCreateAccounts, Accounts: append([]chobotb.Account(nil), accounts...)}
	st, err := r.Client.CreateAccounts(ctx, accounts)
	req.Statuses, req.Err = append([]chobotb.Status(nil), st...), err
	r.add(req)
	return st, err
}

// CreateTransfers implements chobotb.Client.
func (r *Recorder) CreateTransfers(ctx context.Context, transfers []chobotb.Transfer) ([]chobotb.Status, error) {
	req := Request{Op: OpCreateTransfers, Transfers: append([]chobotb.Transfer(nil), transfers...)}
	st, err := r.Client.CreateTransfers(ctx, transfers)
	req.Statuses, req.Err = append([]chobotb.Status(nil), st...), err
	r.add(req)
	return st, err
}

// LookupAccounts implements chobotb.Client.
func (r *Recorder) LookupAccounts(ctx context.Context, idList []ids.ID) ([]chobotb.Account, error) {
	req := Request{Op: OpLookupAccounts, IDs: append([]ids.ID(nil), idList...)}
	found, err := r.Client.LookupAccounts(ctx, idList)
	req.FoundAccounts, req.Err = append([]chobotb.Account(nil), found...), err
	r.add(req)
	return found, err
}

// LookupTransfers implements chobotb.Client.
func (r *Recorder) LookupTransfers(ctx context.Context, idList []ids.ID) ([]chobotb.Transfer, error) {
	req := Request{Op: OpLookupTransfers, IDs: append([]ids.ID(nil), idList...)}
	found, err := r.Client.LookupTransfers(ctx, idList)
	req.FoundTransfers, req.Err = append([]chobotb.Transfer(nil), found...), err
	r.add(req)
	return found, err
}
