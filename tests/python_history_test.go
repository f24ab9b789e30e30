package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/lang/python"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// TestPythonHistoryReadsOnPostgres runs the scenarios of the history cases
// on a real server and makes every read step through the generated
// postgres-python client, by its driver in alternate mode, so that the
// reads go through the blocking book and the asyncio one in turn, the
// blocking one over psycopg 3 and then over psycopg2. Each
// read is compared with what the interpreter reads, written as
// TestHistoryScenariosOnPostgres writes both, with the same marks of
// time; calls go through the SQL functions directly, since the reads are
// what is tested.
func TestPythonHistoryReadsOnPostgres(t *testing.T) {
	for _, name := range []string{"history", "history_ja"} {
		t.Run(name, func(t *testing.T) { pythonHistoryCase(t, name) })
	}
}

func pythonHistoryCase(t *testing.T, name string) {
	venv := venvBin(t)
	dir := filepath.Join(casesDir, name)
	books, err := filepath.Glob(filepath.Join(dir, "*.book"))
	if err != nil || len(books) != 1 {
		t.Fatalf("the book of %s: %v %v", name, books, err)
	}
	bookFile := filepath.Base(books[0])
	src, err := os.ReadFile(books[0])
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(bookFile, src)
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	data, err := os.ReadFile(filepath.Join(dir, "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	scs, err := scenario.Read(res.Book, data)
	if err != nil {
		t.Fatal(err)
	}
	copySrc, cp, err := conformance.Shorten(res.Book, src)
	if err != nil {
		t.Fatal(err)
	}
	files, ds := postgres.Build(cp, gen.NewSource(bookFile, copySrc), gen.Options{})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	srv := pgtest.Start(t)
	pool := srv.Pool(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := pool.Exec(ctx, string(files[0].Data)); err != nil {
		t.Fatal(err)
	}
	be, err := conformance.NewSQL(cp, pool, pool)
	if err != nil {
		t.Fatal(err)
	}

	m, err := model.New(cp, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	client, err := python.Generate(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	clientPath := filepath.Join(work, python.FileName(cp))
	if err := os.WriteFile(clientPath, client, 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := json.Marshal(python.Describe(m))
	if err != nil {
		t.Fatal(err)
	}
	// The blocking book over psycopg 3, then over psycopg2; the asyncio
	// one over psycopg 3 both times.
	for _, driver := range []string{"psycopg", "psycopg2"} {
		t.Run(driver, func(t *testing.T) {
			env := []string{"CHOBO_DRIVER_PSYCOPG2=0"}
			if driver == "psycopg2" {
				env = []string{"CHOBO_DRIVER_PSYCOPG2=1"}
			}
			drv := startPythonReader(t, filepath.Join(venv, "python"), clientPath, env)
			if r := drv.ask(t, map[string]any{"op": "open", "target": "postgres-python", "names": json.RawMessage(names),
				"dsn": srv.ConnString(pgtest.DefaultDB)}); r["error"] != nil {
				t.Fatalf("open: %v", r["error"])
			}
			reads := 0
			for i, sc := range scs {
				reads += runPythonHistoryScenario(t, ctx, be, res.Book, cp, sc, fmt.Sprintf("%s-%d", driver, i), drv)
			}
			if reads == 0 {
				t.Fatal("no read step in the scenarios")
			}
			if drv.sync == 0 || drv.async == 0 {
				t.Fatalf("the reads went through one book only: %d blocking, %d asyncio", drv.sync, drv.async)
			}
			t.Logf("%d scenarios, %d reads compared (%d through the blocking book, %d through the asyncio one)",
				len(scs), reads, drv.sync, drv.async)
		})
	}
}

// pythonReader is the Python driver, asked one request at a time.
type pythonReader struct {
	in          *json.Encoder
	out         *bufio.Scanner
	id          int
	sync, async int
}

func startPythonReader(t *testing.T, py, client string, env []string) *pythonReader {
	t.Helper()
	cmd := exec.Command(py, filepath.Join(pyRuntimeDir, "..", "driver", "driver.py"), "--mode", "alternate", client)
	cmd.Env = append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the Python driver: %v\n%s", err, stderr.String())
		}
	})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	return &pythonReader{in: json.NewEncoder(stdin), out: sc}
}

// ask sends one request and answers its response; ids alternate between
// even (the blocking book) and odd (the asyncio one).
func (p *pythonReader) ask(t *testing.T, req map[string]any) map[string]any {
	t.Helper()
	req["id"] = p.id
	if req["op"] != "open" {
		if p.id%2 == 0 {
			p.sync++
		} else {
			p.async++
		}
	}
	p.id++
	if err := p.in.Encode(req); err != nil {
		t.Fatal(err)
	}
	if !p.out.Scan() {
		t.Fatalf("the Python driver answered nothing to %v: %v", req, p.out.Err())
	}
	var r map[string]any
	if err := json.Unmarshal(p.out.Bytes(), &r); err != nil {
		t.Fatalf("%s: %v", p.out.Bytes(), err)
	}
	return r
}

func runPythonHistoryScenario(t *testing.T, ctx context.Context, be conformance.SQL, orig, cp *book.Book,
	sc scenario.Scenario, tenant string, drv *pythonReader) int {
	t.Helper()
	want := scenario.Run(orig, sc)
	scaled, err := conformance.Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	var marks []mark
	var now int64
	first := func(t int64, past bool) *time.Time {
		for _, m := range marks {
			if m.t > t || (!past && m.t == t) {
				return &m.at
			}
		}
		return nil
	}
	timeOf := func(at time.Time) int64 {
		var s int64
		for _, m := range marks {
			if !at.Before(m.at) {
				s = m.t
			}
		}
		return s
	}
	cursors := map[int]string{}
	reads := 0
	for i, st := range scaled.Steps {
		switch {
		case st.Together != nil:
			t.Fatalf("%s: step %d: together is not run here", sc.Name, i+1)
		case st.Call != nil:
			if _, err := be.Call(ctx, st.Call.Call, tenant); err != nil {
				t.Fatalf("%s: step %d: %v", sc.Name, i+1, err)
			}
		case st.Read != nil:
			reads++
			rd, exp := sc.Steps[i].Read, want[0].Reads[i]
			got, wantLines := pythonHistoryRead(t, drv, tenant, rd, exp, first, timeOf, cursors, i)
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Errorf("%s: step %d (%s):\nPython client:\n  %s\ninterpreter:\n  %s", sc.Name, i+1, rd.Kind,
					strings.Join(got, "\n  "), strings.Join(wantLines, "\n  "))
			}
		default:
			time.Sleep(time.Duration(st.Pass)*time.Second + 200*time.Millisecond)
			now += sc.Steps[i].Pass
			var at time.Time
			if err := be.Pool.QueryRow(ctx, `select clock_timestamp()`).Scan(&at); err != nil {
				t.Fatal(err)
			}
			marks = append(marks, mark{now, at})
			for {
				left, err := be.Expire(ctx, tenant)
				if err != nil {
					t.Fatal(err)
				}
				if !left {
					break
				}
			}
		}
	}
	return reads
}

// pythonHistoryRead makes one read step through the driver and writes
// its answer and the interpreter's the same way.
func pythonHistoryRead(t *testing.T, drv *pythonReader, tenant string, rd *scenario.ReadStep, exp *scenario.ReadResult,
	first func(int64, bool) *time.Time, timeOf func(time.Time) int64, cursors map[int]string, step int) (got, want []string) {
	t.Helper()
	rfc := func(at time.Time) string { return at.UTC().Format(protocol.TimeFormat) }
	accountArgs := func(a *interp.Account) map[string]string {
		out := map[string]string{}
		for i, p := range a.Kind.Params {
			out[p] = a.Args[i]
		}
		return out
	}
	parseTime := func(s string) time.Time {
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("a time of %q: %v", s, err)
		}
		return at
	}
	entries := func(r map[string]any) {
		list, _ := r["entries"].([]any)
		for _, x := range list {
			var e protocol.Entry
			b, _ := json.Marshal(x)
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatal(err)
			}
			num := func(s string) int64 {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatalf("an amount of %q", s)
				}
				return n
			}
			var after *interp.Balance
			if e.After != nil && rd.Kind == scenario.ReadStatement {
				after = &interp.Balance{Posted: num(e.After.Posted), HeldIn: num(e.After.HeldIn), HeldOut: num(e.After.HeldOut)}
			}
			got = append(got, pyEntryLine(book.KindArgs(e.Account, e.AccountArgs), timeOf(parseTime(e.At)), e.Transfer, e.Op, e.Key,
				e.Args, e.Move, e.Out, num(e.Posted), num(e.HeldOut), num(e.HeldIn), after))
		}
	}
	req := map[string]any{"tenant": tenant}
	switch rd.Kind {
	case scenario.ReadStatement:
		req["op"], req["account"], req["args"] = "statement", rd.Account.Kind.Name, accountArgs(rd.Account)
		var kinds []string
		for _, tr := range rd.Transfers {
			kinds = append(kinds, tr.Name)
		}
		if len(kinds) > 0 {
			req["transfers"] = kinds
		}
		if rd.From > 0 {
			from := first(rd.From, false)
			if from == nil {
				later := time.Now().Add(time.Hour)
				from = &later
			}
			req["from"] = rfc(*from)
		}
		if rd.To != nil {
			if to := first(*rd.To, false); to != nil {
				req["to"] = rfc(*to)
			}
		}
		req["newest"] = rd.Order == interp.Newest
		req["limit"] = rd.Limit
		if rd.AfterStep >= 0 {
			req["after"] = cursors[rd.AfterStep]
		}
		r := drv.ask(t, req)
		if r["error"] != nil {
			t.Fatalf("step %d: %v", step+1, r["error"])
		}
		entries(r)
		next, _ := r["next"].(string)
		cursors[step] = next
		more, _ := r["more"].(bool)
		got = append(got, fmt.Sprintf("more: %v", more))
		for _, e := range exp.Entries {
			bal := e.After
			var after *interp.Balance
			if e.Account.Kind.Lower != nil || e.Account.Kind.Upper != nil {
				after = &bal
			}
			want = append(want, pyEntryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, givenArgs(e), e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, after))
		}
		want = append(want, fmt.Sprintf("more: %v", exp.More))
	case scenario.ReadEntries:
		args := map[string]string{}
		for i, p := range rd.Transfer.Key {
			args[p.Name] = rd.Key[i]
		}
		req["op"], req["transfer"], req["args"] = "entries", rd.Transfer.Name, args
		r := drv.ask(t, req)
		if r["error"] != nil {
			t.Fatalf("step %d: %v", step+1, r["error"])
		}
		entries(r)
		for _, e := range exp.Entries {
			want = append(want, pyEntryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, givenArgs(e), e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, nil))
		}
	case scenario.ReadHolds:
		req["op"] = "holds"
		if rd.Transfer != nil {
			req["transfer"] = rd.Transfer.Name
		}
		if rd.Account != nil {
			req["account"], req["args"] = rd.Account.Kind.Name, accountArgs(rd.Account)
		}
		r := drv.ask(t, req)
		if r["error"] != nil {
			t.Fatalf("step %d: %v", step+1, r["error"])
		}
		list, _ := r["holds"].([]any)
		for _, x := range list {
			var h protocol.Hold
			b, _ := json.Marshal(x)
			if err := json.Unmarshal(b, &h); err != nil {
				t.Fatal(err)
			}
			var amounts []int64
			for _, mv := range h.Moves {
				n, err := strconv.ParseInt(mv.Amount, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				amounts = append(amounts, n)
			}
			got = append(got, fmt.Sprintf("%s held at %ds: %v", book.KindArgs(h.Transfer, h.Key), timeOf(parseTime(h.Created)), amounts))
		}
		for _, h := range exp.Holds {
			want = append(want, fmt.Sprintf("%s held at %ds: %v", h.Name(), h.Created, h.Amounts))
		}
	case scenario.ReadBalance:
		at := first(rd.At, true)
		var when time.Time
		if at == nil {
			when = time.Now().Add(time.Hour)
		} else {
			when = at.Add(-time.Microsecond)
		}
		req["op"], req["account"], req["args"], req["at"] = "balance_at", rd.Account.Kind.Name, accountArgs(rd.Account), rfc(when)
		r := drv.ask(t, req)
		if r["error"] != nil {
			t.Fatalf("step %d: %v", step+1, r["error"])
		}
		got = []string{fmt.Sprintf("(%v,%v,%v)", r["posted"], r["held_in"], r["held_out"])}
		want = []string{fmt.Sprintf("(%d,%d,%d)", exp.Balance.Posted, exp.Balance.HeldIn, exp.Balance.HeldOut)}
	}
	return got, want
}

