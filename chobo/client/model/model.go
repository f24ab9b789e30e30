// Package model is what a client of a book needs to know, whatever its
// language, worked out once per book and backend: the operations with
// their parameters in the order they are sent, grouped as arguments, key
// and amounts; what each operation answers; the statement a client sends
// for it; the balance readers; and the values of the result and
// hold-state enums.
//
// Language generators (each language's folder, lang/<language>) read the book and
// this model only. This is the role the plugin request plays in sqlc:
// the one place where a backend's calling convention is written down for
// every language at once.
package model

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Backends a model can be made for.
const (
	Postgres    = "postgres"
	TigerBeetle = "tigerbeetle"
)

// Model is a book as its clients on one backend see it.
type Model struct {
	Book       *book.Book
	Backend    string
	Transfers  []*Transfer
	Accounts   []*Account
	Outcomes   []string // how an operation ends: done, done_before, refused
	HoldStates []string // where a hold stands: held, posted, voided, expired
	// Reasons are every reason an operation of the book may refuse with:
	// the reasons of the book's bounds in the order declared, then
	// chobo's own.
	Reasons []string
	// Expire gives back holds past their deadline; its arguments are how
	// many at most, then a call id, as CallID says. Empty on a backend
	// that expires holds itself.
	Expire string
	// Def is what a TigerBeetle client builds each operation's chain
	// from, carried in its source as a literal (client/lit). Nil on
	// PostgreSQL, whose statements do that work on the server.
	Def *chobotb.Def
	// MaxEvents is how many events one TigerBeetle request carries, so a
	// client can say where it splits a bulk call. Zero on PostgreSQL.
	MaxEvents int
	// History are the statements that read the ledger's history on
	// PostgreSQL (a statement, a call's entries, the open holds, a
	// balance at a time); nil on TigerBeetle, whose runtime reads its
	// records itself.
	History *postgres.HistorySQL
}

// Param is one value a call sends.
type Param struct {
	Name   string
	Amount bool   // an amount (a 64-bit integer), else a string
	Unit   string // of an amount
}

// Transfer is one transfer kind and its operations.
type Transfer struct {
	Name        string
	Description string
	Pending     bool    // hold, post, void and status; else do
	Args        []Param // every parameter, as declared: what do and hold take
	Key         []Param // the key's parameters, in key order: what names a hold
	// Amounts are what a partial post may give, one per amount parameter
	// that a move uses, in declaration order. Empty when every move
	// moves a literal amount.
	Amounts    []Param
	Operations []*Operation
}

// Operation is one call of a transfer kind.
type Operation struct {
	Name string // do, hold, post, void or status
	// Takes says which groups of the transfer's parameters the call takes,
	// in order: TakesArgs (do, hold), TakesKey (void, status) or
	// TakesKeyAndAmounts (post).
	Takes string
	// Params are the values sent after the tenant, in order.
	Params []Param
	// AmountsOptional: the amounts (the tail of Params) are all given or
	// all left out; left out, the whole hold is posted.
	AmountsOptional bool
	// Answers is AnswersResult (an outcome and a reason) or AnswersState
	// (a hold state, or none).
	Answers string
	// Statement is what a client sends (PostgreSQL: SQL whose $1 is the
	// tenant and $2… are Params, then a call id when CallID). Empty on
	// TigerBeetle, where the client builds a chain from the book's
	// definition instead.
	Statement string
	// CallID: the statement takes one value more, last, the call's id: a
	// random UUID (version 4) in text form, new for every call and the
	// same on every sending of it, so that the server answers a client's
	// own resend as it answered the first sending. Set on PostgreSQL for
	// do, hold, post and void; status only reads and takes none.
	CallID bool
}

// The values of Operation.Takes and Operation.Answers.
const (
	TakesArgs          = "args"
	TakesKey           = "key"
	TakesKeyAndAmounts = "key+amounts"
	AnswersResult      = "result"
	AnswersState       = "state"
)

// Account is one account kind and the statement that reads its balance.
type Account struct {
	Name        string
	Description string
	Params      []Param // strings, in declaration order
	Statement   string  // answers posted, held_in, held_out
}

// New works out the model of b on a backend.
func New(b *book.Book, backend string) (*Model, error) {
	if backend != Postgres && backend != TigerBeetle {
		return nil, fmt.Errorf("no client model for the backend %q", backend)
	}
	m := &Model{
		Book: b, Backend: backend,
		Outcomes:   []string{"done", "done_before", "refused"},
		HoldStates: []string{"held", "posted", "voided", "expired"},
		Reasons:    reasons(b),
	}
	pg := backend == Postgres
	if pg {
		m.Expire = postgres.ExpireSQL(b)
		h := postgres.History(b)
		m.History = &h
	} else {
		m.Def = tigerbeetle.Def(b)
		m.MaxEvents = chobotb.MaxEvents
	}
	for _, t := range b.Transfers {
		m.Transfers = append(m.Transfers, newTransfer(b, t, pg))
	}
	for _, a := range b.Accounts {
		acc := &Account{Name: a.Name, Description: a.Description}
		if pg {
			acc.Statement = postgres.BalanceSQL(b, a)
		}
		for _, p := range a.Params {
			acc.Params = append(acc.Params, Param{Name: p})
		}
		m.Accounts = append(m.Accounts, acc)
	}
	return m, nil
}

func newTransfer(b *book.Book, t *book.Transfer, pg bool) *Transfer {
	tr := &Transfer{Name: t.Name, Description: t.Description, Pending: t.Pending != nil,
		Args: params(t.Params), Key: params(t.Key), Amounts: params(t.PostAmounts())}
	op := func(name, takes, answers string, ps []*book.Param, optional bool) {
		o := &Operation{Name: name, Takes: takes, Params: params(ps), AmountsOptional: optional, Answers: answers}
		if pg {
			o.Statement = postgres.CallSQL(b, t, name)
			o.CallID = answers == AnswersResult
		}
		tr.Operations = append(tr.Operations, o)
	}
	if t.Pending == nil {
		op("do", TakesArgs, AnswersResult, t.Params, false)
		return tr
	}
	op("hold", TakesArgs, AnswersResult, t.Params, false)
	op("post", TakesKeyAndAmounts, AnswersResult, postgres.Params(t, "post"), len(tr.Amounts) > 0)
	op("void", TakesKey, AnswersResult, t.Key, false)
	op("status", TakesKey, AnswersState, t.Key, false)
	return tr
}

func params(ps []*book.Param) []Param {
	out := []Param{}
	for _, p := range ps {
		q := Param{Name: p.Name, Amount: p.IsAmount()}
		if p.Unit != nil {
			q.Unit = p.Unit.Name
		}
		out = append(out, q)
	}
	return out
}

// reasons lists the book's bound reasons, each once, then chobo's own.
func reasons(b *book.Book) []string {
	var out []string
	seen := map[string]bool{}
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, a := range b.Accounts {
		for _, bd := range []*book.Bound{a.Lower, a.Upper} {
			if bd != nil {
				add(bd.Reason)
			}
		}
	}
	for _, r := range book.BuiltinReasons {
		add(r)
	}
	return out
}

// Operation returns the operation of a transfer kind by name, or nil.
func (t *Transfer) Operation(name string) *Operation {
	for _, o := range t.Operations {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// Transfer returns a transfer kind by name, or nil.
func (m *Model) Transfer(name string) *Transfer {
	for _, t := range m.Transfers {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Account returns an account kind by name, or nil.
func (m *Model) Account(name string) *Account {
	for _, a := range m.Accounts {
		if a.Name == name {
			return a
		}
	}
	return nil
}
