package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/show"
	"github.com/jackc/pgx/v5/pgxpool"
)

// What only one backend does, held for the client of every language on
// a real server through its driver, as the conformance tests drive them:
// the retry of a serialization failure and the refusal of a row whose
// bounds changed on PostgreSQL; a bound changed under an account and a
// post or void of no hold on TigerBeetle.

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
						_, err = bare.Exec(ctx, st.SQL, conformance.WithCallID(st)...)
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
// accounts made under the old one: a call through any client answers by
// the new bound, on the accounts made before as on one made after.
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
			call := func(transfer, key string, qty int64) interp.Call {
				strs := map[string]string{"sku": "s"}
				if transfer == "restock" {
					strs["delivery"] = key
				} else {
					strs["order"] = key
				}
				op := book.Do
				if transfer == "reserve_stock" {
					op = book.Hold
				}
				return interp.Call{Transfer: l.Copy.Transfer(transfer), Op: op, Strings: strs, Amounts: map[string]int64{"qty": qty}}
			}
			if r, err := p.Call(ctx, call("restock", "d-1", 5), ""); err != nil || r.Outcome != interp.Done {
				t.Fatalf("before the change: %s", conformance.ShortResult(r, err))
			}
			installSQL(t, d.admin, res.Book, []byte(changed))
			// the shelf holds 5: 4 would leave 1, under the new floor of 2
			for _, c := range []struct {
				call interp.Call
				want string
			}{
				{call("reserve_stock", "o-1", 4), "refused: sold_out"},
				{call("reserve_stock", "o-2", 3), "done"},
				{call("reserve_stock", "o-3", 1), "refused: sold_out"},
				{call("restock", "d-2", 1), "done"},
			} {
				if got := conformance.ShortResult(p.Call(ctx, c.call, "")); got != c.want {
					t.Errorf("%s after the change: %s, want %s", c.call, got, c.want)
				}
			}
		})
	}
}

// shelvesBook has a room (an upper bound) and a floor (a lower bound
// below zero), which TigerBeetle keeps with an account opened by a
// transfer of the bound's amount, and a hold.
const shelvesBook = `book shelves v1

unit pcs

account shelf(sku: string) : pcs
  at least 0 refused as out_of_stock
  at most 500 refused as shelf_full
account credit(shop: string) : pcs
  at least -100 refused as over_limit
account suppliers : pcs outside
account customers : pcs outside

transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from suppliers to shelf(sku)

transfer reserve(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 30 minutes
  move qty from shelf(sku) to customers

transfer lend(loan: string, shop: string, qty: pcs)
  key loan, shop
  move qty from credit(shop) to customers
`

