package golang

import (
	"encoding/json"

	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
)

// API is what `chobo api` says of a Go client: the names of the package
// it writes. Parameters are struct fields, so they are named here too.
type API struct {
	// Package is the default package name; `--package` may give another.
	Package string `json:"package"`
	// Constructor is the function that returns the book (*Book) over the
	// backend's connection for a tenant.
	Constructor string `json:"constructor"`
	Book        string `json:"book"`
	Balance     string `json:"balance"`
	// Statement, BalanceAt and OpenHolds are the fields of the book that
	// read the history of an account: each has a method per account kind,
	// named as Balance's (APIAccount.Method). Statement's takes the
	// account and a chobo.StatementQuery, BalanceAt's the account and a
	// time, OpenHolds' the account.
	Statement string `json:"statement"`
	BalanceAt string `json:"balance_at"`
	OpenHolds string `json:"open_holds"`
	// Expire gives back up to 1000 holds past their deadline, and
	// ExpireUpTo up to the number it is given: PostgreSQL only, as
	// TigerBeetle does that itself.
	Expire     string `json:"expire,omitempty"`
	ExpireUpTo string `json:"expire_up_to,omitempty"`
	// Bulk is the method that sends many calls at once (in as few
	// requests as they fit on TigerBeetle, in one pipeline on
	// PostgreSQL); each method of a transfer has a twin, its name and
	// CallSuffix, that makes one call of it. Gather, TigerBeetle only, is
	// the method that makes calls at the same time share requests.
	Bulk       string        `json:"bulk,omitempty"`
	CallSuffix string        `json:"call_suffix,omitempty"`
	Gather     string        `json:"gather,omitempty"`
	Transfers  []APITransfer `json:"transfers"`
	Accounts   []APIAccount  `json:"accounts"`
}

// APITransfer is the field of the book for one transfer kind, its type,
// its methods, and the structs its methods take.
type APITransfer struct {
	Transfer string      `json:"transfer"`
	Field    string      `json:"field"`
	Type     string      `json:"type"`
	Methods  []APIMethod `json:"methods"`
	Args     APIStruct   `json:"args"`
	// Key is the transfer's key: what Entries takes, and what names a
	// hold (post, void, status). Amounts are the amounts of a partial
	// post; null when there is no such post.
	Key     *APIStruct `json:"key"`
	Amounts *APIStruct `json:"amounts"`
	// Entries is the method that reads the entries of one key; OpenHolds,
	// "" for a transfer that posts at once, the one that reads the holds
	// of the kind still held.
	Entries   string `json:"entries"`
	OpenHolds string `json:"open_holds,omitempty"`
}

// APIMethod is the method of one operation.
type APIMethod struct {
	Op     string `json:"op"`
	Method string `json:"method"`
}

// APIStruct is a struct type and its fields, in parameter order.
type APIStruct struct {
	Type   string     `json:"type"`
	Fields []APIField `json:"fields"`
}

// APIField is the field of one book parameter.
type APIField struct {
	Param string `json:"param"`
	Name  string `json:"name"`
	Type  string `json:"type"`
}

// APIAccount is the method of Balance that reads one account kind (and
// of Statement, BalanceAt and OpenHolds, under the same name), and
// the struct that names an account of it ("" when the kind has no
// parameters and the method takes none).
type APIAccount struct {
	Account string     `json:"account"`
	Method  string     `json:"method"`
	Type    string     `json:"type"`
	Fields  []APIField `json:"fields"`
}

// Describe says what the Go client of a model names.
func Describe(m *model.Model) *API {
	out := &API{Package: PackageName(m.Book), Book: "Book", Balance: "Balance",
		Statement: "Statement", BalanceAt: "BalanceAt", OpenHolds: "OpenHolds"}
	if m.Backend == model.TigerBeetle {
		out.Constructor, out.Bulk, out.CallSuffix, out.Gather = TigerBeetleConstructor, "Bulk", "Call", "Gather"
	} else {
		out.Constructor, out.Expire, out.ExpireUpTo, out.Bulk, out.CallSuffix = PostgresConstructor, "Expire", "ExpireUpTo", "Bulk", "Call"
	}
	names := Naming(m)
	out.Transfers, out.Accounts = []APITransfer{}, []APIAccount{}
	for _, t := range m.Transfers {
		n := names.Transfers[t.Name]
		gt := APITransfer{Transfer: t.Name, Field: n.Field, Type: n.Type, Methods: []APIMethod{},
			Args: APIStruct{Type: n.Args, Fields: apiFields(t.Args, n.ArgFields)},
			Key:  &APIStruct{Type: n.Key, Fields: apiFields(t.Key, n.KeyFields)}, Entries: "Entries"}
		for _, op := range t.Operations {
			gt.Methods = append(gt.Methods, APIMethod{Op: op.Name, Method: Method(op.Name)})
		}
		if t.Pending {
			gt.OpenHolds = "OpenHolds"
			if len(t.Amounts) > 0 {
				gt.Amounts = &APIStruct{Type: n.Amounts, Fields: apiFields(t.Amounts, n.AmountFields)}
			}
		}
		out.Transfers = append(out.Transfers, gt)
	}
	for _, a := range m.Accounts {
		n := names.Accounts[a.Name]
		ga := APIAccount{Account: a.Name, Method: n.Method, Fields: apiFields(a.Params, n.Fields)}
		if len(a.Params) > 0 {
			ga.Type = n.Type
		}
		out.Accounts = append(out.Accounts, ga)
	}
	return out
}

func apiFields(params []model.Param, names []string) []APIField {
	out := []APIField{}
	for i, p := range params {
		out = append(out, APIField{Param: p.Name, Name: names[i], Type: FieldType(p)})
	}
	return out
}

// Names lists every name of the client, in the order Describe gives them.
func (x *API) Names() []client.Name {
	var out []client.Name
	add := func(kind, owner, what, whatJa, name string) {
		if name != "" {
			out = append(out, client.Name{Kind: kind, Owner: owner, What: what, WhatJa: whatJa, Name: name})
		}
	}
	structOf := func(owner, what, whatJa string, s *APIStruct) {
		if s == nil {
			return
		}
		add("transfer", owner, what+" type", whatJa+"の型", s.Type)
		for _, f := range s.Fields {
			add("transfer", owner, what+" field of "+f.Param, whatJa+"の構造体の、引数 "+f.Param+" のフィールド", f.Name)
		}
	}
	for _, t := range x.Transfers {
		add("transfer", t.Transfer, "Book field", "Book のフィールド", t.Field)
		add("transfer", t.Transfer, "type", "型", t.Type)
		for _, m := range t.Methods {
			add("transfer", t.Transfer, "method of "+m.Op, m.Op+" のメソッド", m.Method)
		}
		add("transfer", t.Transfer, "method of entries", "entries のメソッド", t.Entries)
		add("transfer", t.Transfer, "method of open holds", "open holds のメソッド", t.OpenHolds)
		structOf(t.Transfer, "arguments", "引数", &t.Args)
		structOf(t.Transfer, "key", "キー", t.Key)
		structOf(t.Transfer, "amounts", "数量", t.Amounts)
	}
	for _, a := range x.Accounts {
		add("account", a.Account, "Balances method", "Balances のメソッド", a.Method)
		add("account", a.Account, "type", "型", a.Type)
		for _, f := range a.Fields {
			add("account", a.Account, "field of "+f.Param, "引数 "+f.Param+" のフィールド", f.Name)
		}
	}
	return out
}

func describe(m *model.Model) client.Described { return Describe(m) }

func readAPI(data []byte) (client.Described, error) {
	var x API
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}
