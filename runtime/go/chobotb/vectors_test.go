package chobotb_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// vectorsFile is written by chobo's tests from this package and the
// compiler, and replayed by every runtime's unit tests: here, that it
// still says what this package does, without a server.
const vectorsFile = "../../testdata/vectors.json"

// The parts of the file this package answers for, as they are written
// there: ids in hex, figures that may pass 2^53 in decimal strings.
type vectors struct {
	TigerBeetle struct {
		MaxEvents        int               `json:"max_events"`
		DefaultTimeoutMs int64             `json:"default_timeout_ms"`
		AccountFlags     map[string]uint16 `json:"account_flags"`
		TransferFlags    map[string]uint16 `json:"transfer_flags"`
		NeverID          string            `json:"never_id"`
		Unbounded        string            `json:"unbounded"`
	} `json:"tigerbeetle"`
	Contents []struct {
		Values []json.RawMessage `json:"values"`
		JSON   string            `json:"json"`
	} `json:"contents"`
	Books []struct {
		Case  string     `json:"case"`
		Def   neutralDef `json:"def"`
		Calls []struct {
			Tenant  string            `json:"tenant"`
			Kind    int               `json:"kind"`
			Op      string            `json:"op"`
			Values  []json.RawMessage `json:"values"`
			Key     []string          `json:"key"`
			Amounts []string          `json:"amounts"`
			VoidID  string            `json:"void_id"`
			FailID  string            `json:"fail_id"`
			Plan    *vecPlan          `json:"plan"`
			Chain   []vecEvent        `json:"chain"`
			IDs     []string          `json:"ids"`
			Found   []vecTransfer     `json:"found"`
			Error   bool              `json:"error"`
		} `json:"calls"`
	} `json:"books"`
	Reads []struct {
		Chain []struct {
			Role   string `json:"role"`
			Reason string `json:"reason"`
		} `json:"chain"`
		Statuses []chobotb.Status `json:"statuses"`
		Outcome  string           `json:"outcome"`
		Reason   string           `json:"reason"`
		Error    *vecReadError    `json:"error"`
	} `json:"reads"`
	ReadStatuses []struct {
		Statuses []chobotb.Status `json:"statuses"`
		State    *string          `json:"state"`
		Error    *vecReadError    `json:"error"`
	} `json:"read_statuses"`
}

type neutralDef struct {
	Book  string `json:"book"`
	Units []struct {
		Name  string `json:"name"`
		Scale int    `json:"scale"`
	} `json:"units"`
	Accounts []struct {
		Name    string    `json:"name"`
		Unit    int       `json:"unit"`
		Params  int       `json:"params"`
		Outside bool      `json:"outside"`
		Lower   *vecBound `json:"lower"`
		Upper   *vecBound `json:"upper"`
	} `json:"accounts"`
	Transfers []struct {
		Name       string `json:"name"`
		Definition string `json:"definition"`
		Params     []struct {
			Name   string `json:"name"`
			Amount bool   `json:"amount"`
		} `json:"params"`
		Key     []int  `json:"key"`
		Pending bool   `json:"pending"`
		Timeout uint32 `json:"timeout"`
		Moves   []struct {
			Amount  int     `json:"amount"`
			Literal string  `json:"literal"`
			From    vecSide `json:"from"`
			To      vecSide `json:"to"`
		} `json:"moves"`
		PostAmounts []int `json:"post_amounts"`
	} `json:"transfers"`
}

