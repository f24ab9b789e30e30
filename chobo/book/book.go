// Package book is the typed model of a checked book: units, account kinds,
// transfer kinds with their keys, holds and moves. Resolution builds it
// from the syntax tree; the checker, the interpreter and the code
// generators read it and never go back to the syntax.
package book

import (
	"strconv"
	"strings"
)

// Pos is a place in the book's file: 1-based line, and 1-based column in
// characters. It has the fields of the parser's position, so resolution
// converts one to the other, and the model does not depend on the parser.
type Pos struct {
	Line int
	Col  int
}

// Book is one resolved book. Slices keep source order; the maps index
// them by name.
type Book struct {
	Pos         Pos // the `book` line
	File        string
	Name        string
	Version     int
	Description string

	Units     []*Unit
	Accounts  []*Account
	Transfers []*Transfer

	unitByName     map[string]*Unit
	accountByName  map[string]*Account
	transferByName map[string]*Transfer
}

// Unit returns the unit named name, or nil.
func (b *Book) Unit(name string) *Unit { return b.unitByName[name] }

// Account returns the account kind named name, or nil.
func (b *Book) Account(name string) *Account { return b.accountByName[name] }

// Transfer returns the transfer kind named name, or nil.
func (b *Book) Transfer(name string) *Transfer { return b.transferByName[name] }

// Index builds the name lookups; resolution calls it once the slices are
// complete.
func (b *Book) Index() {
	b.unitByName = map[string]*Unit{}
	b.accountByName = map[string]*Account{}
	b.transferByName = map[string]*Transfer{}
	for _, u := range b.Units {
		b.unitByName[u.Name] = u
	}
	for i, a := range b.Accounts {
		a.Index = i
		b.accountByName[a.Name] = a
	}
	for i, t := range b.Transfers {
		t.Index = i
		b.transferByName[t.Name] = t
	}
}

// Tax marks a money unit as including or excluding tax.
type Tax int

const (
	NoTax Tax = iota
	InclTax
	ExclTax
)

// String is the keyword a book writes the marking with ("" for none).
func (t Tax) String() string {
	switch t {
	case InclTax:
		return "incl_tax"
	case ExclTax:
		return "excl_tax"
	}
	return ""
}

// Unit is a unit of count. Amounts are integers in its smallest step;
// Scale is how many decimals a literal may have.
type Unit struct {
	Pos   Pos
	Name  string
	Scale int
	Tax   Tax
}

// Bound is a lower or upper limit on an account's balance and the reason
// a refused call gets when a move would cross it.
type Bound struct {
	Pos    Pos
	Value  int64
	Reason string
}

// Account is an account kind: one account per tuple of argument values.
type Account struct {
	Pos         Pos
	Index       int // declaration order, from 0
	Name        string
	Params      []string // every parameter is a string
	ParamPos    []Pos
	Unit        *Unit
	Outside     bool
	Description string
	Lower       *Bound
	Upper       *Bound
}

// Param is a parameter of a transfer kind: a string, or an amount of a
// unit.
type Param struct {
	Pos   Pos
	Name  string
	Index int   // position in the parameter list, from 0
	Unit  *Unit // nil for a string
}

// IsAmount reports whether the parameter carries an amount.
func (p *Param) IsAmount() bool { return p.Unit != nil }

// Pending says that a transfer holds first and how its holds end.
type Pending struct {
	Pos     Pos
	Expires bool  // false for `never expires`
	Seconds int64 // lifetime when Expires
}

// Transfer is a transfer kind.
type Transfer struct {
	Pos         Pos
	Index       int // declaration order, from 0
	Name        string
	Description string
	Params      []*Param
	Key         []*Param
	KeyPos      Pos      // the `key` line; zero when the book has none
	Pending     *Pending // nil for a transfer that posts at once
	Moves       []*Move
}

// Param returns the parameter named name, or nil.
func (t *Transfer) Param(name string) *Param {
	for _, p := range t.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Op is an operation a caller can ask of a transfer kind.
type Op string

const (
	Do   Op = "do"
	Hold Op = "hold"
	Post Op = "post"
	Void Op = "void"
)

// Ops lists the operations of the transfer: `do` for an immediate one,
// `hold`, `post` and `void` for one that holds.
func (t *Transfer) Ops() []Op {
	if t.Pending == nil {
		return []Op{Do}
	}
	return []Op{Hold, Post, Void}
}

// JoinOps writes operations as a list for people, sep between them:
// "hold, post, void", never Go's "[hold post void]".
func JoinOps(ops []Op, sep string) string {
	parts := make([]string, len(ops))
	for i, o := range ops {
		parts[i] = string(o)
	}
	return strings.Join(parts, sep)
}

// Move is one line `move AMOUNT from ACCOUNT to ACCOUNT`.
type Move struct {
	Pos    Pos
	Index  int // 1-based, in the order written
	Amount Amount
	From   AccountRef
	To     AccountRef
}

// Amount is a parameter of the transfer or a literal in the unit's
// smallest step.
type Amount struct {
	Param   *Param
	Literal int64
}

// AccountRef is an account kind with the transfer parameters that pick
// one account of it.
type AccountRef struct {
	Pos     Pos
	Account *Account
	Args    []*Param
}

// FormatAmount writes an amount the way a book writes it: with the
// unit's decimals (1250 in USD scale 2 is "12.50").
func FormatAmount(v int64, scale int) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-(v + 1)) + 1
	}
	s := strconv.FormatUint(u, 10)
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// KindArgs writes an account or a hold the one way chobo shows it
// everywhere (messages, scenario output, backends compared against the
// interpreter): `stock(A-1, B-2)`, or the bare kind when there are no
// arguments, since `customers()` would read as a call.
func KindArgs(kind string, args []string) string {
	if len(args) == 0 {
		return kind
	}
	return kind + "(" + strings.Join(args, ", ") + ")"
}

// Shape writes an account kind with its parameter names: `stock(sku)`.
func (a *Account) Shape() string { return KindArgs(a.Name, a.Params) }

// String writes an account as a move names it, with the transfer's
// parameters: `bin(from)`, or the bare kind.
func (r AccountRef) String() string {
	names := make([]string, len(r.Args))
	for i, p := range r.Args {
		names[i] = p.Name
	}
	return KindArgs(r.Account.Name, names)
}

// PostAmounts lists, in parameter order, the amount parameters the moves
// use: what a partial post gives, all of them or none.
func (t *Transfer) PostAmounts() []*Param {
	used := map[*Param]bool{}
	for _, m := range t.Moves {
		if m.Amount.Param != nil {
			used[m.Amount.Param] = true
		}
	}
	var out []*Param
	for _, p := range t.Params {
		if used[p] {
			out = append(out, p)
		}
	}
	return out
}

// Bound returns the bound the move meets: the lower bound of the account
// it takes from (lower), or the upper bound of the account it puts into;
// nil when that account has none.
func (m *Move) Bound(lower bool) *Bound {
	if lower {
		return m.From.Account.Lower
	}
	return m.To.Account.Upper
}
