package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/show"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// What a recording driver (clientLanguage.record) wrote down of every
// request its client sent, held to what `chobo run --show` prints: the
// lines are those driver.ts writes, one JSON object per request.

// TestPostgresSendsWhatShowPrints holds what the PostgreSQL clients hand
// to their driver's connection, written down by drivers that can as the
// real client sends it, to what `chobo run --show postgres` prints: every
// call of every scenario without a together, one scenario at a time, each
// under a tenant of its own. Where --show prints the stand-in of a call
// id, the client must have sent a version 4 UUID that no other call of
// the run carried. Their TigerBeetle clients are held to `--show
// tigerbeetle` in TestTigerBeetleConformance.
func TestPostgresSendsWhatShowPrints(t *testing.T) {
	for _, tg := range targetsOn("postgres") {
		if _, lang := languageOf(t, tg); lang.Record() == "" {
			continue
		}
		t.Run(tg, func(t *testing.T) { postgresSendsWhatShowPrints(t, tg) })
	}
}

func postgresSendsWhatShowPrints(t *testing.T, tg string) {
	books := clientCases(t, tg)
	driversOf(t, tg)
	d := startPostgres(t, books)
	checked, calls := 0, 0
	ids := map[string]string{} // call id → the call that carried it first
	for _, l := range books {
		m, err := model.New(l.Copy, model.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		rec := filepath.Join(t.TempDir(), "sent.jsonl")
		p := startClient(t, tg, l, protocol.Request{DSN: d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
			conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, rec)
		ctx := context.Background()
		for i, sc := range l.Scenarios {
			if hasTogether(sc) {
				continue
			}
			tenant := fmt.Sprintf("sent%d", i)
			var want []string
			var withID []bool // by statement: --show prints a call id last
			for _, st := range sc.Steps {
				switch {
				case st.Read != nil:
					// a read sends its own statement, which --show leaves out
					continue
				case st.Call != nil && st.Call.Bad != "":
				case st.Call != nil && !sendable(st.Call.Call):
					// The client refuses it before sending anything:
					// a failure, which the conformance test checks.
					p.Call(ctx, st.Call.Call, tenant)
				case st.Call != nil:
					s, err := show.Statement(m, st.Call.Call, tenant)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, sentText(tenant, s.SQL, s.Args))
					withID = append(withID, s.CallID)
					p.Call(ctx, st.Call.Call, tenant) // the answers are the conformance test's to check
					calls++
				default:
					s := show.Expire(m)
					want = append(want, sentText("", s.SQL, s.Args))
					withID = append(withID, s.CallID)
					if _, err := p.Expire(ctx, tenant); err != nil {
						t.Fatal(err)
					}
				}
			}
			var got []string
			for i, r := range recorded(t, rec) {
				var tenant, sql string
				var raw []json.RawMessage
				json.Unmarshal(r["tenant"], &tenant)
				json.Unmarshal(r["sql"], &sql)
				json.Unmarshal(r["args"], &raw)
				args := rawArgs(raw)
				if i < len(withID) && withID[i] {
					where := fmt.Sprintf("%s %q statement %d", l.path, sc.Name, i+1)
					if err := callIDSent(args, ids, where); err != "" {
						t.Errorf("%s: the %s client %s", where, tg, err)
					} else {
						args[len(args)-1] = show.CallIDText
					}
				}
				got = append(got, sentText(tenant, sql, args))
			}
			if diff := firstDiff(want, got); diff != "" {
				t.Errorf("%s %q: the %s client sent other than --show postgres prints: %s", l.path, sc.Name, tg, diff)
			}
			checked++
		}
	}
	t.Logf("%d scenarios, %d calls: the %s clients sent what --show postgres prints", checked, calls, tg)
}

// sentAsShown holds what the clients of tg wrote down while jobs ran on
// TigerBeetle (a file per book, in records) to what `chobo run --show
// tigerbeetle` prints, for each scenario without a together: on a real
// replica what a client sends next depends on what it was answered, so
// this is done where passes are waited out, in the run.
func sentAsShown(t *testing.T, tg string, books []loaded, jobs []conformance.Job, records map[*conformance.Loaded]string) {
	t.Helper()
	byTenant := map[string][]map[string]json.RawMessage{}
	for _, l := range books {
		for _, r := range recorded(t, records[l.Loaded]) {
			var tenant string
			json.Unmarshal(r["tenant"], &tenant)
			byTenant[tenant] = append(byTenant[tenant], r)
		}
	}
	checked, requests, reading := 0, 0, 0
	for _, j := range jobs {
		if hasTogether(j.Scenario) {
			continue
		}
		// --show prints what calls send; a read of the history sends
		// lookups and queries of its own between them, which the record
		// does not tell apart, so a scenario that reads is left out here.
		// Its calls are of the kinds the other scenarios hold.
		if j.Scenario.Reads() {
			reading++
			continue
		}
		// A scenario that came late ran again on a tenant of its own,
		// "-again" and the try's number after the job's: the last try is
		// the one RunAll judged.
		tenant := j.Tenant
		for n := 1; ; n++ {
			again := fmt.Sprintf("%s-again%d", j.Tenant, n)
			if _, ok := byTenant[again]; !ok {
				break
			}
			tenant = again
		}
		sc, err := conformance.Scale(j.Original, j.Book, j.Scenario)
		if err != nil {
			continue // not run: RunAll said why
		}
		sc, ok := conformance.SixtyFourBitsCut(j.Book, sc)
		if !ok {
			continue
		}
		want, err := show.TigerBeetleSteps(j.Book, tigerbeetle.Def(j.Book), sc, tenant)
		if err != nil {
			t.Fatalf("%s %q: %v", j.Where, j.Scenario.Name, err)
		}
		var got []tbmodel.Request
		for _, r := range byTenant[tenant] {
			got = append(got, tbRequest(t, r))
		}
		requests += len(got)
		if diff := compareSent(expectedRequests(want), got); diff != "" {
			t.Errorf("%s %q: the %s client sent other than --show tigerbeetle prints: %s", j.Where, j.Scenario.Name, tg, diff)
		}
		checked++
	}
	t.Logf("%d scenarios, %d requests: the %s clients sent what --show tigerbeetle prints (%d scenarios that read the history left out)", checked, requests, tg, reading)
}

// callIDForm is a version 4 UUID in lowercase text: what every client
// sends as a call id.
var callIDForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// callIDSent says what is wrong with the call id that args end with, ""
// when nothing is: it must be a version 4 UUID that no call before it
// (in ids, where each one is written down as it is met) carried.
func callIDSent(args []any, ids map[string]string, where string) string {
	if len(args) == 0 {
		return "sent no call id"
	}
	id, ok := args[len(args)-1].(string)
	if !ok || !callIDForm.MatchString(id) {
		return fmt.Sprintf("sent %v where a call id (a version 4 UUID) goes", args[len(args)-1])
	}
	if first, ok := ids[id]; ok {
		return fmt.Sprintf("sent the call id %s of %s again, for another call", id, first)
	}
	ids[id] = where
	return ""
}

// recorded reads what a driver wrote down since the last read, one JSON
// object per line, and empties the file.
func recorded(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a recorded line that is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// sendable says whether a client sends a call at all: one with a string
// no backend stores, more text than they store, or a negative amount,
// fails before anything goes.
func sendable(c interp.Call) bool {
	var texts []string
	for name, v := range c.Strings {
		if chobo.CheckText(name, v) != nil {
			return false
		}
		texts = append(texts, v)
	}
	if chobo.CheckSize("", texts...) != nil {
		return false
	}
	for name, v := range c.Amounts {
		if chobo.CheckAmount(name, v) != nil {
			return false
		}
	}
	return true
}

// sentText writes one statement and its arguments for comparison: strings
// as JSON strings, amounts (int64, or what the driver recorded as one) as
// amount:N, the expire's count as n:N, a left-out amount as null.
func sentText(tenant, sql string, args []any) string {
	var parts []string
	for _, a := range args {
		switch v := a.(type) {
		case nil:
			parts = append(parts, "null")
		case string:
			js, _ := json.Marshal(v)
			parts = append(parts, string(js))
		case int64:
			parts = append(parts, fmt.Sprintf("amount:%d", v))
		case int:
			parts = append(parts, fmt.Sprintf("n:%d", v))
		default:
			parts = append(parts, fmt.Sprintf("%T:%v", v, v))
		}
	}
	return fmt.Sprintf("[%s] %s (%s)", tenant, sql, strings.Join(parts, ", "))
}

// rawArgs reads the arguments the driver recorded.
func rawArgs(raw []json.RawMessage) []any {
	var out []any
	for _, r := range raw {
		var s string
		var a struct{ Amount *string }
		var n int
		switch {
		case string(r) == "null":
			out = append(out, nil)
		case json.Unmarshal(r, &s) == nil:
			out = append(out, s)
		case json.Unmarshal(r, &a) == nil && a.Amount != nil:
			v, ok := new(big.Int).SetString(*a.Amount, 10)
			if ok && v.IsInt64() {
				out = append(out, v.Int64())
			} else {
				out = append(out, "amount out of range: "+*a.Amount)
			}
		case json.Unmarshal(r, &n) == nil:
			out = append(out, n)
		default:
			out = append(out, "unread: "+string(r))
		}
	}
	return out
}

func firstDiff(want, got []string) string {
	for i := 0; i < max(len(want), len(got)); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("statement %d not sent: %s", i+1, want[i])
		case i >= len(want):
			return fmt.Sprintf("statement %d sent but not shown: %s", i+1, got[i])
		case want[i] != got[i]:
			return fmt.Sprintf("statement %d:\n  shown %s\n  sent  %s", i+1, want[i], got[i])
		}
	}
	return ""
}

