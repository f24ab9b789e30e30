package tests

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	sr "github.com/chobo-lang/chobo/tests/clients/stock_reservation"
)

// One *pgx.Conn, which pgx does not let two goroutines use at once, under
// two books (two tenants) called from many goroutines, singly and in
// bulks: the calls take turns on the connection, every one is answered
// done, and nothing is reported lost. Run with -race, the test also
// shows no two goroutines touch the connection at once.
func TestOneConnManyGoroutines(t *testing.T) {
	srv := pgtest.Start(t)
	pool := srv.Pool(t, 1)
	b, src := loadBook(t, filepath.Join(casesDir, "stock_reservation", "stock_reservation.book"))
	installSQL(t, pool, b, src)
	pool.Close()
	conn := srv.Connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	books := []*sr.Book{sr.Postgres(conn, "a"), sr.Postgres(conn, "b")}
	const workers, calls, bulk = 6, 20, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*calls*bulk*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bk := books[w%2]
			for i := range calls {
				if w%3 == 2 {
					// A bulk of its own: a pipeline on the same connection.
					var cs []sr.Call
					for j := range bulk {
						cs = append(cs, bk.Restock.DoCall(sr.RestockArgs{Delivery: fmt.Sprintf("w%d-%d-%d", w, i, j), Sku: "s", Qty: 1}))
					}
					for j, a := range bk.Bulk(ctx, cs...) {
						if a.Err != nil || a.Result.Outcome != sr.Done {
							errs <- fmt.Errorf("worker %d bulk %d call %d: %+v %v", w, i, j, a.Result, a.Err)
						}
					}
					continue
				}
				r, err := bk.Restock.Do(ctx, sr.RestockArgs{Delivery: fmt.Sprintf("w%d-%d", w, i), Sku: "s", Qty: 1})
				if err != nil || r.Outcome != sr.Done || r.Resent {
					errs <- fmt.Errorf("worker %d call %d: %+v %v", w, i, r, err)
				}
				if _, err := bk.Balance.Shelf(ctx, sr.ShelfAccount{Sku: "s"}); err != nil {
					errs <- fmt.Errorf("worker %d balance %d: %v", w, i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	if len(all) > 0 {
		t.Fatalf("%d calls failed; the first: %v", len(all), errors.Join(all[:min(len(all), 5)]...))
	}
	// Workers 0..5 alternate tenants a, b; 2 and 5 send bulks.
	want := map[string]int64{}
	for w := range workers {
		n := int64(calls)
		if w%3 == 2 {
			n = calls * bulk
		}
		want[[]string{"a", "b"}[w%2]] += n
	}
	for i, tenant := range []string{"a", "b"} {
		bal, err := books[i].Balance.Shelf(ctx, sr.ShelfAccount{Sku: "s"})
		if err != nil || bal.Posted != want[tenant] {
			t.Errorf("tenant %s: %+v %v; want %d posted", tenant, bal, err, want[tenant])
		}
	}
	if conn.IsClosed() {
		t.Error("the connection was closed")
	}
}
