package chobotb_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// historyVectorsFile holds what this package's history reads answer, on
// the model, for the records a few scenarios leave: the records
// themselves, as TigerBeetle answers them, and each read with its answer.
// The other runtimes replay it against a client that answers from the
// records, so that their reads are held to these without a replica.
// CHOBO_BLESS=1 rewrites it; a stale file fails TestHistoryVectors.
const historyVectorsFile = "../../testdata/history_vectors.json"

// The file's shape. Ids are 32 hex digits; figures that may pass 2^53
// (amounts, timestamps, user_data_64, balances) are decimal strings;
// times are RFC 3339 in UTC with nanoseconds; statuses are TigerBeetle's
// names of them.
type hvFile struct {
	Cases []hvCase `json:"cases"`
}

type hvCase struct {
	// Name is the scenario's; Book the test case whose book it runs (its
	// def, copied from vectors.json); Tenant the tenant every read is made
	// for (other tenants' records are among the records).
	Name   string          `json:"name"`
	Book   string          `json:"book"`
	Def    json.RawMessage `json:"def"`
	Tenant string          `json:"tenant"`
	// Accounts and Transfers are every record the replica holds.
	Accounts  []hvAccount  `json:"accounts"`
	Transfers []hvTransfer `json:"transfers"`
	// StatusChains answer a status chain on a hold (a void of pending_id
	// linked to a transfer from an account to itself): the two statuses,
	// by the pending id. A chain on any other id answers
	// pending_transfer_not_found, linked_event_failed.
	StatusChains []hvStatusChain `json:"status_chains"`
	Reads        []hvRead        `json:"reads"`
}

type hvAccount struct {
	ID             string `json:"id"`
	DebitsPending  string `json:"debits_pending"`
	DebitsPosted   string `json:"debits_posted"`
	CreditsPending string `json:"credits_pending"`
	CreditsPosted  string `json:"credits_posted"`
	UserData128    string `json:"user_data_128"`
	Ledger         uint32 `json:"ledger"`
	Code           uint16 `json:"code"`
	Flags          uint16 `json:"flags"`
	Timestamp      string `json:"timestamp"`
}

type hvTransfer struct {
	vecTransfer
	Timestamp string `json:"timestamp"`
}

type hvStatusChain struct {
	PendingID string           `json:"pending_id"`
	Statuses  []chobotb.Status `json:"statuses"`
}

// hvRead is one read and its answer. Read is statement, entries, holds or
// balance_at; Account and Transfer are names (holds: null for any); Args
// the account's values; Key a transfer's key; Query a statement's; At a
// balance's time. Error says the read fails, before anything is sent.
type hvRead struct {
	Read      string       `json:"read"`
	Account   *string      `json:"account,omitempty"`
	Args      []string     `json:"args"`
	Transfer  *string      `json:"transfer,omitempty"`
	Key       []string     `json:"key,omitempty"`
	Query     *hvQuery     `json:"query,omitempty"`
	At        string       `json:"at,omitempty"`
	Error     bool         `json:"error,omitempty"`
	Statement *hvStatement `json:"statement,omitempty"`
	Entries   *[]hvEntry   `json:"entries,omitempty"`
	Holds     *[]hvHold    `json:"holds,omitempty"`
	Balance   *hvBalance   `json:"balance,omitempty"`
}

type hvQuery struct {
	Newest    bool     `json:"newest"`
	From      string   `json:"from"` // "" for none
	To        string   `json:"to"`
	Transfers []string `json:"transfers"`
	Limit     int      `json:"limit"`
	After     string   `json:"after"`
}

type hvStatement struct {
	Entries []hvEntry `json:"entries"`
	Next    string    `json:"next"`
	More    bool      `json:"more"`
}

type hvBalance struct {
	Posted  string `json:"posted"`
	HeldIn  string `json:"held_in"`
	HeldOut string `json:"held_out"`
}

type hvEntry struct {
	Transfer    string            `json:"transfer"`
	Op          string            `json:"op"`
	Key         []string          `json:"key"`
	Args        map[string]string `json:"args"`
	ID          string            `json:"id"`
	Move        int               `json:"move"`
	Out         bool              `json:"out"`
	Account     string            `json:"account"`
	AccountArgs []string          `json:"account_args"`
	Posted      string            `json:"posted"`
	HeldIn      string            `json:"held_in"`
	HeldOut     string            `json:"held_out"`
	After       *hvBalance        `json:"after"`
	At          string            `json:"at"`
	Cursor      string            `json:"cursor"`
}

