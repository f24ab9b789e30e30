package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// TestHistoryScenariosOnPostgres runs the scenarios of the history cases
// on a real server, through the SQL functions of the test copy (holds
// lasting seconds, each pass as long as conformance.Scale makes it), and
// compares every read step with what the interpreter reads on the book.
//
// Time: the server's clock is read at the end of each pass, just before
// expire() gives back what the pass expired. An entry written after the
// mark of the pass that brought the scenario to t seconds, and before the
// next mark, is at t, as in the interpreter, where calls happen between
// passes and an expiry at the end of its pass. A read's times map the
// same way: "from t" is from the first mark at or after t, "at t" is just
// before the first mark past t. Amounts, orders, moves and balances are
// compared exactly; a hold's deadline is in the copy's time and is left
// out, and so is whether a statement has more entries past its page (the
// function answers the page and its cursor, not a count).
func TestHistoryScenariosOnPostgres(t *testing.T) {
	for _, name := range []string{"history", "history_ja"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(casesDir, name)
			books, err := filepath.Glob(filepath.Join(dir, "*.book"))
			if err != nil || len(books) != 1 {
				t.Fatalf("the book of %s: %v %v", name, books, err)
			}
			src, err := os.ReadFile(books[0])
			if err != nil {
				t.Fatal(err)
			}
			res := check.Check(filepath.Base(books[0]), src)
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
			files, ds := postgres.Build(cp, gen.NewSource(filepath.Base(books[0]), copySrc), gen.Options{})
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
			reads := 0
			for i, sc := range scs {
				reads += runHistoryScenario(t, ctx, pool, be, res.Book, cp, sc, fmt.Sprintf("s%d", i))
			}
			if reads == 0 {
				t.Fatal("no read step in the scenarios")
			}
			t.Logf("%d scenarios, %d reads compared", len(scs), reads)
		})
	}
}

// mark is the server's clock at the end of a pass, and the scenario's
// time (in the book's seconds) it brought.
type mark struct {
	t  int64
	at time.Time
}

