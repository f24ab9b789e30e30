package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/target"
	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
)

// TestTypeScriptHistoryOnPostgres runs the scenarios of the history
// cases on a real server and makes every read step through the generated
// TypeScript client, driven by its driver (the statement, entries, holds
// and balance_at requests), holding each answer to what the interpreter
// reads on the book. The calls go through the book's SQL functions, as
// the other history tests send them: what is tested here is the reading.
//
// Time is mapped as on the server alone: the server's clock at the end of
// each pass is a mark, and an entry written after the mark of the pass
// that brought the scenario to t (and before the next) is at t. A Date
// holds milliseconds, so marks are cut to milliseconds before the
// entries' times are held to them. A page's "more" is compared too: the
// client asks for one entry more than its page.
func TestTypeScriptHistoryOnPostgres(t *testing.T) {
	node, _ := typeScript(t)
	modules, err := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := target.Lookup("postgres-typescript")
	if !ok {
		t.Fatal("no postgres-typescript target")
	}
	for _, name := range []string{"history", "history_ja"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(casesDir, name)
			books, _ := filepath.Glob(filepath.Join(dir, "*.book"))
			if len(books) != 1 {
				t.Fatalf("the book of %s: %v", name, books)
			}
			orig, src := loadBook(t, books[0])
			data, err := os.ReadFile(filepath.Join(dir, "scenarios.json"))
			if err != nil {
				t.Fatal(err)
			}
			scs, err := scenario.Read(orig, data)
			if err != nil {
				t.Fatal(err)
			}
			copySrc, cp, err := conformance.Shorten(orig, src)
			if err != nil {
				t.Fatal(err)
			}
			files, ds, err := g.Build(cp, gen.NewSource(filepath.Base(books[0]), copySrc), gen.Options{})
			if err != nil || len(ds) > 0 || len(files) != 1 {
				t.Fatalf("the test copy's TypeScript client: %v %v", ds, err)
			}
			work := t.TempDir()
			if err := tsdriver.Compile(tsdriver.Node{Program: node, Modules: modules}, work, map[string][]byte{files[0].Path: files[0].Data}); err != nil {
				t.Fatal(err)
			}

			srv := pgtest.Start(t)
			pool := srv.Pool(t, 2)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			installSQL(t, pool, cp, copySrc)
			be, err := conformance.NewSQL(cp, pool, pool)
			if err != nil {
				t.Fatal(err)
			}
			open, err := conformance.Open(cp, g.Name)
			if err != nil {
				t.Fatal(err)
			}
			open.DSN = srv.ConnString(pgtest.DefaultDB)
			d := startTSDriver(t, node, tsdriver.DriverArgs(work, files[0].Path), open)

			reads := 0
			for i, sc := range scs {
				reads += tsHistoryScenario(t, ctx, d, pool, be, orig, cp, sc, fmt.Sprintf("ts%d", i))
			}
			if reads == 0 {
				t.Fatal("no read step in the scenarios")
			}
			t.Logf("%d scenarios, %d reads through the TypeScript client compared", len(scs), reads)
		})
	}
}

// tsDriver is a TypeScript driver spoken to one request at a time.
type tsDriver struct {
	t      *testing.T
	in     io.Writer
	out    *bufio.Scanner
	nextID int64
}

func startTSDriver(t *testing.T, node string, args []string, open protocol.Request) *tsDriver {
	t.Helper()
	cmd := exec.Command(node, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the driver: %v\n%s", err, stderr.String())
		}
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	d := &tsDriver{t: t, in: in, out: sc}
	if res := d.ask(open); !res.OK {
		t.Fatalf("open: %+v", res)
	}
	return d
}

// ask sends one request and reads its answer; an answer with an error
// fails the test.
func (d *tsDriver) ask(req protocol.Request) protocol.Response {
	d.t.Helper()
	res := d.try(req)
	if res.Error != "" {
		d.t.Fatalf("%s: %s", req.Op, res.Error)
	}
	return res
}

