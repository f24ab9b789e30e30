package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
func entryLine(account string, t int64, transfer, op string, key []string, move int, out bool, posted, heldOut, heldIn int64, after *interp.Balance) string {
	s := fmt.Sprintf("%s at %ds: %s.%s(%s) move %d %s; posted %+d, held out %+d, held in %+d", account, t, transfer, op,
		strings.Join(key, ", "), move, side(out), posted, heldOut, heldIn)
	if after != nil {
		s += fmt.Sprintf(" -> %d, %d, %d", after.Posted, after.HeldOut, after.HeldIn)
	}
	return s
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
	names := map[string]string{} // account id → as the interpreter writes it
	rows, err := pool.Query(ctx, fmt.Sprintf(`select id::text, kind, args from %s.accounts where tenant = $1`, postgres.Ident(b.Name)), tenant)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, kind string
		var args []string
		if err := rows.Scan(&id, &kind, &args); err != nil {
			t.Fatal(err)
		}
		names[id] = book.KindArgs(kind, args)
	}
	rows.Close()
	s := postgres.Ident(b.Name)
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
		rows, err := pool.Query(ctx, `select cursor, kind, op, key, n, posted, held_in, held_out, after_posted, after_held_in, after_held_out, at
  from `+s+`.history_statement($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			tenant, rd.Account.Kind.Name, sqlArgs(rd.Account.Args), from, to, kindsArg, rd.Order == interp.Newest, rd.Limit, after)
		if err != nil {
			t.Fatal(err)
		}
		last := after
		for rows.Next() {
			var cursor int64
			var kind, op string
			var key []string
			var n int
			var posted, heldIn, heldOut int64
			var ap, ai, ao *int64
			var at time.Time
			if err := rows.Scan(&cursor, &kind, &op, &key, &n, &posted, &heldIn, &heldOut, &ap, &ai, &ao, &at); err != nil {
				t.Fatal(err)
			}
			var bal *interp.Balance
			if ap != nil {
				bal = &interp.Balance{Posted: *ap, HeldIn: *ai, HeldOut: *ao}
			}
			got = append(got, entryLine(rd.Account.String(), timeOf(at), kind, op, key, (n+1)/2, n%2 == 1, posted, heldOut, heldIn, bal))
			c := cursor
			last = &c
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		cursors[step] = last
		for _, e := range exp.Entries {
			bal := e.After
			var after *interp.Balance
			if e.Account.Kind.Lower != nil || e.Account.Kind.Upper != nil {
				after = &bal
			}
			want = append(want, entryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, after))
		}
	case scenario.ReadEntries:
		rows, err := pool.Query(ctx, `select op, n, account::text, posted, held_in, held_out, at from `+s+`.history_call($1, $2, $3)`,
			tenant, rd.Transfer.Name, rd.Key)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var op, account string
			var n int
			var posted, heldIn, heldOut int64
			var at time.Time
			if err := rows.Scan(&op, &n, &account, &posted, &heldIn, &heldOut, &at); err != nil {
				t.Fatal(err)
			}
			got = append(got, entryLine(names[account], timeOf(at), rd.Transfer.Name, op, rd.Key, (n+1)/2, n%2 == 1, posted, heldOut, heldIn, nil))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		for _, e := range exp.Entries {
			want = append(want, entryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, e.Move, e.Out, e.Posted, e.HeldOut, e.HeldIn, nil))
		}
	case scenario.ReadHolds:
		var kind, account any
		args := []string{}
		if rd.Transfer != nil {
			kind = rd.Transfer.Name
		}
		if rd.Account != nil {
			account, args = rd.Account.Kind.Name, sqlArgs(rd.Account.Args)
		}
		rows, err := pool.Query(ctx, `select kind, key, amounts, created_at from `+s+`.history_open_holds($1, $2, $3, $4)`, tenant, account, args, kind)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var kind string
			var key []string
			var amounts []int64
			var at time.Time
			if err := rows.Scan(&kind, &key, &amounts, &at); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s held at %ds: %v", book.KindArgs(kind, key), timeOf(at), amounts))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
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
		var bal *string
		if err := pool.QueryRow(ctx, `select `+s+`.history_balance($1, $2, $3, $4)::text`, tenant, rd.Account.Kind.Name, sqlArgs(rd.Account.Args), when).Scan(&bal); err != nil && err != pgx.ErrNoRows {
			t.Fatal(err)
		}
		if bal != nil {
			got = []string{*bal}
		}
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
