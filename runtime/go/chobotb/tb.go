// Package chobotb is the part of every generated tigerbeetle-go client of a
// chobo book that does not depend on the book: the records TigerBeetle
// keeps, the client interface a book sends them through, how a call
// becomes accounts, openings and one linked chain, and how the per-event
// results of that chain become chobo's answer.
//
// The records here are TigerBeetle's, in chobo's own types, so that this
// package and every test of it compile without cgo. The adapter in
// runtime/go/chobotb/tbgo puts the official client behind Client; the model
// in runtime/go/chobotb/tbmodel is an in-process test double of the part of
// TigerBeetle's state machine the chains use.
package chobotb

import (
	"context"
	"math/bits"
	"strconv"

	"github.com/chobo-lang/chobo/chobo/ids"
)

// MaxEvents is how many events chobo puts in one request unless a Book is
// told otherwise (Book.RequestEvents): what a --development replica of
// TigerBeetle 0.17.9 takes, so that every book runs on any replica. A
// chain of a call never has more (E060).
const MaxEvents = 253

// MaxRequestEvents is the most events a request to TigerBeetle 0.17.9 can
// carry: what a replica started without --development takes, the limit of
// its 1 MiB messages.
const MaxRequestEvents = 8189

// U128 is an unsigned 128-bit number: amounts and balances.
type U128 struct{ Hi, Lo uint64 }

// AmountMax posts the whole of a pending transfer.
var AmountMax = U128{^uint64(0), ^uint64(0)}

// U64 makes a U128 from a uint64.
func U64(v uint64) U128 { return U128{Lo: v} }

// Add returns a+b and whether it overflowed 128 bits.
func (a U128) Add(b U128) (U128, bool) {
	lo, c := bits.Add64(a.Lo, b.Lo, 0)
	hi, c2 := bits.Add64(a.Hi, b.Hi, c)
	return U128{hi, lo}, c2 != 0
}

// Sub returns a-b and whether it went below zero.
func (a U128) Sub(b U128) (U128, bool) {
	lo, bw := bits.Sub64(a.Lo, b.Lo, 0)
	hi, bw2 := bits.Sub64(a.Hi, b.Hi, bw)
	return U128{hi, lo}, bw2 != 0
}

// Cmp compares a and b: -1, 0 or +1.
func (a U128) Cmp(b U128) int {
	switch {
	case a.Hi < b.Hi || (a.Hi == b.Hi && a.Lo < b.Lo):
		return -1
	case a == b:
		return 0
	}
	return 1
}

// IsZero reports whether a is 0.
func (a U128) IsZero() bool { return a == U128{} }

