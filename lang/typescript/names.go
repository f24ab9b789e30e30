package typescript

// A TypeScript client keeps the book's names: book.引当.hold({ 注文: … })
// is written as the book says. Only the names of types are made (引当Args,
// TakeBackArgs), and a member that would clash with one of the book
// value's own (balance, expire, statement…) or with what every object inherits
// (__proto__) gets _2, as the second of two equal names does.

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/client/model"
)

// The constructors of the two targets: postgres(db, { tenant }) and
// tigerbeetle(client, { tenant }).
const (
	PostgresConstructor    = "postgres"
	TigerBeetleConstructor = "tigerbeetle"
)

// Fixed names of the generated file: the book value's type, its balance
// readers and the expire of the PostgreSQL one, the union of reasons and
// the result type.
const (
	BookType = "Book"
	Balance  = "balance"
	Expire   = "expire"
	// The history readers: members of the book value with a method per
	// account kind, as balance has; Entries and OpenHolds are also
	// methods of a transfer kind's member (OpenHolds of one that holds).
	Statement = "statement"
	BalanceAt = "balanceAt"
	OpenHolds = "openHolds"
	Entries   = "entries"
	// Bulk is the member that sends many calls at once; each
	// method of a transfer has a twin, its name and CallSuffix, that makes
	// one call of it without sending it.
	Bulk       = "bulk"
	CallSuffix = "Call"
	ReasonType = "Reason"
	ResultType = "Result"
)

// Names are the TypeScript names a client gives a book's transfers and
// accounts, by their names in the book. The driver of the conformance
// tests and `chobo api` read them here.
type Names struct {
	Transfers map[string]TransferNames
	Accounts  map[string]AccountNames
}

// TransferNames are the names of one transfer kind: its member of the
// book value and the types of its arguments, key and amounts. Every kind
// has a key type, which names one call of it (a hold to post, void or ask
// about, and the call whose entries are read); only a kind that holds
// has amounts.
type TransferNames struct {
	Member, Args, Key, Amounts string
}

// AccountNames are the names of one account kind: its member of
// book.balance and the type of its arguments ("" when it has none).
type AccountNames struct {
	Member, Type string
}

// inherited are the names every object has through its prototype that
// would change what a member means, rather than only hide a method.
var inherited = []string{"__proto__"}

// Naming gives every name of a client; reserved are the type names the
// runtime declares, which the book's types never take.
func Naming(m *model.Model, reserved []string) Names {
	n := Names{Transfers: map[string]TransferNames{}, Accounts: map[string]AccountNames{}}
	var types model.Set
	types.Reserve(BookType, ReasonType, ResultType)
	types.Reserve(reserved...)
	var members model.Set
	members.Reserve(Balance, Expire, Bulk, Statement, BalanceAt, OpenHolds)
	members.Reserve(inherited...)
	for _, t := range m.Transfers {
		p := Pascal(t.Name)
		tn := TransferNames{Member: members.Unique(t.Name), Args: types.Unique(p + "Args"), Key: types.Unique(p + "Key")}
		if t.Pending {
			if len(t.Amounts) > 0 {
				tn.Amounts = types.Unique(p + "Amounts")
			}
		}
		n.Transfers[t.Name] = tn
	}
	var accounts model.Set
	accounts.Reserve(inherited...)
	for _, a := range m.Accounts {
		an := AccountNames{Member: accounts.Unique(a.Name)}
		if len(a.Params) > 0 {
			an.Type = types.Unique(Pascal(a.Name) + "Account")
		}
		n.Accounts[a.Name] = an
	}
	return n
}

// Pascal is the start of the type names of a book name: take_back ->
// TakeBack, 引当 -> 引当. Only ASCII letters are raised; a character a
// TypeScript identifier cannot hold is written as U and its code point.
func Pascal(name string) string {
	s := model.Joined(name)
	if r, _ := utf8.DecodeRuneInString(s); s == "" || !idStart(r) {
		s = "T" + s
	}
	var out strings.Builder
	for _, r := range s {
		if idPart(r) {
			out.WriteRune(r)
		} else {
			fmt.Fprintf(&out, "U%04X", r)
		}
	}
	return out.String()
}

// Identifier reports whether s may be written as an identifier:
// ECMAScript's ID_Start and ID_Continue, as far as Go's Unicode tables
// know them. A name that is not one is written quoted where it is declared.
func Identifier(s string) bool {
	for i, r := range s {
		if i == 0 && !idStart(r) || i > 0 && !idPart(r) {
			return false
		}
	}
	return s != ""
}

func idStart(r rune) bool {
	if r == '$' || r == '_' {
		return true
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start)
}

func idPart(r rune) bool {
	if idStart(r) {
		return true
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// Property writes a name where an object type or literal declares it:
// as it is when it is an identifier, else as a string.
func Property(name string) string {
	if Identifier(name) {
		return name
	}
	return String(name)
}

// String writes s as a TypeScript string literal between double quotes.
// Characters that would end the literal or the line are escaped; every
// other character is written as it is.
func String(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Collisions lists the TypeScript type names two things of a book would
// both take (members keep the book's names, which are distinct). A name
// that meets one the file declares itself is renamed the same way
// whatever else the book holds; two of the book's own things taking one
// name could only be told apart by their order, so the TypeScript
// targets refuse them (E062).
func Collisions(m *model.Model) []model.Collision {
	types := model.Claims{Language: "TypeScript"}
	for _, t := range m.Transfers {
		p := Pascal(t.Name)
		owner := func(what, ja string) model.Owner {
			return model.Owner{Kind: "transfer", Name: t.Name, What: what, WhatJa: ja}
		}
		types.Claim(p+"Args", owner("arguments type", "引数の型"))
		types.Claim(p+"Key", owner("key type", "キーの型"))
		if t.Pending {
			if len(t.Amounts) > 0 {
				types.Claim(p+"Amounts", owner("amounts type", "数量の型"))
			}
		}
	}
	for _, a := range m.Accounts {
		if len(a.Params) > 0 {
			types.Claim(Pascal(a.Name)+"Account", model.Owner{Kind: "account", Name: a.Name, What: "type", WhatJa: "型"})
		}
	}
	return types.Collisions
}