func (d *tsDriver) try(req protocol.Request) protocol.Response {
	d.t.Helper()
	d.nextID++
	req.ID = d.nextID
	line, err := json.Marshal(req)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.in.Write(append(line, '\n')); err != nil {
		d.t.Fatal(err)
	}
	if !d.out.Scan() {
		d.t.Fatalf("%s: the driver answered nothing: %v", req.Op, d.out.Err())
	}
	var res protocol.Response
	if err := json.Unmarshal(d.out.Bytes(), &res); err != nil {
		d.t.Fatalf("%s: %v: %s", req.Op, err, d.out.Bytes())
	}
	if res.ID != req.ID {
		d.t.Fatalf("%s: the answer to %d came for %d", req.Op, req.ID, res.ID)
	}
	return res
}

// tsMark is the server's clock, cut to milliseconds as a Date holds it,
// at the end of a pass, and the scenario's time that pass brought.
type tsMark struct {
	t  int64
	at time.Time
}

func tsHistoryScenario(t *testing.T, ctx context.Context, d *tsDriver, pool *pgxpool.Pool, be conformance.SQL, orig, cp *book.Book, sc scenario.Scenario, tenant string) int {
	t.Helper()
	want := scenario.Run(orig, sc)
	scaled, err := conformance.Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	var marks []tsMark
	var now int64
	first := func(s int64, past bool) *time.Time {
		for _, m := range marks {
			if m.t > s || (!past && m.t == s) {
				return &m.at
			}
		}
		return nil
	}
	timeOf := func(text string) int64 {
		at, err := time.Parse(protocol.TimeFormat, text)
		if err != nil {
			t.Fatalf("the time %q: %v", text, err)
		}
		var s int64
		for _, m := range marks {
			if !at.Before(m.at) {
				s = m.t
			}
		}
		return s
	}
	nexts := map[int]string{}
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
			got, wantLines := tsHistoryRead(t, d, orig, tenant, rd, exp, first, pgLines(t, timeOf), nexts, i)
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Errorf("%s: step %d (%s):\nTypeScript client:\n  %s\ninterpreter:\n  %s", sc.Name, i+1, rd.Label(diag.English),
					strings.Join(got, "\n  "), strings.Join(wantLines, "\n  "))
			}
		default:
			time.Sleep(time.Duration(st.Pass)*time.Second + 200*time.Millisecond)
			now += sc.Steps[i].Pass
			var at time.Time
			if err := pool.QueryRow(ctx, `select clock_timestamp()`).Scan(&at); err != nil {
				t.Fatal(err)
			}
			marks = append(marks, tsMark{now, at.Truncate(time.Millisecond)})
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

// byName gives values by the names of their parameters, as the protocol
// carries them.
func byName(names, values []string) map[string]string {
	out := map[string]string{}
	for i, n := range names {
		out[n] = values[i]
	}
	return out
}

// tsEntryLine is what both sides of the comparison write of an entry:
// everything it holds but its cursor and its exact time.
func tsEntryLine(account string, s int64, transfer, op string, key []string, args map[string]string, move int, out bool, posted, heldOut, heldIn string, after *[3]string) string {
	var kv []string
	for k, v := range args {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	line := fmt.Sprintf("%s at %ds: %s.%s(%s) [%s] move %d out=%v; posted %s, held out %s, held in %s", account, s, transfer, op,
		strings.Join(key, ", "), strings.Join(kv, " "), move, out, posted, heldOut, heldIn)
	if after != nil {
		line += fmt.Sprintf(" -> %s, %s, %s", after[0], after[1], after[2])
	}
	return line
}

// interpEntryLine writes an entry of the interpreter as tsEntryLine does.
// PostgreSQL keeps no balance after an entry of an account without
// bounds.
func interpEntryLine(e interp.Entry) string {
	args := map[string]string{}
	for k, v := range e.Call.Strings {
		args[k] = v
	}
	for k, v := range e.Call.Amounts {
		args[k] = fmt.Sprint(v)
	}
	var after *[3]string
	if e.Account.Kind.Lower != nil || e.Account.Kind.Upper != nil {
		after = &[3]string{fmt.Sprint(e.After.Posted), fmt.Sprint(e.After.HeldOut), fmt.Sprint(e.After.HeldIn)}
	}
	return tsEntryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, args, e.Move, e.Out,
		fmt.Sprint(e.Posted), fmt.Sprint(e.HeldOut), fmt.Sprint(e.HeldIn), after)
}

