package chobotb

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/chobo-lang/chobo/chobo/ids"
)

// Def is what the chains of a book are built from: its accounts with their
// bounds and its transfer kinds with their moves. A generated client
// carries its book's Def as a literal; `chobo run --show tigerbeetle`
// builds the same value from the book, so the two cannot drift apart.
// Indexes refer to the slices of the Def.
type Def struct {
	Book      string
	Units     []Unit
	Accounts  []AccountKind
	Transfers []TransferKind
}

// Unit is a unit of count; its name and scale give the ledger.
type Unit struct {
	Name  string
	Scale int
}

// Bound is a limit on a balance and the reason a call crossing it gets.
type Bound struct {
	Value  int64
	Reason string
}

// AccountKind is an account kind: one account per tuple of argument values.
type AccountKind struct {
	Name    string
	Unit    int // index in Def.Units
	Params  int // how many string arguments name one account
	Outside bool
	Lower   *Bound
	Upper   *Bound
}

// Param is a parameter of a transfer kind: a string or an amount.
type Param struct {
	Name   string
	Amount bool
}

// TransferKind is a transfer kind.
type TransferKind struct {
	Name string
	// Definition is the hash of the kind's definition (book.Transfer's
	// Definition); it goes into every content hash, so that a retry after
	// the book changed is a key_conflict.
	Definition string
	Params     []Param
	Key        []int // indexes in Params, in key order
	Pending    bool  // hold, post, void; else do
	Timeout    uint32
	Moves      []Move
	// PostAmounts are the amount parameters a partial post gives, in
	// declaration order (indexes in Params).
	PostAmounts []int
}

// Move is one move of a transfer kind.
type Move struct {
	Amount  int   // index in Params of the amount, or -1 for Literal
	Literal int64 // the amount when Amount is -1
	From    Side
	To      Side
}

// Side is an account kind with the parameters (indexes in Params) whose
// values pick one account of it.
type Side struct {
	Account int
	Args    []int
}

// Values are the arguments of a call, one per parameter of its transfer
// kind in declaration order: a string, or an int64 for an amount.
type Values []any

func (d *Def) transfer(kind int) (*TransferKind, error) {
	if kind < 0 || kind >= len(d.Transfers) {
		return nil, fmt.Errorf("chobotb: the book %s has no transfer kind %d", d.Book, kind)
	}
	return &d.Transfers[kind], nil
}

// check makes sure vals fits the transfer's parameters.
func (t *TransferKind) check(vals Values) error {
	if len(vals) != len(t.Params) {
		return fmt.Errorf("chobotb: %s takes %d values, got %d", t.Name, len(t.Params), len(vals))
	}
	for i, p := range t.Params {
		switch v := vals[i].(type) {
		case int64:
			if !p.Amount {
				return fmt.Errorf("chobotb: %s of %s is a string, got the amount %d", p.Name, t.Name, v)
			}
			if v < 0 {
				return fmt.Errorf("chobotb: the amount %s is %d; amounts run from 0 to 9223372036854775807", p.Name, v)
			}
		case string:
			if p.Amount {
				return fmt.Errorf("chobotb: %s of %s is an amount, got the string %q", p.Name, t.Name, v)
			}
		default:
			return fmt.Errorf("chobotb: %s of %s: a value of type %T", p.Name, t.Name, v)
		}
	}
	return nil
}

// text writes a value as an id part: a string as itself, an amount in decimal.
func text(v any) string {
	if n, ok := v.(int64); ok {
		return strconv.FormatInt(n, 10)
	}
	return v.(string)
}

// keyValues picks the key's values out of the call's values.
func (t *TransferKind) keyValues(vals Values) []string {
	out := make([]string, len(t.Key))
	for i, k := range t.Key {
		out[i] = text(vals[k])
	}
	return out
}

// Content is what a key is compared on, as the text hashed into
// user_data_128: for do and hold every value in declaration order, as a
// compact JSON array (strings as JSON strings, amounts as numbers).
func Content(vals Values) string {
	js, err := json.Marshal([]any(vals))
	if err != nil {
		panic(err) // strings and int64 always marshal
	}
	return string(js)
}

// PostContent is the content of a post: the amount each move posts, in
// move order, the whole hold written out as the amounts held.
func PostContent(amounts []uint64) string {
	js, _ := json.Marshal(amounts)
	return string(js)
}

func (d *Def) ledger(unit int) uint32 { return ids.Ledger(d.Units[unit].Name, d.Units[unit].Scale) }
