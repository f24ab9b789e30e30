package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
)

// BenchmarkHold compares a hold through the generated function with the
// least a hand-written program could do for the same promise: one
// conditional UPDATE of the account row (no key, no entries, no hold
// row). Both run in the same benchmark, on the same server, one after the
// other, so the ratio is meaningful on a noisy machine; the absolute
// numbers are not.
func BenchmarkHold(b *testing.B) {
	for _, conns := range []int{1, 8} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			pool := onServer(b, "stock_reservation.book", conns)
			ctx := context.Background()
			// The calls the generated client makes: the model's statements
			// through the runtime, as book.go sends them.
			restock, hold := statements(b)
			// One account per connection, so that connections do not wait
			// for each other's row locks.
			var ids []string
			for i := 0; i < conns; i++ {
				sku := fmt.Sprintf("sku-%d", i)
				if _, err := chobopg.Call(ctx, pool, restock, "bench", sku, sku, int64(1<<40)); err != nil {
					b.Fatal(err)
				}
				var id string
				if err := pool.QueryRow(ctx, `select id::text from "stock_reservation".accounts where tenant = 'bench' and args = array[$1]`, sku).Scan(&id); err != nil {
					b.Fatal(err)
				}
				ids = append(ids, id)
			}
			run := func(each func(worker, i int) error) time.Duration {
				start := time.Now()
				var wg sync.WaitGroup
				for w := 0; w < conns; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := w; i < b.N; i += conns {
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
			b.ResetTimer()
			fn := run(func(w, i int) error {
				r, err := chobopg.Call(ctx, pool, hold, "bench", fmt.Sprintf("o-%d", i), fmt.Sprintf("sku-%d", w), int64(1))
				if err == nil && r.Outcome != chobo.Done {
					err = fmt.Errorf("hold %d: %+v", i, r)
				}
				return err
			})
			update := run(func(w, i int) error {
				tag, err := pool.Exec(ctx, `update "stock_reservation".accounts set held_out = held_out + $3
 where tenant = $1 and id = $2 and posted - held_out - $3 >= 0`, "bench", ids[w], int64(1))
				if err == nil && tag.RowsAffected() != 1 {
					err = fmt.Errorf("update %d touched %d rows", i, tag.RowsAffected())
				}
				return err
			})
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(n/fn.Seconds(), "holds/s")
			b.ReportMetric(n/update.Seconds(), "updates/s")
			b.ReportMetric(fn.Seconds()/update.Seconds(), "fn/update")
		})
	}
}

// statements are the SQL of restock.do and reserve_stock.hold in the
// book's client model.
func statements(b *testing.B) (restock, hold string) {
	src, err := os.ReadFile(filepath.Join(casesDir, "stock_reservation", "stock_reservation.book"))
	if err != nil {
		b.Fatal(err)
	}
	res := check.Check("stock_reservation.book", src)
	if res.Book == nil {
		b.Fatal(res.Diags)
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		b.Fatal(err)
	}
	return m.Transfer("restock").Operation("do").Statement, m.Transfer("reserve_stock").Operation("hold").Statement
}