// tbRequest reads one request the driver recorded into the model's
// record of a request, so that it compares as the Go client's do.
func tbRequest(t *testing.T, r map[string]json.RawMessage) tbmodel.Request {
	t.Helper()
	var op string
	json.Unmarshal(r["op"], &op)
	id := func(raw json.RawMessage) ids.ID {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("an id that is not a string: %s", raw)
		}
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != 16 {
			t.Fatalf("an id that is not 32 hex digits: %q", s)
		}
		return ids.ID(b)
	}
	u128 := func(raw json.RawMessage) chobotb.U128 {
		var s string
		json.Unmarshal(raw, &s)
		v, ok := new(big.Int).SetString(s, 10)
		if !ok || v.Sign() < 0 || v.BitLen() > 128 {
			t.Fatalf("an amount that is not 128 bits: %s", raw)
		}
		lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0)))
		return chobotb.U128{Hi: new(big.Int).Rsh(v, 64).Uint64(), Lo: lo.Uint64()}
	}
	num := func(raw json.RawMessage) uint64 {
		var n uint64
		if err := json.Unmarshal(raw, &n); err != nil {
			var s string
			json.Unmarshal(raw, &s)
			fmt.Sscan(s, &n)
		}
		return n
	}
	// What chobo never sets must go as zero: the fields chobotb's records
	// do not have, and the balances and timestamp of a new record. A field
	// an official client's type lacks (one package's Account has no
	// reserved) goes as zero without the client's say.
	zero := func(rec map[string]json.RawMessage, fields ...string) {
		for _, f := range fields {
			if v, ok := rec[f]; ok && string(v) != "0" && string(v) != `"0"` {
				t.Errorf("a recorded %s with %s %s, want 0", op, f, v)
			}
		}
	}
	var list []map[string]json.RawMessage
	var out tbmodel.Request
	switch op {
	case "create_accounts":
		out.Op = tbmodel.OpCreateAccounts
		json.Unmarshal(r["accounts"], &list)
		for _, a := range list {
			zero(a, "user_data_64", "user_data_32", "reserved", "timestamp", "debits_pending", "debits_posted", "credits_pending", "credits_posted")
			out.Accounts = append(out.Accounts, chobotb.Account{ID: id(a["id"]), UserData128: id(a["user_data_128"]),
				Ledger: uint32(num(a["ledger"])), Code: uint16(num(a["code"])), Flags: uint16(num(a["flags"]))})
		}
	case "create_transfers":
		out.Op = tbmodel.OpCreateTransfers
		json.Unmarshal(r["transfers"], &list)
		for _, x := range list {
			zero(x, "user_data_32", "timestamp")
			out.Transfers = append(out.Transfers, chobotb.Transfer{ID: id(x["id"]), DebitAccountID: id(x["debit_account_id"]),
				CreditAccountID: id(x["credit_account_id"]), Amount: u128(x["amount"]), PendingID: id(x["pending_id"]),
				UserData128: id(x["user_data_128"]), UserData64: u128(x["user_data_64"]).Lo, Timeout: uint32(num(x["timeout"])), Ledger: uint32(num(x["ledger"])),
				Code: uint16(num(x["code"])), Flags: uint16(num(x["flags"]))})
		}
	case "lookup_transfers", "lookup_accounts":
		out.Op = tbmodel.Op(op)
		var raws []json.RawMessage
		json.Unmarshal(r["ids"], &raws)
		for _, x := range raws {
			out.IDs = append(out.IDs, id(x))
		}
	default:
		t.Fatalf("a recorded request of op %q", op)
	}
	return out
}
