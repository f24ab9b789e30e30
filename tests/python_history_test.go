package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/client/python"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
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
	cmd := exec.Command(py, filepath.Join(pyRuntimeDir, "driver", "driver.py"), "--mode", "alternate", client)
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

// TestPythonHistoryTypesMirrorGo holds the Python runtime's history types
// to the Go runtime's, field by field and in order: the Go name in snake
// case, from_ for From, which is a keyword.
func TestPythonHistoryTypesMirrorGo(t *testing.T) {
	venv := venvBin(t)
	script := `
import dataclasses, json, sys
sys.path.insert(0, "src")
from chobo import chobo
print(json.dumps({n: [f.name for f in dataclasses.fields(getattr(chobo, n))]
                  for n in ("Entry", "StatementQuery", "Statement", "OpenHold", "HoldMove")}))
`
	cmd := exec.Command(filepath.Join(venv, "python"), "-c", script)
	cmd.Dir = pyRuntimeDir
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var got map[string][]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	snake := func(name string) string {
		if name == "ID" {
			return "id"
		}
		if name == "From" {
			return "from_"
		}
		var s strings.Builder
		for i, r := range name {
			if r >= 'A' && r <= 'Z' {
				if i > 0 {
					s.WriteByte('_')
				}
				r += 'a' - 'A'
			}
			s.WriteRune(r)
		}
		return s.String()
	}
	for name, v := range map[string]any{"Entry": chobo.Entry{}, "StatementQuery": chobo.StatementQuery{},
		"Statement": chobo.Statement{}, "OpenHold": chobo.OpenHold{}, "HoldMove": chobo.HoldMove{}} {
		typ := reflect.TypeOf(v)
		var want []string
		for i := 0; i < typ.NumField(); i++ {
			want = append(want, snake(typ.Field(i).Name))
		}
		if !slices.Equal(got[name], want) {
			t.Errorf("%s: the Python runtime has %v, the Go one %v", name, got[name], want)
		}
	}
}