// pyEntryLine is what both sides of the comparison write of an entry: as
// TestHistoryScenariosOnPostgres writes one, with the call's arguments by
// name.
func pyEntryLine(account string, t int64, transfer, op string, key []string, args map[string]string, move int, out bool,
	posted, heldOut, heldIn int64, after *interp.Balance) string {
	var given []string
	for k, v := range args {
		given = append(given, k+"="+v)
	}
	slices.Sort(given)
	s := fmt.Sprintf("%s at %ds: %s.%s(%s) given %s move %d %s; posted %+d, held out %+d, held in %+d", account, t, transfer, op,
		strings.Join(key, ", "), strings.Join(given, " "), move, side(out), posted, heldOut, heldIn)
	if after != nil {
		s += fmt.Sprintf(" -> %d, %d, %d", after.Posted, after.HeldOut, after.HeldIn)
	}
	return s
}

// givenArgs is what the call of an interpreter's entry was given, by
// parameter name: every parameter of a do or a hold, the key and the
// amounts a post named, the key alone of a full post, a void or an
// expiry.
func givenArgs(e interp.Entry) map[string]string {
	out := map[string]string{}
	ps := e.Call.Transfer.Key
	if e.Op == "do" || e.Op == "hold" {
		ps = e.Call.Transfer.Params
	}
	for _, p := range ps {
		if p.IsAmount() {
			out[p.Name] = strconv.FormatInt(e.Call.Amounts[p.Name], 10)
		} else {
			out[p.Name] = e.Call.Strings[p.Name]
		}
	}
	if e.Op == "post" {
		for _, p := range e.Call.Transfer.PostAmounts() {
			if a, ok := e.Call.Amounts[p.Name]; ok {
				out[p.Name] = strconv.FormatInt(a, 10)
			}
		}
	}
	return out
}

