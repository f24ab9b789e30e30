package api

// This file is the only one in the package that knows the code
// generators: every name a target gives is asked of the generator that
// gives it, here, so that moving the generators means changing this file
// alone. What the generators write by hand rather than compute (the
// tenant parameter, the expire function, the Go method of each operation)
// is written here once, next to the calls, and docs/targets.md describes
// the same.

import (
	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client/golang"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/client/typescript"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Targets are the names each target gives the book's parts. A target is
// null when the book cannot go to it (`chobo build` says why: E061).
type Targets struct {
	Postgres      *Postgres      `json:"postgres"`
	PostgresGo    *PostgresGo    `json:"postgres-go"`
	TigerBeetleGo *TigerBeetleGo `json:"tigerbeetle-go"`
	// The TypeScript targets name the same members on both backends; the
	// PostgreSQL one adds Expire.
	PostgresTypeScript    *TypeScript `json:"postgres-typescript"`
	TigerBeetleTypeScript *TypeScript `json:"tigerbeetle-typescript"`
}

// TypeScript is what `chobo build --target postgres-typescript` or
// `tigerbeetle-typescript` names in the one file it writes. Parameters
// keep the book's names: they are the properties of the objects a call
// takes.
type TypeScript struct {
	File string `json:"file"`
	// Constructor is the exported function that returns the book value
	// (of type Book) over the connection or official client, with the
	// tenant in its options: postgres(db, { tenant }).
	Constructor string `json:"constructor"`
	Book        string `json:"book"`
	Reason      string `json:"reason"` // the union of every reason
	Result      string `json:"result"`
	Balance     string `json:"balance"`
	// Expire is the member that gives back holds past their deadline; ""
	// on TigerBeetle, which does that itself.
	Expire    string       `json:"expire"`
	Transfers []TSTransfer `json:"transfers"`
	Accounts  []TSAccount  `json:"accounts"`
}

// TSTransfer is the member of the book value for one transfer kind: its
// methods, one per operation and named as the operation (do, or hold,
// post, void, status), and the types of what they take.
type TSTransfer struct {
	Transfer string   `json:"transfer"`
	Member   string   `json:"member"`
	Methods  []string `json:"methods"`
	Args     TSType   `json:"args"`
	// Key names a hold (post, void, status); null for a transfer that
	// posts at once. Amounts are the second, optional argument of post;
	// null when every move of the kind moves a literal amount.
	Key     *TSType `json:"key"`
	Amounts *TSType `json:"amounts"`
}

// TSType is an exported interface and its properties, in parameter order.
type TSType struct {
	Type   string    `json:"type"`
	Fields []TSField `json:"fields"`
}

// TSField is the property of one book parameter: "string", or "bigint"
// for an amount.
type TSField struct {
	Param string `json:"param"`
	Type  string `json:"type"`
}

// TSAccount is the method of the book value's balance that reads one
// account kind, and the interface that names an account of it ("" when
// the kind has no parameters and the method takes none).
type TSAccount struct {
	Account string    `json:"account"`
	Member  string    `json:"member"`
	Type    string    `json:"type"`
	Fields  []TSField `json:"fields"`
}

// TigerBeetleGo is what `chobo build --target tigerbeetle-go` names in the
// Go package it writes, the most events one request carries, and what
// each operation sends.
type TigerBeetleGo struct {
	// Package is the default package name; `--package` may give another.
	Package string `json:"package"`
	// Constructor is the function that returns the book (*Book) over the
	// official client (TigerBeetleClient) for a tenant.
	Constructor string `json:"constructor"`
	Book        string `json:"book"`
	Balance     string `json:"balance"`
	// Bulk is the method that sends many calls in as few requests as they
	// fit; each method of a transfer has a twin, its name and CallSuffix,
	// that makes one call of it. Gather is the method that makes calls at
	// the same time share requests.
	Bulk       string       `json:"bulk"`
	CallSuffix string       `json:"call_suffix"`
	Gather     string       `json:"gather"`
	Transfers  []GoTransfer `json:"transfers"`
	Accounts   []GoAccount  `json:"accounts"`
	// MaxEvents is how many events one request carries: accounts and
	// openings are sent in requests of at most this many, and a chain
	// must fit one.
	MaxEvents  int           `json:"max_events"`
	Operations []TBOperation `json:"operations"`
}

// TBOperation is what one operation sends, in the book's terms: accounts
// by kind and the parameters that pick one (stock(sku)), the helper
// accounts by what they keep (floor(stock(sku)), room(…), sink(pcs)).
type TBOperation struct {
	Transfer string `json:"transfer"`
	Op       string `json:"op"`
	// Accounts are made before the chain of a do or hold, each once;
	// Openings put a floor's or room's distance to its bound into it.
	Accounts []TBAccount `json:"accounts"`
	Openings []TBOpening `json:"openings"`
	// Lookups are the places in the hold's chain of the events a post or
	// void reads first.
	Lookups []int     `json:"lookups"`
	Chain   []TBEvent `json:"chain"`
}

// TBAccount is an account an operation makes; role is "account", "floor",
// "room" or "sink".
type TBAccount struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// TBOpening is the transfer that opens a floor or room account.
type TBOpening struct {
	Account string `json:"account"`
	Amount  int64  `json:"amount"`
}

// TBEvent is one transfer of a chain, in order.
type TBEvent struct {
	Role string `json:"role"`
	Move int    `json:"move"`
	// Debit and Credit are "" for an event that takes its accounts from
	// the pending transfer it ends, and for status_fail, which names the
	// hold's id as both sides so that TigerBeetle refuses it.
	Debit  string `json:"debit"`
	Credit string `json:"credit"`
	// Amount is the parameter or number moved, "held" for a post (what the
	// hold holds, or the part of it the call names), "" for a void or a
	// status chain.
	Amount  string `json:"amount"`
	Pending bool   `json:"pending"`
	Linked  bool   `json:"linked"`
	// Ends is the place of the pending event it posts or voids (in the
	// hold's chain, or this chain for a probe's void); null when none.
	Ends *int `json:"ends"`
	// Reason is the refusal when TigerBeetle finds no room for this event;
	// "" when no bound refuses it.
	Reason string `json:"reason"`
	// IDOf is the place in this chain of the event whose id this one
	// carries too: the key guard after a do or hold carries the first
	// event's, so that a key a bound refused stays refused. Null when the
	// event's id is its own.
	IDOf *int `json:"id_of"`
}

// Postgres is what `chobo build --target postgres` names: the schema and
// the SQL functions a caller calls.
type Postgres struct {
	Schema string `json:"schema"`
	File   string `json:"file"`
	// Operations has one function per operation of every transfer kind,
	// then the status function of a pending one.
	Operations []PostgresOperation `json:"operations"`
	Balances   []PostgresBalance   `json:"balances"`
	Expire     PostgresFunction    `json:"expire"`
}

// PostgresFunction is one SQL function in the book's schema.
type PostgresFunction struct {
	Function string          `json:"function"`
	Params   []PostgresParam `json:"params"`
	// Returns is the type of the answer: "result" (the schema's type of
	// result and reason), "text", "balance" or "integer".
	Returns string `json:"returns"`
}

// PostgresParam is a parameter of a function, in order.
type PostgresParam struct {
	Name string `json:"name"`
	// Param is the book parameter (of the transfer or account kind) it
	// carries; empty for the tenant and for expire's p_max.
	Param string `json:"param"`
	Type  string `json:"type"`
	// Default is the SQL default, "" when the parameter has none: "null"
	// for the amounts of a post (all null: post in full).
	Default string `json:"default"`
}

// PostgresOperation is the function of one operation.
type PostgresOperation struct {
	Transfer string `json:"transfer"`
	Op       string `json:"op"`
	PostgresFunction
}

// PostgresBalance is the function that reads an account kind.
type PostgresBalance struct {
	Account string `json:"account"`
	PostgresFunction
}

// PostgresGo is what `chobo build --target postgres-go` names in the Go
// package it writes.
type PostgresGo struct {
	// Package is the default package name; `--package` may give another.
	Package string `json:"package"`
	// Constructor is the function that returns the book (*Book) over a
	// Querier for a tenant.
	Constructor string       `json:"constructor"`
	Book        string       `json:"book"`
	Balance     string       `json:"balance"`
	Expire      string       `json:"expire"`
	Transfers   []GoTransfer `json:"transfers"`
	Accounts    []GoAccount  `json:"accounts"`
}

// GoTransfer is the field of the book for one transfer kind, its type,
// its methods, and the structs its methods take.
type GoTransfer struct {
	Transfer string     `json:"transfer"`
	Field    string     `json:"field"`
	Type     string     `json:"type"`
	Methods  []GoMethod `json:"methods"`
	Args     GoStruct   `json:"args"`
	// Key names a hold (post, void, status); null for a transfer that
	// posts at once. Amounts are the amounts of a partial post; null
	// when there is no such post.
	Key     *GoStruct `json:"key"`
	Amounts *GoStruct `json:"amounts"`
}

// GoMethod is the method of one operation.
type GoMethod struct {
	Op     string `json:"op"`
	Method string `json:"method"`
}

// GoStruct is a struct type and its fields, in parameter order.
type GoStruct struct {
	Type   string    `json:"type"`
	Fields []GoField `json:"fields"`
}

// GoField is the field of one book parameter.
type GoField struct {
	Param string `json:"param"`
	Name  string `json:"name"`
	Type  string `json:"type"`
}

// GoAccount is the method of Balance that reads one account kind, and the
// struct that names an account of it ("" when the kind has no
// parameters and the method takes none).
type GoAccount struct {
	Account string    `json:"account"`
	Method  string    `json:"method"`
	Type    string    `json:"type"`
	Fields  []GoField `json:"fields"`
}

// tenantParam is the first parameter of every SQL function.
const tenantParam = "p_tenant"

// TargetsOf gives the names every target gives the book's parts: what
// `chobo api` prints under "targets".
func TargetsOf(b *book.Book) Targets {
	var out Targets
	if len(postgres.Check(b)) == 0 {
		m, err := model.New(b, model.Postgres)
		if err != nil {
			panic("chobo: " + err.Error()) // every book has a PostgreSQL model
		}
		out.Postgres, out.PostgresGo = postgresOf(b, m), postgresGoOf(b, m)
		out.PostgresTypeScript = typeScriptOf(b, m)
	}
	if len(tigerbeetle.Check(b)) == 0 {
		if m, err := model.New(b, model.TigerBeetle); err == nil {
			out.TigerBeetleGo = tigerBeetleGoOf(b, m)
			if out.TigerBeetleGo != nil {
				out.TigerBeetleTypeScript = typeScriptOf(b, m)
			}
		}
	}
	return out
}

// sqlParams are the parameters of a function: the tenant, then params;
// when optional, the amounts among them default to null.
func sqlParams(params []model.Param, optional bool) []PostgresParam {
	out := []PostgresParam{{Name: tenantParam, Type: "text"}}
	for _, p := range params {
		sp := PostgresParam{Name: postgres.ParamName(p.Name), Param: p.Name, Type: postgres.SQLType(p.Amount)}
		if p.Amount && optional {
			sp.Default = "null"
		}
		out = append(out, sp)
	}
	return out
}

func postgresOf(b *book.Book, m *model.Model) *Postgres {
	out := &Postgres{
		Schema: b.Name, File: b.Name + ".sql",
		Operations: []PostgresOperation{}, Balances: []PostgresBalance{},
		Expire: PostgresFunction{Function: "expire", Returns: "integer",
			Params: []PostgresParam{{Name: "p_max", Type: "integer", Default: "1000"}}},
	}
	for i, t := range m.Transfers {
		for _, op := range t.Operations {
			returns := "result"
			if op.Answers == model.AnswersState {
				returns = "text"
			}
			out.Operations = append(out.Operations, PostgresOperation{Transfer: t.Name, Op: op.Name, PostgresFunction: PostgresFunction{
				Function: postgres.FuncName(b.Transfers[i], op.Name),
				Params:   sqlParams(op.Params, op.AmountsOptional),
				Returns:  returns,
			}})
		}
	}
	for i, a := range m.Accounts {
		out.Balances = append(out.Balances, PostgresBalance{Account: a.Name, PostgresFunction: PostgresFunction{
			Function: postgres.BalanceName(b.Accounts[i]), Params: sqlParams(a.Params, false), Returns: "balance",
		}})
	}
	return out
}

func goFields(params []model.Param, names []string) []GoField {
	out := []GoField{}
	for i, p := range params {
		out = append(out, GoField{Param: p.Name, Name: names[i], Type: golang.FieldType(p)})
	}
	return out
}

func postgresGoOf(b *book.Book, m *model.Model) *PostgresGo {
	transfers, accounts := goMembers(m)
	return &PostgresGo{
		Package: golang.PackageName(b), Constructor: golang.PostgresConstructor, Book: "Book", Balance: "Balance", Expire: "Expire",
		Transfers: transfers, Accounts: accounts,
	}
}

func tigerBeetleGoOf(b *book.Book, m *model.Model) *TigerBeetleGo {
	chains, err := tigerbeetle.Chains(b)
	if err != nil {
		return nil // a move from an account to itself whatever the call: E-coded by check
	}
	transfers, accounts := goMembers(m)
	out := &TigerBeetleGo{
		Package: golang.PackageName(b), Constructor: golang.TigerBeetleConstructor, Book: "Book", Balance: "Balance",
		Bulk: "Bulk", CallSuffix: "Call", Gather: "Gather",
		Transfers: transfers, Accounts: accounts, MaxEvents: chobotb.MaxEvents, Operations: []TBOperation{},
	}
	for _, c := range chains {
		op := TBOperation{Transfer: c.Transfer, Op: c.Op, Accounts: []TBAccount{}, Openings: []TBOpening{}, Lookups: []int{}, Chain: []TBEvent{}}
		for _, a := range c.Accounts {
			op.Accounts = append(op.Accounts, TBAccount{Name: a.Name, Role: a.Role})
		}
		for _, o := range c.Openings {
			op.Openings = append(op.Openings, TBOpening{Account: o.Account, Amount: o.Amount})
		}
		op.Lookups = append(op.Lookups, c.Lookups...)
		for _, e := range c.Events {
			ev := TBEvent{Role: e.Role, Move: e.Move, Debit: e.Debit, Credit: e.Credit, Amount: e.Amount,
				Pending: e.Pending, Linked: e.Linked, Reason: e.Reason}
			if e.Ends >= 0 {
				ends := e.Ends
				ev.Ends = &ends
			}
			if e.IDOf >= 0 {
				of := e.IDOf
				ev.IDOf = &of
			}
			op.Chain = append(op.Chain, ev)
		}
		out.Operations = append(out.Operations, op)
	}
	return out
}

// goMembers are the fields and methods of a Go client's book, the same on
// both backends.
func goMembers(m *model.Model) ([]GoTransfer, []GoAccount) {
	names := golang.Naming(m)
	transfers, accounts := []GoTransfer{}, []GoAccount{}
	for _, t := range m.Transfers {
		n := names.Transfers[t.Name]
		gt := GoTransfer{Transfer: t.Name, Field: n.Field, Type: n.Type, Methods: []GoMethod{},
			Args: GoStruct{Type: n.Args, Fields: goFields(t.Args, n.ArgFields)}}
		for _, op := range t.Operations {
			gt.Methods = append(gt.Methods, GoMethod{Op: op.Name, Method: golang.Method(op.Name)})
		}
		if t.Pending {
			gt.Key = &GoStruct{Type: n.Key, Fields: goFields(t.Key, n.KeyFields)}
			if len(t.Amounts) > 0 {
				gt.Amounts = &GoStruct{Type: n.Amounts, Fields: goFields(t.Amounts, n.AmountFields)}
			}
		}
		transfers = append(transfers, gt)
	}
	for _, a := range m.Accounts {
		n := names.Accounts[a.Name]
		ga := GoAccount{Account: a.Name, Method: n.Method, Fields: goFields(a.Params, n.Fields)}
		if len(a.Params) > 0 {
			ga.Type = n.Type
		}
		accounts = append(accounts, ga)
	}
	return transfers, accounts
}

func typeScriptOf(b *book.Book, m *model.Model) *TypeScript {
	names := typescript.ClientNames(m)
	out := &TypeScript{File: typescript.FileName(b), Constructor: typescript.PostgresConstructor,
		Book: typescript.BookType, Reason: typescript.ReasonType, Result: typescript.ResultType,
		Balance: typescript.Balance, Expire: typescript.Expire, Transfers: []TSTransfer{}, Accounts: []TSAccount{}}
	if m.Backend == model.TigerBeetle {
		out.Constructor, out.Expire = typescript.TigerBeetleConstructor, ""
	}
	fields := func(ps []model.Param) []TSField {
		out := []TSField{}
		for _, p := range ps {
			out = append(out, TSField{Param: p.Name, Type: typescript.FieldType(p)})
		}
		return out
	}
	for _, t := range m.Transfers {
		n := names.Transfers[t.Name]
		tt := TSTransfer{Transfer: t.Name, Member: n.Member, Methods: []string{}, Args: TSType{Type: n.Args, Fields: fields(t.Args)}}
		for _, op := range t.Operations {
			tt.Methods = append(tt.Methods, op.Name)
		}
		if n.Key != "" {
			tt.Key = &TSType{Type: n.Key, Fields: fields(t.Key)}
		}
		if n.Amounts != "" {
			tt.Amounts = &TSType{Type: n.Amounts, Fields: fields(t.Amounts)}
		}
		out.Transfers = append(out.Transfers, tt)
	}
	for _, a := range m.Accounts {
		n := names.Accounts[a.Name]
		out.Accounts = append(out.Accounts, TSAccount{Account: a.Name, Member: n.Member, Type: n.Type, Fields: fields(a.Params)})
	}
	return out
}
