package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/tests/clients/card"
)

// TestGoClientHistoryOnPostgres runs the scenarios of the history case on
// a real server and makes every read step through the generated Go client
// (tests/clients/card, the case's postgres-go client), comparing what it
// answers with what the interpreter reads. The calls go as in
// TestHistoryScenariosOnPostgres, on the test copy's SQL, and times map
// the same way, by the marks of the passes. Compared: each entry's
// account, time, call (kind, operation, key and every argument by name),
// move, side, changes and balance after, a statement's More and where its
// cursor leads; the open holds' keys, moves and times; balances at a time.
func TestGoClientHistoryOnPostgres(t *testing.T) {
	dir := filepath.Join(casesDir, "history")
	src, err := os.ReadFile(filepath.Join(dir, "card.book"))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check("card.book", src)
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
	files, ds := postgres.Build(cp, gen.NewSource("card.book", copySrc), gen.Options{})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	// Each read runs once the SQL answers it with the rows the client
	// reads; until then its steps are left out, said by a SKIP line.
	sql := string(files[0].Data)
	ready := map[string]bool{
		scenario.ReadStatement: declares(sql, "history_statement", "account_args"),
		scenario.ReadEntries:   declares(sql, "history_call", "account_args"),
		scenario.ReadHolds:     declares(sql, "history_open_holds", "from_args"),
		scenario.ReadBalance:   true,
	}
	for _, k := range []string{scenario.ReadStatement, scenario.ReadEntries, scenario.ReadHolds} {
		if !ready[k] {
			fmt.Printf("SKIP: TestGoClientHistoryOnPostgres: the SQL's reads of %s do not yet give the rows the Go client reads\n", k)
		}
	}
	srv := pgtest.Start(t)
	pool := srv.Pool(t, 4)
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
		tenant := fmt.Sprintf("g%d", i)
		want := scenario.Run(res.Book, sc)
		scaled, err := conformance.Scale(res.Book, cp, sc)
		if err != nil {
			t.Fatal(err)
		}
		r := &goHistoryRun{t: t, ctx: ctx, b: res.Book, book: card.Postgres(pool, tenant), cursors: map[int]string{}}
		for n, st := range scaled.Steps {
			switch {
			case st.Together != nil:
				t.Fatalf("%s: step %d: together is not run here", sc.Name, n+1)
			case st.Call != nil:
				if _, err := be.Call(ctx, st.Call.Call, tenant); err != nil {
					t.Fatalf("%s: step %d: %v", sc.Name, n+1, err)
				}
			case st.Read != nil && !ready[sc.Steps[n].Read.Kind]:
			case st.Read != nil:
				reads++
				rd := sc.Steps[n].Read
				got, wantLines := r.read(rd, want[0].Reads[n], n)
				if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
					t.Errorf("%s: step %d (%s):\nGo client:\n  %s\ninterpreter:\n  %s", sc.Name, n+1, rd.Kind,
						strings.Join(got, "\n  "), strings.Join(wantLines, "\n  "))
				}
			default:
				time.Sleep(time.Duration(st.Pass)*time.Second + 200*time.Millisecond)
				r.now += sc.Steps[n].Pass
				var at time.Time
				if err := pool.QueryRow(ctx, `select clock_timestamp()`).Scan(&at); err != nil {
					t.Fatal(err)
				}
				r.marks = append(r.marks, mark{r.now, at})
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
	}
	if reads == 0 {
		t.Fatal("no read step in the scenarios")
	}
	t.Logf("%d scenarios, %d reads compared", len(scs), reads)
}

// declares says whether a book's SQL declares the function fn with the
// column among those it returns.
func declares(sql, fn, column string) bool {
	i := strings.Index(sql, "."+fn+"(")
	if i < 0 {
		return false
	}
	decl := sql[i:]
	if j := strings.Index(decl, " as $"); j > 0 {
		decl = decl[:j]
	}
	return strings.Contains(decl, column)
}

type goHistoryRun struct {
	t       *testing.T
	ctx     context.Context
	b       *book.Book
	book    *card.Book
	marks   []mark
	now     int64
	cursors map[int]string // a statement step's Next, by step
}

// first is the mark of the first pass that brought the scenario to t or
// past it (past: beyond it); nil when none has yet.
func (r *goHistoryRun) first(t int64, past bool) *time.Time {
	for _, m := range r.marks {
		if m.t > t || (!past && m.t == t) {
			return &m.at
		}
	}
	return nil
}

// timeOf is the scenario's time of an instant the server wrote.
func (r *goHistoryRun) timeOf(at time.Time) int64 {
	var s int64
	for _, m := range r.marks {
		if !at.Before(m.at) {
			s = m.t
		}
	}
	return s
}

func (r *goHistoryRun) fail(err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
}

// clientLine and interpLine write an entry the same way from both sides.
func (r *goHistoryRun) clientLine(e chobo.Entry) string {
	var after *interp.Balance
	if e.After != nil {
		after = &interp.Balance{Posted: e.After.Posted, HeldIn: e.After.HeldIn, HeldOut: e.After.HeldOut}
	}
	return goEntryLine(book.KindArgs(e.Account, e.AccountArgs), r.timeOf(e.At), e.Transfer, e.Op, e.Key, e.Move, e.Out,
		e.Posted, e.HeldOut, e.HeldIn, after) + " " + argsText(e.Args)
}