type vecBound struct {
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

type vecSide struct {
	Account int   `json:"account"`
	Args    []int `json:"args"`
}

type vecAccount struct {
	ID          string `json:"id"`
	UserData128 string `json:"user_data_128"`
	Ledger      uint32 `json:"ledger"`
	Code        uint16 `json:"code"`
	Flags       uint16 `json:"flags"`
}

type vecTransfer struct {
	ID              string `json:"id"`
	DebitAccountID  string `json:"debit_account_id"`
	CreditAccountID string `json:"credit_account_id"`
	Amount          string `json:"amount"`
	PendingID       string `json:"pending_id"`
	UserData128     string `json:"user_data_128"`
	UserData64      string `json:"user_data_64"`
	Timeout         uint32 `json:"timeout"`
	Ledger          uint32 `json:"ledger"`
	Code            uint16 `json:"code"`
	Flags           uint16 `json:"flags"`
}

type vecEvent struct {
	Role     string      `json:"role"`
	Move     int         `json:"move"`
	Reason   string      `json:"reason"`
	Transfer vecTransfer `json:"transfer"`
}

type vecPlan struct {
	SameAccount bool          `json:"same_account"`
	Accounts    []vecAccount  `json:"accounts"`
	Openings    []vecTransfer `json:"openings"`
	Chain       []vecEvent    `json:"chain"`
}

type vecReadError struct {
	Kind   string         `json:"kind"`
	Event  *int           `json:"event"`
	Status chobotb.Status `json:"status"`
}

func readVectors(t *testing.T) *vectors {
	t.Helper()
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

func int64Of(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func idOf(t *testing.T, s string) ids.ID {
	t.Helper()
	var id ids.ID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(id) {
		t.Fatalf("not an id: %q", s)
	}
	copy(id[:], b)
	return id
}

// def is the Def the file describes; the file holds every field, so a
// field added to Def and not to the file leaves it zero, and the chains
// built from it differ.
func (n *neutralDef) def(t *testing.T) *chobotb.Def {
	t.Helper()
	d := &chobotb.Def{Book: n.Book}
	for _, u := range n.Units {
		d.Units = append(d.Units, chobotb.Unit{Name: u.Name, Scale: u.Scale})
	}
	bnd := func(b *vecBound) *chobotb.Bound {
		if b == nil {
			return nil
		}
		return &chobotb.Bound{Value: int64Of(t, b.Value), Reason: b.Reason}
	}
	for _, a := range n.Accounts {
		d.Accounts = append(d.Accounts, chobotb.AccountKind{Name: a.Name, Unit: a.Unit, Params: a.Params,
			Outside: a.Outside, Lower: bnd(a.Lower), Upper: bnd(a.Upper)})
	}
	for _, x := range n.Transfers {
		k := chobotb.TransferKind{Name: x.Name, Definition: x.Definition, Key: x.Key, Pending: x.Pending,
			Timeout: x.Timeout, PostAmounts: x.PostAmounts}
		for _, p := range x.Params {
			k.Params = append(k.Params, chobotb.Param{Name: p.Name, Amount: p.Amount})
		}
		for _, m := range x.Moves {
			k.Moves = append(k.Moves, chobotb.Move{Amount: m.Amount, Literal: int64Of(t, m.Literal),
				From: chobotb.Side{Account: m.From.Account, Args: m.From.Args}, To: chobotb.Side{Account: m.To.Account, Args: m.To.Args}})
		}
		d.Transfers = append(d.Transfers, k)
	}
	return d
}

// callValues reads a call's values: a string, or {"amount": "…"}.
func callValues(t *testing.T, raw []json.RawMessage) chobotb.Values {
	t.Helper()
	out := chobotb.Values{}
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, s)
			continue
		}
		var a struct {
			Amount string `json:"amount"`
		}
		if err := json.Unmarshal(r, &a); err != nil {
			t.Fatal(err)
		}
		out = append(out, int64Of(t, a.Amount))
	}
	return out
}

// amountOf writes an amount in decimal: a netting gives 2^64.
func amountOf(a chobotb.U128) string {
	n := new(big.Int).SetUint64(a.Hi)
	return n.Lsh(n, 64).Add(n, new(big.Int).SetUint64(a.Lo)).String()
}

func transferOf(x chobotb.Transfer) vecTransfer {
	return vecTransfer{x.ID.Hex(), x.DebitAccountID.Hex(), x.CreditAccountID.Hex(), amountOf(x.Amount), x.PendingID.Hex(),
		x.UserData128.Hex(), strconv.FormatUint(x.UserData64, 10), x.Timeout, x.Ledger, x.Code, x.Flags}
}