// TestTigerBeetleOnlyInEveryClient holds what only a TigerBeetle client
// does, through each language's driver on a real replica: a room or floor
// account opened under another bound keeps that bound, with no error,
// until `chobo migrate` moves it (an account made after the change has
// the new one); and a post or void of a hold that does not exist is
// refused as no_such_hold after lookups alone, nothing created.
func TestTigerBeetleOnlyInEveryClient(t *testing.T) {
	changed := strings.NewReplacer("at most 500", "at most 400", "at least -100", "at least -50").Replace(shelvesBook)
	type version struct {
		name string
		src  string
		book *book.Book
	}
	versions := []*version{{name: "before", src: shelvesBook}, {name: "after", src: changed}}
	for _, v := range versions {
		res := check.Check("shelves.book", []byte(v.src))
		if res.Book == nil {
			t.Fatalf("%s: %+v", v.name, res.Diags)
		}
		v.book = res.Book
	}
	for _, tg := range targetsOn("tigerbeetle") {
		t.Run(tg, func(t *testing.T) {
			g, lang := languageOf(t, tg)
			builder := useLanguage(t, lang)
			bin := realTigerBeetle(t)
			var clients []driverkit.Client
			for i, v := range versions {
				files, ds, err := g.Build(v.book, gen.NewSource("shelves.book", []byte(v.src)), gen.Options{Package: fmt.Sprintf("c%d", i)})
				if err != nil || len(ds) > 0 || len(files) != 1 {
					t.Fatalf("%s: %v %v", v.name, ds, err)
				}
				clients = append(clients, newClient(v.name, files[0], ""))
			}
			start, err := builder.Build(g.Name, g.Backend, t.TempDir(), clients)
			if err != nil {
				t.Fatal(err)
			}
			replica, raw := startProxy(t, bin)
			ctx := context.Background()
			sent := filepath.Join(t.TempDir(), "sent.jsonl")
			open := func(v *version, record string) *conformance.Process {
				return startDriver(t, tg, start(v.name), v.book, "shelves.book", []byte(v.src),
					protocol.Request{TigerBeetle: replica}, &conformance.TigerBeetle{Raw: raw, Book: v.book, Replica: true}, record)
			}
			before, after := open(versions[0], sent), open(versions[1], "")
			call := func(p *conformance.Process, v *version, kind string, op book.Op, strs map[string]string, qty int64) (interp.Result, error) {
				c := interp.Call{Transfer: v.book.Transfer(kind), Op: op, Strings: strs}
				if qty > 0 {
					c.Amounts = map[string]int64{"qty": qty}
				}
				return p.Call(ctx, c, "shop")
			}
			want := func(what string, r interp.Result, err error, outcome interp.Outcome, reason string) {
				t.Helper()
				if err != nil || r.Outcome != outcome || r.Reason != reason {
					t.Fatalf("%s: %s (%v); want %s %s", what, conformance.ShortResult(r, err), err, outcome, reason)
				}
			}
			// The room and the floor, opened under the old bounds.
			r, err := call(before, versions[0], "receive", book.Do, map[string]string{"delivery": "d-1", "sku": "a"}, 5)
			want("a receive before the change", r, err, interp.Done, "")
			r, err = call(before, versions[0], "lend", book.Do, map[string]string{"loan": "l-1", "shop": "s"}, 10)
			want("a loan before the change", r, err, interp.Done, "")
			// 5 + 450 is within the room's 500, past the new 400; -10 - 60
			// within the floor's -100, past the new -50.
			r, err = call(after, versions[1], "receive", book.Do, map[string]string{"delivery": "d-2", "sku": "a"}, 450)
			want("a receive into a shelf opened under the old room", r, err, interp.Done, "")
			r, err = call(after, versions[1], "receive", book.Do, map[string]string{"delivery": "d-5", "sku": "a"}, 46)
			want("a receive past the old room", r, err, interp.Refused, "shelf_full")
			r, err = call(after, versions[1], "lend", book.Do, map[string]string{"loan": "l-2", "shop": "s"}, 60)
			want("a loan from credit opened under the old floor", r, err, interp.Done, "")
			r, err = call(after, versions[1], "receive", book.Do, map[string]string{"delivery": "d-3", "sku": "b"}, 450)
			want("a receive into a shelf opened after the change", r, err, interp.Refused, "shelf_full")
			r, err = call(after, versions[1], "receive", book.Do, map[string]string{"delivery": "d-4", "sku": "b"}, 400)
			want("a receive into a shelf opened after the change", r, err, interp.Done, "")
			for _, acc := range []struct {
				name string
				args map[string]string
				want int64
			}{{"shelf", map[string]string{"sku": "a"}, 455}, {"credit", map[string]string{"shop": "s"}, -70}} {
				bal, err := before.Balance(ctx, "shop", acc.name, acc.args)
				if err != nil || bal.Posted != acc.want {
					t.Fatalf("%s%v after the calls: %+v, %v; want %d posted", acc.name, acc.args, bal, err, acc.want)
				}
			}

			// Post and void of a hold never made: lookups, then the answer.
			recorded(t, sent)
			for _, op := range []book.Op{book.Post, book.Void} {
				r, err := call(before, versions[0], "reserve", op, map[string]string{"order": "o-9", "sku": "a"}, 0)
				want(string(op)+" of no hold", r, err, interp.Refused, book.NoSuchHold)
			}
			lines := recorded(t, sent)
			if len(lines) == 0 {
				t.Fatal("the driver wrote down no request of the post and void of no hold")
			}
			for _, l := range lines {
				var op string
				json.Unmarshal(l["op"], &op)
				if !strings.HasPrefix(op, "lookup_") {
					t.Errorf("the post or void of no hold sent a %s", op)
				}
			}
			// The same hold made, then posted: the post creates.
			r, err = call(before, versions[0], "reserve", book.Hold, map[string]string{"order": "o-9", "sku": "a"}, 2)
			want("a hold", r, err, interp.Done, "")
			r, err = call(before, versions[0], "reserve", book.Post, map[string]string{"order": "o-9", "sku": "a"}, 0)
			want("its post", r, err, interp.Done, "")
			creates := 0
			for _, l := range recorded(t, sent) {
				var op string
				json.Unmarshal(l["op"], &op)
				if op == "create_transfers" {
					creates++
				}
			}
			if creates < 2 {
				t.Errorf("a hold and its post sent %d create_transfers; want one each at least", creates)
			}
			t.Logf("%s: %d requests for a post and a void of no hold, none creating", tg, len(lines))
		})
	}
}