// String writes a in decimal when it fits 64 bits, else as 0x and 32 hex digits.
func (a U128) String() string {
	if a.Hi == 0 {
		return strconv.FormatUint(a.Lo, 10)
	}
	return "0x" + strconv.FormatUint(a.Hi, 16) + leftPad(strconv.FormatUint(a.Lo, 16), 16)
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// Account flags, with TigerBeetle's bit values.
const (
	AccountLinked                     uint16 = 1 << 0
	AccountDebitsMustNotExceedCredits uint16 = 1 << 1
	AccountCreditsMustNotExceedDebits uint16 = 1 << 2
)

// Transfer flags, with TigerBeetle's bit values.
const (
	TransferLinked      uint16 = 1 << 0
	TransferPending     uint16 = 1 << 1
	TransferPostPending uint16 = 1 << 2
	TransferVoidPending uint16 = 1 << 3
	// TransferBalancing is balancing_debit and balancing_credit: the
	// transfer moves at most what its debit account has and its credit
	// account lacks (the netting of a shortfall).
	TransferBalancing uint16 = 1<<4 | 1<<5
)

// Account is TigerBeetle's account record. The balances are filled by a
// lookup and must be zero when an account is created.
type Account struct {
	ID             ids.ID
	DebitsPending  U128
	DebitsPosted   U128
	CreditsPending U128
	CreditsPosted  U128
	UserData128    ids.ID
	Ledger         uint32
	Code           uint16
	Flags          uint16
	Timestamp      uint64 // set by TigerBeetle; zero when creating
}

// Transfer is TigerBeetle's transfer record.
type Transfer struct {
	ID              ids.ID
	DebitAccountID  ids.ID
	CreditAccountID ids.ID
	Amount          U128
	PendingID       ids.ID
	UserData128     ids.ID
	// UserData64 is, on every event of a hold's chain, the definition hash
	// of its transfer kind (DefinitionTag): post and void read it to tell
	// a hold made under another definition. 0 elsewhere.
	UserData64 uint64
	Timeout    uint32 // seconds; pending transfers only, 0 for none
	Ledger     uint32
	Code       uint16
	Flags      uint16
	Timestamp  uint64 // set by TigerBeetle; zero when creating
}

// Status is TigerBeetle's result for one event of create_accounts or
// create_transfers, by the name TigerBeetle's documentation gives it:
// "created", "exists", "exceeds_credits", ….
type Status string

// The statuses chobo reads. Any other status is an error of the client.
const (
	Created                          Status = "created"
	LinkedEventFailed                Status = "linked_event_failed"
	Exists                           Status = "exists"
	IDAlreadyFailed                  Status = "id_already_failed"
	ExceedsCredits                   Status = "exceeds_credits"
	ExceedsDebits                    Status = "exceeds_debits"
	AccountsMustBeDifferent          Status = "accounts_must_be_different"
	PendingTransferNotFound          Status = "pending_transfer_not_found"
	PendingTransferAlreadyPosted     Status = "pending_transfer_already_posted"
	PendingTransferAlreadyVoided     Status = "pending_transfer_already_voided"
	PendingTransferExpired           Status = "pending_transfer_expired"
	ExceedsPendingTransferAmount     Status = "exceeds_pending_transfer_amount"
	ExistsWithDifferentFlags         Status = "exists_with_different_flags"
	ExistsWithDifferentAmount        Status = "exists_with_different_amount"
	ExistsWithDifferentUserData128   Status = "exists_with_different_user_data_128"
	ExistsWithDifferentUserData64    Status = "exists_with_different_user_data_64"
	ExistsWithDifferentLedger        Status = "exists_with_different_ledger"
	ExistsWithDifferentCode          Status = "exists_with_different_code"
	ExistsWithDifferentPendingID     Status = "exists_with_different_pending_id"
	ExistsWithDifferentTimeout       Status = "exists_with_different_timeout"
	ExistsWithDifferentDebitAccount  Status = "exists_with_different_debit_account_id"
	ExistsWithDifferentCreditAccount Status = "exists_with_different_credit_account_id"
	DebitAccountNotFound             Status = "debit_account_not_found"
	CreditAccountNotFound            Status = "credit_account_not_found"
)

// ExistsWithDifferent reports whether s is one of the exists_with_different_* statuses.
func (s Status) ExistsWithDifferent() bool {
	const p = "exists_with_different_"
	return len(s) > len(p) && s[:len(p)] == p
}

// Client is what a book sends its requests through: the four operations of
// TigerBeetle that chobo uses. Every call returns one status per event, in
// order ("created" included), or an error when the request could not be
// made or its answer not read. A call must return when ctx is done: the
// official client waits for ever when no replica answers, so the adapter
// bounds every request by ctx.
//
// A request of more than MaxEvents events is the caller's error.
type Client interface {
	CreateAccounts(ctx context.Context, accounts []Account) ([]Status, error)
	CreateTransfers(ctx context.Context, transfers []Transfer) ([]Status, error)
	// LookupAccounts and LookupTransfers answer the records found, in the
	// order asked, leaving out ids that are not there.
	LookupAccounts(ctx context.Context, ids []ids.ID) ([]Account, error)
	LookupTransfers(ctx context.Context, ids []ids.ID) ([]Transfer, error)
}