func protocolEntryLines(entries *[]protocol.Entry, timeOf func(string) int64) []string {
	var out []string
	if entries == nil {
		return []string{"(no entries in the answer)"}
	}
	for _, e := range *entries {
		var after *[3]string
		if e.After != nil {
			after = &[3]string{e.After.Posted, e.After.HeldOut, e.After.HeldIn}
		}
		out = append(out, tsEntryLine(book.KindArgs(e.Account, e.AccountArgs), timeOf(e.At), e.Transfer, e.Op, e.Key, e.Args,
			e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, after))
	}
	return out
}

// readLines writes both sides of a read for the comparison: the
// driver's answer (got, gotHolds) and the interpreter's (want,
// wantHolds); byKey says entries were read by a call's key, by the
// account holds were read by (nil for none). Each backend keeps what it
// keeps, so each has its own.
type readLines struct {
	got       func(entries *[]protocol.Entry, byKey bool) []string
	want      func(e interp.Entry, byKey bool) string
	gotHolds  func(res protocol.Response) []string
	wantHolds func(holds []*interp.Hold, by *interp.Account) []string
}

// pgLines are the lines of a read on PostgreSQL.
func pgLines(t *testing.T, timeOf func(string) int64) readLines {
	return readLines{
		got:       func(es *[]protocol.Entry, _ bool) []string { return protocolEntryLines(es, timeOf) },
		want:      func(e interp.Entry, _ bool) string { return interpEntryLine(e) },
		gotHolds:  func(res protocol.Response) []string { return tsHoldLines(t, res, timeOf) },
		wantHolds: func(holds []*interp.Hold, _ *interp.Account) []string { return interpHoldLines(holds) },
	}
}

func tsHistoryRead(t *testing.T, d *tsDriver, b *book.Book, tenant string, rd *scenario.ReadStep, exp *scenario.ReadResult,
	first func(int64, bool) *time.Time, lines readLines, nexts map[int]string, step int) (got, want []string) {
	t.Helper()
	req := protocol.Request{Tenant: tenant}
	if rd.Account != nil {
		req.Account, req.Args = rd.Account.Kind.Name, byName(rd.Account.Kind.Params, rd.Account.Args)
	}
	format := func(at time.Time) string { return at.UTC().Format(protocol.TimeFormat) }
	switch rd.Kind {
	case scenario.ReadStatement:
		req.Op = protocol.Statement
		for _, tr := range rd.Transfers {
			req.Transfers = append(req.Transfers, tr.Name)
		}
		if rd.From > 0 {
			if from := first(rd.From, false); from != nil {
				req.From = format(*from)
			} else {
				req.From = format(time.Now().Add(time.Hour))
			}
		}
		if rd.To != nil {
			if to := first(*rd.To, false); to != nil {
				req.To = format(*to)
			}
		}
		req.Newest = rd.Order == interp.Newest
		req.Limit = rd.Limit
		if rd.AfterStep >= 0 {
			req.After = nexts[rd.AfterStep]
		}
		res := d.ask(req)
		nexts[step] = res.Next
		got = append(lines.got(res.Entries, false), fmt.Sprintf("more: %v", res.More))
		for _, e := range exp.Entries {
			want = append(want, lines.want(e, false))
		}
		want = append(want, fmt.Sprintf("more: %v", exp.More))
		if res.Entries != nil && len(*res.Entries) > 0 && res.Next != (*res.Entries)[len(*res.Entries)-1].Cursor {
			got = append(got, fmt.Sprintf("next %q is not the last entry's cursor", res.Next))
		}
	case scenario.ReadEntries:
		req.Op = protocol.Entries
		req.Transfer = rd.Transfer.Name
		req.Args = byName(keyNames(rd.Transfer), rd.Key)
		got = lines.got(d.ask(req).Entries, true)
		for _, e := range exp.Entries {
			want = append(want, lines.want(e, true))
		}
	case scenario.ReadHolds:
		req.Op = protocol.Holds
		if rd.Transfer != nil {
			req.Transfer = rd.Transfer.Name
		}
		got, want = lines.gotHolds(d.ask(req)), lines.wantHolds(exp.Holds, rd.Account)
		// The requests the scenarios do not make: an account's holds kept
		// to one kind, and every hold of the book, which is the one
		// kind's when the book has one kind that holds.
		var holding []*book.Transfer
		for _, tr := range b.Transfers {
			if tr.Pending != nil {
				holding = append(holding, tr)
			}
		}
		switch {
		case rd.Account != nil && rd.Transfer == nil:
			for _, tr := range holding {
				both := req
				both.Transfer = tr.Name
				var kept []*interp.Hold
				for _, h := range exp.Holds {
					if h.Transfer == tr {
						kept = append(kept, h)
					}
				}
				got = append(append(got, "of "+tr.Name+":"), lines.gotHolds(d.ask(both))...)
				want = append(append(want, "of "+tr.Name+":"), lines.wantHolds(kept, rd.Account)...)
			}
		case rd.Account == nil && len(holding) == 1:
			every := req
			every.Transfer = ""
			got = append(append(got, "of any kind:"), lines.gotHolds(d.ask(every))...)
			want = append(append(want, "of any kind:"), lines.wantHolds(exp.Holds, nil)...)
		}
	case scenario.ReadBalance:
		req.Op = protocol.BalanceAt
		if at := first(rd.At, true); at != nil {
			req.At = format(at.Add(-time.Millisecond))
		} else {
			req.At = format(time.Now().Add(time.Hour))
		}
		res := d.ask(req)
		got = []string{fmt.Sprintf("posted %s, held out %s, held in %s", res.Posted, res.HeldOut, res.HeldIn)}
		want = []string{fmt.Sprintf("posted %d, held out %d, held in %d", exp.Balance.Posted, exp.Balance.HeldOut, exp.Balance.HeldIn)}
	}
	return got, want
}

