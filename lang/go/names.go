package golang

import (
	"go/token"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client/model"
)

// PackageName is the Go package of a book's client: the book's name when
// it is a plain lower-case ASCII identifier, else "book".
func PackageName(b *book.Book) string {
	n := b.Name
	if n == "" || token.IsKeyword(n) {
		return "book"
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return "book"
		}
	}
	return n
}

// The constructors of the two targets, which return the book over a
// backend's connection: Postgres(q, tenant) and TigerBeetle(c, tenant),
// c being the official client. TigerBeetleWith(c, tenant) takes any
// chobotb.Client instead: the model of TigerBeetle, a wrapper.
const (
	PostgresConstructor        = "Postgres"
	TigerBeetleConstructor     = "TigerBeetle"
	TigerBeetleWithConstructor = "TigerBeetleWith"
)

// Method is the Go method of an operation on its transfer kind's field:
// Do, Hold, Post, Void, Status.
func Method(op string) string { return Exported(op) }

// FieldType is the Go type of a parameter's field.
func FieldType(p model.Param) string {
	if p.Amount {
		return "int64"
	}
	return "string"
}

// reserved are the names a generated package declares whatever the book:
// the re-exported runtime names and the Book type. Book names never take
// them.
var reserved = []string{"Querier", "Outcome", "Done", "DoneBefore", "Refused", "Result", "HoldState",
	"Held", "Posted", "Voided", "Expired", "Balance", "Book", "Postgres", "Balances",
	"TigerBeetle", "TigerBeetleWith", "TigerBeetleClient", "Call", "Answer",
	"Entry", "StatementQuery", "Statement", "OpenHold", "HoldMove", "Statements", "BalancesAt", "OpenHoldsOf"}

// Names are the Go names a generated package gives a book's transfers,
// accounts and parameters, by the names in the book. Drivers that call a
// generated client by reflection read them here rather than guessing.
type Names struct {
	Transfers map[string]TransferNames
	Accounts  map[string]AccountNames
}

// TransferNames are the names of one transfer kind.
type TransferNames struct {
	Field, Type, Args, Key, Amounts    string
	ArgFields, KeyFields, AmountFields []string // in the model's parameter order
}

// AccountNames are the names of one account kind.
type AccountNames struct {
	Method, Type string
	Fields       []string
}

// Naming gives every name of a client. Names never collide: with each
// other, with the reserved names, or with the book's own members
// (Balance and the history readers Statement, BalanceAt and OpenHolds,
// Expire, and the Bulk and Gather of a tigerbeetle-go client).
func Naming(m *model.Model) Names {
	n := Names{Transfers: map[string]TransferNames{}, Accounts: map[string]AccountNames{}}
	var types model.Set
	types.Reserve(reserved...)
	var fields model.Set
	fields.Reserve("Balance", "Statement", "BalanceAt", "OpenHolds", "Expire", "ExpireUpTo", "Bulk", "Gather")
	for _, t := range m.Transfers {
		e := Exported(t.Name)
		n.Transfers[t.Name] = TransferNames{
			Field:        fields.Unique(e),
			Type:         types.Unique(e),
			Args:         types.Unique(e + "Args"),
			Key:          types.Unique(e + "Key"),
			Amounts:      types.Unique(e + "Amounts"),
			ArgFields:    structFields(t.Args),
			KeyFields:    structFields(t.Key),
			AmountFields: structFields(t.Amounts),
		}
	}
	var methods model.Set
	for _, a := range m.Accounts {
		n.Accounts[a.Name] = AccountNames{
			Method: methods.Unique(Exported(a.Name)),
			Type:   types.Unique(Exported(a.Name) + "Account"),
			Fields: structFields(a.Params),
		}
	}
	return n
}

func structFields(params []model.Param) []string {
	var s model.Set
	out := []string{}
	for _, p := range params {
		out = append(out, s.Unique(Exported(p.Name)))
	}
	return out
}

// Collisions lists the Go names two things of a book would both take, in
// the namespaces Naming hands them out in. A book name that meets a name
// the package declares itself (Book, Balance, …) is renamed the same way
// whatever else the book holds; two of the book's own things taking one
// name could only be told apart by the order they are declared in, so
// the Go targets refuse them (E062).
func Collisions(m *model.Model) []model.Collision {
	types := model.Claims{Language: "Go"}
	fields := model.Claims{Language: "Go"}
	methods := model.Claims{Language: "Go"}
	var inStructs []model.Collision
	structOf := func(params []model.Param, kind, of string) {
		s := model.Claims{Language: "Go"}
		for _, p := range params {
			s.Claim(Exported(p.Name), model.Owner{Kind: "parameter", Name: p.Name, Of: of,
				What: "struct field of " + kind + " `" + of + "`", WhatJa: kindJa(kind) + " `" + of + "` の構造体のフィールド"})
		}
		inStructs = append(inStructs, s.Collisions...)
	}
	for _, t := range m.Transfers {
		e := Exported(t.Name)
		owner := func(what, ja string) model.Owner {
			return model.Owner{Kind: "transfer", Name: t.Name, What: what, WhatJa: ja}
		}
		fields.Claim(e, owner("Book field", "Book のフィールド"))
		types.Claim(e, owner("type", "型"))
		types.Claim(e+"Args", owner("arguments type", "引数の型"))
		types.Claim(e+"Key", owner("key type", "キーの型"))
		types.Claim(e+"Amounts", owner("amounts type", "数量の型"))
		structOf(t.Args, "transfer", t.Name)
	}
	for _, a := range m.Accounts {
		e := Exported(a.Name)
		owner := func(what, ja string) model.Owner {
			return model.Owner{Kind: "account", Name: a.Name, What: what, WhatJa: ja}
		}
		methods.Claim(e, owner("Balances method", "Balances のメソッド"))
		types.Claim(e+"Account", owner("type", "型"))
		structOf(a.Params, "account", a.Name)
	}
	out := append(append(append(types.Collisions, fields.Collisions...), methods.Collisions...), inStructs...)
	return out
}

func kindJa(kind string) string {
	if kind == "account" {
		return "勘定"
	}
	return "振替"
}
