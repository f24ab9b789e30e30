package tests

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
)

// BenchmarkHold compares a hold through the generated function with the
// least a hand-written program could do for the same promise: one
// conditional UPDATE of the account row (no key, no entries, no hold
// row). All run in the same benchmark, on the same server, one after the
// other, so the ratios are meaningful on a noisy machine; the absolute
// numbers are not.
//
// A third measure, the floor, is the least any call with a key can do:
// one statement, sent without a function, that inserts a bare key row
// and then makes the same conditional UPDATE. floor/update is the price
// of the key alone (a second table written, its unique index searched
// for the conflict and then written); fn/floor is what the function
// adds to it (the account ids, the entries and hold on the key row, the
// shard of an outside account, PL/pgSQL).
//
// fn/plain is what the function's safety costs: the function beside a
// copy of it without SECURITY DEFINER and its SET search_path (as chobo
// wrote it before it had them), the two taking turns in the same run.
//
// The accounts table is grown first (20,000 rows of other tenants), as in
// any real deployment. Two shapes, each at 1 and 8 connections, every connection with a
// member of its own: spend moves to a bounded account of the member's
// own (distinct accounts), redeem moves to the one outside account every
// call credits (once the hot row; now each connection mostly changes a
// shard of its own, and a gap between redeem and spend at 8 connections
// says they queue again).
func BenchmarkHold(b *testing.B) {
	res := check.Check("points.book", []byte(pointsBook))
	if res.Book == nil {
		b.Fatal(res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		b.Fatal(err)
	}
	grant := m.Transfer("grant").Operation("do").Statement
	for _, shape := range []string{"spend", "redeem"} {
		hold := m.Transfer(shape).Operation("hold").Statement
		for _, conns := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/conns=%d", shape, conns), func(b *testing.B) {
				srv := pgtest.Start(b)
				pool := srv.Pool(b, conns)
				installSQL(b, pool, res.Book, []byte(pointsBook))
				ctx := context.Background()
				// A grown table, as in any real deployment: on a table of a
				// few pages every plan is a scan, and cheaper than it will be.
				if _, err := pool.Exec(ctx, `insert into "points".accounts (tenant, id, kind, args, unit, lower_bound)
select 'other-' || (i % 50), "points".chobo_id(array['account', 'points', 'other', 'member_points', i::text]),
       'member_points', array[i::text], 'pt', 0
  from generate_series(1, 20000) i;
analyze "points".accounts`); err != nil {
					b.Fatal(err)
				}
				// One member per connection, so that connections do not
				// wait for each other's bounded rows.
				var ids []string
				for w := 0; w < conns; w++ {
					member := fmt.Sprintf("m-%d", w)
					if _, err := chobopg.Call(ctx, pool, grant, "bench", member, member, int64(1<<40)); err != nil {
						b.Fatal(err)
					}
					var id string
					if err := pool.QueryRow(ctx, `select id::text from "points".accounts where tenant = 'bench' and kind = 'member_points' and args = array[$1]`, member).Scan(&id); err != nil {
						b.Fatal(err)
					}
					ids = append(ids, id)
				}
				// plain is the same function without the owner's rights and
				// a path of its own, as chobo wrote it before it had them.
				plain := plainCopy(b, pool, hold)
				runPart := func(from, to int, each func(worker, i int) error) time.Duration {
					start := time.Now()
					var wg sync.WaitGroup
					for w := 0; w < conns; w++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := from + w; i < to; i += conns {
								if err := each(w, i); err != nil {
									b.Error(err)
									return
								}
							}
						}()
					}
					wg.Wait()
					return time.Since(start)
				}
				run := func(each func(worker, i int) error) time.Duration { return runPart(0, b.N, each) }
				holdVia := func(stmt, prefix string) func(w, i int) error {
					return func(w, i int) error {
						r, err := chobopg.Call(ctx, pool, stmt, "bench", fmt.Sprintf("%s-%d", prefix, i), fmt.Sprintf("m-%d", w), int64(1))
						if err == nil && r.Outcome != chobo.Done {
							err = fmt.Errorf("hold %d: %+v", i, r)
						}
						return err
					}
				}
				b.ResetTimer()
				// The function as written and its plain copy take turns, half
				// the calls each at a time, so that neither has the emptier
				// table or the quieter minute to itself.
				half := b.N / 2
				fn := runPart(0, half, holdVia(hold, "o"))
				unfixed := runPart(0, half, holdVia(plain, "p"))
				fn += runPart(half, b.N, holdVia(hold, "o"))
				unfixed += runPart(half, b.N, holdVia(plain, "p"))
				update := run(func(w, i int) error {
					tag, err := pool.Exec(ctx, `update "points".accounts set held_out = held_out + $3
 where tenant = $1 and id = $2 and posted - held_out - $3 >= 0`, "bench", ids[w], int64(1))
					if err == nil && tag.RowsAffected() != 1 {
						err = fmt.Errorf("update %d touched %d rows", i, tag.RowsAffected())
					}
					return err
				})
				floor := run(func(w, i int) error {
					tag, err := pool.Exec(ctx, `with k as (
  insert into "points".keys (tenant, kind, op, key, content, definition, result)
  values ($1, 'floor', 'hold', array[$4], '', '', 'done') on conflict do nothing returning 1)
update "points".accounts set held_out = held_out + $3
 where tenant = $1 and id = $2 and posted - held_out - $3 >= 0 and exists (select 1 from k)`,
						"bench", ids[w], int64(1), fmt.Sprintf("f-%d", i))
					if err == nil && tag.RowsAffected() != 1 {
						err = fmt.Errorf("floor %d touched %d rows", i, tag.RowsAffected())
					}
					return err
				})
				b.StopTimer()
				n := float64(b.N)
				b.ReportMetric(n/fn.Seconds(), "holds/s")
				b.ReportMetric(n/update.Seconds(), "updates/s")
				b.ReportMetric(fn.Seconds()/update.Seconds(), "fn/update")
				b.ReportMetric(floor.Seconds()/update.Seconds(), "floor/update")
				b.ReportMetric(fn.Seconds()/floor.Seconds(), "fn/floor")
				b.ReportMetric(fn.Seconds()/unfixed.Seconds(), "fn/plain")
			})
		}
	}
}