func tsHoldLines(t *testing.T, res protocol.Response, timeOf func(string) int64) []string {
	t.Helper()
	if res.Holds == nil {
		t.Fatalf("holds: no holds in the answer")
	}
	var out []string
	for _, h := range *res.Holds {
		var moves []string
		for _, m := range h.Moves {
			moves = append(moves, fmt.Sprintf("%d: %s %s -> %s", m.Move, m.Amount, book.KindArgs(m.From, m.FromArgs), book.KindArgs(m.To, m.ToArgs)))
		}
		out = append(out, fmt.Sprintf("%s held at %ds, expires %v: %s", book.KindArgs(h.Transfer, h.Key), timeOf(h.Created), h.Deadline != "",
			strings.Join(moves, "; ")))
	}
	return out
}

func interpHoldLines(holds []*interp.Hold) []string {
	var out []string
	for _, h := range holds {
		var moves []string
		for i, a := range h.Amounts {
			moves = append(moves, fmt.Sprintf("%d: %d %s -> %s", i+1, a, h.From[i], h.To[i]))
		}
		out = append(out, fmt.Sprintf("%s held at %ds, expires %v: %s", h.Name(), h.Created, h.Transfer.Pending.Expires, strings.Join(moves, "; ")))
	}
	return out
}

// keyNames are the names of a transfer kind's key, in key order.
func keyNames(tr *book.Transfer) []string {
	var out []string
	for _, p := range tr.Key {
		out = append(out, p.Name)
	}
	return out
}