func interpLine(e interp.Entry) string {
	var after *interp.Balance
	if e.Account.Kind.Lower != nil || e.Account.Kind.Upper != nil {
		after = &e.After
	}
	args := map[string]string{}
	for k, v := range e.Call.Strings {
		args[k] = v
	}
	for k, v := range e.Call.Amounts {
		args[k] = strconv.FormatInt(v, 10)
	}
	return goEntryLine(e.Account.String(), e.Time, e.Call.Transfer.Name, string(e.Op), e.Key, e.Move, e.Out,
		e.Posted, e.HeldOut, e.HeldIn, after) + " " + argsText(args)
}

// goEntryLine is what both sides of the comparison write of an entry.
func goEntryLine(account string, t int64, transfer, op string, key []string, move int, out bool, posted, heldOut, heldIn int64, after *interp.Balance) string {
	s := fmt.Sprintf("%s at %ds: %s.%s(%s) move %d out=%v; posted %+d, held out %+d, held in %+d", account, t, transfer, op,
		strings.Join(key, ", "), move, out, posted, heldOut, heldIn)
	if after != nil {
		s += fmt.Sprintf(" -> %d, %d, %d", after.Posted, after.HeldOut, after.HeldIn)
	}
	return s
}

func argsText(args map[string]string) string {
	var out []string
	for k, v := range args {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return "{" + strings.Join(out, " ") + "}"
}

func wallet(a *interp.Account) card.WalletAccount { return card.WalletAccount{Card: a.Args[0]} }

func (r *goHistoryRun) read(rd *scenario.ReadStep, exp *scenario.ReadResult, step int) (got, want []string) {
	r.t.Helper()
	switch rd.Kind {
	case scenario.ReadStatement:
		q := chobo.StatementQuery{Newest: rd.Order == interp.Newest, Limit: rd.Limit}
		for _, tr := range rd.Transfers {
			q.Transfers = append(q.Transfers, tr.Name)
		}
		if rd.From > 0 {
			if from := r.first(rd.From, false); from != nil {
				q.From = *from
			} else {
				q.From = time.Now().Add(time.Hour)
			}
		}
		if rd.To != nil {
			if to := r.first(*rd.To, false); to != nil {
				q.To = *to
			}
		}
		if rd.AfterStep >= 0 {
			q.After = r.cursors[rd.AfterStep]
		}
		var st chobo.Statement
		var err error
		switch a := rd.Account; a.Kind.Name {
		case "wallet":
			st, err = r.book.Statement.Wallet(r.ctx, wallet(a), q)
		case "bank":
			st, err = r.book.Statement.Bank(r.ctx, q)
		case "merchants":
			st, err = r.book.Statement.Merchants(r.ctx, q)
		case "fees":
			st, err = r.book.Statement.Fees(r.ctx, q)
		}
		r.fail(err)
		for _, e := range st.Entries {
			got = append(got, r.clientLine(e))
		}
		got = append(got, fmt.Sprintf("more %v", st.More))
		r.cursors[step] = st.Next
		for _, e := range exp.Entries {
			want = append(want, interpLine(e))
		}
		want = append(want, fmt.Sprintf("more %v", exp.More))
	case scenario.ReadEntries:
		var es []chobo.Entry
		var err error
		switch rd.Transfer.Name {
		case "top_up":
			es, err = r.book.TopUp.Entries(r.ctx, card.TopUpKey{TopUpId: rd.Key[0]})
		case "payment":
			es, err = r.book.Payment.Entries(r.ctx, card.PaymentKey{PaymentId: rd.Key[0]})
		}
		r.fail(err)
		for _, e := range es {
			got = append(got, r.clientLine(e))
		}
		for _, e := range exp.Entries {
			want = append(want, interpLine(e))
		}
	case scenario.ReadHolds:
		var hs []chobo.OpenHold
		var err error
		switch {
		case rd.Account != nil && rd.Account.Kind.Name == "wallet":
			hs, err = r.book.OpenHolds.Wallet(r.ctx, wallet(rd.Account))
		case rd.Account != nil:
			r.t.Fatalf("holds of %s: not read here", rd.Account)
		default:
			hs, err = r.book.Payment.OpenHolds(r.ctx)
		}
		r.fail(err)
		for _, h := range hs {
			if rd.Transfer != nil && h.Transfer != rd.Transfer.Name {
				continue
			}
			var moves []string
			for _, m := range h.Moves {
				moves = append(moves, fmt.Sprintf("move %d %d from %s to %s", m.Move, m.Amount,
					book.KindArgs(m.From, m.FromArgs), book.KindArgs(m.To, m.ToArgs)))
			}
			got = append(got, fmt.Sprintf("%s held at %ds: %s", book.KindArgs(h.Transfer, h.Key), r.timeOf(h.Created), strings.Join(moves, "; ")))
		}
		for _, h := range exp.Holds {
			var moves []string
			for i, a := range h.Amounts {
				moves = append(moves, fmt.Sprintf("move %d %d from %s to %s", i+1, a, h.From[i], h.To[i]))
			}
			want = append(want, fmt.Sprintf("%s held at %ds: %s", h.Name(), h.Created, strings.Join(moves, "; ")))
		}
	case scenario.ReadBalance:
		when := time.Now().Add(time.Hour)
		if at := r.first(rd.At, true); at != nil {
			when = at.Add(-time.Microsecond)
		}
		b, err := r.book.BalanceAt.Wallet(r.ctx, wallet(rd.Account), when)
		r.fail(err)
		got = []string{fmt.Sprintf("%+v", b)}
		want = []string{fmt.Sprintf("%+v", chobo.Balance{Posted: exp.Balance.Posted, HeldIn: exp.Balance.HeldIn, HeldOut: exp.Balance.HeldOut})}
	}
	return got, want
}
