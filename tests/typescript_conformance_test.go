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
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/show"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
	tsdriver "github.com/chobo-lang/chobo/runtime/typescript/driver"
)

// The TypeScript clients of the cases are compiled here, with tsc, into
// one folder beside the driver (runtime/typescript/driver), and each is
// driven as a process, through the driver protocol, on a real PostgreSQL
// server and on a real TigerBeetle replica, as the Go clients are. The
// PostgreSQL clients are the cases' expected ones; the TigerBeetle clients
// are written from each book's test copy, since TigerBeetle counts a
// hold's lifetime from the timeout the client sends.

// tsClient is one client, compiled in the folder of tsBuilt.
type tsClient struct {
	module string // the client's source, relative to the folder
}

var tsBuilt struct {
	once    sync.Once
	node    tsdriver.Node
	dir     string
	clients map[string]tsClient // by case name and target: "inventory postgres-typescript"
	err     error
}

// tsDrivers compiles, once per test binary, the driver and the clients of
// every case on both backends (see TestMain for the folder's removal).
func tsDrivers(t *testing.T) (tsdriver.Node, string, map[string]tsClient) {
	t.Helper()
	node, _ := typeScript(t)
	tsBuilt.once.Do(func() {
		modules, _ := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
		tsBuilt.node = tsdriver.Node{Program: node, Modules: modules}
		tsBuilt.dir, tsBuilt.clients, tsBuilt.err = buildTSClients(t, tsBuilt.node)
	})
	if tsBuilt.err != nil {
		t.Fatal(tsBuilt.err)
	}
	return tsBuilt.node, tsBuilt.dir, tsBuilt.clients
}

func buildTSClients(t *testing.T, n tsdriver.Node) (string, map[string]tsClient, error) {
	dir, err := os.MkdirTemp("", "chobo-ts-")
	if err != nil {
		return "", nil, err
	}
	clients := map[string]tsClient{}
	files := map[string][]byte{}
	add := func(caseName, tg string, file string, data []byte) {
		rel := "clients/" + caseName + "/" + tg + "/"
		files[rel+file] = data
		clients[caseName+" "+tg] = tsClient{module: rel + file}
	}
	for _, c := range cases(t) {
		pg, _ := filepath.Glob(c.expected(filepath.Join("postgres-typescript", "*.ts")))
		tb, _ := filepath.Glob(c.expected(filepath.Join("tigerbeetle-typescript", "*.ts")))
		if len(pg) != 1 && len(tb) != 1 {
			continue
		}
		l := loadForBackends(t, c)
		if len(pg) == 1 {
			data, err := os.ReadFile(pg[0])
			if err != nil {
				return dir, nil, err
			}
			add(c.Name, "postgres-typescript", filepath.Base(pg[0]), data)
		}
		if len(tb) == 1 {
			tg, _ := target.Lookup("tigerbeetle-typescript")
			out, ds, err := tg.Build(l.Copy, gen.Source{File: filepath.Base(l.path)}, gen.Options{})
			if err != nil || len(ds) > 0 || len(out) != 1 {
				return dir, nil, fmt.Errorf("%s: building the test copy's TypeScript client: %v %v", l.path, err, ds)
			}
			add(c.Name, "tigerbeetle-typescript", out[0].Path, out[0].Data)
		}
	}
	return dir, clients, tsdriver.Compile(n, dir, files)
}

// startTSDriver runs the driver of l's client of a TypeScript target,
// opened with what at gives of where the backend is (the dsn or
// TigerBeetle's address),
// reading the backend through read. With record set, the driver writes
// down every request its client sends into that file.
func startTSDriver(t *testing.T, l loaded, tg string, at protocol.Request, read conformance.Reader, record string) *conformance.Process {
	t.Helper()
	node, dir, clients := tsDrivers(t)
	c, ok := clients[l.name+" "+tg]
	if !ok {
		t.Fatalf("%s: no %s client", l.path, tg)
	}
	bookPath := filepath.Join(t.TempDir(), filepath.Base(l.path))
	if err := os.WriteFile(bookPath, l.CopySrc, 0o644); err != nil {
		t.Fatal(err)
	}
	open, err := conformance.Open(l.Copy, tg)
	if err != nil {
		t.Fatalf("%s: %v", l.path, err)
	}
	open.Book, open.DSN, open.TigerBeetle = bookPath, at.DSN, at.TigerBeetle
	cmd := exec.Command(node.Program, tsdriver.DriverArgs(dir, c.module)...)
	cmd.Env = os.Environ()
	if record != "" {
		cmd.Env = append(cmd.Env, "CHOBO_DRIVER_RECORD="+record)
	}
	p, err := conformance.StartProcessWith(cmd, open, read)
	if err != nil {
		t.Fatalf("%s: %v", l.path, err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("%s: %v", l.path, err)
		}
	})
	if p.Client() != tg {
		t.Errorf("%s: the driver says it drives %q, want %q", l.path, p.Client(), tg)
	}
	return p
}

