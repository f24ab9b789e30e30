package chobotb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// bulkVectorsFile holds scripted sessions of Book.Bulk: the calls, every
// request the book sent with what it was answered, and each call's
// answer. The Go tests write it from the cases below, run on the model
// of a replica with faults put into chosen requests; every runtime
// replays it against a client that answers from the file.
const bulkVectorsFile = "../../testdata/tb_bulk_vectors.json"

type bulkFile struct {
	About string     `json:"about"`
	Cases []bulkCase `json:"cases"`
}

type bulkCase struct {
	Name string `json:"name"`
	// Book is the test case of vectors.json whose def this is; Legacy
	// gives transfer kinds a legacy hash (TransferKind.Legacy).
	Book     string            `json:"book"`
	Def      json.RawMessage   `json:"def"`
	Legacy   map[string]string `json:"legacy,omitempty"`
	Tenant   string            `json:"tenant"`
	Calls    []bulkCall        `json:"calls"`
	Requests []bulkRequest     `json:"requests"`
	Answers  []map[string]any  `json:"answers"`
}

type bulkCall struct {
	Op       string            `json:"op"`
	Transfer string            `json:"transfer"`
	Values   []json.RawMessage `json:"values"`
	// Amounts, for a post, are its amounts; none posts the whole hold.
	Amounts []string `json:"amounts,omitempty"`
	// ClientError: the client refused the call's arguments before the
	// bulk (Op.Err, a TbCall's error).
	ClientError bool `json:"client_error,omitempty"`
}

type bulkRequest struct {
	Op        string        `json:"op"`
	Accounts  []vecAccount  `json:"accounts,omitempty"`
	Transfers []vecTransfer `json:"transfers,omitempty"`
	IDs       []string      `json:"ids,omitempty"`
	Answer    bulkReply     `json:"answer"`
}

type bulkReply struct {
	Statuses  []chobotb.Status `json:"statuses,omitempty"`
	Accounts  []bulkAccount    `json:"accounts,omitempty"`
	Transfers []vecTransfer    `json:"transfers,omitempty"`
	Error     string           `json:"error,omitempty"`
	Timeout   bool             `json:"timeout,omitempty"`
}

// bulkAccount is an account record as a lookup answers it.
type bulkAccount struct {
	vecAccount
	DebitsPending  string `json:"debits_pending"`
	DebitsPosted   string `json:"debits_posted"`
	CreditsPending string `json:"credits_pending"`
	CreditsPosted  string `json:"credits_posted"`
}

// scripted is a Client that records every request and answers it from
// answer: the model of a replica while the file is written, the file's
// answers when it is replayed.
type scripted struct {
	t      *testing.T
	answer func(n int, req bulkRequest) bulkReply
	sent   []bulkRequest
}

// errScripted is a request's failure as the file names it.
func errScripted(n int) string { return fmt.Sprintf("scripted: request %d fails", n+1) }

func (s *scripted) do(req bulkRequest) (bulkReply, error) {
	n := len(s.sent)
	r := s.answer(n, req)
	req.Answer = r
	s.sent = append(s.sent, req)
	switch {
	case r.Timeout:
		return r, fmt.Errorf("scripted: request %d: %w", n+1, context.DeadlineExceeded)
	case r.Error != "":
		return r, errors.New(r.Error)
	}
	return r, nil
}

func (s *scripted) CreateAccounts(_ context.Context, as []chobotb.Account) ([]chobotb.Status, error) {
	req := bulkRequest{Op: "create_accounts"}
	for _, a := range as {
		req.Accounts = append(req.Accounts, vecAccount{a.ID.Hex(), a.UserData128.Hex(), a.Ledger, a.Code, a.Flags})
	}
	r, err := s.do(req)
	return r.Statuses, err
}

func (s *scripted) CreateTransfers(_ context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	req := bulkRequest{Op: "create_transfers"}
	for _, x := range ts {
		req.Transfers = append(req.Transfers, transferOf(x))
	}
	r, err := s.do(req)
	return r.Statuses, err
}

func hexes(list []ids.ID) []string {
	out := make([]string, len(list))
	for i, id := range list {
		out[i] = id.Hex()
	}
	return out
}