// TestPythonHistoryReadsOnTigerBeetle runs the scenarios of the history
// cases on a real replica and makes every read step through the generated
// tigerbeetle-python client, by its driver in alternate mode, so that the
// reads go through the blocking book (ClientSync) and the asyncio one
// (ClientAsync) in turn. Calls go through the Go runtime, since the reads
// are what is tested; each read is held to the interpreter as
// TestTigerBeetleStatementIsTheInterpreters holds the Go runtime's on a
// replica: entries field by field with their record ids, windows of time
// and balances at TigerBeetle's times, a balance whose second holds a
// deadline between two marks skipped, and a scenario stopped at a pass too
// long to wait out.
func TestPythonHistoryReadsOnTigerBeetle(t *testing.T) {
	venv := venvBin(t)
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	conn, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	for _, c := range []struct{ dir, file string }{{"history", "card.book"}, {"history_ja", "カード.book"}} {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join(casesDir, c.dir)
			src, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "scenarios.json"))
			if err != nil {
				t.Fatal(err)
			}
			pythonTBReads(t, venv, srv.Address, conn, c.file, src, data)
		})
	}
	// The history cases wait minutes and hours, which a replica cannot:
	// these books' holds expire after a second, so that every kind of
	// entry shows on a replica.
	t.Run("machinery", func(t *testing.T) {
		pythonTBReads(t, venv, srv.Address, conn, "hist.book", []byte(historyTBBook), []byte(pyMachineryScenarios))
	})
	t.Run("moves apart", func(t *testing.T) {
		pythonTBReads(t, venv, srv.Address, conn, "swap.book", []byte(swapBook), []byte(pySwapScenarios))
	})
}