// TestTypeScriptHistoryOnTigerBeetle runs the scenarios of the history
// cases on a real replica through the generated TypeScript TigerBeetle
// client, driven by its driver (the calls, and the statement, entries,
// holds and balance_at requests), holding each read to what the
// interpreter reads on the book. Holds expire after seconds in a copy
// of the book, and the passes are scaled to it, as the conformance runs
// do.
//
// Time: a replica on this machine follows its clock. Each pass is waited
// out between two instants of that clock, its start and its end; the
// calls of the scenario's second t come after the end of the pass that
// brought it, and a hold that expires in a pass has its deadline within
// it (TigerBeetle dates an expiry at the deadline, the interpreter at the
// end of the pass). So an entry is at the t of the last pass that
// started before it, and "from t", "to t" and "balance at t" are held
// to the start of the pass that brings t (the balance just before it).
// A call's entries and a statement's are compared with what TigerBeetle
// keeps: no call's arguments, a key only when read by it, the account's
// values only where the key or the read names them, and a balance after
// every entry of a statement whatever the account's bounds.
func TestTypeScriptHistoryOnTigerBeetle(t *testing.T) {
	realTigerBeetle(t)
	node, _ := typeScript(t)
	modules, err := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := target.Lookup("tigerbeetle-typescript")
	if !ok {
		t.Fatal("no tigerbeetle-typescript target")
	}
	srv := tbtest.Replica(t)
	run := fmt.Sprintf("%x", time.Now().UnixNano())
	for _, name := range []string{"history", "history_ja"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(casesDir, name)
			books, _ := filepath.Glob(filepath.Join(dir, "*.book"))
			if len(books) != 1 {
				t.Fatalf("the book of %s: %v", name, books)
			}
			orig, src := loadBook(t, books[0])
			data, err := os.ReadFile(filepath.Join(dir, "scenarios.json"))
			if err != nil {
				t.Fatal(err)
			}
			scs, err := scenario.Read(orig, data)
			if err != nil {
				t.Fatal(err)
			}
			copySrc, cp, err := conformance.Shorten(orig, src)
			if err != nil {
				t.Fatal(err)
			}
			files, ds, err := g.Build(cp, gen.NewSource(filepath.Base(books[0]), copySrc), gen.Options{})
			if err != nil || len(ds) > 0 || len(files) != 1 {
				t.Fatalf("the test copy's TypeScript client: %v %v", ds, err)
			}
			work := t.TempDir()
			if err := tsdriver.Compile(tsdriver.Node{Program: node, Modules: modules}, work, map[string][]byte{files[0].Path: files[0].Data}); err != nil {
				t.Fatal(err)
			}
			open, err := conformance.Open(cp, g.Name)
			if err != nil {
				t.Fatal(err)
			}
			open.TigerBeetle = srv.Address
			d := startTSDriver(t, node, tsdriver.DriverArgs(work, files[0].Path), open)
			reads := 0
			for i, sc := range scs {
				reads += tsHistoryScenarioTB(t, d, orig, cp, sc, fmt.Sprintf("%s-%s-%d", sc.Tenant, run, i))
			}
			if reads == 0 {
				t.Fatal("no read step in the scenarios")
			}
			t.Logf("%d scenarios, %d reads through the TypeScript TigerBeetle client compared", len(scs), reads)
		})
	}
}

func tsHistoryScenarioTB(t *testing.T, d *tsDriver, orig, cp *book.Book, sc scenario.Scenario, tenant string) int {
	t.Helper()
	want := scenario.Run(orig, sc)
	scaled, err := conformance.Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	// marks are the passes: the scenario's time each brought, and the
	// instant it started, cut to milliseconds as a Date holds it.
	var marks []tsMark
	var now int64
	first := func(s int64, past bool) *time.Time {
		for _, m := range marks {
			if m.t > s || (!past && m.t == s) {
				return &m.at
			}
		}
		return nil
	}
	timeOf := func(text string) int64 {
		at, err := time.Parse(protocol.TimeFormat, text)
		if err != nil {
			t.Fatalf("the time %q: %v", text, err)
		}
		var s int64
		for _, m := range marks {
			if at.After(m.at) {
				s = m.t
			}
		}
		return s
	}
	nexts := map[int]string{}
	reads, calls := 0, 0
	for i, st := range scaled.Steps {
		switch {
		case st.Together != nil:
			t.Fatalf("%s: step %d: together is not run here", sc.Name, i+1)
		case st.Call != nil:
			c := st.Call.Call
			args := map[string]string{}
			for k, v := range c.Strings {
				args[k] = v
			}
			for k, v := range c.Amounts {
				args[k] = protocol.FormatAmount(v)
			}
			res := d.ask(protocol.Request{Op: protocol.Call, Tenant: tenant, Transfer: c.Transfer.Name, Operation: string(c.Op), Args: args})
			if o, _ := interp.ParseOutcome(res.Outcome); o != want[0].Results[calls].Outcome || res.Reason != want[0].Results[calls].Reason {
				t.Fatalf("%s: step %d: %s %s on TigerBeetle, %v in the interpreter", sc.Name, i+1, res.Outcome, res.Reason, want[0].Results[calls])
			}
			calls++
		case st.Read != nil:
			reads++
			rd, exp := sc.Steps[i].Read, want[0].Reads[i]
			got, wantLines := tsHistoryRead(t, d, orig, tenant, rd, exp, first, tbLines(timeOf), nexts, i)
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Errorf("%s: step %d (%s):\nTypeScript client:\n  %s\ninterpreter:\n  %s", sc.Name, i+1, rd.Label(diag.English),
					strings.Join(got, "\n  "), strings.Join(wantLines, "\n  "))
			}
		default:
			// The calls before are a few milliseconds behind the start.
			time.Sleep(5 * time.Millisecond)
			start := time.Now().Truncate(time.Millisecond)
			time.Sleep(time.Duration(st.Pass)*time.Second + 300*time.Millisecond)
			now += sc.Steps[i].Pass
			marks = append(marks, tsMark{now, start})
		}
	}
	return reads
}

