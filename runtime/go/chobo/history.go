package chobo

import (
	"fmt"
	"time"
)

// The history of a ledger, as every client reads it: entries, each one
// side of one move of one call that took effect, read by account (a
// statement), by call (the entries of one key) or as the holds still
// open, and an account's balance at a time. The reference interpreter
// defines what each read answers; docs/history.md says how each backend
// gives it.

// Entry is one change of one account by one call.
type Entry struct {
	// Transfer is the transfer kind of the call; Op the operation that
	// wrote the entry: do, hold, post, void, or expire for a hold given
	// back at its deadline, which no caller asks for.
	Transfer string
	Op       string
	// Key is the call's key, in key order, and Args what the call was
	// given, by parameter name, amounts in the smallest step of their
	// unit: every argument of a do or a hold, the key and the amounts of
	// a post in part, the key alone for a post in full, a void or an
	// expiry. TigerBeetle keeps neither (its records hold hashes of
	// them): there a statement's entries have both nil, and ID says which
	// call wrote the entry; the entries of a call, read by its key, have
	// the key.
	Key  []string
	Args map[string]string
	// ID is the id of the entry's transfer on TigerBeetle (32 hex
	// digits), the one a caller who knows the key can work out; empty on
	// PostgreSQL.
	ID string
	// Move is the move of the transfer kind, from 1 as the book writes
	// them; Out says the entry is the side the move leaves.
	Move int
	Out  bool
	// Account is the account's kind and AccountArgs its values.
	Account     string
	AccountArgs []string
	// Posted, HeldIn and HeldOut are what the entry changed.
	Posted, HeldIn, HeldOut int64
	// After is what the account held right after the entry. Nil for an
	// account without bounds on PostgreSQL, whose balance is spread over
	// rows that calls change side by side, so that no entry has a single
	// balance after it; BalanceAt still answers for such an account.
	After *Balance
	// At is when the entry was written: when its call was made, and for
	// an expiry when the hold was given back (PostgreSQL: when expire()
	// ran; TigerBeetle: the hold's deadline).
	At time.Time
	// Cursor is where a statement read after this entry starts: the
	// After of the next StatementQuery. It means something only to the
	// ledger that gave it, for the same account.
	Cursor string
}

// StatementQuery says which of an account's entries a statement reads.
type StatementQuery struct {
	// Newest reads the newest entry first; else the oldest.
	Newest bool
	// From and To bound the entries' times: From <= At, At < To. A zero
	// time leaves that side open.
	From, To time.Time
	// Transfers keeps the entries of these transfer kinds only; empty
	// keeps all.
	Transfers []string
	// Limit is the most entries a page holds: 0 is DefaultPage, and more
	// than MaxPage is an error.
	Limit int
	// After is the Cursor of the last entry read, or the Next of the page
	// before: the page starts past it, in the order read.
	After string
}

// Page sizes of a statement.
const (
	DefaultPage = 100
	MaxPage     = 1000
)

// PageLimit is the number of entries a query asks for, or an error when
// its Limit is out of range; nothing is sent then.
func (q StatementQuery) PageLimit() (int, error) {
	switch {
	case q.Limit == 0:
		return DefaultPage, nil
	case q.Limit < 0 || q.Limit > MaxPage:
		return 0, fmt.Errorf("chobo: a statement's limit is %d; it is from 1 to %d, or 0 for %d", q.Limit, MaxPage, DefaultPage)
	}
	return q.Limit, nil
}

// Statement is one page of an account's entries.
type Statement struct {
	Entries []Entry
	// Next is the cursor to read on from: the last entry's, or the
	// query's After when the page is empty. Read oldest first, a later
	// page also holds the entries written since.
	Next string
	// More says entries the query keeps were left past the page.
	More bool
}

// OpenHold is a hold still held: not posted, voided or past its
// deadline.
type OpenHold struct {
	Transfer string
	// Key is the hold's key; nil where the backend keeps no key (a
	// TigerBeetle hold found by account), with ID then naming the hold's
	// first move.
	Key   []string
	ID    string
	Moves []HoldMove
	// Created is when the hold was made; Deadline when it expires, zero
	// for a kind whose holds never expire.
	Created  time.Time
	Deadline time.Time
}

// HoldMove is what one move of a hold holds.
type HoldMove struct {
	Move             int
	From, To         string // account kinds
	FromArgs, ToArgs []string
	Amount           int64
}
