// Package tbgo puts TigerBeetle's official Go client
// (github.com/tigerbeetle/tigerbeetle-go, v0.17.9) behind chobotb.Client.
//
// It converts chobo's records to the official ones and back, names every
// result by chobo's Status (TigerBeetle's own snake_case names), checks
// that each create call got exactly one result per event, refuses a
// request of more than chobotb.MaxRequestEvents events before sending it
// (a cluster that takes fewer has the official client refuse it, before
// sending too), and bounds every call by its context.
//
// The bound matters: the official client retries a request for ever while
// no replica answers. A call here runs the official call in a goroutine and
// returns when the context ends, with an error wrapping ErrNoAnswer and
// ctx.Err(). The request may still reach the cluster and be applied after
// that; sending the same events again is safe, because chobo derives every
// id from its key, so a repeat is answered "exists" (or with the refusal
// the first one got) instead of applying twice. The abandoned goroutine
// ends when the answer finally comes or when the official client is
// closed.
//
// The official client needs cgo (it links a static native library).
package tbgo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// ErrNoAnswer is wrapped by the error of a call whose context ended before
// TigerBeetle answered it. The request may still be applied later.
var ErrNoAnswer = errors.New("no answer from TigerBeetle before the context ended")

// ErrTooManyEvents is wrapped by the error of a call of more than
// chobotb.MaxRequestEvents events; nothing was sent.
var ErrTooManyEvents = errors.New("more events than one request may carry")

// New returns a chobotb.Client that sends its requests through c. Closing
// c is the caller's business.
func New(c tb.Client) chobotb.Client { return &client{c: c} }

// Conn is a chobotb.Client with the official client it owns.
type Conn struct {
	chobotb.Client
	raw tb.Client
}

// Dial makes an official client for the cluster at addresses (for example
// "127.0.0.1:3000") and wraps it. It does not wait for the cluster: the
// official client registers in the background, and the first request
// waits (bounded by its context) until that is done. Close the Conn when
// done with it.
func Dial(clusterID chobotb.U128, addresses ...string) (*Conn, error) {
	if len(addresses) == 0 {
		return nil, errors.New("tbgo: Dial: no address")
	}
	raw, err := tb.NewClient(FromU128(clusterID), addresses)
	if err != nil {
		return nil, fmt.Errorf("tbgo: connecting to %v: %w", addresses, err)
	}
	return &Conn{Client: New(raw), raw: raw}, nil
}

// Raw returns the official client, for what chobotb.Client does not offer.
func (c *Conn) Raw() tb.Client { return c.raw }

// Close closes the official client. Calls still waiting for an answer
// return with the official client's "client was closed" error.
func (c *Conn) Close() { c.raw.Close() }

type client struct{ c tb.Client }

func (c *client) CreateAccounts(ctx context.Context, accounts []chobotb.Account) ([]chobotb.Status, error) {
	return create(ctx, "create_accounts", accounts, AccountToTB, c.c.CreateAccounts,
		func(r tb.CreateAccountResult) (chobotb.Status, bool, string) {
			s, ok := AccountStatus(r.Status)
			return s, ok, r.Status.String()
		})
}

func (c *client) CreateTransfers(ctx context.Context, transfers []chobotb.Transfer) ([]chobotb.Status, error) {
	return create(ctx, "create_transfers", transfers, TransferToTB, c.c.CreateTransfers,
		func(r tb.CreateTransferResult) (chobotb.Status, bool, string) {
			s, ok := TransferStatus(r.Status)
			return s, ok, r.Status.String()
		})
}

// create sends the events of a create request through send, the official
// client's call, and reads back exactly one status per event.
func create[In, Event, Result any](ctx context.Context, op string, in []In, toTB func(In) Event,
	send func([]Event) ([]Result, error), status func(Result) (chobotb.Status, bool, string)) ([]chobotb.Status, error) {
	if err := checkCount(op, len(in)); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return []chobotb.Status{}, nil
	}
	events := make([]Event, len(in))
	for i, e := range in {
		events[i] = toTB(e)
	}
	results, err := call(ctx, op, len(events), func() ([]Result, error) { return send(events) })
	if err != nil {
		return nil, err
	}
	if len(results) != len(events) {
		return nil, fmt.Errorf("tbgo: %s: %d results for %d events; TigerBeetle 0.17 answers one per event", op, len(results), len(events))
	}
	out := make([]chobotb.Status, len(results))
	for i, r := range results {
		s, ok, name := status(r)
		if !ok {
			return nil, fmt.Errorf("tbgo: %s: event %d: unknown result %s", op, i, name)
		}
		out[i] = s
	}
	return out, nil
}

func (c *client) LookupAccounts(ctx context.Context, idList []ids.ID) ([]chobotb.Account, error) {
	return lookup(ctx, "lookup_accounts", idList, c.c.LookupAccounts,
		func(a tb.Account) (chobotb.Account, bool) { return AccountFromTB(a), a.ID != (tb.Uint128{}) })
}

