package typescript

import (
	"encoding/json"

	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
)

// API is what `chobo api` says of a TypeScript client: the names in the
// one file it writes. Parameters keep the book's names: they are the
// properties of the objects a call takes. The names are the same on
// both backends; the PostgreSQL client adds Expire.
type API struct {
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
	Expire string `json:"expire"`
	// The members that read the history of one account, each with a
	// method per account kind named as balance names it: a page of its
	// entries (the account, then a StatementQuery), what it held at a time
	// (the account, then a Date) and the holds still open that move from
	// or to it. The TigerBeetle client has them too, and its reads throw
	// CHOBO_UNSUPPORTED.
	Statement string `json:"statement"`
	BalanceAt string `json:"balance_at"`
	OpenHolds string `json:"open_holds"`
	// Bulk is the member that sends many calls at once, and CallSuffix
	// what a method's name takes to make the twin that makes one call of
	// it (doCall, holdCall, …).
	Bulk       string        `json:"bulk"`
	CallSuffix string        `json:"call_suffix"`
	Transfers  []APITransfer `json:"transfers"`
	Accounts   []APIAccount  `json:"accounts"`
}

// APITransfer is the member of the book value for one transfer kind: its
// methods, one per operation and named as the operation (do, or hold,
// post, void, status), and the types of what they take.
type APITransfer struct {
	Transfer string   `json:"transfer"`
	Member   string   `json:"member"`
	Methods  []string `json:"methods"`
	// Reads are the member's methods that read the history of the kind:
	// entries, which takes a key and answers the entries of that call,
	// and for a kind that holds, openHolds, which takes nothing.
	Reads []string `json:"reads"`
	Args  APIType  `json:"args"`
	// Key names one call of the kind: a hold (post, void, status), or the
	// call whose entries are read. Amounts are the second, optional
	// argument of post; null for a kind that posts at once, and when every
	// move of the kind moves a literal amount.
	Key     *APIType `json:"key"`
	Amounts *APIType `json:"amounts"`
}

// APIType is an exported interface and its properties, in parameter
// order.
type APIType struct {
	Type   string     `json:"type"`
	Fields []APIField `json:"fields"`
}

// APIField is the property of one book parameter: "string", or "bigint"
// for an amount.
type APIField struct {
	Param string `json:"param"`
	Type  string `json:"type"`
}

// APIAccount is the method of the book value's balance that reads one
// account kind, and the interface that names an account of it ("" when
// the kind has no parameters and the method takes none).
type APIAccount struct {
	Account string     `json:"account"`
	Member  string     `json:"member"`
	Type    string     `json:"type"`
	Fields  []APIField `json:"fields"`
}

// Describe says what the TypeScript client of a model names.
func Describe(m *model.Model) *API {
	names := ClientNames(m)
	out := &API{File: FileName(m.Book), Constructor: PostgresConstructor,
		Book: BookType, Reason: ReasonType, Result: ResultType,
		Balance: Balance, Expire: Expire, Statement: Statement, BalanceAt: BalanceAt, OpenHolds: OpenHolds, Bulk: Bulk, CallSuffix: CallSuffix, Transfers: []APITransfer{}, Accounts: []APIAccount{}}
	if m.Backend == model.TigerBeetle {
		out.Constructor, out.Expire = TigerBeetleConstructor, ""
	}
	for _, t := range m.Transfers {
		n := names.Transfers[t.Name]
		tt := APITransfer{Transfer: t.Name, Member: n.Member, Methods: []string{}, Args: APIType{Type: n.Args, Fields: apiFields(t.Args)}}
		for _, op := range t.Operations {
			tt.Methods = append(tt.Methods, op.Name)
		}
		tt.Reads = []string{Entries}
		if t.Pending {
			tt.Reads = append(tt.Reads, OpenHolds)
		}
		if n.Key != "" {
			tt.Key = &APIType{Type: n.Key, Fields: apiFields(t.Key)}
		}
		if n.Amounts != "" {
			tt.Amounts = &APIType{Type: n.Amounts, Fields: apiFields(t.Amounts)}
		}
		out.Transfers = append(out.Transfers, tt)
	}
	for _, a := range m.Accounts {
		n := names.Accounts[a.Name]
		out.Accounts = append(out.Accounts, APIAccount{Account: a.Name, Member: n.Member, Type: n.Type, Fields: apiFields(a.Params)})
	}
	return out
}

func apiFields(ps []model.Param) []APIField {
	out := []APIField{}
	for _, p := range ps {
		out = append(out, APIField{Param: p.Name, Type: FieldType(p)})
	}
	return out
}

// Names lists every name of the client, in the order Describe gives them.
// Properties keep the book's names, so they are not among them.
func (x *API) Names() []client.Name {
	var out []client.Name
	add := func(kind, owner, what, whatJa, name string) {
		if name != "" {
			out = append(out, client.Name{Kind: kind, Owner: owner, What: what, WhatJa: whatJa, Name: name})
		}
	}
	for _, t := range x.Transfers {
		add("transfer", t.Transfer, "member", "メンバー", t.Member)
		add("transfer", t.Transfer, "arguments type", "引数の型", t.Args.Type)
		if t.Key != nil {
			add("transfer", t.Transfer, "key type", "キーの型", t.Key.Type)
		}
		if t.Amounts != nil {
			add("transfer", t.Transfer, "amounts type", "数量の型", t.Amounts.Type)
		}
	}
	for _, a := range x.Accounts {
		add("account", a.Account, "balance member", "balance のメンバー", a.Member)
		add("account", a.Account, "type", "型", a.Type)
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