func (s *scripted) LookupAccounts(_ context.Context, list []ids.ID) ([]chobotb.Account, error) {
	r, err := s.do(bulkRequest{Op: "lookup_accounts", IDs: hexes(list)})
	if err != nil {
		return nil, err
	}
	var out []chobotb.Account
	for _, a := range r.Accounts {
		u := func(v string) chobotb.U128 {
			return recordOf(s.t, vecTransfer{Amount: v, UserData64: "0", ID: zeroHex, DebitAccountID: zeroHex, CreditAccountID: zeroHex, PendingID: zeroHex, UserData128: zeroHex}).Amount
		}
		out = append(out, chobotb.Account{ID: idOf(s.t, a.ID), UserData128: idOf(s.t, a.UserData128), Ledger: a.Ledger, Code: a.Code, Flags: a.Flags,
			DebitsPending: u(a.DebitsPending), DebitsPosted: u(a.DebitsPosted), CreditsPending: u(a.CreditsPending), CreditsPosted: u(a.CreditsPosted)})
	}
	return out, nil
}

const zeroHex = "00000000000000000000000000000000"

func (s *scripted) LookupTransfers(_ context.Context, list []ids.ID) ([]chobotb.Transfer, error) {
	r, err := s.do(bulkRequest{Op: "lookup_transfers", IDs: hexes(list)})
	if err != nil {
		return nil, err
	}
	var out []chobotb.Transfer
	for _, x := range r.Transfers {
		out = append(out, recordOf(s.t, x))
	}
	return out, nil
}

// fromModel answers as the model m does, but the requests faults names
// ("create_transfers 2": the second request of that operation) fail:
// "error", "timeout", or "stranger", a lookup that answers a record
// besides those asked for.
func fromModel(t *testing.T, m *tbmodel.Model, faults map[string]string) func(int, bulkRequest) bulkReply {
	seen := map[string]int{}
	return func(n int, req bulkRequest) bulkReply {
		seen[req.Op]++
		fault := faults[req.Op+" "+strconv.Itoa(seen[req.Op])]
		switch fault {
		case "error":
			return bulkReply{Error: errScripted(n)}
		case "timeout":
			return bulkReply{Timeout: true}
		}
		r := modelReply(t, m, req)
		if fault == "stranger" && len(r.Transfers) > 0 {
			x := r.Transfers[0]
			x.ID = strings.Repeat("5", 32)
			r.Transfers = append(r.Transfers, x)
		}
		return r
	}
}

