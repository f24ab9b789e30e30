package chobotb

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

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

	// The codes and ledgers, which every call of the book would hash the
	// same, worked out once. What is the same for every call of one
	// tenant is kept by its Book (tenantIDs).
	once  sync.Once
	fixed *fixedIDs
	// The Def as an earlier version of chobo sent it (Legacy), made
	// the first time a retry needs it.
	legacyOnce sync.Once
	legacy     *Def
}

type fixedIDs struct {
	ledgers       []uint32 // by unit
	sinkCodes     []uint16 // by unit
	accountCodes  []uint16 // by account kind
	transferCodes []uint16 // by transfer kind
	layoutLens    []int    // by transfer kind: where its nettings' ids start
}

// tenantIDs are the ids a tenant's calls share. A Book works them all out
// once (eager); a single call of Def.Build asks for the few it needs.
type tenantIDs struct {
	d      *Def
	tenant string
	eager  bool
	sinks  []ids.ID // by unit
	kinds  []ids.ID // by account kind: what its accounts carry in user_data_128
	plain  []ids.ID // by account kind: the one account of a kind without parameters
}

func (t *tenantIDs) sink(unit int) ids.ID {
	if t.eager {
		return t.sinks[unit]
	}
	return ids.Sink(t.d.Book, t.tenant, t.d.Units[unit].Name)
}

func (t *tenantIDs) kind(a int) ids.ID {
	if t.eager {
		return t.kinds[a]
	}
	return ids.Kind(t.d.Book, t.tenant, t.d.Accounts[a].Name)
}

func (t *tenantIDs) plainID(a int) ids.ID {
	if t.eager {
		return t.plain[a]
	}
	return ids.Account(t.d.Book, t.tenant, t.d.Accounts[a].Name)
}

func (d *Def) ids() *fixedIDs {
	d.once.Do(func() {
		f := &fixedIDs{}
		for _, u := range d.Units {
			f.ledgers = append(f.ledgers, ids.Ledger(u.Name, u.Scale))
			f.sinkCodes = append(f.sinkCodes, ids.Code(d.Book, "sink", u.Name))
		}
		for _, a := range d.Accounts {
			f.accountCodes = append(f.accountCodes, ids.Code(d.Book, "account", a.Name))
		}
		for i, t := range d.Transfers {
			f.transferCodes = append(f.transferCodes, ids.Code(d.Book, "transfer", t.Name))
			f.layoutLens = append(f.layoutLens, len(d.layout(&d.Transfers[i])))
		}
		d.fixed = f
	})
	return d.fixed
}

// tenantIDs works out the ids a tenant's calls share.
func (d *Def) tenantIDs(tenant string) *tenantIDs {
	t := &tenantIDs{d: d, tenant: tenant, eager: true}
	for _, u := range d.Units {
		t.sinks = append(t.sinks, ids.Sink(d.Book, tenant, u.Name))
	}
	for _, a := range d.Accounts {
		t.kinds = append(t.kinds, ids.Kind(d.Book, tenant, a.Name))
		var plain ids.ID
		if a.Params == 0 {
			plain = ids.Account(d.Book, tenant, a.Name)
		}
		t.plain = append(t.plain, plain)
	}
	return t
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
	// Legacy is the hash earlier versions of chobo had for the same kind
	// (book.Transfer's LegacyDefinition, with the bounds of its accounts
	// in it): a hold tagged with it was made by one of them, under this
	// same definition, and is this kind's to post and void. Empty when
	// not known.
	Legacy  string
	Params  []Param
	Key     []int // indexes in Params, in key order
	Pending bool  // hold, post, void; else do
	Timeout uint32
	Moves   []Move
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
	// The bytes are encoding/json's for the list; strings of plain ASCII,
	// which json writes as they are, and integers are written here
	// without it (a call hashes its content every time), anything else
	// through it.
	b := make([]byte, 0, 64)
	b = append(b, '[')
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		switch x := v.(type) {
		case int64:
			b = strconv.AppendInt(b, x, 10)
		case string:
			if plainJSON(x) {
				b = append(b, '"')
				b = append(b, x...)
				b = append(b, '"')
				continue
			}
			js, err := json.Marshal(x)
			if err != nil {
				panic(err) // a string always marshals
			}
			b = append(b, js...)
		default:
			js, err := json.Marshal(v)
			if err != nil {
				panic(fmt.Sprintf("chobotb: a value of type %T in a call", v))
			}
			b = append(b, js...)
		}
	}
	return string(append(b, ']'))
}

// plainJSON reports whether encoding/json writes s between quotes as it
// is: printable ASCII without the quote, the backslash and the three
// characters it escapes for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// PostContent is the content of a post: the amount each move posts, in
// move order, the whole hold written out as the amounts held.
func PostContent(amounts []uint64) string {
	js, _ := json.Marshal(amounts)
	return string(js)
}

func (d *Def) ledger(unit int) uint32 { return d.ids().ledgers[unit] }