// pyMachineryScenarios run on a wallet with a lower bound above 0 and an
// upper bound, whose holds bring the probes of the bound onto it: pages
// that end inside a call and are read on after more calls, newest first,
// a post in part, a void, a refusal, an expiry and a window of time that
// holds it, and another tenant with the same card.
const pyMachineryScenarios = `[{"name": "another tenant", "tenant": "other", "steps": [
  {"op": "top_up.do", "args": {"top_up_id": "t-1", "card": "c-1", "amount": 500}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-1", "card": "c-1", "price": 40, "fee": 2}, "expect": "done"},
  {"read": "statement", "account": "wallet(c-1)"},
  {"read": "holds"},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-1"}}
]},
{"name": "every kind of entry", "steps": [
  {"op": "top_up.do", "args": {"top_up_id": "t-1", "card": "c-1", "amount": 1000}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-1", "card": "c-1", "price": 300, "fee": 5}, "expect": "done"},
  {"read": "statement", "name": "first", "account": "wallet(c-1)", "limit": 2},
  {"op": "payment.post", "args": {"payment_id": "p-1"}, "amounts": {"price": 200, "fee": 5}, "expect": "done"},
  {"read": "statement", "name": "second", "account": "wallet(c-1)", "limit": 2, "after": "first"},
  {"op": "payment.hold", "args": {"payment_id": "p-2", "card": "c-1", "price": 100, "fee": 1}, "expect": "done"},
  {"op": "payment.void", "args": {"payment_id": "p-2"}, "expect": "done"},
  {"op": "payment.hold", "args": {"payment_id": "p-9", "card": "c-1", "price": 5000, "fee": 1}, "expect": "refused: keep_a_dollar"},
  {"op": "payment.hold", "args": {"payment_id": "p-3", "card": "c-1", "price": 50, "fee": 1}, "expect": "done"},
  {"read": "statement", "name": "newest", "account": "wallet(c-1)", "order": "newest", "limit": 3},
  {"read": "statement", "account": "wallet(c-1)", "order": "newest", "limit": 3, "after": "newest"},
  {"read": "statement", "account": "wallet(c-1)", "transfers": ["top_up"]},
  {"read": "statement", "account": "merchants", "transfers": ["payment"], "order": "newest"},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-1"}},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-2"}},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-9"}},
  {"read": "entries", "transfer": "top_up", "key": {"top_up_id": "t-1"}},
  {"read": "holds", "account": "wallet(c-1)"},
  {"read": "holds", "account": "fees", "transfer": "payment"},
  {"read": "holds"},
  {"pass": "2 seconds"},
  {"op": "top_up.do", "args": {"top_up_id": "t-2", "card": "c-1", "amount": 10}, "expect": "done"},
  {"read": "entries", "transfer": "payment", "key": {"payment_id": "p-3"}},
  {"read": "holds", "transfer": "payment"},
  {"read": "statement", "account": "wallet(c-1)", "from": "2 seconds"},
  {"read": "statement", "account": "wallet(c-1)", "to": "2 seconds", "order": "newest", "limit": 4},
  {"read": "balance", "account": "wallet(c-1)", "at": "0 seconds"},
  {"read": "balance", "account": "wallet(c-1)", "at": "2 seconds"},
  {"read": "statement", "account": "merchants"}
]}]`