// tbLines are the lines of a read on TigerBeetle. An account's values
// that TigerBeetle does not know are written "(?)" on both sides.
func tbLines(timeOf func(string) int64) readLines {
	account := func(kind string, args []string) string {
		if args == nil {
			return kind + "(?)"
		}
		return book.KindArgs(kind, args)
	}
	known := func(a interp.Account, ok bool) string {
		if !ok {
			return account(a.Kind.Name, nil)
		}
		return account(a.Kind.Name, append([]string{}, a.Args...))
	}
	return readLines{
		got: func(es *[]protocol.Entry, _ bool) []string {
			if es == nil {
				return []string{"(no entries in the answer)"}
			}
			var out []string
			for _, e := range *es {
				var after *[3]string
				if e.After != nil {
					after = &[3]string{e.After.Posted, e.After.HeldOut, e.After.HeldIn}
				}
				line := tsEntryLine(account(e.Account, e.AccountArgs), timeOf(e.At), e.Transfer, e.Op, e.Key, e.Args,
					e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, after)
				if e.ID == "" {
					line += " (no id)"
				}
				out = append(out, line)
			}
			return out
		},
		want: func(e interp.Entry, byKey bool) string {
			var key []string
			var after *[3]string
			if byKey {
				key = e.Key
			} else {
				after = &[3]string{fmt.Sprint(e.After.Posted), fmt.Sprint(e.After.HeldOut), fmt.Sprint(e.After.HeldIn)}
			}
			return tsEntryLine(known(e.Account, !byKey || len(e.Account.Args) == 0 || keyHolds(e)), e.Time, e.Call.Transfer.Name,
				string(e.Op), key, nil, e.Move, e.Out, fmt.Sprint(e.Posted), fmt.Sprint(e.HeldOut), fmt.Sprint(e.HeldIn), after)
		},
		gotHolds: func(res protocol.Response) []string {
			if res.Holds == nil {
				return []string{"(no holds in the answer)"}
			}
			var out []string
			for _, h := range *res.Holds {
				var moves []string
				for _, m := range h.Moves {
					moves = append(moves, fmt.Sprintf("%d: %s %s -> %s", m.Move, m.Amount, account(m.From, m.FromArgs), account(m.To, m.ToArgs)))
				}
				out = append(out, fmt.Sprintf("%s %v held at %ds, expires %v: %s", h.Transfer, h.Key, timeOf(h.Created), h.Deadline != "",
					strings.Join(moves, "; ")))
			}
			return out
		},
		wantHolds: func(holds []*interp.Hold, by *interp.Account) []string {
			var out []string
			for _, h := range holds {
				var moves []string
				for i, a := range h.Amounts {
					side := func(acc interp.Account) string {
						return known(acc, len(acc.Args) == 0 || (by != nil && by.Kind == acc.Kind && slices.Equal(by.Args, acc.Args)))
					}
					moves = append(moves, fmt.Sprintf("%d: %d %s -> %s", i+1, a, side(h.From[i]), side(h.To[i])))
				}
				out = append(out, fmt.Sprintf("%s [] held at %ds, expires %v: %s", h.Transfer.Name, h.Created, h.Transfer.Pending.Expires, strings.Join(moves, "; ")))
			}
			return out
		},
	}
}
