package api

// This file is the only one in the package that knows the targets. The
// backends' entries are worked out here; each client target's is asked
// of its language through the registry, so that a new language changes
// nothing here. What the SQL generator writes by hand rather than
// computes (the tenant parameter, the expire function) is written here
// once, next to the calls, and docs/targets.md describes the same.

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/target"
)

// Targets are the names each target gives the book's parts, and what
// each backend does in the book's terms. An entry is null when `chobo
// build` refuses the book for it: a backend when the book cannot go there
// (E060, E061, E062 of the SQL names), a client target then and when its
// language cannot write one of the book's names (E062); Build says why.
//
// In JSON it is one object: the backends first (postgres, whose entry is
// also that of the target postgres, then tigerbeetle), then every client
// target in the registry's order, each as its language describes it.
type Targets struct {
	Postgres    *Postgres
	TigerBeetle *TigerBeetle
	Clients     []Client
}

// Client is what one client target names; Names is nil when `chobo
// build` refuses the book for the target.
type Client struct {
	Target string
	Names  client.Described
}

// Client returns what the client target of that name names, or nil.
func (t Targets) Client(name string) client.Described {
	for _, c := range t.Clients {
		if c.Target == name {
			return c.Names
		}
	}
	return nil
}

// MarshalJSON writes the entries in the order Targets gives.
func (t Targets) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	entry := func(key string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		// As Write encodes the whole document: names may quote <, > and &.
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		return nil
	}
	if err := entry(model.Postgres, t.Postgres); err != nil {
		return nil, err
	}
	if err := entry(model.TigerBeetle, t.TigerBeetle); err != nil {
		return nil, err
	}
	for _, c := range t.Clients {
		if err := entry(c.Target, c.Names); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the entries back, each client target by its
// language; a key this version of chobo has no target for is skipped.
func (t *Targets) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*t = Targets{}
	if err := json.Unmarshal(orNull(raw[model.Postgres]), &t.Postgres); err != nil {
		return err
	}
	if err := json.Unmarshal(orNull(raw[model.TigerBeetle]), &t.TigerBeetle); err != nil {
		return err
	}
	for _, tg := range target.All {
		l := tg.Client()
		if l == nil {
			continue
		}
		c := Client{Target: tg.Name}
		if r := orNull(raw[tg.Name]); string(bytes.TrimSpace(r)) != "null" {
			names, err := l.Read(r)
			if err != nil {
				return fmt.Errorf("targets %s: %v", tg.Name, err)
			}
			c.Names = names
		}
		t.Clients = append(t.Clients, c)
	}
	return nil
}

func orNull(r json.RawMessage) json.RawMessage {
	if r == nil {
		return json.RawMessage("null")
	}
	return r
}

// TigerBeetle is what each operation sends to TigerBeetle, whatever the
// language of the client that sends it.
type TigerBeetle struct {
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
	// Lookups are the places in the hold's chain, as this version lays
	// it out, of the moves whose amounts a post or void reads first.
	Lookups []int     `json:"lookups"`
	Chain   []TBEvent `json:"chain"`
}

// TBAccount is an account an operation makes; role is "account", "floor",
// "room", "shortfall" or "sink".
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
	// hold holds, or the part of it the call names), "owed" for a netting
	// (as much as the floor or room has and its shortfall owes), "" for a
	// void or a status chain.
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
	// carries; empty for the tenant, for expire's p_max and for the call
	// id.
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

// tenantParam is the first parameter of every SQL function.
const tenantParam = "p_tenant"