// tsCases are the cases with a client of the TypeScript target tg.
func tsCases(t *testing.T, tg string) []loaded {
	t.Helper()
	var out []loaded
	for _, c := range casesWith(t, filepath.Join(tg, "*.ts"), tg) {
		out = append(out, loadForBackends(t, c))
	}
	return out
}

// TestTypeScriptConformance runs every scenario of every case through the
// case's TypeScript clients: on a real PostgreSQL server as the
// application's role (postgres-typescript), and on a real TigerBeetle
// replica (tigerbeetle-typescript) when there is a tigerbeetle binary.
// The official client reaches only a real replica, so there is no run on
// the model.
func TestTypeScriptConformance(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		books := tsCases(t, "postgres-typescript")
		tsDrivers(t) // skips here, before a server starts, when TypeScript is not set up
		d := startPostgres(t, books)
		st := runAll(t, books, "postgres-typescript", func(l loaded) conformance.Backend {
			return startTSDriver(t, l, "postgres-typescript", protocol.Request{DSN: d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
				conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, "")
		})
		checkEntries(t, d.admin, books)
		t.Logf("%d scenarios of %d books on PostgreSQL through the TypeScript clients (%d with together, %d run again)", st.Total, len(books), st.Together, st.Again)
	})
	// Every request the clients send is written down, and for each
	// scenario without a together held to what `chobo run --show
	// tigerbeetle` prints for it (see TestTypeScriptSendsWhatShowPrints):
	// on a real replica what a client sends next depends on what it was
	// answered, so this is done where passes are waited out, in the run.
	t.Run("tigerbeetle", func(t *testing.T) {
		books := tsCases(t, "tigerbeetle-typescript")
		tsDrivers(t)
		bin := realTigerBeetle(t)
		// One official client per book's driver, and the proxy's.
		if len(books)+1 > tbtest.ClientsMax {
			t.Fatalf("%d books need %d clients on the replica at once; it serves %d", len(books), len(books)+1, tbtest.ClientsMax)
		}
		replica, raw := startProxy(t, tbDriver(t, tbBooks(t)), bin)
		var jobs []conformance.Job
		records := map[*conformance.Loaded]string{}
		for _, l := range books {
			rec := filepath.Join(t.TempDir(), "sent.jsonl")
			records[l.Loaded] = rec
			tb := &conformance.TigerBeetle{Raw: raw, Book: l.Copy, Replica: true}
			tb.Calls = startTSDriver(t, l, "tigerbeetle-typescript", protocol.Request{TigerBeetle: replica}, tb, rec)
			n := len(jobs)
			for _, j := range l.Jobs(l.path, tb, func(i int) string { return fmt.Sprintf("ts%d", n+i) }) {
				j.Pair = "tigerbeetle-typescript (real replica)"
				jobs = append(jobs, j)
			}
		}
		st := conformance.RunAll(t, jobs)
		t.Logf("%d scenarios of %d books on a real TigerBeetle replica through the TypeScript clients (%d with together, %d run again; %d where a balance leaves 64 bits, held to what TigerBeetle does there; %d not run)",
			st.Total, len(books), st.Together, st.Again, st.Wide, st.NotRun)
		if t.Failed() {
			return
		}
		byTenant := map[string][]map[string]json.RawMessage{}
		for _, l := range books {
			for _, r := range recorded(t, records[l.Loaded]) {
				var tenant string
				json.Unmarshal(r["tenant"], &tenant)
				byTenant[tenant] = append(byTenant[tenant], r)
			}
		}
		checked, requests := 0, 0
		for _, j := range jobs {
			if hasTogether(j.Scenario) {
				continue
			}
			tenant := j.Tenant
			_, ok := byTenant[tenant+"-again"]
			if ok {
				tenant += "-again"
			}
			sc, err := conformance.Scale(j.Original, j.Book, j.Scenario)
			if err != nil {
				continue // not run: RunAll said why
			}
			if sc, ok = conformance.SixtyFourBitsCut(j.Book, sc); !ok {
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
				t.Errorf("%s %q: the TypeScript client sent other than --show tigerbeetle prints: %s", j.Where, j.Scenario.Name, diff)
			}
			checked++
		}
		t.Logf("%d scenarios, %d requests: the tigerbeetle-typescript clients sent what --show tigerbeetle prints", checked, requests)
	})
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