func (c *client) LookupTransfers(ctx context.Context, idList []ids.ID) ([]chobotb.Transfer, error) {
	return lookup(ctx, "lookup_transfers", idList, c.c.LookupTransfers,
		func(t tb.Transfer) (chobotb.Transfer, bool) { return TransferFromTB(t), t.ID != (tb.Uint128{}) })
}

// lookup asks the official client for the records of idList and converts
// the ones found. 0.17 leaves out ids that are not there; a zeroed slot is
// left out too (from reports whether the record is one).
func lookup[Record, Out any](ctx context.Context, op string, idList []ids.ID,
	send func([]tb.Uint128) ([]Record, error), from func(Record) (Out, bool)) ([]Out, error) {
	if err := checkCount(op, len(idList)); err != nil {
		return nil, err
	}
	if len(idList) == 0 {
		return []Out{}, nil
	}
	events := idsToTB(idList)
	found, err := call(ctx, op, len(events), func() ([]Record, error) { return send(events) })
	if err != nil {
		return nil, err
	}
	out := make([]Out, 0, len(found))
	for _, r := range found {
		if o, ok := from(r); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

func checkCount(op string, n int) error {
	if n > chobotb.MaxRequestEvents {
		return fmt.Errorf("tbgo: %s: %d events: %w (chobotb.MaxRequestEvents = %d); nothing was sent", op, n, ErrTooManyEvents, chobotb.MaxRequestEvents)
	}
	return nil
}

// call runs f, the official client's blocking call, and returns its answer,
// or an error as soon as ctx ends. f's slice is the call's own copy, so a
// goroutine left waiting shares no memory with the caller.
func call[T any](ctx context.Context, op string, n int, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("tbgo: %s (%d events): not sent: %w", op, n, err)
	}
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1) // buffered: a late answer never blocks the goroutine
	go func() {
		var a answer
		defer func() {
			if p := recover(); p != nil {
				a = answer{err: fmt.Errorf("official client panicked: %v", p)}
			}
			done <- a
		}()
		a.v, a.err = f()
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		select {
		case a = <-done: // answered at the same moment: take the answer
		default:
			return zero, fmt.Errorf("tbgo: %s (%d events): %w: %w; the request may still be applied later, "+
				"and sending the same events again is safe (chobo's ids are deterministic, so a repeat is answered, not applied twice)",
				op, n, ErrNoAnswer, ctx.Err())
		}
	}
	if a.err != nil {
		return zero, fmt.Errorf("tbgo: %s (%d events): %w", op, n, a.err)
	}
	return a.v, nil
}

// IDToTB converts a chobo id (16 bytes, big-endian) to the official
// Uint128 (16 bytes, little-endian): the same number.
func IDToTB(id ids.ID) tb.Uint128 {
	var b [16]byte
	for i := range b {
		b[i] = id[15-i]
	}
	return tb.BytesToUint128(b)
}

// IDFromTB is IDToTB backwards.
func IDFromTB(u tb.Uint128) ids.ID {
	b := u.Bytes()
	var id ids.ID
	for i := range id {
		id[i] = b[15-i]
	}
	return id
}

// FromU128 converts an amount or balance to the official Uint128.
func FromU128(v chobotb.U128) tb.Uint128 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:8], v.Lo)
	binary.LittleEndian.PutUint64(b[8:16], v.Hi)
	return tb.BytesToUint128(b)
}

// ToU128 is FromU128 backwards.
func ToU128(u tb.Uint128) chobotb.U128 {
	b := u.Bytes()
	return chobotb.U128{Hi: binary.LittleEndian.Uint64(b[8:16]), Lo: binary.LittleEndian.Uint64(b[0:8])}
}

func idsToTB(list []ids.ID) []tb.Uint128 {
	out := make([]tb.Uint128, len(list))
	for i, id := range list {
		out[i] = IDToTB(id)
	}
	return out
}

// AccountToTB converts an account to the official record. The fields chobo
// does not use (user_data_64, user_data_32) are zero.
func AccountToTB(a chobotb.Account) tb.Account {
	return tb.Account{
		ID:             IDToTB(a.ID),
		DebitsPending:  FromU128(a.DebitsPending),
		DebitsPosted:   FromU128(a.DebitsPosted),
		CreditsPending: FromU128(a.CreditsPending),
		CreditsPosted:  FromU128(a.CreditsPosted),
		UserData128:    IDToTB(a.UserData128),
		Ledger:         a.Ledger,
		Code:           a.Code,
		Flags:          a.Flags,
		Timestamp:      a.Timestamp,
	}
}

// AccountFromTB converts an official account to chobo's; user_data_64 and
// user_data_32, which chobo never sets, are dropped.
func AccountFromTB(a tb.Account) chobotb.Account {
	return chobotb.Account{
		ID:             IDFromTB(a.ID),
		DebitsPending:  ToU128(a.DebitsPending),
		DebitsPosted:   ToU128(a.DebitsPosted),
		CreditsPending: ToU128(a.CreditsPending),
		CreditsPosted:  ToU128(a.CreditsPosted),
		UserData128:    IDFromTB(a.UserData128),
		Ledger:         a.Ledger,
		Code:           a.Code,
		Flags:          a.Flags,
		Timestamp:      a.Timestamp,
	}
}

