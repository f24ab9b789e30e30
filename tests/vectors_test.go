package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/tests/golden"
)

// vectorsFile is what every runtime's unit tests replay without a server:
// what the Go implementation answers, written here from it.
const vectorsFile = "../runtime/testdata/vectors.json"

// TestVectors writes the ids, constants, chains and answers of the Go
// implementation into vectorsFile: the golden switch rewrites the file,
// and a stale one fails.
func TestVectors(t *testing.T) {
	v := vectors{
		Limits:      vecLimits{book.MaxTenant, book.MaxTexts, book.TextOverhead},
		Postgres:    postgresConstants(),
		TigerBeetle: tigerBeetleConstants(),
	}
	if v.Limits != (vecLimits{chobo.MaxTenant, chobo.MaxTexts, chobo.TextOverhead}) {
		t.Errorf("the Go runtime's limits %d, %d, %d are not the book's %+v", chobo.MaxTenant, chobo.MaxTexts, chobo.TextOverhead, v.Limits)
	}
	for _, x := range ids.Vectors {
		v.IDs = append(v.IDs, vecID{x.Role, append([]string{}, x.Parts...), x.Hex})
	}
	for _, u := range []vecLedger{{Unit: "pcs"}, {Unit: "USD", Scale: 2}, {Unit: "円"}, {}} {
		u.Ledger = ids.Ledger(u.Unit, u.Scale)
		v.Ledgers = append(v.Ledgers, u)
	}
	for _, c := range []vecCode{{"inventory", "account", "stock", 0}, {"在庫管理", "transfer", "引当", 0}, {"b", "sink", "pcs", 0}} {
		c.Code = ids.Code(c.Book, c.Category, c.Name)
		v.Codes = append(v.Codes, c)
	}
	for _, s := range []string{"o-1", "", "在庫", "<a&b>", `q"\`, "\b\f\n\r\t\x01\x1f\x7f", "\u2028\u2029", "😀", "é\u0301"} {
		vals := chobotb.Values{s, int64(3), "x"}
		v.Contents = append(v.Contents, vecContent{vecValues(vals), chobotb.Content(vals)})
	}
	extremes := chobotb.Values{int64(0), int64(9223372036854775807)}
	v.Contents = append(v.Contents, vecContent{vecValues(extremes), chobotb.Content(extremes)})

	for _, c := range cases(t) {
		d := tigerBeetleDef(t, c)
		if d == nil {
			continue
		}
		v.Books = append(v.Books, bookVectors(t, c.Name, d))
	}
	if len(v.Books) < 20 {
		t.Fatalf("only %d cases build for TigerBeetle", len(v.Books))
	}
	v.Reads, v.ReadStatuses = readVectors(), readStatusVectors()

	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := layoutJSON(&out, raw, ""); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	if out.Len() > 4<<20 {
		t.Errorf("the vectors take %d bytes; keep them under 4 MiB", out.Len())
	}
	golden.Check(t, vectorsFile, out.Bytes())
}

// tigerBeetleDef is the case's book as the chain builder reads it, or nil
// when the book does not go to TigerBeetle (it has errors, or a chain that
// does not fit one request).
func tigerBeetleDef(t *testing.T, c testCase) *chobotb.Def {
	t.Helper()
	src, err := os.ReadFile(c.path())
	if err != nil {
		t.Fatal(err)
	}
	res := check.Errors(c.path(), src)
	if res.Book == nil || tigerbeetle.Check(res.Book).Errors() > 0 {
		return nil
	}
	return tigerbeetle.Def(res.Book)
}

// The file's shape. Every figure that may pass 2^53 is a decimal string,
// so that a runtime reads it with its JSON parser as it comes.
type vectors struct {
	IDs          []vecID         `json:"ids"`
	Ledgers      []vecLedger     `json:"ledgers"`
	Codes        []vecCode       `json:"codes"`
	Contents     []vecContent    `json:"contents"`
	Limits       vecLimits       `json:"limits"`
	Postgres     vecPostgres     `json:"postgres"`
	TigerBeetle  vecTigerBeetle  `json:"tigerbeetle"`
	Books        []vecBook       `json:"books"`
	Reads        []vecRead       `json:"reads"`
	ReadStatuses []vecReadStatus `json:"read_statuses"`
}

type vecID struct {
	Role  string   `json:"role"`
	Parts []string `json:"parts"`
	Hex   string   `json:"hex"`
}

type vecLedger struct {
	Unit   string `json:"unit"`
	Scale  int    `json:"scale"`
	Ledger uint32 `json:"ledger"`
}

type vecCode struct {
	Book     string `json:"book"`
	Category string `json:"category"`
	Name     string `json:"name"`
	Code     uint16 `json:"code"`
}

// vecAmount is an amount among a call's values: a string in an object of
// its own, told apart from a text value.
type vecAmount struct {
	Amount string `json:"amount"`
}

type vecContent struct {
	Values []any  `json:"values"`
	JSON   string `json:"json"`
}

type vecLimits struct {
	MaxTenant    int `json:"max_tenant"`
	MaxTexts     int `json:"max_texts"`
	TextOverhead int `json:"text_overhead"`
}

type vecPostgres struct {
	MaxAttempts int `json:"max_attempts"`
	// BackoffMs is the longest wait before attempt n+1, for n from 0,
	// far enough to reach the figure it stays at.
	BackoffMs []int64           `json:"backoff_ms"`
	SQLStates map[string]string `json:"sqlstates"`
	Retryable []string          `json:"retryable"`
}

type vecTigerBeetle struct {
	MaxEvents        int               `json:"max_events"`
	DefaultTimeoutMs int64             `json:"default_timeout_ms"`
	AccountFlags     map[string]uint16 `json:"account_flags"`
	TransferFlags    map[string]uint16 `json:"transfer_flags"`
	NeverID          string            `json:"never_id"`
	// Unbounded is what a floor or room of an account made before its
	// bound opens with, as a decimal string.
	Unbounded string `json:"unbounded"`
}

func postgresConstants() vecPostgres {
	p := vecPostgres{MaxAttempts: chobopg.MaxAttempts, SQLStates: map[string]string{
		"serialization_failure": chobopg.SerializationFailure,
		"deadlock_detected":     chobopg.DeadlockDetected,
		"in_failed_transaction": chobopg.InFailedTransaction,
		"bounds_changed":        chobopg.BoundsChanged,
	}}
	for n := 0; n < 10; n++ {
		p.BackoffMs = append(p.BackoffMs, chobopg.Backoff(n).Milliseconds())
	}
	for _, code := range []string{chobopg.SerializationFailure, chobopg.DeadlockDetected, chobopg.InFailedTransaction, chobopg.BoundsChanged, "23505", "22023"} {
		if chobopg.Retryable(code) {
			p.Retryable = append(p.Retryable, code)
		}
	}
	return p
}

func tigerBeetleConstants() vecTigerBeetle {
	return vecTigerBeetle{
		MaxEvents:        chobotb.MaxEvents,
		Unbounded:        decimal128(chobotb.Unbounded),
		DefaultTimeoutMs: chobotb.DefaultTimeout.Milliseconds(),
		AccountFlags: map[string]uint16{
			"linked":                         chobotb.AccountLinked,
			"debits_must_not_exceed_credits": chobotb.AccountDebitsMustNotExceedCredits,
			"credits_must_not_exceed_debits": chobotb.AccountCreditsMustNotExceedDebits,
		},
		TransferFlags: map[string]uint16{
			"linked":       chobotb.TransferLinked,
			"pending":      chobotb.TransferPending,
			"post_pending": chobotb.TransferPostPending,
			"void_pending": chobotb.TransferVoidPending,
		},
		NeverID: ids.Never().Hex(),
	}
}

// vecValues writes a call's values: strings as they are, amounts as vecAmount.
func vecValues(vals chobotb.Values) []any {
	out := make([]any, len(vals))
	for i, x := range vals {
		if n, ok := x.(int64); ok {
			out[i] = vecAmount{strconv.FormatInt(n, 10)}
		} else {
			out[i] = x
		}
	}
	return out
}

// The Def, as chobotb.Def holds it, in snake_case.
type vecDef struct {
	Book      string        `json:"book"`
	Units     []vecUnit     `json:"units"`
	Accounts  []vecAccKind  `json:"accounts"`
	Transfers []vecTranKind `json:"transfers"`
}

type vecUnit struct {
	Name  string `json:"name"`
	Scale int    `json:"scale"`
}

type vecBound struct {
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

type vecAccKind struct {
	Name    string    `json:"name"`
	Unit    int       `json:"unit"`
	Params  int       `json:"params"`
	Outside bool      `json:"outside"`
	Lower   *vecBound `json:"lower"`
	Upper   *vecBound `json:"upper"`
}

type vecParam struct {
	Name   string `json:"name"`
	Amount bool   `json:"amount"`
}

type vecSide struct {
	Account int   `json:"account"`
	Args    []int `json:"args"`
}

type vecMove struct {
	Amount  int     `json:"amount"`
	Literal string  `json:"literal"`
	From    vecSide `json:"from"`
	To      vecSide `json:"to"`
}

type vecTranKind struct {
	Name        string     `json:"name"`
	Definition  string     `json:"definition"`
	Params      []vecParam `json:"params"`
	Key         []int      `json:"key"`
	Pending     bool       `json:"pending"`
	Timeout     uint32     `json:"timeout"`
	Moves       []vecMove  `json:"moves"`
	PostAmounts []int      `json:"post_amounts"`
}

func neutralDef(d *chobotb.Def) vecDef {
	out := vecDef{Book: d.Book, Units: []vecUnit{}, Accounts: []vecAccKind{}, Transfers: []vecTranKind{}}
	for _, u := range d.Units {
		out.Units = append(out.Units, vecUnit{u.Name, u.Scale})
	}
	bound := func(b *chobotb.Bound) *vecBound {
		if b == nil {
			return nil
		}
		return &vecBound{strconv.FormatInt(b.Value, 10), b.Reason}
	}
	ints := func(xs []int) []int { return append([]int{}, xs...) }
	for _, a := range d.Accounts {
		out.Accounts = append(out.Accounts, vecAccKind{a.Name, a.Unit, a.Params, a.Outside, bound(a.Lower), bound(a.Upper)})
	}
	for _, k := range d.Transfers {
		t := vecTranKind{Name: k.Name, Definition: k.Definition, Params: []vecParam{}, Key: ints(k.Key), Pending: k.Pending,
			Timeout: k.Timeout, Moves: []vecMove{}, PostAmounts: ints(k.PostAmounts)}
		for _, p := range k.Params {
			t.Params = append(t.Params, vecParam{p.Name, p.Amount})
		}
		for _, m := range k.Moves {
			t.Moves = append(t.Moves, vecMove{m.Amount, strconv.FormatInt(m.Literal, 10),
				vecSide{m.From.Account, ints(m.From.Args)}, vecSide{m.To.Account, ints(m.To.Args)}})
		}
		out.Transfers = append(out.Transfers, t)
	}
	return out
}

// The records a runtime sends, every field chobo sets; ids as 32 hex
// digits, amounts and user_data_64 in decimal.
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

func decimal128(a chobotb.U128) string {
	n := new(big.Int).SetUint64(a.Hi)
	n.Lsh(n, 64).Add(n, new(big.Int).SetUint64(a.Lo))
	return n.String()
}

func neutralTransfer(t chobotb.Transfer) vecTransfer {
	return vecTransfer{t.ID.Hex(), t.DebitAccountID.Hex(), t.CreditAccountID.Hex(), decimal128(t.Amount), t.PendingID.Hex(),
		t.UserData128.Hex(), strconv.FormatUint(t.UserData64, 10), t.Timeout, t.Ledger, t.Code, t.Flags}
}

func neutralChain(chain []chobotb.Event) []vecEvent {
	out := []vecEvent{}
	for _, e := range chain {
		out = append(out, vecEvent{string(e.Role), e.Move, e.Reason, neutralTransfer(e.Transfer)})
	}
	return out
}

// vecBook is a case's Def and what the Go chain builder makes of calls of
// each of its transfer kinds.
type vecBook struct {
	Case  string    `json:"case"`
	Def   vecDef    `json:"def"`
	Calls []vecCall `json:"calls"`
}

// vecCall is one call and what it sends. Op is do or hold (Values, then
// Plan or Error), post or void (Key, Amounts and, for a hold laid out by
// another version, Found, then Chain), status (Key,
// VoidID, FailID, then Chain) or lookups (Key, then IDs). Error is set
// when the builder refuses the call as malformed.
type vecCall struct {
	Tenant  string     `json:"tenant"`
	Kind    int        `json:"kind"`
	Op      string     `json:"op"`
	Values  []any      `json:"values,omitempty"`
	Key     []string   `json:"key,omitempty"`
	Amounts []string   `json:"amounts,omitempty"`
	VoidID  string     `json:"void_id,omitempty"`
	FailID  string     `json:"fail_id,omitempty"`
	Plan    *vecPlan   `json:"plan,omitempty"`
	Chain   []vecEvent `json:"chain,omitempty"`
	IDs     []string   `json:"ids,omitempty"`
	// Found, on a post or void, are the records a lookup of the hold's
	// ids found, made by a hold laid out otherwise (relaid): the chain is
	// the one that ends them.
	Found []vecTransfer `json:"found,omitempty"`
	Error bool          `json:"error,omitempty"`
}

type vecPlan struct {
	SameAccount bool          `json:"same_account"`
	Accounts    []vecAccount  `json:"accounts"`
	Openings    []vecTransfer `json:"openings"`
	Chain       []vecEvent    `json:"chain"`
}

// The tenants every kind is called for: the default one, and another
// whose ids must all differ.
var vecTenants = []string{"", "テナント-2"}

// callValues are three calls' values of a kind, each the same for every
// run: distinct strings and small amounts; other strings with the largest
// amount there is; and one string for every text parameter (so that a
// move between two accounts of one kind is from an account to itself)
// with amounts of 0.
func callValues(k *chobotb.TransferKind) []chobotb.Values {
	var out []chobotb.Values
	for set := 0; set < 3; set++ {
		vals := make(chobotb.Values, len(k.Params))
		for i, p := range k.Params {
			switch {
			case p.Amount && set == 0:
				vals[i] = int64(3 + 2*i)
			case p.Amount && set == 1:
				vals[i] = int64(9223372036854775807)
			case p.Amount:
				vals[i] = int64(0)
			case set == 2:
				vals[i] = "同じ"
			default:
				vals[i] = fmt.Sprintf("%s-%d", p.Name, set+1)
			}
		}
		out = append(out, vals)
	}
	return out
}

func bookVectors(t *testing.T, name string, d *chobotb.Def) vecBook {
	t.Helper()
	b := vecBook{Case: name, Def: neutralDef(d)}
	voidID, failID := ids.Sum("vectors", "status_void"), ids.Sum("vectors", "status_fail")
	for kind := range d.Transfers {
		k := &d.Transfers[kind]
		op := "do"
		if k.Pending {
			op = "hold"
		}
		for set, vals := range callValues(k) {
			tenants := vecTenants
			if set > 0 {
				tenants = tenants[:1]
			}
			for _, tenant := range tenants {
				c := vecCall{Tenant: tenant, Kind: kind, Op: op, Values: vecValues(vals)}
				p, err := d.Build(tenant, kind, op, vals)
				if err != nil {
					c.Error = true
				} else {
					c.Plan = &vecPlan{SameAccount: p.SameAccount, Accounts: []vecAccount{}, Openings: []vecTransfer{}, Chain: neutralChain(p.Chain)}
					for _, a := range p.Accounts {
						c.Plan.Accounts = append(c.Plan.Accounts, vecAccount{a.ID.Hex(), a.UserData128.Hex(), a.Ledger, a.Code, a.Flags})
					}
					for _, o := range p.Openings {
						c.Plan.Openings = append(c.Plan.Openings, neutralTransfer(o))
					}
				}
				b.Calls = append(b.Calls, c)
				if set > 0 || !k.Pending {
					continue
				}
				key := d.KeyValues(kind, vals)
				// A post of the whole hold sends what each move holds; a
				// partial one, here, 1 of each.
				whole, ones := make([]uint64, len(k.Moves)), make([]uint64, len(k.Moves))
				for i, m := range k.Moves {
					whole[i], ones[i] = uint64(m.Literal), 1
					if m.Amount >= 0 {
						whole[i] = uint64(vals[m.Amount].(int64))
					}
				}
				for _, f := range []struct {
					op      string
					amounts []uint64
				}{{"post", whole}, {"post", ones}, {"void", nil}} {
					chain, err := d.Finish(tenant, kind, f.op, key, f.amounts)
					if err != nil {
						t.Fatalf("%s: %s of %s: %v", name, f.op, k.Name, err)
					}
					c := vecCall{Tenant: tenant, Kind: kind, Op: f.op, Key: key, Chain: neutralChain(chain)}
					for _, a := range f.amounts {
						c.Amounts = append(c.Amounts, strconv.FormatUint(a, 10))
					}
					b.Calls = append(b.Calls, c)
				}
				chain, err := d.StatusChain(tenant, kind, key, voidID, failID)
				if err != nil {
					t.Fatalf("%s: status of %s: %v", name, k.Name, err)
				}
				b.Calls = append(b.Calls, vecCall{Tenant: tenant, Kind: kind, Op: "status", Key: key,
					VoidID: voidID.Hex(), FailID: failID.Hex(), Chain: neutralChain(chain)})
				found, err := d.Lookups(tenant, kind, key)
				if err != nil {
					t.Fatalf("%s: lookups of %s: %v", name, k.Name, err)
				}
				c = vecCall{Tenant: tenant, Kind: kind, Op: "lookups", Key: key}
				for _, id := range found {
					c.IDs = append(c.IDs, id.Hex())
				}
				b.Calls = append(b.Calls, c)
				if tenant == "" {
					b.Calls = append(b.Calls, relaidFinishes(t, name, d, kind, vals, ones)...)
				}
			}
		}
	}
	return b
}

// relaid is d with every bound changed as far as a new version may change
// it and its chains be laid out otherwise: a lower bound of 0 raised to 1
// and one above 0 lowered to 0 (a probe added or removed), one below 0
// removed (a floor), an upper bound removed and one added where there was
// none (a room).
func relaid(d *chobotb.Def) *chobotb.Def {
	out := &chobotb.Def{Book: d.Book, Units: d.Units, Transfers: d.Transfers, Accounts: slices.Clone(d.Accounts)}
	for i := range out.Accounts {
		a := &out.Accounts[i]
		switch l := a.Lower; {
		case l != nil && l.Value == 0:
			a.Lower = &chobotb.Bound{Value: 1, Reason: l.Reason}
		case l != nil && l.Value > 0:
			a.Lower = &chobotb.Bound{Value: 0, Reason: l.Reason}
		case l != nil:
			a.Lower = nil
		}
		if a.Upper != nil {
			a.Upper = nil
		} else if !a.Outside {
			a.Upper = &chobotb.Bound{Value: 1000, Reason: "relaid"}
		}
	}
	return out
}

// relaidFinishes are a partial post and a void of a hold of the kind made
// under the relaid layout of the book and ended under d's: the records
// its lookup finds (its chain as sent, which TigerBeetle keeps as it is,
// the key guard aside), and the chain that ends them.
func relaidFinishes(t *testing.T, name string, d *chobotb.Def, kind int, vals chobotb.Values, ones []uint64) []vecCall {
	t.Helper()
	p, err := relaid(d).Build("", kind, "hold", vals)
	if err != nil || p.SameAccount {
		return nil
	}
	var found []vecTransfer
	records := map[ids.ID]chobotb.Transfer{}
	for _, e := range p.Chain {
		if e.Role != chobotb.RoleKeyGuard {
			found = append(found, neutralTransfer(e.Transfer))
			records[e.ID] = e.Transfer
		}
	}
	key := d.KeyValues(kind, vals)
	lookups, err := d.Lookups("", kind, key)
	if err != nil {
		t.Fatal(err)
	}
	hold, _, err := d.HoldOf("", kind, lookups, records)
	if err != nil {
		t.Fatalf("%s: the relaid hold of %s: %v", name, d.Transfers[kind].Name, err)
	}
	var out []vecCall
	for _, f := range []struct {
		op      string
		amounts []uint64
	}{{"post", ones}, {"void", nil}} {
		chain, err := d.FinishOf("", kind, f.op, key, f.amounts, hold)
		if err != nil {
			t.Fatalf("%s: %s of the relaid hold of %s: %v", name, f.op, d.Transfers[kind].Name, err)
		}
		c := vecCall{Kind: kind, Op: f.op, Key: key, Found: found, Chain: neutralChain(chain)}
		for _, a := range f.amounts {
			c.Amounts = append(c.Amounts, strconv.FormatUint(a, 10))
		}
		out = append(out, c)
	}
	return out
}

// vecRead is a chain (only what the reader looks at: each event's role and
// reason), the statuses TigerBeetle could answer for it, and what Read
// makes of them: an outcome, with a reason when refused, or an error.
type vecRead struct {
	Chain    []vecReadEvent `json:"chain"`
	Statuses []string       `json:"statuses"`
	Outcome  string         `json:"outcome,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Error    *vecReadError  `json:"error,omitempty"`
}

type vecReadEvent struct {
	Role   string `json:"role"`
	Reason string `json:"reason"`
}

// vecReadError is a status the chains should never meet (kind
// "unexpected", at Event with Status) or statuses that are not one per
// event (kind "count").
type vecReadError struct {
	Kind   string `json:"kind"`
	Event  *int   `json:"event,omitempty"`
	Status string `json:"status,omitempty"`
}

type vecReadStatus struct {
	Statuses []string      `json:"statuses"`
	State    *string       `json:"state"`
	Error    *vecReadError `json:"error,omitempty"`
}

// readStatuses are the statuses a reader is shown: every one chobo names,
// and some it never meets, which TigerBeetle's clients know by number.
var readStatuses = []chobotb.Status{
	chobotb.Created, chobotb.LinkedEventFailed, chobotb.Exists, chobotb.IDAlreadyFailed,
	chobotb.ExceedsCredits, chobotb.ExceedsDebits, chobotb.AccountsMustBeDifferent,
	chobotb.PendingTransferNotFound, chobotb.PendingTransferAlreadyPosted, chobotb.PendingTransferAlreadyVoided,
	chobotb.PendingTransferExpired, chobotb.ExceedsPendingTransferAmount,
	chobotb.ExistsWithDifferentFlags, chobotb.ExistsWithDifferentAmount, chobotb.ExistsWithDifferentUserData128,
	chobotb.ExistsWithDifferentUserData64, chobotb.ExistsWithDifferentLedger, chobotb.ExistsWithDifferentCode,
	chobotb.ExistsWithDifferentPendingID, chobotb.ExistsWithDifferentTimeout, chobotb.ExistsWithDifferentDebitAccount,
	chobotb.ExistsWithDifferentCreditAccount, chobotb.DebitAccountNotFound, chobotb.CreditAccountNotFound,
	"exists_with_different_user_data_32", "overflows_credits", "pending_transfer_not_pending",
}

// readChains are chains of the shapes the builder makes, as the reader
// sees them: a move no bound refuses; a move and the room it takes from;
// a guarded chain of probe, floor and room; a post of two moves; a status
// chain.
var readChains = [][]chobotb.Event{
	{{Role: chobotb.RoleMove}},
	{{Role: chobotb.RoleMove}, {Role: chobotb.RoleRoomTake, Reason: "full"}},
	{{Role: chobotb.RoleMove, Reason: "low"}, {Role: chobotb.RoleProbe, Reason: "low"}, {Role: chobotb.RoleProbeVoid},
		{Role: chobotb.RoleMove, Move: 2}, {Role: chobotb.RoleFloorTake, Move: 2, Reason: "limit"},
		{Role: chobotb.RoleRoomTake, Move: 2, Reason: "full"}, {Role: chobotb.RoleKeyGuard}},
	{{Role: chobotb.RolePost, Move: 1}, {Role: chobotb.RolePost, Move: 2}},
}

func readOne(chain []chobotb.Event, statuses []chobotb.Status) vecRead {
	r := vecRead{Chain: []vecReadEvent{}, Statuses: []string{}}
	for _, e := range chain {
		r.Chain = append(r.Chain, vecReadEvent{string(e.Role), e.Reason})
	}
	for _, s := range statuses {
		r.Statuses = append(r.Statuses, string(s))
	}
	res, err := chobotb.Read(chain, statuses)
	r.Error = readError(err)
	if err == nil {
		r.Outcome, r.Reason = string(res.Outcome), res.Reason
	}
	return r
}

func readError(err error) *vecReadError {
	if err == nil {
		return nil
	}
	if u, ok := err.(*chobotb.UnexpectedError); ok {
		return &vecReadError{Kind: "unexpected", Event: &u.Event, Status: string(u.Status)}
	}
	return &vecReadError{Kind: "count"}
}

// readVectors shows each chain every status at each of its events, the
// others linked_event_failed; a guarded chain with each status of its
// guard too; then the chains that are all created, or created but for
// one linked_event_failed, and statuses of the wrong count.
func readVectors() []vecRead {
	var out []vecRead
	fill := func(n int, s chobotb.Status) []chobotb.Status {
		st := make([]chobotb.Status, n)
		for i := range st {
			st[i] = s
		}
		return st
	}
	for _, chain := range readChains {
		n := len(chain)
		body := n
		guarded := chain[n-1].Role == chobotb.RoleKeyGuard
		if guarded {
			body = n - 1
		}
		for i := 0; i < body; i++ {
			for _, s := range readStatuses {
				st := fill(n, chobotb.LinkedEventFailed)
				st[i] = s
				if guarded {
					st[n-1] = chobotb.PendingTransferNotFound
				}
				out = append(out, readOne(chain, st))
			}
		}
		ok := fill(n, chobotb.Created)
		if guarded {
			for _, s := range readStatuses {
				st := fill(n, chobotb.Created)
				st[n-1] = s
				out = append(out, readOne(chain, st))
			}
		} else {
			out = append(out, readOne(chain, ok))
		}
		if body > 1 {
			st := fill(n, chobotb.Created)
			st[body-1] = chobotb.LinkedEventFailed
			if guarded {
				st[n-1] = chobotb.ExistsWithDifferentFlags
			}
			out = append(out, readOne(chain, st))
		}
		out = append(out, readOne(chain, ok[1:]), readOne(chain, append(ok, chobotb.Created)))
	}
	return out
}

// readStatusVectors shows ReadStatus every pair of the statuses a status
// chain may get, and some that it may not, and lists of the wrong length.
func readStatusVectors() []vecReadStatus {
	some := []chobotb.Status{chobotb.Created, chobotb.LinkedEventFailed, chobotb.AccountsMustBeDifferent,
		chobotb.PendingTransferNotFound, chobotb.PendingTransferAlreadyPosted, chobotb.PendingTransferAlreadyVoided,
		chobotb.PendingTransferExpired, chobotb.Exists, chobotb.ExceedsCredits, chobotb.IDAlreadyFailed}
	one := func(statuses ...chobotb.Status) vecReadStatus {
		r := vecReadStatus{Statuses: []string{}}
		for _, s := range statuses {
			r.Statuses = append(r.Statuses, string(s))
		}
		state, err := chobotb.ReadStatus(statuses)
		if err != nil {
			r.Error = &vecReadError{Kind: "unexpected"}
			if len(statuses) != 2 {
				r.Error.Kind = "count"
			}
		} else if state != "" {
			s := string(state)
			r.State = &s
		}
		return r
	}
	var out []vecReadStatus
	for _, a := range some {
		for _, b := range some {
			out = append(out, one(a, b))
		}
	}
	return append(out, one(chobotb.PendingTransferNotFound), one(chobotb.LinkedEventFailed, chobotb.AccountsMustBeDifferent, chobotb.Created))
}

// layoutJSON writes compact JSON raw indented, but with every object or
// list that holds no object or list on one line: a transfer is one line,
// and the file stays small enough to read and to diff.
func layoutJSON(w *bytes.Buffer, raw json.RawMessage, indent string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		w.Write(raw)
		return nil
	}
	type member struct {
		key   json.RawMessage
		value json.RawMessage
	}
	var members []member
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return err
	}
	leaf := true
	for dec.More() {
		var m member
		if raw[0] == '{' {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			m.key, _ = json.Marshal(key)
		}
		if err := dec.Decode(&m.value); err != nil {
			return err
		}
		if c := m.value[0]; c == '{' || c == '[' {
			leaf = false
		}
		members = append(members, m)
	}
	if leaf || len(members) == 0 {
		return json.Compact(w, raw)
	}
	open, end := raw[0], byte('}')
	if open == '[' {
		end = ']'
	}
	w.WriteByte(open)
	inner := indent + "  "
	for i, m := range members {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n" + inner)
		if m.key != nil {
			w.Write(m.key)
			w.WriteString(": ")
		}
		if err := layoutJSON(w, m.value, inner); err != nil {
			return err
		}
	}
	w.WriteString("\n" + indent)
	w.WriteByte(end)
	return nil
}
