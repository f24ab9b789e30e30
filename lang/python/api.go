package python

import (
	"encoding/json"

	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
)

// API is what `chobo api` says of a Python client: the names in the one
// file it writes. The names are the same on both backends and in both of
// a file's books (the blocking one and the asyncio one); the PostgreSQL
// book adds Expire.
type API struct {
	File string `json:"file"`
	// Constructor returns the blocking book over a connection or the
	// official client, with the tenant as a keyword: postgres(conn,
	// tenant=""); AsyncConstructor returns the asyncio one.
	Constructor      string `json:"constructor"`
	AsyncConstructor string `json:"async_constructor"`
	Book             string `json:"book"`
	AsyncBook        string `json:"async_book"`
	Reason           string `json:"reason"` // the Literal of every reason
	Result           string `json:"result"`
	Balance          string `json:"balance"`
	// Balances and AsyncBalances are the classes of the balance member.
	Balances      string `json:"balances"`
	AsyncBalances string `json:"async_balances"`
	// Expire is the method that gives back holds past their deadline; ""
	// on TigerBeetle, which does that itself.
	Expire string `json:"expire"`
	// Bulk is the method of both books that sends many calls at once;
	// each method of a transfer has a twin, its name and CallSuffix
	// (do_call, hold_call, …), that makes one call of it for Bulk.
	Bulk       string `json:"bulk"`
	CallSuffix string `json:"call_suffix"`
	// The history reads: Statement, BalanceAt and OpenHolds are the
	// members of both books that read an account's statement, its balance
	// at a time and its open holds, with one method per account kind named
	// as in Balance; the others are their classes in each book. A
	// statement's method takes a StatementQuery and a balance at a time's
	// an aware datetime, each positionally before the account's keywords.
	Statement           string        `json:"statement"`
	Statements          string        `json:"statements"`
	AsyncStatements     string        `json:"async_statements"`
	BalanceAt           string        `json:"balance_at"`
	BalancesAt          string        `json:"balances_at"`
	AsyncBalancesAt     string        `json:"async_balances_at"`
	OpenHolds           string        `json:"open_holds"`
	OpenHoldsClass      string        `json:"open_holds_class"`
	AsyncOpenHoldsClass string        `json:"async_open_holds_class"`
	Transfers           []APITransfer `json:"transfers"`
	Accounts            []APIAccount  `json:"accounts"`
}

// APITransfer is the member of the book value for one transfer kind, the
// classes it has in each book, and its methods, one per operation and
// named as the operation (do, or hold, post, void, status), with the
// keyword arguments they take.
type APITransfer struct {
	Transfer   string   `json:"transfer"`
	Member     string   `json:"member"`
	Class      string   `json:"class"`
	AsyncClass string   `json:"async_class"`
	Methods    []string `json:"methods"`
	// Reads are the transfer's history reads: entries, which takes Key,
	// and open_holds, which takes nothing, for a kind that holds.
	Reads []string `json:"reads"`
	// Args are what do and hold take. Key is what entries takes, and
	// post, void and status. Amounts are what post takes besides, all or
	// none (none posts the whole hold); null when every move of the kind
	// moves a literal amount.
	Args    []APIArg  `json:"args"`
	Key     *[]APIArg `json:"key"`
	Amounts *[]APIArg `json:"amounts"`
}

// APIArg is the keyword argument of one book parameter: "str", or "int"
// for an amount.
type APIArg struct {
	Param   string `json:"param"`
	Keyword string `json:"keyword"`
	Type    string `json:"type"`
}

// APIAccount is the method of the book value's balance that reads one
// account kind, and the keyword arguments that name an account of it.
type APIAccount struct {
	Account string   `json:"account"`
	Member  string   `json:"member"`
	Args    []APIArg `json:"args"`
}

// Describe says what the Python client of a model names.
func Describe(m *model.Model) *API {
	names := ClientNames(m)
	out := &API{File: FileName(m.Book), Constructor: PostgresConstructor, AsyncConstructor: PostgresAsyncConstructor,
		Book: BookClass, AsyncBook: AsyncBookClass, Reason: ReasonType, Result: ResultType,
		Balance: Balance, Balances: BalancesClass, AsyncBalances: AsyncBalancesClass, Expire: Expire,
		Bulk: Bulk, CallSuffix: CallSuffix,
		Statement: StatementMember, Statements: StatementsClass, AsyncStatements: asyncPrefix + StatementsClass,
		BalanceAt: BalanceAtMember, BalancesAt: BalancesAtClass, AsyncBalancesAt: asyncPrefix + BalancesAtClass,
		OpenHolds: OpenHoldsMember, OpenHoldsClass: OpenHoldsClass, AsyncOpenHoldsClass: asyncPrefix + OpenHoldsClass,
		Transfers: []APITransfer{}, Accounts: []APIAccount{}}
	if m.Backend == model.TigerBeetle {
		out.Constructor, out.AsyncConstructor, out.Expire = TigerBeetleConstructor, TigerBeetleAsyncConstructor, ""
	}
	for _, t := range m.Transfers {
		n := names.Transfers[t.Name]
		tt := APITransfer{Transfer: t.Name, Member: n.Member, Class: n.Class, AsyncClass: n.AsyncClass,
			Methods: []string{}, Reads: []string{EntriesMethod}, Args: apiArgs(t.Args, n.Keywords)}
		for _, op := range t.Operations {
			tt.Methods = append(tt.Methods, op.Name)
		}
		key := apiArgs(t.Key, n.Keywords)
		tt.Key = &key
		if t.Pending {
			tt.Reads = append(tt.Reads, TransferHoldsMethod)
			if len(t.Amounts) > 0 {
				amounts := apiArgs(t.Amounts, n.Keywords)
				tt.Amounts = &amounts
			}
		}
		out.Transfers = append(out.Transfers, tt)
	}
	for _, a := range m.Accounts {
		n := names.Accounts[a.Name]
		out.Accounts = append(out.Accounts, APIAccount{Account: a.Name, Member: n.Member, Args: apiArgs(a.Params, n.Keywords)})
	}
	return out
}

func apiArgs(ps []model.Param, keywords map[string]string) []APIArg {
	out := []APIArg{}
	for _, p := range ps {
		out = append(out, APIArg{Param: p.Name, Keyword: keywords[p.Name], Type: ArgType(p)})
	}
	return out
}

// Names lists every name of the client, in the order Describe gives them.
// A parameter's keyword is the same in every method that takes it, so it
// is listed once, from the arguments of do or hold.
func (x *API) Names() []client.Name {
	var out []client.Name
	add := func(kind, owner, what, whatJa, name string) {
		if name != "" {
			out = append(out, client.Name{Kind: kind, Owner: owner, What: what, WhatJa: whatJa, Name: name})
		}
	}
	for _, t := range x.Transfers {
		add("transfer", t.Transfer, "member", "メンバー", t.Member)
		add("transfer", t.Transfer, "class", "クラス", t.Class)
		add("transfer", t.Transfer, "asyncio class", "asyncio のクラス", t.AsyncClass)
		for _, a := range t.Args {
			add("transfer", t.Transfer, "keyword of "+a.Param, "引数 "+a.Param+" のキーワード", a.Keyword)
		}
	}
	for _, a := range x.Accounts {
		add("account", a.Account, "balance member", "balance のメンバー", a.Member)
		for _, p := range a.Args {
			add("account", a.Account, "keyword of "+p.Param, "引数 "+p.Param+" のキーワード", p.Keyword)
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
