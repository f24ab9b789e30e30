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
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client/golang"
	"github.com/chobo-lang/chobo/chobo/client/model"
)

// Targets are the names each target gives the book's parts. A target is
// null when the book cannot go to it (`chobo build` says why: E061).
type Targets struct {
	Postgres   *Postgres   `json:"postgres"`
	PostgresGo *PostgresGo `json:"postgres-go"`
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

func targetsOf(b *book.Book) Targets {
	if len(postgres.Check(b)) > 0 {
		return Targets{}
	}
	m, err := model.New(b, model.Postgres)
	if err != nil {
		panic("chobo: " + err.Error()) // every book has a PostgreSQL model
	}
	return Targets{Postgres: postgresOf(b, m), PostgresGo: postgresGoOf(b, m)}
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
	names := golang.Naming(m)
	out := &PostgresGo{
		Package: golang.PackageName(b), Constructor: golang.Constructor, Book: "Book", Balance: "Balance", Expire: "Expire",
		Transfers: []GoTransfer{}, Accounts: []GoAccount{},
	}
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
		out.Transfers = append(out.Transfers, gt)
	}
	for _, a := range m.Accounts {
		n := names.Accounts[a.Name]
		ga := GoAccount{Account: a.Name, Method: n.Method, Fields: goFields(a.Params, n.Fields)}
		if len(a.Params) > 0 {
			ga.Type = n.Type
		}
		out.Accounts = append(out.Accounts, ga)
	}
	return out
}