type hvHold struct {
	Transfer string       `json:"transfer"`
	Key      []string     `json:"key"`
	ID       string       `json:"id"`
	Moves    []hvHoldMove `json:"moves"`
	Created  string       `json:"created"`
	Deadline string       `json:"deadline"` // "" for none
}

type hvHoldMove struct {
	Move     int      `json:"move"`
	From     string   `json:"from"`
	FromArgs []string `json:"from_args"`
	To       string   `json:"to"`
	ToArgs   []string `json:"to_args"`
	Amount   string   `json:"amount"`
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func dec(n int64) string { return strconv.FormatInt(n, 10) }

func hvBal(b chobo.Balance) *hvBalance {
	return &hvBalance{dec(b.Posted), dec(b.HeldIn), dec(b.HeldOut)}
}

func hvEntries(es []chobo.Entry) []hvEntry {
	out := []hvEntry{}
	for _, e := range es {
		h := hvEntry{Transfer: e.Transfer, Op: e.Op, Key: e.Key, Args: e.Args, ID: e.ID, Move: e.Move, Out: e.Out,
			Account: e.Account, AccountArgs: e.AccountArgs, Posted: dec(e.Posted), HeldIn: dec(e.HeldIn),
			HeldOut: dec(e.HeldOut), At: rfc(e.At), Cursor: e.Cursor}
		if e.After != nil {
			h.After = hvBal(*e.After)
		}
		out = append(out, h)
	}
	return out
}

func hvHolds(hs []chobo.OpenHold) []hvHold {
	out := []hvHold{}
	for _, h := range hs {
		o := hvHold{Transfer: h.Transfer, Key: h.Key, ID: h.ID, Created: rfc(h.Created), Moves: []hvHoldMove{}}
		if !h.Deadline.IsZero() {
			o.Deadline = rfc(h.Deadline)
		}
		for _, m := range h.Moves {
			o.Moves = append(o.Moves, hvHoldMove{m.Move, m.From, m.FromArgs, m.To, m.ToArgs, dec(m.Amount)})
		}
		out = append(out, o)
	}
	return out
}

// hvStep is one step of a scenario: a call of a tenant, or the clock
// moved on.
type hvStep struct {
	tenant  string
	op      string // do, hold, post, void, advance
	kind    string
	vals    chobotb.Values // do, hold: every value; post, void: the key
	amounts []int64        // post in part
	d       time.Duration
}

func call(tenant, op, kind string, vals ...any) hvStep {
	return hvStep{tenant: tenant, op: op, kind: kind, vals: vals}
}

func postPart(tenant, kind string, amounts []int64, key ...any) hvStep {
	return hvStep{tenant: tenant, op: "post", kind: kind, vals: key, amounts: amounts}
}

func wait(d time.Duration) hvStep { return hvStep{op: "advance", d: d} }

// hvScenario is a scenario and the reads made after it, for its tenant.
type hvScenario struct {
	name, book, tenant string
	steps              []hvStep
	// accounts are the accounts whose statements and balances are read,
	// by kind name and values.
	accounts []hvAccountRef
	// calls are the keys whose entries are read, by transfer kind.
	calls []hvCallRef
}

type hvAccountRef struct {
	kind string
	args []string
}

type hvCallRef struct {
	kind string
	key  []string
}

func hvScenarios() []hvScenario {
	const m = time.Minute
	return []hvScenario{
		{
			name: "card", book: "history", tenant: "t-1",
			steps: []hvStep{
				call("t-1", "do", "top_up", "u-1", "c-1", int64(10000)), wait(m),
				call("t-2", "do", "top_up", "u-1", "c-1", int64(500)), wait(m),
				call("t-1", "hold", "payment", "p-1", "c-1", int64(2000), int64(100)), wait(m),
				call("t-2", "hold", "payment", "p-1", "c-1", int64(300), int64(10)), wait(m),
				call("t-1", "hold", "payment", "p-2", "c-1", int64(1500), int64(50)), wait(m),
				postPart("t-1", "payment", []int64{1200, 100}, "p-1"), wait(m),
				call("t-1", "void", "payment", "p-2"), wait(m),
				call("t-1", "hold", "payment", "p-3", "c-1", int64(700), int64(0)), wait(m),
				call("t-1", "do", "top_up", "u-2", "c-2", int64(900)), wait(m),
				call("t-1", "hold", "payment", "p-4", "c-2", int64(100), int64(5)), wait(31 * m),
				call("t-1", "do", "top_up", "u-3", "c-1", int64(50)), wait(m),
				call("t-1", "hold", "payment", "p-5", "c-1", int64(40), int64(2)), wait(m),
				call("t-1", "hold", "payment", "p-6", "c-1", int64(30), int64(1)), wait(m),
				call("t-1", "post", "payment", "p-6"), wait(m),
			},
			accounts: []hvAccountRef{{"wallet", []string{"c-1"}}, {"wallet", []string{"c-2"}}, {"merchants", []string{}},
				{"wallet", []string{"c-9"}}},
			calls: []hvCallRef{{"top_up", []string{"u-1"}}, {"payment", []string{"p-1"}}, {"payment", []string{"p-2"}},
				{"payment", []string{"p-3"}}, {"payment", []string{"p-5"}}, {"payment", []string{"p-6"}}, {"payment", []string{"p-9"}}},
		},
		{
			// Two moves of book_seat join a card to tour_income: the
			// chain tells them apart. A card's bounds add rooms and floors.
			name: "seats", book: "clean", tenant: "t-1",
			steps: []hvStep{
				call("t-1", "do", "top_up", "r-1", "m-1", int64(100000)), wait(m),
				call("t-1", "do", "open_tour_day", "tour-a", "d-1", int64(40)), wait(m),
				call("t-1", "hold", "book_seat", "b-1", "m-1", "tour-a", "d-1", int64(2000)), wait(m),
				call("t-1", "hold", "book_seat", "b-2", "m-1", "tour-a", "d-1", int64(3000)), wait(m),
				call("t-1", "post", "book_seat", "b-1"), wait(m),
				call("t-1", "hold", "group_hold", "g-1", "tour-a", "d-1", int64(5)), wait(m),
				call("t-1", "hold", "book_seat", "b-3", "m-1", "tour-a", "d-1", int64(1000)), wait(m),
				call("t-1", "void", "book_seat", "b-3"), wait(49 * time.Hour),
				call("t-1", "do", "pay_operator", "s-1", int64(1000)), wait(m),
			},
			accounts: []hvAccountRef{{"card", []string{"m-1"}}, {"tour_income", []string{}}, {"free_seats", []string{"tour-a", "d-1"}}},
			calls: []hvCallRef{{"book_seat", []string{"b-1"}}, {"book_seat", []string{"b-2"}}, {"book_seat", []string{"b-3"}},
				{"group_hold", []string{"g-1", "tour-a", "d-1"}}},
		},
		{
			// A lower bound above zero: every move from on_hand probes the
			// tenant's sink, records a statement leaves out.
			name: "stock", book: "safety_stock", tenant: "t-1",
			steps: []hvStep{
				call("t-1", "do", "receive_goods", "d-1", "sku-1", int64(20)), wait(m),
				call("t-1", "hold", "allocate", "o-1", "sku-1", int64(5)), wait(m),
				call("t-1", "hold", "allocate", "o-2", "sku-1", int64(4)), wait(m),
				postPart("t-1", "allocate", []int64{3}, "o-1", "sku-1"), wait(61 * m),
				call("t-1", "hold", "allocate", "o-3", "sku-1", int64(6)), wait(m),
			},
			accounts: []hvAccountRef{{"on_hand", []string{"sku-1"}}, {"buyers", []string{}}},
			calls:    []hvCallRef{{"allocate", []string{"o-1", "sku-1"}}, {"allocate", []string{"o-2", "sku-1"}}, {"allocate", []string{"o-3", "sku-1"}}},
		},
	}
}

// bookDefs are the defs of vectors.json by case, as written there and as
// read.
func bookDefs(t *testing.T) (map[string]json.RawMessage, map[string]*chobotb.Def) {
	t.Helper()
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Books []struct {
			Case string          `json:"case"`
			Def  json.RawMessage `json:"def"`
		} `json:"books"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	raws, defs := map[string]json.RawMessage{}, map[string]*chobotb.Def{}
	for _, b := range raw.Books {
		var n neutralDef
		if err := json.Unmarshal(b.Def, &n); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, b.Def); err != nil {
			t.Fatal(err)
		}
		raws[b.Case], defs[b.Case] = compact.Bytes(), n.def(t)
	}
	return raws, defs
}

func kindIndex(t *testing.T, d *chobotb.Def, name string) int {
	t.Helper()
	i := slices.IndexFunc(d.Transfers, func(k chobotb.TransferKind) bool { return k.Name == name })
	if i < 0 {
		t.Fatalf("no transfer %s in %s", name, d.Book)
	}
	return i
}

func accountIndex(t *testing.T, d *chobotb.Def, name string) int {
	t.Helper()
	i := slices.IndexFunc(d.Accounts, func(k chobotb.AccountKind) bool { return k.Name == name })
	if i < 0 {
		t.Fatalf("no account %s in %s", name, d.Book)
	}
	return i
}

func u128(v chobotb.U128) string { return v.String() }

// makeCase runs a scenario on the model and makes every read of it.
func makeCase(t *testing.T, s hvScenario, raw json.RawMessage, d *chobotb.Def) hvCase {
	t.Helper()
	m := tbmodel.New()
	books := map[string]*chobotb.Book{}
	bookOf := func(tenant string) *chobotb.Book {
		if books[tenant] == nil {
			books[tenant] = chobotb.NewBook(m, d, tenant)
		}
		return books[tenant]
	}
	for i, st := range s.steps {
		var r chobo.Result
		var err error
		switch st.op {
		case "advance":
			m.Advance(st.d)
			continue
		case "do", "hold":
			r, err = bookOf(st.tenant).Call(ctx, kindIndex(t, d, st.kind), st.op, st.vals)
		case "post":
			r, err = bookOf(st.tenant).Post(ctx, kindIndex(t, d, st.kind), st.vals, st.amounts)
		case "void":
			r, err = bookOf(st.tenant).Void(ctx, kindIndex(t, d, st.kind), st.vals)
		}
		if err != nil || r.String() != "done" {
			t.Fatalf("%s step %d: %v %v", s.name, i+1, r, err)
		}
	}
	c := hvCase{Name: s.name, Book: s.book, Def: raw, Tenant: s.tenant, Accounts: []hvAccount{}, Transfers: []hvTransfer{},
		StatusChains: []hvStatusChain{}}
	all, err := m.QueryTransfers(ctx, chobotb.QueryFilter{Limit: 8189})
	if err != nil {
		t.Fatal(err)
	}
	var accountIDs []ids.ID
	seen := map[ids.ID]bool{}
	for _, r := range all {
		c.Transfers = append(c.Transfers, hvTransfer{transferOf(r), strconv.FormatUint(r.Timestamp, 10)})
		for _, a := range []ids.ID{r.DebitAccountID, r.CreditAccountID} {
			if !seen[a] {
				seen[a] = true
				accountIDs = append(accountIDs, a)
			}
		}
		if r.Flags&chobotb.TransferPending != 0 {
			c.StatusChains = append(c.StatusChains, hvStatusChain{r.ID.Hex(), askStatus(t, m, r)})
		}
	}
	found, err := m.LookupAccounts(ctx, accountIDs)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(found, func(a, b chobotb.Account) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	for _, a := range found {
		c.Accounts = append(c.Accounts, hvAccount{a.ID.Hex(), u128(a.DebitsPending), u128(a.DebitsPosted), u128(a.CreditsPending),
			u128(a.CreditsPosted), a.UserData128.Hex(), a.Ledger, a.Code, a.Flags, strconv.FormatUint(a.Timestamp, 10)})
	}
	c.Reads = scenarioReads(t, s, d)
	b := chobotb.NewBook(m, d, s.tenant)
	for i := range c.Reads {
		if q := c.Reads[i].Query; q != nil && q.After == "page" {
			// A page of a run reads on from the one before it.
			q.After = ""
			if prev := c.Reads[i-1]; prev.Query.After != "" || prev.Query.Limit == q.Limit {
				if prev.Statement != nil {
					q.After = prev.Statement.Next
				}
			}
		}
		answer(t, b, &c.Reads[i])
	}
	return c
}

// askStatus sends the model a status chain on a hold and answers its
// statuses; the chain fails, so nothing is written.
func askStatus(t *testing.T, m *tbmodel.Model, hold chobotb.Transfer) []chobotb.Status {
	t.Helper()
	v, f := ids.Transfer("status", "", "", "void", []string{hold.ID.Hex()}, 0), ids.Transfer("status", "", "", "fail", []string{hold.ID.Hex()}, 0)
	st, err := m.CreateTransfers(ctx, []chobotb.Transfer{
		{ID: v, PendingID: hold.ID, Flags: chobotb.TransferVoidPending | chobotb.TransferLinked},
		{ID: f, DebitAccountID: hold.ID, CreditAccountID: hold.ID, Amount: chobotb.U64(1), Ledger: hold.Ledger, Code: hold.Code},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// scenarioReads lists the reads of a scenario: for each account, its
// statement whole, either way, page by page, in a window of time and of
// one transfer kind, its balance at times around each of its entries
// and its open holds; each call's entries; the open holds of each kind
// and of any; and reads that fail before sending.
func scenarioReads(t *testing.T, s hvScenario, d *chobotb.Def) []hvRead {
	t.Helper()
	str := func(v string) *string { return &v }
	var out []hvRead
	start := time.Unix(0, int64(tbmodel.Start)).UTC()
	for _, a := range s.accounts {
		for _, newest := range []bool{false, true} {
			out = append(out, hvRead{Read: "statement", Account: str(a.kind), Args: a.args, Query: &hvQuery{Newest: newest, Transfers: []string{}}})
			// Pages of two, each after the one before: the afters are
			// filled in as the answers come (see answer).
			for range 4 {
				out = append(out, hvRead{Read: "statement", Account: str(a.kind), Args: a.args, Query: &hvQuery{Newest: newest, Limit: 2, Transfers: []string{}, After: "page"}})
			}
		}
		out = append(out, hvRead{Read: "statement", Account: str(a.kind), Args: a.args,
			Query: &hvQuery{From: rfc(start.Add(150 * time.Second)), To: rfc(start.Add(40 * time.Minute)), Transfers: []string{}}})
		out = append(out, hvRead{Read: "statement", Account: str(a.kind), Args: a.args,
			Query: &hvQuery{Newest: true, Transfers: []string{d.Transfers[len(d.Transfers)-1].Name}, Limit: 3}})
		for _, at := range []time.Duration{-time.Second, 30 * time.Second, 90 * time.Second, 270 * time.Second, 10 * time.Minute, 50 * time.Minute, 60 * time.Hour} {
			out = append(out, hvRead{Read: "balance_at", Account: str(a.kind), Args: a.args, At: rfc(start.Add(at))})
		}
		out = append(out, hvRead{Read: "holds", Account: str(a.kind), Args: a.args})
	}
	for _, c := range s.calls {
		out = append(out, hvRead{Read: "entries", Transfer: str(c.kind), Key: c.key})
	}
	out = append(out, hvRead{Read: "holds"})
	for _, k := range d.Transfers {
		if k.Pending {
			out = append(out, hvRead{Read: "holds", Transfer: str(k.Name)})
		}
	}
	a := s.accounts[0]
	for _, q := range []hvQuery{{Limit: 1001}, {Limit: -1}, {After: "12y3"}, {After: "012"}, {Transfers: []string{"nope"}}} {
		q := q
		if q.Transfers == nil {
			q.Transfers = []string{}
		}
		out = append(out, hvRead{Read: "statement", Account: str(a.kind), Args: a.args, Query: &q})
	}
	return out
}

// answer makes a read through b and writes its answer into r. A
// statement whose after is "page" reads on from the read before it.
func answer(t *testing.T, b *chobotb.Book, r *hvRead) {
	t.Helper()
	d := b.Def()
	var err error
	switch r.Read {
	case "statement":
		q := chobo.StatementQuery{Newest: r.Query.Newest, Transfers: r.Query.Transfers, Limit: r.Query.Limit, After: r.Query.After}
		if q.From, err = parseTime(r.Query.From); err != nil {
			t.Fatal(err)
		}
		if q.To, err = parseTime(r.Query.To); err != nil {
			t.Fatal(err)
		}
		var st chobo.Statement
		st, err = b.Statement(ctx, accountIndex(t, d, *r.Account), r.Args, q)
		if err == nil {
			r.Statement = &hvStatement{hvEntries(st.Entries), st.Next, st.More}
		}
	case "entries":
		var es []chobo.Entry
		es, err = b.CallEntries(ctx, kindIndex(t, d, *r.Transfer), keyValuesOf(r.Key))
		list := hvEntries(es)
		r.Entries = &list
	case "holds":
		account, kind := -1, -1
		if r.Account != nil {
			account = accountIndex(t, d, *r.Account)
		}
		if r.Transfer != nil {
			kind = kindIndex(t, d, *r.Transfer)
		}
		var hs []chobo.OpenHold
		hs, err = b.OpenHolds(ctx, account, r.Args, kind)
		list := hvHolds(hs)
		r.Holds = &list
	case "balance_at":
		var at time.Time
		if at, err = parseTime(r.At); err != nil {
			t.Fatal(err)
		}
		var bal chobo.Balance
		bal, err = b.BalanceAt(ctx, accountIndex(t, d, *r.Account), r.Args, at)
		if err == nil {
			r.Balance = hvBal(bal)
		}
	default:
		t.Fatalf("read %s", r.Read)
	}
	if err != nil {
		r.Error = true
		r.Statement, r.Entries, r.Holds, r.Balance = nil, nil, nil, nil
	}
}

func keyValuesOf(key []string) chobotb.Values {
	out := chobotb.Values{}
	for _, k := range key {
		out = append(out, k)
	}
	return out
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

func writeHistoryVectors(t *testing.T) []byte {
	t.Helper()
	raws, defs := bookDefs(t)
	var f hvFile
	for _, s := range hvScenarios() {
		if defs[s.book] == nil {
			t.Fatalf("vectors.json has no book %s", s.book)
		}
		c := makeCase(t, s, raws[s.book], defs[s.book])
		f.Cases = append(f.Cases, c)
	}
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// TestHistoryVectors writes the file from the reads on the model and
// finds it as written.
func TestHistoryVectors(t *testing.T) {
	data := writeHistoryVectors(t)
	if os.Getenv("CHOBO_BLESS") != "" {
		if err := os.WriteFile(historyVectorsFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(historyVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, data) {
		t.Errorf("%s is stale: CHOBO_BLESS=1 go test ./runtime/go/chobotb -run TestHistoryVectors rewrites it", historyVectorsFile)
	}
}

// replay is a client that answers from the file's records, as every
// runtime's replay of the file does.
type replay struct {
	t         *testing.T
	accounts  []chobotb.Account
	transfers []chobotb.Transfer // oldest first
	statuses  map[ids.ID][]chobotb.Status
}

func u128Of(t *testing.T, s string) chobotb.U128 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("not a 64-bit figure: %q", s)
	}
	return chobotb.U64(v)
}

func uint64Of(t *testing.T, s string) uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newReplay(t *testing.T, c hvCase) *replay {
	r := &replay{t: t, statuses: map[ids.ID][]chobotb.Status{}}
	for _, a := range c.Accounts {
		r.accounts = append(r.accounts, chobotb.Account{ID: idOf(t, a.ID), DebitsPending: u128Of(t, a.DebitsPending),
			DebitsPosted: u128Of(t, a.DebitsPosted), CreditsPending: u128Of(t, a.CreditsPending), CreditsPosted: u128Of(t, a.CreditsPosted),
			UserData128: idOf(t, a.UserData128), Ledger: a.Ledger, Code: a.Code, Flags: a.Flags, Timestamp: uint64Of(t, a.Timestamp)})
	}
	for _, x := range c.Transfers {
		r.transfers = append(r.transfers, chobotb.Transfer{ID: idOf(t, x.ID), DebitAccountID: idOf(t, x.DebitAccountID),
			CreditAccountID: idOf(t, x.CreditAccountID), Amount: u128Of(t, x.Amount), PendingID: idOf(t, x.PendingID),
			UserData128: idOf(t, x.UserData128), UserData64: uint64Of(t, x.UserData64), Timeout: x.Timeout, Ledger: x.Ledger,
			Code: x.Code, Flags: x.Flags, Timestamp: uint64Of(t, x.Timestamp)})
	}
	for _, s := range c.StatusChains {
		r.statuses[idOf(t, s.PendingID)] = s.Statuses
	}
	return r
}

var errWrites = errors.New("replay: a read sent a create_accounts")

func (r *replay) CreateAccounts(context.Context, []chobotb.Account) ([]chobotb.Status, error) {
	return nil, errWrites
}

// CreateTransfers answers status chains only: pairs of a void linked to
// a transfer from an account to itself.
func (r *replay) CreateTransfers(_ context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	var out []chobotb.Status
	for i := 0; i < len(ts); i += 2 {
		if i+1 >= len(ts) || ts[i].Flags != chobotb.TransferVoidPending|chobotb.TransferLinked || ts[i+1].DebitAccountID != ts[i+1].CreditAccountID {
			return nil, fmt.Errorf("replay: create_transfers of something other than status chains")
		}
		st, ok := r.statuses[ts[i].PendingID]
		if !ok {
			st = []chobotb.Status{chobotb.PendingTransferNotFound, chobotb.LinkedEventFailed}
		}
		out = append(out, st...)
	}
	return out, nil
}

func (r *replay) LookupAccounts(_ context.Context, list []ids.ID) ([]chobotb.Account, error) {
	var out []chobotb.Account
	for _, id := range list {
		if i := slices.IndexFunc(r.accounts, func(a chobotb.Account) bool { return a.ID == id }); i >= 0 {
			out = append(out, r.accounts[i])
		}
	}
	return out, nil
}

func (r *replay) LookupTransfers(_ context.Context, list []ids.ID) ([]chobotb.Transfer, error) {
	var out []chobotb.Transfer
	for _, id := range list {
		if i := slices.IndexFunc(r.transfers, func(x chobotb.Transfer) bool { return x.ID == id }); i >= 0 {
			out = append(out, r.transfers[i])
		}
	}
	return out, nil
}

func pick(all []chobotb.Transfer, keep func(chobotb.Transfer) bool, lo, hi uint64, limit uint32, reversed bool) []chobotb.Transfer {
	var out []chobotb.Transfer
	for _, x := range all {
		if keep(x) && x.Timestamp >= lo && (hi == 0 || x.Timestamp <= hi) {
			out = append(out, x)
		}
	}
	if reversed {
		slices.Reverse(out)
	}
	if uint32(len(out)) > limit {
		out = out[:limit]
	}
	return out
}

func (r *replay) GetAccountTransfers(_ context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	return pick(r.transfers, func(x chobotb.Transfer) bool {
		return ((f.Debits && x.DebitAccountID == f.AccountID) || (f.Credits && x.CreditAccountID == f.AccountID)) &&
			(f.Code == 0 || x.Code == f.Code)
	}, f.TimestampMin, f.TimestampMax, f.Limit, f.Reversed), nil
}

func (r *replay) QueryTransfers(_ context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	return pick(r.transfers, func(x chobotb.Transfer) bool {
		return (f.UserData128 == ids.ID{} || x.UserData128 == f.UserData128) && (f.UserData64 == 0 || x.UserData64 == f.UserData64) &&
			(f.Ledger == 0 || x.Ledger == f.Ledger) && (f.Code == 0 || x.Code == f.Code)
	}, f.TimestampMin, f.TimestampMax, f.Limit, f.Reversed), nil
}

// TestHistoryVectorsReplay makes every read of the file against the
// file's records alone, as the other runtimes do, and finds the file's
// answers: the file holds all a read needs.
func TestHistoryVectorsReplay(t *testing.T) {
	data, err := os.ReadFile(historyVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var f hvFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 3 {
		t.Fatalf("%d cases", len(f.Cases))
	}
	for _, c := range f.Cases {
		var n neutralDef
		if err := json.Unmarshal(c.Def, &n); err != nil {
			t.Fatal(err)
		}
		b := chobotb.NewBook(newReplay(t, c), n.def(t), c.Tenant)
		for i, want := range c.Reads {
			got := want
			got.Error, got.Statement, got.Entries, got.Holds, got.Balance = false, nil, nil, nil, nil
			answer(t, b, &got)
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if !bytes.Equal(g, w) {
				t.Errorf("%s read %d: replayed\n%s\nthe file has\n%s", c.Name, i, g, w)
			}
		}
	}
}
