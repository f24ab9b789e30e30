package tests

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
)

// pointsBook has the shapes that deadlocked: a hold from a bounded
// account to an account whose row does not exist yet when the callers
// come, outside (redeem) or bounded itself (spend).
const pointsBook = `book points v1
unit pt
account member_points(member: string) : pt
  at least 0 refused as not_enough_points
account spent(member: string) : pt
  at most 1000000000 refused as too_much
account issued : pt outside
account redeemed : pt outside
transfer grant(grant_id: string, member: string, amount: pt)
  key grant_id
  move amount from issued to member_points(member)
transfer redeem(order: string, member: string, amount: pt)
  key order
  pending expires after 10 minutes
  move amount from member_points(member) to redeemed
transfer spend(order: string, member: string, amount: pt)
  key order
  pending expires after 10 minutes
  move amount from member_points(member) to spent(member)
`

// raceRounds is how many rounds each race runs; CHOBO_RACE_ROUNDS sets
// it (the default keeps the suite quick; 200 was the bar when the
// deadlock was fixed).
func raceRounds() int {
	if n, err := strconv.Atoi(os.Getenv("CHOBO_RACE_ROUNDS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 5
	}
	return 40
}

// TestFirstUseRace: for a fresh tenant, 10 points are granted, then 16
// callers, each on a connection of its own, are released at once to
// redeem 1 point each. Exactly 10 are done and 6 refused, in every round,
// with no deadlock: under READ COMMITTED and REPEATABLE READ, through the
// SQL function directly and through the Go runtime the client calls it
// with (which would retry a deadlock, so its retries are counted and must
// stay at zero).
func TestFirstUseRace(t *testing.T) {
	res := check.Check("points.book", []byte(pointsBook))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	grant := m.Transfer("grant").Operation("do").Statement
	// Every caller is the application's role, with only the grants an
	// operator gives it.
	d := deployBook(t, res.Book, []byte(pointsBook), 2)
	pool := d.app
	ctx := context.Background()
	for _, iso := range []string{"read committed", "repeatable read"} {
		for _, via := range []string{"sql", "client"} {
			for _, transfer := range []string{"redeem", "spend"} {
				hold := m.Transfer(transfer).Operation("hold").Statement
				t.Run(iso+"/"+via+"/"+transfer, func(t *testing.T) {
					conns := make([]*pgx.Conn, 16)
					for i := range conns {
						cfg, err := pgx.ParseConfig(d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB))
						if err != nil {
							t.Fatal(err)
						}
						cfg.RuntimeParams["default_transaction_isolation"] = iso
						if conns[i], err = pgx.ConnectConfig(ctx, cfg); err != nil {
							t.Fatal(err)
						}
						defer conns[i].Close(ctx)
					}
					before := chobopg.Retries(chobopg.DeadlockDetected)
					for round := 0; round < raceRounds(); round++ {
						tenant := fmt.Sprintf("%s-%s-%s-%d", iso, via, transfer, round)
						if r, err := chobopg.Call(ctx, pool, grant, tenant, "g", "m1", int64(10)); err != nil || r.Outcome != chobo.Done {
							t.Fatalf("round %d: grant: %v %v", round, r, err)
						}
						done, refused, failed := raceRound(ctx, conns, via, hold, tenant)
						if done != 10 || refused != 6 || len(failed) > 0 {
							t.Fatalf("round %d: %d done, %d refused, failures %v; want 10 done, 6 refused", round, done, refused, failed)
						}
					}
					if n := chobopg.Retries(chobopg.DeadlockDetected) - before; n != 0 {
						t.Errorf("the runtime retried %d deadlocks; the SQL must not deadlock at all", n)
					}
					t.Logf("%d rounds of 16 callers: no deadlock, 10 done in each", raceRounds())
				})
			}
		}
	}
}