// TargetsOf gives the names every target whose backend takes the book
// gives its parts, including the names a language cannot tell apart
// (E062), which the comparison with a deployed version reads. `chobo api`
// prints them under "targets" without the targets build refuses
// (Builds.Refuse).
func TargetsOf(b *book.Book) Targets {
	var out Targets
	models := map[string]*model.Model{}
	if len(target.BackendCheck(model.Postgres, b)) == 0 {
		m, err := model.New(b, model.Postgres)
		if err != nil {
			panic("chobo: " + err.Error()) // every book has a PostgreSQL model
		}
		out.Postgres, models[model.Postgres] = postgresOf(b, m), m
	}
	if len(target.BackendCheck(model.TigerBeetle, b)) == 0 {
		if m, err := model.New(b, model.TigerBeetle); err == nil {
			if out.TigerBeetle = tigerBeetleOf(b, m); out.TigerBeetle != nil {
				models[model.TigerBeetle] = m
			}
		}
	}
	for _, tg := range target.All {
		l := tg.Client()
		if l == nil {
			continue
		}
		c := Client{Target: tg.Name}
		if m := models[tg.Backend]; m != nil {
			c.Names = l.Describe(m)
		}
		out.Clients = append(out.Clients, c)
	}
	return out
}

// Build is what `chobo build --target` says of the book for one target
// before writing anything: OK when it builds, else the diagnostics that
// stop it (E060, E061, E062), as build prints them.
type Build struct {
	Target      string       `json:"target"`
	OK          bool         `json:"ok"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Builds is Build for every target, in the order `chobo build --help`
// lists them.
type Builds []Build

// BuildsOf says what build says of b for every target. src, the book's
// text, quotes the line of each diagnostic; without it the excerpts are
// empty.
func BuildsOf(b *book.Book, src []byte, lang diag.Lang) Builds {
	out := Builds{}
	for _, tg := range target.All {
		ds := tg.Check(b)
		if src != nil {
			check.Quote(ds, src)
		}
		out = append(out, Build{Target: tg.Name, OK: len(ds) == 0, Diagnostics: diagnostics(ds, lang)})
	}
	return out
}

// Refuse returns t without the entries of the targets build refuses, so
// that no tool reads a name of a client that cannot be written.
func (bs Builds) Refuse(t Targets) Targets {
	refused := map[string]bool{}
	for _, b := range bs {
		refused[b.Target] = !b.OK
	}
	if refused[model.Postgres] {
		t.Postgres = nil
	}
	t.Clients = append([]Client(nil), t.Clients...)
	for i, c := range t.Clients {
		if refused[c.Target] {
			t.Clients[i].Names = nil
		}
	}
	return t
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

// callIDParam is the last parameter of every operation but status, and
// of expire: the id a client gives one call and sends again with each
// sending of it. Without one (null) a call answers as a new call.
var callIDParam = PostgresParam{Name: postgres.CallIDParam, Type: "uuid", Default: "null"}

func postgresOf(b *book.Book, m *model.Model) *Postgres {
	out := &Postgres{
		Schema: b.Name, File: b.Name + ".sql",
		Operations: []PostgresOperation{}, Balances: []PostgresBalance{},
		Expire: PostgresFunction{Function: "expire", Returns: "integer",
			Params: []PostgresParam{{Name: "p_max", Type: "integer", Default: "1000"}, callIDParam}},
	}
	for i, t := range m.Transfers {
		for _, op := range t.Operations {
			returns := "result"
			if op.Answers == model.AnswersState {
				returns = "text"
			}
			params := sqlParams(op.Params, op.AmountsOptional)
			if op.CallID {
				params = append(params, callIDParam)
			}
			out.Operations = append(out.Operations, PostgresOperation{Transfer: t.Name, Op: op.Name, PostgresFunction: PostgresFunction{
				Function: postgres.FuncName(b.Transfers[i], op.Name),
				Params:   params,
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

func tigerBeetleOf(b *book.Book, m *model.Model) *TigerBeetle {
	chains, err := tigerbeetle.Chains(b)
	if err != nil {
		return nil // a move from an account to itself whatever the call: E-coded by check
	}
	out := &TigerBeetle{MaxEvents: m.MaxEvents, Operations: []TBOperation{}}
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
