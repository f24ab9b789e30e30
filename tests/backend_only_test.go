package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/show"
	"github.com/jackc/pgx/v5/pgxpool"
)

// What only one backend does, held for the client of every language on
// a real server through its driver, as the conformance tests drive them:
// the retry of a serialization failure and the refusal of a row whose
// bounds changed on PostgreSQL.

// TestRepeatableReadRetriesInEveryClient runs 200 calls that all add to
// one account, eight at a time, through each PostgreSQL client whose
// application role runs under REPEATABLE READ. The same load sent as bare
// statements fails with 40001 on this server; through a client every call
// must answer done and the account hold all 200.
func TestRepeatableReadRetriesInEveryClient(t *testing.T) {
	l := loadForBackends(t, caseByName(t, "stock_reservation"))
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			driversOf(t, tg)
			d := startPostgres(t, []loaded{l})
			ctx := context.Background()
			if _, err := d.admin.Exec(ctx, "alter role "+postgres.Ident(pgdeploy.App)+" set default_transaction_isolation to 'repeatable read'"); err != nil {
				t.Fatal(err)
			}
			const callers, each = 8, 25
			restock := func(i int) interp.Call {
				return interp.Call{Transfer: l.Copy.Transfer("restock"), Op: book.Do,
					Strings: map[string]string{"delivery": fmt.Sprintf("d-%d", i), "sku": "one"}, Amounts: map[string]int64{"qty": 1}}
			}
			// The load itself, as bare statements of the application role
			// on sessions opened after the change: it must meet
			// serialization failures, or the clients' run below would
			// prove nothing.
			bare, err := pgxpool.New(ctx, d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)+" pool_max_conns=8")
			if err != nil {
				t.Fatal(err)
			}
			defer bare.Close()
			m, err := model.New(l.Copy, model.Postgres)
			if err != nil {
				t.Fatal(err)
			}
			var failures atomic.Int64
			var wg sync.WaitGroup
			for c := 0; c < callers; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < each; i++ {
						st, err := show.Statement(m, restock(callers*each+c*each+i), "bare")
						if err != nil {
							t.Error(err)
							return
						}
						_, err = bare.Exec(ctx, st.SQL, st.Args...)
						if sqlState(err) == "40001" {
							failures.Add(1)
						} else if err != nil {
							t.Errorf("a bare call: %v", err)
						}
					}
				}()
			}
			wg.Wait()
			if failures.Load() == 0 {
				t.Fatalf("%d bare calls under REPEATABLE READ met no serialization failure: the load proves nothing here", callers*each)
			}
			p := startPostgresClient(t, tg, d, l)
			var notDone atomic.Int64
			for c := 0; c < callers; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < each; i++ {
						r, err := p.Call(ctx, restock(c*each+i), "rr")
						if err != nil || r.Outcome != interp.Done {
							notDone.Add(1)
							t.Errorf("caller %d call %d: %s", c, i, conformance.ShortResult(r, err))
						}
					}
				}()
			}
			wg.Wait()
			b, err := p.Balance(ctx, "rr", "shelf", map[string]string{"sku": "one"})
			if err != nil {
				t.Fatal(err)
			}
			if b.Posted != callers*each || notDone.Load() != 0 {
				t.Errorf("the shelf holds %d after %d calls of 1 (%d not done)", b.Posted, callers*each, notDone.Load())
			}
			t.Logf("%s: %d calls under REPEATABLE READ all done, where %d of as many bare calls failed with 40001", tg, callers*each, failures.Load())
		})
	}
}

// TestBoundsChangedInEveryClient loads a book whose bound changed over
// accounts made under the old one: a call through any client that meets
// such a row fails, saying the bounds changed (CB001), rather than answer
// by either bound; an account made after the change works.
func TestBoundsChangedInEveryClient(t *testing.T) {
	l := loadForBackends(t, caseByName(t, "stock_reservation"))
	changed := strings.Replace(string(l.CopySrc), "at least 0 refused as", "at least 2 refused as", 1)
	if changed == string(l.CopySrc) {
		t.Fatal("found no bound to change")
	}
	res := check.Check("changed.book", []byte(changed))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			driversOf(t, tg)
			d := startPostgres(t, []loaded{l})
			p := startPostgresClient(t, tg, d, l)
			ctx := context.Background()
			restock := func(delivery, sku string) interp.Call {
				return interp.Call{Transfer: l.Copy.Transfer("restock"), Op: book.Do,
					Strings: map[string]string{"delivery": delivery, "sku": sku}, Amounts: map[string]int64{"qty": 5}}
			}
			if r, err := p.Call(ctx, restock("d-1", "s"), ""); err != nil || r.Outcome != interp.Done {
				t.Fatalf("before the change: %s", conformance.ShortResult(r, err))
			}
			installSQL(t, d.admin, res.Book, []byte(changed))
			r, err := p.Call(ctx, restock("d-2", "s"), "")
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), "bounds") {
				t.Fatalf("a call on a row of the old bound: %s; want a failure that says the bounds changed", conformance.ShortResult(r, err))
			}
			if r, err := p.Call(ctx, restock("d-3", "other"), ""); err != nil || r.Outcome != interp.Done {
				t.Fatalf("a new account after the change: %s", conformance.ShortResult(r, err))
			}
			t.Logf("%s: %v", tg, err)
		})
	}
}