// modelReply is the model's answer to a request.
func modelReply(t *testing.T, m *tbmodel.Model, req bulkRequest) bulkReply {
	t.Helper()
	var ask []ids.ID
	for _, h := range req.IDs {
		ask = append(ask, idOf(t, h))
	}
	var r bulkReply
	var err error
	switch req.Op {
	case "create_accounts":
		var as []chobotb.Account
		for _, a := range req.Accounts {
			as = append(as, chobotb.Account{ID: idOf(t, a.ID), UserData128: idOf(t, a.UserData128), Ledger: a.Ledger, Code: a.Code, Flags: a.Flags})
		}
		r.Statuses, err = m.CreateAccounts(context.Background(), as)
	case "create_transfers":
		var ts []chobotb.Transfer
		for _, x := range req.Transfers {
			ts = append(ts, recordOf(t, x))
		}
		r.Statuses, err = m.CreateTransfers(context.Background(), ts)
	case "lookup_accounts":
		var as []chobotb.Account
		as, err = m.LookupAccounts(context.Background(), ask)
		for _, a := range as {
			r.Accounts = append(r.Accounts, bulkAccount{vecAccount{a.ID.Hex(), a.UserData128.Hex(), a.Ledger, a.Code, a.Flags},
				amountOf(a.DebitsPending), amountOf(a.DebitsPosted), amountOf(a.CreditsPending), amountOf(a.CreditsPosted)})
		}
	case "lookup_transfers":
		var ts []chobotb.Transfer
		ts, err = m.LookupTransfers(context.Background(), ask)
		for _, x := range ts {
			r.Transfers = append(r.Transfers, transferOf(x))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fromFile answers as the case's requests were answered.
func fromFile(t *testing.T, c *bulkCase) func(int, bulkRequest) bulkReply {
	return func(n int, req bulkRequest) bulkReply {
		if n >= len(c.Requests) {
			t.Errorf("%s: request %d (%s) is not in the file", c.Name, n+1, req.Op)
			return bulkReply{Error: "unscripted request"}
		}
		return c.Requests[n].Answer
	}
}

// normalise names the random ids of the status chains a session sent,
// random:1, random:2, … in the order they were first sent: a status
// chain is a void whose next event moves from its pending id to itself.
func normalise(reqs []bulkRequest) {
	names := map[string]string{}
	name := func(id *string) {
		if names[*id] == "" {
			names[*id] = "random:" + strconv.Itoa(len(names)+1)
		}
		*id = names[*id]
	}
	for _, r := range reqs {
		ts := r.Transfers
		for k := 0; k+1 < len(ts); k++ {
			if ts[k].Flags&chobotb.TransferVoidPending != 0 && ts[k+1].DebitAccountID == ts[k+1].CreditAccountID &&
				ts[k+1].DebitAccountID == ts[k].PendingID {
				name(&ts[k].ID)
				name(&ts[k+1].ID)
			}
		}
	}
}

var scriptedFailure = regexp.MustCompile(`scripted: request [0-9]+ fails`)

// answerOf writes a call's answer as the file does: a result (with its
// reason), a state (null for none), or an error: "timeout", the
// scripted failure of the request that carried the call, or "call" for
// any other error (the call's own).
func answerOf(op string, a chobotb.Answer) map[string]any {
	switch {
	case a.Err != nil && errors.Is(a.Err, context.DeadlineExceeded):
		return map[string]any{"error": "timeout"}
	case a.Err != nil && scriptedFailure.MatchString(a.Err.Error()):
		return map[string]any{"error": scriptedFailure.FindString(a.Err.Error())}
	case a.Err != nil:
		return map[string]any{"error": "call"}
	case op == "status" && a.State == "":
		return map[string]any{"state": nil}
	case op == "status":
		return map[string]any{"state": string(a.State)}
	case a.Result.Reason != "":
		return map[string]any{"result": string(a.Result.Outcome), "reason": a.Result.Reason}
	}
	return map[string]any{"result": string(a.Result.Outcome)}
}

// defOfCase is the Def a case's bulk runs under.
func defOfCase(t *testing.T, c *bulkCase) *chobotb.Def {
	t.Helper()
	var n neutralDef
	if err := json.Unmarshal(c.Def, &n); err != nil {
		t.Fatal(err)
	}
	d := n.def(t)
	for i := range d.Transfers {
		d.Transfers[i].Legacy = c.Legacy[d.Transfers[i].Name]
	}
	return d
}

// opsOf are a case's calls as Ops.
func opsOf(t *testing.T, d *chobotb.Def, c *bulkCase) []chobotb.Op {
	t.Helper()
	ops := make([]chobotb.Op, len(c.Calls))
	for i, call := range c.Calls {
		kind := -1
		for k, x := range d.Transfers {
			if x.Name == call.Transfer {
				kind = k
			}
		}
		ops[i] = chobotb.Op{Kind: kind, Op: call.Op, Values: callValues(t, call.Values)}
		for _, a := range call.Amounts {
			ops[i].Amounts = append(ops[i].Amounts, int64Of(t, a))
		}
		if call.ClientError {
			ops[i].Err = errors.New("the client refused the arguments")
		}
	}
	return ops
}

// runBulk runs a case's calls as one Bulk of a new Book over a client
// answering as answer does; it fills the case's requests and answers.
func runBulk(t *testing.T, c *bulkCase, answer func(int, bulkRequest) bulkReply) {
	t.Helper()
	d := defOfCase(t, c)
	s := &scripted{t: t, answer: answer}
	got, err := chobotb.NewBook(s, d, c.Tenant).Bulk(context.Background(), opsOf(t, d, c))
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	normalise(s.sent)
	c.Requests, c.Answers = s.sent, nil
	for i, a := range got {
		c.Answers = append(c.Answers, answerOf(c.Calls[i].Op, a))
	}
}

func readBulkVectors(t *testing.T) *bulkFile {
	t.Helper()
	data, err := os.ReadFile(bulkVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var f bulkFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// TestBulkVectorsFile writes the file from the cases (CHOBO_BLESS=1) or
// checks that it is what they write now.
func TestBulkVectorsFile(t *testing.T) {
	f := &bulkFile{About: "Scripted sessions of a TigerBeetle bulk call, written by TestBulkVectorsFile in runtime/go/chobotb; see runtime/testdata/README.md."}
	for _, bc := range bulkCases(t) {
		c := bc.c
		m := tbmodel.New()
		if bc.setup != nil {
			bc.setup(t, m, defOfCase(t, &c))
		}
		runBulk(t, &c, fromModel(t, m, bc.faults))
		f.Cases = append(f.Cases, c)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CHOBO_BLESS") == "1" {
		if err := os.WriteFile(bulkVectorsFile, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(bulkVectorsFile)
	if err != nil || !bytes.Equal(old, buf.Bytes()) {
		t.Fatalf("%s is not what the cases write now (%v): rewrite it with CHOBO_BLESS=1 go test ./runtime/go/chobotb -run 'TestBulkVectorsFile$'", bulkVectorsFile, err)
	}
}

// TestBulkVectors replays the file: each case's bulk, its requests
// answered from the file, must send the requests and give the answers
// the file holds.
func TestBulkVectors(t *testing.T) {
	f := readBulkVectors(t)
	if len(f.Cases) < 8 {
		t.Fatalf("%d cases", len(f.Cases))
	}
	for _, want := range f.Cases {
		t.Run(want.Name, func(t *testing.T) {
			got := want
			runBulk(t, &got, fromFile(t, &want))
			if len(got.Requests) != len(want.Requests) {
				t.Errorf("%d requests, want %d", len(got.Requests), len(want.Requests))
			}
			for i := range min(len(got.Requests), len(want.Requests)) {
				if !reflect.DeepEqual(got.Requests[i], want.Requests[i]) {
					g, _ := json.Marshal(got.Requests[i])
					w, _ := json.Marshal(want.Requests[i])
					t.Errorf("request %d:\n got %s\nwant %s", i+1, g, w)
				}
			}
			g, _ := json.Marshal(got.Answers)
			w, _ := json.Marshal(want.Answers)
			if !bytes.Equal(g, w) {
				t.Errorf("answers:\n got %s\nwant %s", g, w)
			}
		})
	}
}

// A bulkCase as written: the calls, the setup of the model before the
// bulk (unrecorded, through books of its own), and the faults.
type bulkSource struct {
	c      bulkCase
	setup  func(t *testing.T, m *tbmodel.Model, d *chobotb.Def)
	faults map[string]string
}

// Values of calls as the file writes them.
func str(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
func amt(n int64) json.RawMessage {
	return json.RawMessage(`{"amount":"` + strconv.FormatInt(n, 10) + `"}`)
}

func bcall(op, transfer string, values ...json.RawMessage) bulkCall {
	return bulkCall{Op: op, Transfer: transfer, Values: values}
}

func (c bulkCall) posting(amounts ...int64) bulkCall {
	for _, a := range amounts {
		c.Amounts = append(c.Amounts, strconv.FormatInt(a, 10))
	}
	return c
}

// bookDef is the def of a book of vectors.json.
func bookDef(t *testing.T, name string) json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Books []struct {
			Case string          `json:"case"`
			Def  json.RawMessage `json:"def"`
		} `json:"books"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, b := range v.Books {
		if b.Case == name {
			return b.Def
		}
	}
	t.Fatalf("no book %s in %s", name, vectorsFile)
	return nil
}

// setupCalls makes calls before the bulk, as a bulk of their own, under
// d changed by change (nil: d as it is), for the tenant.
func setupCalls(tenant string, change func(*chobotb.Def), calls ...bulkCall) func(*testing.T, *tbmodel.Model, *chobotb.Def) {
	return func(t *testing.T, m *tbmodel.Model, d *chobotb.Def) {
		t.Helper()
		if change != nil {
			// d is the case's, made for this setup alone.
			change(d)
		}
		b := chobotb.NewBook(m, d, tenant)
		answers, err := b.Bulk(context.Background(), opsOf(t, d, &bulkCase{Calls: calls}))
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range answers {
			if a.Err != nil {
				t.Fatalf("setup call %d: %v", i, a.Err)
			}
		}
	}
}

// Calls of the inventory book.
func recvCall(key, sku string, n int64) bulkCall {
	return bcall("do", "receive", str(key), str(sku), amt(n))
}

func reserveCall(key, sku string, n int64) bulkCall {
	return bcall("hold", "reserve", str(key), str(sku), amt(n))
}

// keyed is a post, void or status of a reserve.
func keyed(op, key, sku string) bulkCall { return bcall(op, "reserve", str(key), str(sku)) }

// topUps are n top-ups of clean's cards, each a chain of five events,
// with a status of a hold (two events) after every tenth: 50 chains of
// five leave a request three events short, which the next does not fit.
func topUps(prefix string, n int) []bulkCall {
	var out []bulkCall
	for i := range n {
		out = append(out, bcall("do", "top_up", str(fmt.Sprintf("%s-%d", prefix, i)), str(fmt.Sprintf("m-%d", i%3)), amt(int64(i+1))))
		if i%10 == 9 {
			out = append(out, bcall("status", "group_hold", str("g"), str("t"), str("2026-01-01")))
		}
	}
	return out
}

// seededHolds makes stock of A and B for tenant acme, and five holds of it.
var seededHolds = setupCalls("acme", nil, recvCall("seed-a", "A", 10), recvCall("seed-b", "B", 10),
	reserveCall("h-1", "A", 3), reserveCall("h-2", "A", 3), reserveCall("h-3", "B", 2), reserveCall("h-4", "B", 2), reserveCall("h-5", "A", 1))

// both runs setups one after another.
func both(fs ...func(*testing.T, *tbmodel.Model, *chobotb.Def)) func(*testing.T, *tbmodel.Model, *chobotb.Def) {
	return func(t *testing.T, m *tbmodel.Model, d *chobotb.Def) {
		for _, f := range fs {
			f(t, m, d)
		}
	}
}

func bulkCases(t *testing.T) []bulkSource { return append(requestCases(t), holdCases(t)...) }

// requestCases are the sessions of how calls become requests, and of
// requests that fail.
func requestCases(t *testing.T) []bulkSource {
	inv, clean := bookDef(t, "inventory"), bookDef(t, "clean")
	recv, reserve, many, seeded := recvCall, reserveCall, topUps, seededHolds
	back := func(key, sku string, n int64) bulkCall { return bcall("do", "take_back", str(key), str(sku), amt(n)) }
	long := strings.Repeat("x", 2100)
	return []bulkSource{
		{c: bulkCase{Name: "everything in one request", Book: "inventory", Def: inv, Tenant: "acme", Calls: []bulkCall{
			recv("d-1", "A", 5), reserve("o-1", "A", 2), back("r-1", "B", 1), keyed("status", "o-9", "A"),
			keyed("post", "o-8", "A"), keyed("void", "o-7", "A"), recv("d-1", "A", 5),
			{Op: "do", Transfer: "receive", ClientError: true}, recv(long, "A", 1),
			keyed("post", "o-6", "A").posting(1, 2), keyed("post", "o-6", "A").posting(-1), keyed("status", long, "A"),
		}}},
		{c: bulkCase{Name: "chains packed over requests, none split", Book: "clean", Def: clean, Tenant: "", Calls: many("t", 130)}},
		{c: bulkCase{Name: "a refusal in the middle", Book: "inventory", Def: inv, Tenant: "acme", Calls: []bulkCall{
			recv("d-1", "A", 5), reserve("o-1", "B", 20), bcall("do", "receive", str("d-2"), str("A"), amt(0)),
			reserve("o-2", "A", 15), recv("d-3", "B", 1), keyed("status", "h-1", "A"),
		}}, setup: seeded},
		{c: bulkCase{Name: "one request fails, the others go on", Book: "clean", Def: clean, Tenant: "acme",
			Calls: many("t", 130)}, faults: map[string]string{"create_transfers 3": "error"}},
		{c: bulkCase{Name: "one request times out, the others go on", Book: "clean", Def: clean, Tenant: "",
			Calls: many("t", 130)}, faults: map[string]string{"create_transfers 2": "timeout"},
			// A card with something on it is looked up before its
			// floor and room are opened.
			setup: setupCalls("", nil, bcall("do", "top_up", str("seed"), str("m-1"), amt(5)))},
		{c: bulkCase{Name: "the accounts fail, the other calls go on", Book: "inventory", Def: inv, Tenant: "acme", Calls: []bulkCall{
			recv("d-1", "A", 5), keyed("status", "h-1", "A"), keyed("void", "h-3", "B"), reserve("o-1", "A", 1),
		}}, setup: seeded, faults: map[string]string{"create_accounts 1": "error"}},
		{c: bulkCase{Name: "the lookup fails", Book: "inventory", Def: inv, Tenant: "acme", Calls: []bulkCall{
			keyed("post", "h-1", "A"), recv("d-1", "A", 5), keyed("void", "h-3", "B"), keyed("status", "h-4", "B"),
		}}, setup: seeded, faults: map[string]string{"lookup_transfers 1": "error"}},
		{c: bulkCase{Name: "a lookup answers a record not asked for", Book: "inventory", Def: inv, Tenant: "acme", Calls: []bulkCall{
			keyed("post", "h-1", "A"), recv("d-1", "A", 5), keyed("void", "h-3", "B"),
		}}, setup: seeded, faults: map[string]string{"lookup_transfers 1": "stranger"}},
	}
}

// holdCases are the sessions of posts, voids and statuses of holds, and
// of calls an earlier version of the book made.
func holdCases(t *testing.T) []bulkSource {
	inv := bookDef(t, "inventory")
	recv, reserve, seeded := recvCall, reserveCall, seededHolds
	posted := setupCalls("acme", nil, keyed("post", "h-2", "A"))
	probe := func(d *chobotb.Def) { d.Accounts[0].Lower = &chobotb.Bound{Value: 1, Reason: "out_of_stock"} }
	otherDef := func(d *chobotb.Def) { d.Transfers[1].Definition = "0123456789abcdef" }
	legacyHash := "00000000000000aa"
	legacy := func(d *chobotb.Def) { d.Transfers[0].Definition = legacyHash }
	return []bulkSource{
		{c: bulkCase{Name: "posts and voids of holds", Book: "inventory", Def: inv, Tenant: "acme", Calls: []bulkCall{
			keyed("post", "h-1", "A").posting(5), keyed("post", "h-2", "A").posting(5), keyed("post", "h-3", "B").posting(1),
			keyed("void", "h-4", "B"), keyed("post", "h-5", "A"), keyed("post", "h-3", "B").posting(1), keyed("status", "h-2", "A"),
			keyed("post", "nope", "A"), keyed("void", "nope", "A"),
		}}, setup: both(seeded, posted)},
		{c: bulkCase{Name: "a hold made under another definition", Book: "inventory", Def: inv, Tenant: "acme", Calls: []bulkCall{
			keyed("post", "x-1", "A"), keyed("void", "x-2", "A"), keyed("post", "h-1", "A").posting(1),
		}}, setup: both(seeded, setupCalls("acme", otherDef, reserve("x-1", "A", 1), reserve("x-2", "A", 1)))},
		{c: bulkCase{Name: "calls laid out otherwise by another version", Book: "inventory", Def: inv, Tenant: "", Calls: []bulkCall{
			reserve("o-1", "A", 2), reserve("o-2", "A", 3), reserve("o-3", "A", 1),
		}}, setup: setupCalls("", probe, recv("d-1", "A", 20), reserve("o-1", "A", 2), reserve("o-2", "A", 2))},
		{c: bulkCase{Name: "calls an earlier version made, sent again", Book: "inventory", Def: inv, Tenant: "",
			Legacy: map[string]string{"receive": legacyHash}, Calls: []bulkCall{
				recv("d-1", "A", 5), recv("d-2", "A", 6), recv("d-3", "A", 7),
			}}, setup: setupCalls("", legacy, recv("d-1", "A", 5), recv("d-2", "A", 5))},
		{c: bulkCase{Name: "a call to the same account", Book: "to_itself", Def: bookDef(t, "to_itself"), Tenant: "", Calls: []bulkCall{
			bcall("do", "stock_in", str("k-1"), str("b-1"), amt(5)), bcall("do", "relocate", str("k-2"), str("b-1"), str("b-1"), amt(1)),
			bcall("hold", "set_aside", str("k-3"), str("b-1"), str("b-1"), amt(1)), bcall("do", "relocate", str("k-4"), str("b-1"), str("b-2"), amt(2)),
		}}},
	}
}