// pySwapScenarios run on kinds whose moves join the same kinds of account
// the same way, so that only a record's place in its chain tells its move.
const pySwapScenarios = `[{"name": "moves told apart by their place", "steps": [
  {"op": "top_up.do", "args": {"top_up_id": "t-1", "card": "c-1", "amount": 1000}, "expect": "done"},
  {"op": "top_up.do", "args": {"top_up_id": "t-2", "card": "c-2", "amount": 1000}, "expect": "done"},
  {"op": "swap.hold", "args": {"swap_id": "s-1", "a": "c-1", "b": "c-2", "x": 100, "y": 30}, "expect": "done"},
  {"op": "swap.post", "args": {"swap_id": "s-1"}, "amounts": {"x": 60, "y": 30}, "expect": "done"},
  {"op": "swap.hold", "args": {"swap_id": "s-2", "a": "c-2", "b": "c-1", "x": 5, "y": 7}, "expect": "done"},
  {"op": "swap.void", "args": {"swap_id": "s-2"}, "expect": "done"},
  {"op": "split.do", "args": {"split_id": "d-1", "a": "c-1", "b": "c-2", "x": 1, "y": 2}, "expect": "done"},
  {"op": "swap.hold", "args": {"swap_id": "s-3", "a": "c-2", "b": "c-1", "x": 9, "y": 4}, "expect": "done"},
  {"read": "holds", "account": "wallet(c-1)"},
  {"read": "holds", "transfer": "swap"},
  {"read": "statement", "name": "one", "account": "wallet(c-1)", "limit": 3},
  {"read": "statement", "account": "wallet(c-1)", "limit": 3, "after": "one"},
  {"read": "statement", "account": "wallet(c-2)", "order": "newest"},
  {"read": "entries", "transfer": "swap", "key": {"swap_id": "s-1"}},
  {"read": "entries", "transfer": "split", "key": {"split_id": "d-1"}},
  {"pass": "2 seconds"},
  {"read": "entries", "transfer": "swap", "key": {"swap_id": "s-3"}},
  {"read": "holds"},
  {"read": "balance", "account": "wallet(c-1)", "at": "2 seconds"},
  {"read": "statement", "account": "wallet(c-1)"}
]}]`