// plainCopy makes a copy of the function the statement stmt calls, under
// another name, without SECURITY DEFINER and its SET search_path, and
// returns the statement that calls the copy.
func plainCopy(b *testing.B, pool *pgxpool.Pool, stmt string) string {
	b.Helper()
	m := regexp.MustCompile(`from ("[^"]+")\.("[^"]+")\(`).FindStringSubmatch(stmt)
	if m == nil {
		b.Fatalf("no function in %q", stmt)
	}
	var def string
	if err := pool.QueryRow(context.Background(), `select pg_get_functiondef(p.oid) from pg_proc p
 where p.pronamespace = $1::regnamespace and p.proname = $2`, strings.Trim(m[1], `"`), strings.Trim(m[2], `"`)).Scan(&def); err != nil {
		b.Fatal(err)
	}
	copyName := strings.TrimSuffix(m[2], `"`) + `_plain"`
	var kept []string
	dropped := 0
	for _, line := range strings.Split(def, "\n") {
		if t := strings.TrimSpace(line); t == "SECURITY DEFINER" || strings.HasPrefix(t, "SET search_path") {
			dropped++
			continue
		}
		kept = append(kept, line)
	}
	if dropped != 2 {
		b.Fatalf("the function has %d of SECURITY DEFINER and SET search_path, want both:\n%s", dropped, def)
	}
	def = strings.Replace(strings.Join(kept, "\n"), "."+strings.Trim(m[2], `"`)+"(", "."+copyName+"(", 1)
	if _, err := pool.Exec(context.Background(), def); err != nil {
		b.Fatalf("the plain copy: %v\n%s", err, def)
	}
	return strings.Replace(stmt, m[1]+"."+m[2]+"(", m[1]+"."+copyName+"(", 1)
}