// raceRound releases one caller per connection at once and counts what
// they got.
func raceRound(ctx context.Context, conns []*pgx.Conn, via, redeem, tenant string) (done, refused int, failed []string) {
	var mu sync.Mutex
	var ready, wg sync.WaitGroup
	start := make(chan struct{})
	for i, conn := range conns {
		ready.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ready.Done()
			<-start
			order := fmt.Sprintf("o%d", i)
			var outcome string
			var err error
			if via == "sql" {
				// Under REPEATABLE READ a caller of the function itself
				// must send it again after a serialization failure, as
				// the runtime does, with the same call id; a deadlock is
				// never retried here.
				id := chobopg.NewCallID()
				for try := 0; try < chobopg.MaxAttempts; try++ {
					var reason *string
					err = conn.QueryRow(ctx, redeem, tenant, order, "m1", int64(1), id).Scan(&outcome, &reason)
					if chobopg.SQLState(err) != chobopg.SerializationFailure {
						break
					}
				}
			} else {
				var r chobo.Result
				r, err = chobopg.Call(ctx, conn, redeem, tenant, order, "m1", int64(1))
				outcome = string(r.Outcome)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failed = append(failed, fmt.Sprintf("%s: %v", order, err))
			case outcome == "done":
				done++
			case outcome == "refused":
				refused++
			}
		}()
	}
	ready.Wait()
	close(start)
	wg.Wait()
	return done, refused, failed
}

// TestUnboundedFoldsExactly: 8 callers at once grant 2^58 points each, 6
// times, from the one outside account `issued`, which has room for 32 of
// them in 64 bits (-2^63 is the least it can hold). Each grant moves more
// than a shard's slice holds, so nearly every call folds the shards into
// the account's row while the others wait or fold in turn: exactly 32
// grants are done and 16 fail as the interpreter fails them (SQLSTATE
// 22003), whatever the order; the balance is -2^63 and equals its entries;
// no deadlock.
func TestUnboundedFoldsExactly(t *testing.T) {
	res := check.Check("points.book", []byte(pointsBook))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	grant := m.Transfer("grant").Operation("do").Statement
	d := deployBook(t, res.Book, []byte(pointsBook), 8)
	pool := d.app
	ctx := context.Background()
	before := chobopg.Retries(chobopg.DeadlockDetected)
	serial := chobopg.Retries(chobopg.SerializationFailure)
	var mu sync.Mutex
	var wg sync.WaitGroup
	done, overflow := 0, 0
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 6; i++ {
				r, err := chobopg.Call(ctx, pool, grant, "t", fmt.Sprintf("g-%d-%d", w, i), fmt.Sprintf("m-%d", w), int64(1)<<58)
				mu.Lock()
				switch {
				case err == nil && r.Outcome == chobo.Done:
					done++
				case sqlState(err) == "22003":
					overflow++
				default:
					t.Errorf("grant %d of caller %d: %+v %v", i, w, r, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if done != 32 || overflow != 16 {
		t.Errorf("%d grants done, %d failed past 64 bits; want 32 and 16", done, overflow)
	}
	var posted, heldIn, heldOut int64
	if err := pool.QueryRow(ctx, `select posted, held_in, held_out from "points"."balance_issued"('t')`).Scan(&posted, &heldIn, &heldOut); err != nil {
		t.Fatal(err)
	}
	if posted != math.MinInt64 || heldIn != 0 || heldOut != 0 {
		t.Errorf("issued: posted %d, held in %d, held out %d; want %d, 0, 0", posted, heldIn, heldOut, int64(math.MinInt64))
	}
	if bad, err := conformance.EntriesBalance(ctx, d.admin, res.Book); err != nil || len(bad) > 0 {
		t.Errorf("balances that differ from their entries: %v %v", bad, err)
	}
	if n := chobopg.Retries(chobopg.DeadlockDetected) - before; n != 0 {
		t.Errorf("the runtime retried %d deadlocks; the SQL must not deadlock at all", n)
	}
	t.Logf("%d done, %d failed past 64 bits, %d calls sent again after a serialization failure",
		done, overflow, chobopg.Retries(chobopg.SerializationFailure)-serial)
}