// recordOf reads a transfer record as the file writes it.
func recordOf(t *testing.T, v vecTransfer) chobotb.Transfer {
	t.Helper()
	a, ok := new(big.Int).SetString(v.Amount, 10)
	if !ok || a.Sign() < 0 || a.BitLen() > 128 {
		t.Fatalf("not an amount: %q", v.Amount)
	}
	lo := new(big.Int).And(a, new(big.Int).SetUint64(^uint64(0))).Uint64()
	u64, err := strconv.ParseUint(v.UserData64, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return chobotb.Transfer{ID: idOf(t, v.ID), DebitAccountID: idOf(t, v.DebitAccountID), CreditAccountID: idOf(t, v.CreditAccountID),
		Amount: chobotb.U128{Hi: new(big.Int).Rsh(a, 64).Uint64(), Lo: lo}, PendingID: idOf(t, v.PendingID),
		UserData128: idOf(t, v.UserData128), UserData64: u64, Timeout: v.Timeout, Ledger: v.Ledger, Code: v.Code, Flags: v.Flags}
}

// finishFound is the post or void a client sends for the hold whose
// records the lookup of its ids found.
func finishFound(t *testing.T, d *chobotb.Def, tenant string, kind int, op string, key []string, amounts []uint64, records []vecTransfer) ([]chobotb.Event, error) {
	t.Helper()
	found := map[ids.ID]chobotb.Transfer{}
	for _, r := range records {
		x := recordOf(t, r)
		found[x.ID] = x
	}
	lookups, err := d.Lookups(tenant, kind, key)
	if err != nil {
		return nil, err
	}
	hold, _, err := d.HoldOf(tenant, kind, lookups, found)
	if err != nil {
		return nil, err
	}
	return d.FinishOf(tenant, kind, op, key, amounts, hold)
}

func chainOf(chain []chobotb.Event) []vecEvent {
	var out []vecEvent
	for _, e := range chain {
		out = append(out, vecEvent{string(e.Role), e.Move, e.Reason, transferOf(e.Transfer)})
	}
	return out
}

func TestVectorConstants(t *testing.T) {
	v := readVectors(t).TigerBeetle
	if v.MaxEvents != chobotb.MaxEvents || v.DefaultTimeoutMs != chobotb.DefaultTimeout.Milliseconds() {
		t.Errorf("the file has %d events per request and %d ms; the runtime %d and %v", v.MaxEvents, v.DefaultTimeoutMs, chobotb.MaxEvents, chobotb.DefaultTimeout)
	}
	if want := (chobotb.U128{Hi: 1}); chobotb.Unbounded != want || v.Unbounded != "18446744073709551616" {
		t.Errorf("the file's unbounded opening is %s, the runtime's %s", v.Unbounded, chobotb.Unbounded)
	}
	if v.DefaultTimeoutMs != (30 * time.Second).Milliseconds() {
		t.Errorf("the default timeout is %d ms", v.DefaultTimeoutMs)
	}
	flags := map[string]uint16{
		"account linked": chobotb.AccountLinked, "account debits_must_not_exceed_credits": chobotb.AccountDebitsMustNotExceedCredits,
		"account credits_must_not_exceed_debits": chobotb.AccountCreditsMustNotExceedDebits,
		"transfer linked":                        chobotb.TransferLinked, "transfer pending": chobotb.TransferPending,
		"transfer post_pending": chobotb.TransferPostPending, "transfer void_pending": chobotb.TransferVoidPending,
	}
	got := map[string]uint16{}
	for k, f := range v.AccountFlags {
		got["account "+k] = f
	}
	for k, f := range v.TransferFlags {
		got["transfer "+k] = f
	}
	if !reflect.DeepEqual(got, flags) {
		t.Errorf("the file's flags %v; the runtime's %v", got, flags)
	}
	if v.NeverID != ids.Never().Hex() {
		t.Errorf("never id %s, want %s", v.NeverID, ids.Never().Hex())
	}
}

func TestVectorContents(t *testing.T) {
	v := readVectors(t)
	if len(v.Contents) < 5 {
		t.Fatalf("%d contents", len(v.Contents))
	}
	for _, c := range v.Contents {
		if got := chobotb.Content(callValues(t, c.Values)); got != c.JSON {
			t.Errorf("content %s, want %s", got, c.JSON)
		}
	}
}

// TestVectorChains builds every call of the file from its Def and
// compares every field of every event with what the file holds.
func TestVectorChains(t *testing.T) {
	v := readVectors(t)
	if len(v.Books) < 20 {
		t.Fatalf("%d books", len(v.Books))
	}
	calls := 0
	for _, b := range v.Books {
		d := b.Def.def(t)
		for i, c := range b.Calls {
			calls++
			fail := func(got, want any) {
				t.Helper()
				t.Errorf("%s, call %d (%s of %s, tenant %q):\n got %+v\nwant %+v", b.Case, i, c.Op, d.Transfers[c.Kind].Name, c.Tenant, got, want)
			}
			switch c.Op {
			case "do", "hold":
				p, err := d.Build(c.Tenant, c.Kind, c.Op, callValues(t, c.Values))
				if (err != nil) != c.Error {
					fail(err, c.Error)
					continue
				}
				if err != nil {
					continue
				}
				got := &vecPlan{SameAccount: p.SameAccount, Chain: chainOf(p.Chain)}
				for _, a := range p.Accounts {
					got.Accounts = append(got.Accounts, vecAccount{a.ID.Hex(), a.UserData128.Hex(), a.Ledger, a.Code, a.Flags})
				}
				for _, o := range p.Openings {
					got.Openings = append(got.Openings, transferOf(o))
				}
				if !samePlan(got, c.Plan) {
					fail(firstDiff(got, c.Plan))
				}
				// A Book, which works out the tenant's ids once, sends
				// the same records.
				if sent := sentByBook(t, d, c.Tenant, c.Kind, c.Op, callValues(t, c.Values)); !samePlan(sent, c.Plan) {
					fail(firstDiff(sent, c.Plan))
				}
			case "post", "void":
				var amounts []uint64
				for _, a := range c.Amounts {
					amounts = append(amounts, uint64(int64Of(t, a)))
				}
				var chain []chobotb.Event
				var err error
				if c.Found == nil {
					chain, err = d.Finish(c.Tenant, c.Kind, c.Op, c.Key, amounts)
				} else {
					// A hold laid out by another version: ended as the
					// records the lookup found say.
					chain, err = finishFound(t, d, c.Tenant, c.Kind, c.Op, c.Key, amounts, c.Found)
				}
				if err != nil || !reflect.DeepEqual(chainOf(chain), c.Chain) {
					fail(firstDiff(&vecPlan{Chain: chainOf(chain)}, &vecPlan{Chain: c.Chain}))
				}
			case "status":
				chain, err := d.StatusChain(c.Tenant, c.Kind, c.Key, idOf(t, c.VoidID), idOf(t, c.FailID))
				if err != nil || !reflect.DeepEqual(chainOf(chain), c.Chain) {
					fail(firstDiff(&vecPlan{Chain: chainOf(chain)}, &vecPlan{Chain: c.Chain}))
				}
			case "lookups":
				found, err := d.Lookups(c.Tenant, c.Kind, c.Key)
				var got []string
				for _, id := range found {
					got = append(got, id.Hex())
				}
				if err != nil || !reflect.DeepEqual(got, c.IDs) {
					fail(got, c.IDs)
				}
			default:
				t.Fatalf("%s: an operation %q", b.Case, c.Op)
			}
		}
	}
	t.Logf("%d calls of %d books", calls, len(v.Books))
}

// recorder is a Client that records what a Book sends and answers every
// event as created, but the key guard, which it answers as TigerBeetle
// does after a chain was written.
type recorder struct {
	accounts  []chobotb.Account
	transfers [][]chobotb.Transfer
}

func (r *recorder) CreateAccounts(_ context.Context, as []chobotb.Account) ([]chobotb.Status, error) {
	r.accounts = append(r.accounts, as...)
	st := make([]chobotb.Status, len(as))
	for i := range st {
		st[i] = chobotb.Created
	}
	return st, nil
}

func (r *recorder) CreateTransfers(_ context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	r.transfers = append(r.transfers, ts)
	st := make([]chobotb.Status, len(ts))
	for i, x := range ts {
		st[i] = chobotb.Created
		if x.PendingID == ids.Never() {
			st[i] = chobotb.ExistsWithDifferentFlags
		}
	}
	return st, nil
}

func (r *recorder) LookupAccounts(context.Context, []ids.ID) ([]chobotb.Account, error) {
	return nil, nil
}

func (r *recorder) LookupTransfers(context.Context, []ids.ID) ([]chobotb.Transfer, error) {
	return nil, nil
}

// sentByBook is what a new Book sends for one do or hold: its accounts,
// then its openings, then the chain, the last request. Only the records
// are sent, so the events' roles, moves and reasons are taken from the
// plan of Def.Build.
func sentByBook(t *testing.T, d *chobotb.Def, tenant string, kind int, op string, vals chobotb.Values) *vecPlan {
	t.Helper()
	r := &recorder{}
	res, err := chobotb.NewBook(r, d, tenant).Call(context.Background(), kind, op, vals)
	if err != nil {
		t.Fatalf("%s of %s: %v", op, d.Transfers[kind].Name, err)
	}
	got := &vecPlan{}
	if res.Reason == chobotb.ReasonSameAccount {
		got.SameAccount = true
		return got
	}
	plan, err := d.Build(tenant, kind, op, vals)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range r.accounts {
		got.Accounts = append(got.Accounts, vecAccount{a.ID.Hex(), a.UserData128.Hex(), a.Ledger, a.Code, a.Flags})
	}
	if len(r.transfers) == 0 {
		t.Fatalf("%s of %s sent no chain", op, d.Transfers[kind].Name)
	}
	for _, batch := range r.transfers[:len(r.transfers)-1] {
		for _, o := range batch {
			got.Openings = append(got.Openings, transferOf(o))
		}
	}
	chain := r.transfers[len(r.transfers)-1]
	for i, x := range chain {
		e := vecEvent{Transfer: transferOf(x)}
		if i < len(plan.Chain) {
			e.Role, e.Move, e.Reason = string(plan.Chain[i].Role), plan.Chain[i].Move, plan.Chain[i].Reason
		}
		got.Chain = append(got.Chain, e)
	}
	return got
}

// firstDiff picks the first record two plans differ in, so that a
// failure names one event rather than printing both plans whole.
func firstDiff(got, want *vecPlan) (any, any) {
	if want == nil || got.SameAccount != want.SameAccount {
		return got, want
	}
	for _, l := range [][2][]any{{anys(got.Accounts), anys(want.Accounts)}, {anys(got.Openings), anys(want.Openings)}, {anys(got.Chain), anys(want.Chain)}} {
		for i := range max(len(l[0]), len(l[1])) {
			if i >= len(l[0]) || i >= len(l[1]) {
				return fmt.Sprintf("%d records", len(l[0])), fmt.Sprintf("%d records", len(l[1]))
			}
			if !reflect.DeepEqual(l[0][i], l[1][i]) {
				return l[0][i], l[1][i]
			}
		}
	}
	return got, want
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// samePlan compares two plans, an empty list and none alike.
func samePlan(a, b *vecPlan) bool {
	if b == nil {
		return false
	}
	return a.SameAccount == b.SameAccount && len(a.Accounts) == len(b.Accounts) && len(a.Openings) == len(b.Openings) &&
		len(a.Chain) == len(b.Chain) && (len(a.Accounts) == 0 || reflect.DeepEqual(a.Accounts, b.Accounts)) &&
		(len(a.Openings) == 0 || reflect.DeepEqual(a.Openings, b.Openings)) && (len(a.Chain) == 0 || reflect.DeepEqual(a.Chain, b.Chain))
}

func TestVectorReads(t *testing.T) {
	v := readVectors(t)
	if len(v.Reads) < 100 || len(v.ReadStatuses) < 50 {
		t.Fatalf("%d reads and %d status reads", len(v.Reads), len(v.ReadStatuses))
	}
	for i, r := range v.Reads {
		var chain []chobotb.Event
		for _, e := range r.Chain {
			chain = append(chain, chobotb.Event{Role: chobotb.Role(e.Role), Reason: e.Reason})
		}
		res, err := chobotb.Read(chain, r.Statuses)
		var got *vecReadError
		var u *chobotb.UnexpectedError
		switch {
		case errors.As(err, &u):
			got = &vecReadError{Kind: "unexpected", Event: &u.Event, Status: u.Status}
		case err != nil:
			got = &vecReadError{Kind: "count"}
		}
		if !reflect.DeepEqual(got, r.Error) || (err == nil && (string(res.Outcome) != r.Outcome || res.Reason != r.Reason)) {
			t.Errorf("read %d, %v: got %+v, %v; want %s %s, %+v", i, r.Statuses, res, err, r.Outcome, r.Reason, r.Error)
		}
	}
	for i, r := range v.ReadStatuses {
		state, err := chobotb.ReadStatus(r.Statuses)
		var want string
		if r.State != nil {
			want = *r.State
		}
		if (err != nil) != (r.Error != nil) || string(state) != want {
			t.Errorf("status read %d, %v: got %q, %v; want %q, %+v", i, r.Statuses, state, err, want, r.Error)
		}
	}
}