func runHistoryScenario(t *testing.T, ctx context.Context, pool *pgxpool.Pool, be conformance.SQL, orig, cp *book.Book,
	sc scenario.Scenario, tenant string) int {
	t.Helper()
	want := scenario.Run(orig, sc)
	scaled, err := conformance.Scale(orig, cp, sc)
	if err != nil {
		t.Fatal(err)
	}
	var marks []mark
	var now int64
	// first is the mark of the first pass that brought the scenario to t
	// or past it; nil when none has yet.
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
	cursors := map[int]*int64{}
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
			got, wantLines := historyRead(t, ctx, pool, orig, tenant, rd, exp, first, timeOf, cursors, i)
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Errorf("%s: step %d (%s):\nPostgreSQL:\n  %s\ninterpreter:\n  %s", sc.Name, i+1, rd.Kind,
					strings.Join(got, "\n  "), strings.Join(wantLines, "\n  "))
			}
		default:
			time.Sleep(time.Duration(st.Pass)*time.Second + 200*time.Millisecond)
			now += sc.Steps[i].Pass
			var at time.Time
			if err := pool.QueryRow(ctx, `select clock_timestamp()`).Scan(&at); err != nil {
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

// entryLine is what both sides of the comparison write of an entry.
func entryLine(account string, t int64, transfer, op string, key, args []string, move int, out bool, posted, heldOut, heldIn int64, after *interp.Balance) string {
	s := fmt.Sprintf("%s at %ds: %s.%s(%s) given %q move %d %s; posted %+d, held out %+d, held in %+d", account, t, transfer, op,
		strings.Join(key, ", "), args, move, side(out), posted, heldOut, heldIn)
	if after != nil {
		s += fmt.Sprintf(" -> %d, %d, %d", after.Posted, after.HeldOut, after.HeldIn)
	}
	return s
}

// callArgs is what the call of an interpreter's entry was given, in the
// order the operation takes it: every parameter of a do or a hold, the
// key and the amounts a post named (the key alone for a full post), the
// key of a void or an expiry.
func callArgs(e interp.Entry) []string {
	var out []string
	for _, p := range postgres.Params(e.Call.Transfer, string(e.Op)) {
		if !p.IsAmount() {
			out = append(out, e.Call.Strings[p.Name])
		} else if a, ok := e.Call.Amounts[p.Name]; ok {
			out = append(out, strconv.FormatInt(a, 10))
		}
	}
	return out
}

// entryRows reads the rows of a statement or of a call's entries, as
// postgres.History's statements select them, and writes each as
// entryLine does; it answers the last row's cursor too.
func entryRows(t *testing.T, rows pgx.Rows, timeOf func(time.Time) int64) ([]string, *int64) {
	t.Helper()
	var got []string
	var last *int64
	for rows.Next() {
		var cursor int64
		var kind, op, account string
		var key, args, accountArgs []string
		var move int32
		var out bool
		var posted, heldIn, heldOut int64
		var ap, ai, ao *int64
		var at time.Time
		if err := rows.Scan(&cursor, &kind, &op, &key, &args, &move, &out, &account, &accountArgs, &posted, &heldIn, &heldOut, &ap, &ai, &ao, &at); err != nil {
			t.Fatal(err)
		}
		var bal *interp.Balance
		if ap != nil {
			bal = &interp.Balance{Posted: *ap, HeldIn: *ai, HeldOut: *ao}
		}
		got = append(got, entryLine(book.KindArgs(account, accountArgs), timeOf(at), kind, op, key, args, int(move), out, posted, heldOut, heldIn, bal))
		c := cursor
		last = &c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got, last
}

// wantAfter is the balance an interpreter's entry left, as PostgreSQL
// keeps it: none for an account without bounds.
func wantAfter(e interp.Entry) *interp.Balance {
	if e.Account.Kind.Lower == nil && e.Account.Kind.Upper == nil {
		return nil
	}
	return &e.After
}

func side(out bool) string {
	if out {
		return "out"
	}
	return "in"
}

// historyRead makes one read step on the server and writes its result
// and the interpreter's the same way.
func historyRead(t *testing.T, ctx context.Context, pool *pgxpool.Pool, b *book.Book, tenant string, rd *scenario.ReadStep,
	exp *scenario.ReadResult, first func(int64, bool) *time.Time, timeOf func(time.Time) int64, cursors map[int]*int64, step int) (got, want []string) {
	t.Helper()
	h := postgres.History(b)
	switch rd.Kind {
	case scenario.ReadStatement:
		var kinds []string
		for _, tr := range rd.Transfers {
			kinds = append(kinds, tr.Name)
		}
		var from, to *time.Time
		if rd.From > 0 {
			if from = first(rd.From, false); from == nil {
				from = &time.Time{}
				*from = time.Now().Add(time.Hour)
			}
		}
		if rd.To != nil {
			to = first(*rd.To, false)
		}
		var after *int64
		if rd.AfterStep >= 0 {
			after = cursors[rd.AfterStep]
		}
		var kindsArg any
		if len(kinds) > 0 {
			kindsArg = kinds
		}
		rows, err := pool.Query(ctx, h.Statement,
			tenant, rd.Account.Kind.Name, sqlArgs(rd.Account.Args), from, to, kindsArg, rd.Order == interp.Newest, rd.Limit, after)
		if err != nil {
			t.Fatal(err)
		}
		var last *int64
		got, last = entryRows(t, rows, timeOf)
		if last == nil {
			last = after
		}
		cursors[step] = last
		for _, e := range exp.Entries {
			want = append(want, entryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, callArgs(e), e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, wantAfter(e)))
		}
	case scenario.ReadEntries:
		rows, err := pool.Query(ctx, h.Call, tenant, rd.Transfer.Name, rd.Key)
		if err != nil {
			t.Fatal(err)
		}
		got, _ = entryRows(t, rows, timeOf)
		for _, e := range exp.Entries {
			want = append(want, entryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, callArgs(e), e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, wantAfter(e)))
		}
	case scenario.ReadHolds:
		var kind, account, args any
		if rd.Transfer != nil {
			kind = rd.Transfer.Name
		}
		if rd.Account != nil {
			account, args = rd.Account.Kind.Name, sqlArgs(rd.Account.Args)
		}
		rows, err := pool.Query(ctx, h.OpenHolds, tenant, account, args, kind)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var kind, from, to string
			var key, fromArgs, toArgs []string
			var move int32
			var amount int64
			var at time.Time
			var deadline *time.Time
			if err := rows.Scan(&kind, &key, &move, &from, &fromArgs, &to, &toArgs, &amount, &at, &deadline); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s held at %ds: move %d %d from %s to %s", book.KindArgs(kind, key), timeOf(at), move, amount,
				book.KindArgs(from, fromArgs), book.KindArgs(to, toArgs)))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		for _, h := range exp.Holds {
			for i, a := range h.Amounts {
				want = append(want, fmt.Sprintf("%s held at %ds: move %d %d from %s to %s", h.Name(), h.Created, i+1, a, h.From[i], h.To[i]))
			}
		}
	case scenario.ReadBalance:
		at := first(rd.At, true)
		var when time.Time
		if at == nil {
			when = time.Now().Add(time.Hour)
		} else {
			when = at.Add(-time.Microsecond)
		}
		var p, i, o int64
		if err := pool.QueryRow(ctx, h.BalanceAt, tenant, rd.Account.Kind.Name, sqlArgs(rd.Account.Args), when).Scan(&p, &i, &o); err != nil {
			t.Fatal(err)
		}
		got = []string{fmt.Sprintf("(%d,%d,%d)", p, i, o)}
		want = []string{fmt.Sprintf("(%d,%d,%d)", exp.Balance.Posted, exp.Balance.HeldIn, exp.Balance.HeldOut)}
	}
	return got, want
}

// sqlArgs is an account's values as the read functions take them: an
// empty array, not null, for an account without any.
func sqlArgs(args []string) []string {
	if args == nil {
		return []string{}
	}
	return args
}