func pythonTBReads(t *testing.T, venv, address string, c chobotb.Client, file string, src, data []byte) {
	res := check.Check(file, src)
	if res.Book == nil {
		t.Fatalf("%s does not check: %v", file, res.Diags)
	}
	b := res.Book
	scs, err := scenario.Read(b, data)
	if err != nil {
		t.Fatal(err)
	}
	def := tigerbeetle.Def(b)
	m, err := model.New(b, model.TigerBeetle)
	if err != nil {
		t.Fatal(err)
	}
	client, err := python.Generate(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	clientPath := filepath.Join(t.TempDir(), python.FileName(b))
	if err := os.WriteFile(clientPath, client, 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := json.Marshal(python.Describe(m))
	if err != nil {
		t.Fatal(err)
	}
	drv := startPythonReader(t, filepath.Join(venv, "python"), clientPath, nil)
	if r := drv.ask(t, map[string]any{"op": "open", "target": "tigerbeetle-python", "names": json.RawMessage(names),
		"tigerbeetle": address}); r["error"] != nil {
		t.Fatalf("open: %v", r["error"])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rfc := func(at time.Time) string { return at.UTC().Format(protocol.TimeFormat) }
	ask := func(req map[string]any, what string) map[string]any {
		t.Helper()
		r := drv.ask(t, req)
		if r["error"] != nil {
			t.Fatalf("%s: %v", what, r["error"])
		}
		return r
	}
	decode := func(x any, into any) {
		t.Helper()
		raw, _ := json.Marshal(x)
		if err := json.Unmarshal(raw, into); err != nil {
			t.Fatal(err)
		}
	}
	num := func(s string) int64 {
		t.Helper()
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("an amount of %q", s)
		}
		return n
	}
	when := func(s string) time.Time {
		t.Helper()
		if s == "" {
			return time.Time{}
		}
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("a time of %q: %v", s, err)
		}
		return at
	}
	entriesOf := func(r map[string]any) []chobo.Entry {
		var list []protocol.Entry
		decode(r["entries"], &list)
		out := []chobo.Entry{}
		for _, e := range list {
			g := chobo.Entry{Transfer: e.Transfer, Op: e.Op, Key: e.Key, Args: e.Args, ID: e.ID, Move: e.Move, Out: e.Out,
				Account: e.Account, AccountArgs: e.AccountArgs, Posted: num(e.Posted), HeldIn: num(e.HeldIn),
				HeldOut: num(e.HeldOut), At: when(e.At), Cursor: e.Cursor}
			if e.After != nil {
				g.After = &chobo.Balance{Posted: num(e.After.Posted), HeldIn: num(e.After.HeldIn), HeldOut: num(e.After.HeldOut)}
			}
			out = append(out, g)
		}
		return out
	}
	accountArgs := func(a *interp.Account) map[string]string {
		out := map[string]string{}
		for i, p := range a.Kind.Params {
			out[p] = a.Args[i]
		}
		return out
	}
	compared := 0
	run := fmt.Sprintf("%x", time.Now().UnixNano())
	for n, sc := range scs {
		tenant := fmt.Sprintf("py-%s-%s-%d", sc.Tenant, run, n)
		rt := &conformance.Runtime{Client: c, Def: def}
		ref := interp.New(b)
		ref.KeepHistory()
		now := func() uint64 { return uint64(time.Now().UnixNano()) } // the replica runs on this machine's clock
		marks := []clockMark{{0, now()}}
		tbTime := func(s int64) time.Time {
			for _, m := range marks {
				if m.s >= s {
					return time.Unix(0, int64(m.ts)).UTC()
				}
			}
			return time.Unix(0, int64(now())).UTC()
		}
		pyCursor, refCursor := map[int]string{}, map[int]string{}
		where := func(i int) string { return fmt.Sprintf("%s: step %d", sc.Name, i+1) }
		cmp := &entryCmp{t: t, def: def, tenant: tenant, start: marks[0].ts}
		statement := func(i int, rd *scenario.ReadStep) {
			t.Helper()
			f := interp.Filter{Transfers: rd.Transfers, Order: rd.Order, Limit: rd.Limit, From: rd.From, To: rd.To}
			req := map[string]any{"op": "statement", "tenant": tenant, "account": rd.Account.Kind.Name,
				"args": accountArgs(rd.Account), "newest": rd.Order == interp.Newest, "limit": rd.Limit}
			if rd.AfterStep >= 0 {
				f.After, req["after"] = refCursor[rd.AfterStep], pyCursor[rd.AfterStep]
			}
			var kinds []string
			for _, tr := range rd.Transfers {
				kinds = append(kinds, tr.Name)
			}
			if len(kinds) > 0 {
				req["transfers"] = kinds
			}
			if rd.FromText != "" {
				req["from"] = rfc(tbTime(rd.From))
			}
			if rd.To != nil {
				req["to"] = rfc(tbTime(*rd.To))
			}
			want, err := ref.Statement(*rd.Account, f)
			if err != nil {
				t.Fatal(err)
			}
			if rd.FromText != "" || rd.To != nil {
				// An expiry is at its deadline on TigerBeetle, at the end of
				// the pass that reached it in the interpreter: the window
				// keeps the interpreter's entries at TigerBeetle's times.
				all, err := ref.Statement(*rd.Account, interp.Filter{Transfers: rd.Transfers, Order: rd.Order})
				if err != nil {
					t.Fatal(err)
				}
				want = interp.Page{}
				for _, e := range all.Entries {
					s := cmp.seconds(all.Entries, e)
					if s >= rd.From && (rd.To == nil || s < *rd.To) {
						if rd.Limit > 0 && len(want.Entries) == rd.Limit {
							want.More = true
							break
						}
						want.Entries = append(want.Entries, e)
					}
				}
			}
			label := where(i) + ": " + rd.Label(diag.English)
			r := ask(req, label)
			next, _ := r["next"].(string)
			more, _ := r["more"].(bool)
			pyCursor[i], refCursor[i] = next, want.Next
			if more != want.More {
				t.Errorf("%s: more %v from the Python client, %v in the interpreter", label, more, want.More)
			}
			compared += cmp.entries(label, entriesOf(r), want.Entries, history(ref, *rd.Account), false)
		}
	steps:
		for i, st := range sc.Steps {
			switch {
			case st.Call != nil:
				want, werr := ref.Apply(st.Call.Call)
				got, gerr := rt.Call(ctx, st.Call.Call, tenant)
				if (werr != nil) != (gerr != nil) || got.Outcome != want.Outcome || got.Reason != want.Reason {
					t.Fatalf("%s: %s: %v, %v on TigerBeetle; %v, %v in the interpreter", where(i), st.Call, got, gerr, want, werr)
				}
			case st.PassText != "":
				if st.Pass > 5 {
					t.Logf("SKIP: %s: a replica's clock cannot be moved on %s; the scenario stops here", where(i), st.PassText)
					break steps
				}
				if _, err := ref.Pass(st.Pass); err != nil {
					t.Fatal(err)
				}
				// Past the deadline and the pulse that releases it.
				time.Sleep(time.Duration(st.Pass)*time.Second + 500*time.Millisecond)
				marks = append(marks, clockMark{ref.Now, now()})
			case st.Read != nil:
				rd := st.Read
				label := where(i) + ": " + rd.Label(diag.English)
				switch rd.Kind {
				case scenario.ReadStatement:
					statement(i, rd)
				case scenario.ReadEntries:
					want, err := ref.CallEntries(rd.Transfer, rd.Key)
					if err != nil {
						t.Fatal(err)
					}
					args := map[string]string{}
					for n, p := range rd.Transfer.Key {
						args[p.Name] = rd.Key[n]
					}
					r := ask(map[string]any{"op": "entries", "tenant": tenant, "transfer": rd.Transfer.Name, "args": args}, label)
					compared += cmp.entries(label, entriesOf(r), want, nil, true)
				case scenario.ReadHolds:
					req := map[string]any{"op": "holds", "tenant": tenant}
					if rd.Account != nil {
						req["account"], req["args"] = rd.Account.Kind.Name, accountArgs(rd.Account)
					}
					if rd.Transfer != nil {
						req["transfer"] = rd.Transfer.Name
					}
					var list []protocol.Hold
					decode(ask(req, label)["holds"], &list)
					var got []chobo.OpenHold
					for _, h := range list {
						g := chobo.OpenHold{Transfer: h.Transfer, Key: h.Key, ID: h.ID, Created: when(h.Created), Deadline: when(h.Deadline)}
						for _, mv := range h.Moves {
							g.Moves = append(g.Moves, chobo.HoldMove{Move: mv.Move, From: mv.From, To: mv.To,
								FromArgs: mv.FromArgs, ToArgs: mv.ToArgs, Amount: num(mv.Amount)})
						}
						got = append(got, g)
					}
					compared += cmp.holds(label, got, ref.OpenHolds(rd.Account, rd.Transfer), rd.Account)
				case scenario.ReadBalance:
					// Just before the first mark past that second.
					at := time.Unix(0, int64(now())).UTC()
					next := int64(-1)
					for _, m := range marks {
						if m.s > rd.At {
							at, next = time.Unix(0, int64(m.ts)-1).UTC(), m.s
							break
						}
					}
					want, err := ref.BalanceAt(*rd.Account, rd.At)
					if err != nil {
						t.Fatal(err)
					}
					entries := history(ref, *rd.Account)
					for _, e := range entries {
						d := cmp.seconds(entries, e)
						switch {
						case e.Op != interp.Expire || e.Time == d:
						case d <= rd.At && rd.At < e.Time:
							// Given back at its deadline on TigerBeetle, at
							// the end of the pass in the interpreter.
							want.HeldOut -= -e.HeldOut
							want.HeldIn -= -e.HeldIn
						case d > rd.At && (next < 0 || d <= next):
							t.Logf("SKIP: %s: the deadline of %s falls between that second and the next mark the run took on the replica, so the balance read there depends on when it is read",
								label, e.CallText())
							continue steps
						}
					}
					r := ask(map[string]any{"op": "balance_at", "tenant": tenant, "account": rd.Account.Kind.Name,
						"args": accountArgs(rd.Account), "at": rfc(at)}, label)
					got := fmt.Sprintf("(%v,%v,%v)", r["posted"], r["held_in"], r["held_out"])
					if w := fmt.Sprintf("(%d,%d,%d)", want.Posted, want.HeldIn, want.HeldOut); got != w {
						t.Errorf("%s: %s from the Python client, %s in the interpreter", label, got, w)
					}
					compared++
				}
			}
		}
		// And at the end, the whole statement of every account a read
		// named, unless a hold on it that the interpreter keeps open may
		// have lapsed on the replica by now: its expiry is then in the
		// statement or not by when it is read (a busy machine, a slow
		// driver), and the statement is left uncompared, aloud.
		for i, st := range sc.Steps {
			if st.Read == nil || st.Read.Account == nil {
				continue
			}
			if h := lapsedHold(ref, st.Read.Account, marks, now()); h != nil {
				t.Logf("SKIP: %s: the whole statement of %s: the hold %s may have lapsed on the replica before it was read", where(i), st.Read.Account, h.Name())
				continue
			}
			statement(i, &scenario.ReadStep{Kind: scenario.ReadStatement, Account: st.Read.Account, AfterStep: -1, Limit: chobo.MaxPage})
		}
	}
	if compared == 0 {
		t.Fatal("nothing was compared")
	}
	if drv.sync == 0 || drv.async == 0 {
		t.Fatalf("the reads went through one book only: %d blocking, %d asyncio", drv.sync, drv.async)
	}
	t.Logf("%d entries, holds and balances compared (%d reads through the blocking book, %d through the asyncio one)",
		compared, drv.sync, drv.async)
}

// lapsedHold is a hold on a that ref keeps open but whose lifetime, counted
// from the machine's clock at the last mark no later than its making (it
// was made after that mark), has passed by now: the replica may have let
// it lapse. nil when there is none.
func lapsedHold(ref *interp.State, a *interp.Account, marks []clockMark, now uint64) *interp.Hold {
	for _, h := range ref.OpenHolds(a, nil) {
		if !h.Transfer.Pending.Expires {
			continue
		}
		var made uint64
		for _, m := range marks {
			if m.s <= h.Created {
				made = m.ts
			}
		}
		if now >= made+uint64(h.Deadline-h.Created)*uint64(time.Second) {
			return h
		}
	}
	return nil
}