// TransferToTB converts a transfer to the official record (user_data_32
// zero).
func TransferToTB(t chobotb.Transfer) tb.Transfer {
	return tb.Transfer{
		ID:              IDToTB(t.ID),
		DebitAccountID:  IDToTB(t.DebitAccountID),
		CreditAccountID: IDToTB(t.CreditAccountID),
		Amount:          FromU128(t.Amount),
		PendingID:       IDToTB(t.PendingID),
		UserData128:     IDToTB(t.UserData128),
		UserData64:      t.UserData64,
		Timeout:         t.Timeout,
		Ledger:          t.Ledger,
		Code:            t.Code,
		Flags:           t.Flags,
		Timestamp:       t.Timestamp,
	}
}

// TransferFromTB converts an official transfer to chobo's; user_data_32,
// which chobo never sets, is dropped.
func TransferFromTB(t tb.Transfer) chobotb.Transfer {
	return chobotb.Transfer{
		ID:              IDFromTB(t.ID),
		DebitAccountID:  IDFromTB(t.DebitAccountID),
		CreditAccountID: IDFromTB(t.CreditAccountID),
		Amount:          ToU128(t.Amount),
		PendingID:       IDFromTB(t.PendingID),
		UserData128:     IDFromTB(t.UserData128),
		UserData64:      t.UserData64,
		Timeout:         t.Timeout,
		Ledger:          t.Ledger,
		Code:            t.Code,
		Flags:           t.Flags,
		Timestamp:       t.Timestamp,
	}
}

// GetAccountTransfers implements chobotb.HistoryClient.
func (c *client) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	filter := tb.AccountFilter{AccountID: IDToTB(f.AccountID), Code: f.Code,
		TimestampMin: f.TimestampMin, TimestampMax: f.TimestampMax, Limit: f.Limit,
		Flags: tb.AccountFilterFlags{Debits: f.Debits, Credits: f.Credits, Reversed: f.Reversed}.ToUint32()}
	found, err := call(ctx, "get_account_transfers", 1, func() ([]tb.Transfer, error) { return c.c.GetAccountTransfers(filter) })
	if err != nil {
		return nil, err
	}
	return transfersFromTB(found), nil
}

// GetAccountTransfers implements chobotb.HistoryClient: a Conn reads
// history as its client does.
func (c *Conn) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	return c.Client.(chobotb.HistoryClient).GetAccountTransfers(ctx, f)
}

// QueryTransfers implements chobotb.HistoryClient.
func (c *client) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	filter := tb.QueryFilter{UserData128: IDToTB(f.UserData128), UserData64: f.UserData64, Ledger: f.Ledger, Code: f.Code,
		TimestampMin: f.TimestampMin, TimestampMax: f.TimestampMax, Limit: f.Limit,
		Flags: tb.QueryFilterFlags{Reversed: f.Reversed}.ToUint32()}
	found, err := call(ctx, "query_transfers", 1, func() ([]tb.Transfer, error) { return c.c.QueryTransfers(filter) })
	if err != nil {
		return nil, err
	}
	return transfersFromTB(found), nil
}

// QueryAccounts implements chobotb.AccountQuerier.
func (c *client) QueryAccounts(ctx context.Context, f chobotb.AccountQuery) ([]chobotb.Account, error) {
	filter := tb.QueryFilter{UserData128: IDToTB(f.UserData128), Ledger: f.Ledger, Code: f.Code,
		TimestampMin: f.TimestampMin, TimestampMax: f.TimestampMax, Limit: f.Limit}
	found, err := call(ctx, "query_accounts", 1, func() ([]tb.Account, error) { return c.c.QueryAccounts(filter) })
	if err != nil {
		return nil, err
	}
	out := make([]chobotb.Account, len(found))
	for i, a := range found {
		out[i] = AccountFromTB(a)
	}
	return out, nil
}

// QueryAccounts implements chobotb.AccountQuerier: a Conn queries as its
// client does.
func (c *Conn) QueryAccounts(ctx context.Context, f chobotb.AccountQuery) ([]chobotb.Account, error) {
	return c.Client.(chobotb.AccountQuerier).QueryAccounts(ctx, f)
}

// transfersFromTB converts what a read of transfers answered.
func transfersFromTB(found []tb.Transfer) []chobotb.Transfer {
	out := make([]chobotb.Transfer, len(found))
	for i, t := range found {
		out[i] = TransferFromTB(t)
	}
	return out
}

// QueryTransfers implements chobotb.HistoryClient: a Conn queries as its
// client does.
func (c *Conn) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	return c.Client.(chobotb.HistoryClient).QueryTransfers(ctx, f)
}
