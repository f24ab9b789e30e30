package tests

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
)

// pairBook moves between two accounts that both have a bound, done at
// once (pay) or held (lend): the calls whose first try changes two rows,
// the row of the lower id first, and the second only when the first
// changed.
const pairBook = `book pairs v1
unit pt
account wallet(owner: string) : pt
  at least 0 refused as short
  at most 1000000 refused as full
account issued : pt outside
transfer grant(grant_id: string, owner: string, amount: pt)
  key grant_id
  move amount from issued to wallet(owner)
transfer pay(pay_id: string, from_owner: string, to_owner: string, amount: pt)
  key pay_id
  move amount from wallet(from_owner) to wallet(to_owner)
transfer lend(lend_id: string, from_owner: string, to_owner: string, amount: pt)
  key lend_id
  pending expires after 10 minutes
  move amount from wallet(from_owner) to wallet(to_owner)
`

// TestOppositeMovesNeverDeadlock: 16 callers at once, half paying from
// one wallet to another and half back, each twice, done and held. In
// even rounds the tenant is new and its wallets empty: the first calls
// make the rows, and every call is refused after its first try changed
// the one row that had room (put back before the general path locks
// both). In odd rounds both wallets hold 100 first, and calls move. The
// rows are always locked in id order, so no call deadlocks, and the
// wallets end holding what they were given between them.
func TestOppositeMovesNeverDeadlock(t *testing.T) {
	res := check.Check("pairs.book", []byte(pairBook))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	d := deployBook(t, res.Book, []byte(pairBook), 2)
	ctx := context.Background()
	conns := make([]*pgx.Conn, 16)
	for i := range conns {
		if conns[i], err = pgx.Connect(ctx, d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)); err != nil {
			t.Fatal(err)
		}
		defer conns[i].Close(ctx)
	}
	grant := m.Transfer("grant").Operation("do").Statement
	for _, kind := range []string{"pay", "lend"} {
		op := "do"
		if kind == "lend" {
			op = "hold"
		}
		stmt := m.Transfer(kind).Operation(op).Statement
		for round := range raceRounds() {
			tenant := fmt.Sprintf("%s-%d", kind, round)
			var given int64
			if round%2 == 1 {
				for _, owner := range []string{"x", "y"} {
					if r, err := chobopg.Call(ctx, d.app, grant, tenant, "g-"+owner, owner, int64(100)); err != nil || r.Outcome != "done" {
						t.Fatalf("grant: %v %v", r, err)
					}
					given += 100
				}
			}
			if errs := oppositeMoves(ctx, conns, stmt, tenant); len(errs) > 0 {
				t.Fatalf("%s round %d: %v", kind, round, errs)
			}
			var sum, rows int64
			err := d.admin.QueryRow(ctx, `select coalesce(sum(posted - held_out + held_in), 0), count(*) from "pairs".accounts
 where tenant = $1 and kind = 'wallet'`, tenant).Scan(&sum, &rows)
			if err != nil || sum != given || rows != 2 {
				t.Fatalf("%s round %d: %d wallets holding %d between them, want 2 holding %d (%v)", kind, round, rows, sum, given, err)
			}
		}
	}
	t.Logf("%d rounds of 16 callers, each moving twice between two wallets in both directions: no deadlock", raceRounds())
}

// oppositeMoves releases one caller per connection at once, half moving
// 1 from x to y and half from y to x, twice each, and returns the errors
// they met (a deadlock among them, SQLSTATE 40P01).
func oppositeMoves(ctx context.Context, conns []*pgx.Conn, stmt, tenant string) []string {
	var mu sync.Mutex
	var errs []string
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			from, to := "x", "y"
			if i%2 == 1 {
				from, to = to, from
			}
			for n := range 2 {
				var outcome string
				var reason *string
				if err := conn.QueryRow(ctx, stmt, tenant, fmt.Sprintf("c%d-%d", i, n), from, to, int64(1), nil).Scan(&outcome, &reason); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Sprintf("caller %d: %v (SQLSTATE %s)", i, err, chobopg.SQLState(err)))
					mu.Unlock()
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	return errs
}