// TestTypeScriptSendsWhatShowPrints holds what the postgres-typescript
// clients hand to pg, written down by the driver as the real client sends
// it, to what `chobo run --show postgres` prints: every call of every
// scenario without a together, one scenario at a time, each under a tenant
// of its own. The tigerbeetle-typescript clients are held to `--show
// tigerbeetle` in TestTypeScriptConformance, on the real replica.
func TestTypeScriptSendsWhatShowPrints(t *testing.T) {
	books := tsCases(t, "postgres-typescript")
	tsDrivers(t)
	d := startPostgres(t, books)
	checked, calls := 0, 0
	for _, l := range books {
		m, err := model.New(l.Copy, model.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		rec := filepath.Join(t.TempDir(), "sent.jsonl")
		p := startTSDriver(t, l, "postgres-typescript", protocol.Request{DSN: d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
			conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, rec)
		ctx := context.Background()
		for i, sc := range l.Scenarios {
			if hasTogether(sc) {
				continue
			}
			tenant := fmt.Sprintf("sent%d", i)
			var want []string
			for _, st := range sc.Steps {
				switch {
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
					p.Call(ctx, st.Call.Call, tenant) // the answers are the conformance test's to check
					calls++
				default:
					want = append(want, sentText("", m.Expire, []any{1000}))
					if _, err := p.Expire(ctx, tenant); err != nil {
						t.Fatal(err)
					}
				}
			}
			var got []string
			for _, r := range recorded(t, rec) {
				var tenant, sql string
				var args []json.RawMessage
				json.Unmarshal(r["tenant"], &tenant)
				json.Unmarshal(r["sql"], &sql)
				json.Unmarshal(r["args"], &args)
				got = append(got, sentText(tenant, sql, rawArgs(args)))
			}
			if diff := firstDiff(want, got); diff != "" {
				t.Errorf("%s %q: the TypeScript client sent other than --show postgres prints: %s", l.path, sc.Name, diff)
			}
			checked++
		}
	}
	t.Logf("%d scenarios, %d calls: the postgres-typescript clients sent what --show postgres prints", checked, calls)
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
	// do not have, and the balances and timestamp of a new record.
	zero := func(rec map[string]json.RawMessage, fields ...string) {
		for _, f := range fields {
			if v, ok := rec[f]; !ok || (string(v) != "0" && string(v) != `"0"`) {
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

// TestTypeScriptExampleInDocs runs the postgres-typescript example of
// docs/targets.md as it stands, with the inventory example's client, on a
// real server as the application's role, and holds what it prints to the
// block after it.
func TestTypeScriptExampleInDocs(t *testing.T) {
	node, tsc := typeScript(t)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "targets.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "## `postgres-typescript` and `tigerbeetle-typescript`")
	if i < 0 {
		t.Fatal("docs/targets.md has no section on the TypeScript targets")
	}
	block := func(from int, fence string) (string, int) {
		start := strings.Index(text[from:], fence)
		if start < 0 {
			t.Fatalf("no %q block after the section's start", fence)
		}
		start += from + len(fence)
		end := strings.Index(text[start:], "```\n")
		return text[start : start+end], start + end + 4
	}
	program, next := block(i, "```ts\n")
	want, _ := block(next, "```\n")

	b, src := loadBook(t, filepath.Join("..", "examples", "inventory", "inventory.book"))
	d := deployBook(t, b, src, 4)
	dir := t.TempDir()
	client, err := os.ReadFile(filepath.Join(casesDir, "inventory", "expected", "postgres-typescript", "inventory.ts"))
	if err != nil {
		t.Fatal(err)
	}
	modules, _ := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	for name, data := range map[string][]byte{"main.ts": []byte(program), "inventory.ts": client,
		"package.json": []byte(`{"type": "module"}` + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, tsFlags...), "--target", "es2022", "--module", "nodenext", "--types", "node",
		"--typeRoots", filepath.Join(modules, "@types"), "--allowImportingTsExtensions", "--rewriteRelativeImportExtensions",
		"--outDir", filepath.Join(dir, "dist"), filepath.Join(dir, "main.ts"), filepath.Join(dir, "inventory.ts"))
	cmd := exec.Command(tsc, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc over the example: %v\n%s", err, out)
	}
	cmd = exec.Command(node, filepath.Join(dir, "dist", "main.js"))
	cmd.Env = append(os.Environ(), "PGHOST="+d.srv.SocketDir, fmt.Sprintf("PGPORT=%d", d.srv.Port),
		"PGUSER="+pgdeploy.App, "PGDATABASE="+pgtest.DefaultDB)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != want {
		t.Errorf("the example printed\n%s\nbut docs/targets.md shows\n%s", got, want)
	}
}
