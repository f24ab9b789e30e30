package tests

import (
	"context"
	"testing"
	"time"

	tigerbeetle_go "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	sr "github.com/chobo-lang/chobo/tests/clients/stock_reservation_tb"
)

// A program holds TigerBeetle's official client and hands it to the
// generated TigerBeetle constructor, with no adapter of chobo's in
// between: the book then does on a real replica what the book says.
func TestTigerBeetleGoTakesTheOfficialClient(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	c, err := tigerbeetle_go.NewClient(tigerbeetle_go.ToUint128(tbtest.ClusterID), []string{srv.Address})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	b := sr.TigerBeetle(c, "")
	steps := []struct {
		what string
		call func() (sr.Result, error)
		want sr.Outcome
	}{
		{"restock 5", func() (sr.Result, error) {
			return b.Restock.Do(ctx, sr.RestockArgs{Delivery: "d1", Sku: "A", Qty: 5})
		}, sr.Done},
		{"reserve 3", func() (sr.Result, error) {
			return b.ReserveStock.Hold(ctx, sr.ReserveStockArgs{Order: "o1", Sku: "A", Qty: 3})
		}, sr.Done},
		{"reserve 3 more, of the 2 left", func() (sr.Result, error) {
			return b.ReserveStock.Hold(ctx, sr.ReserveStockArgs{Order: "o2", Sku: "A", Qty: 3})
		}, sr.Refused},
		{"post the first", func() (sr.Result, error) {
			return b.ReserveStock.Post(ctx, sr.ReserveStockKey{Order: "o1", Sku: "A"}, nil)
		}, sr.Done},
		{"restock 5 again", func() (sr.Result, error) {
			return b.Restock.Do(ctx, sr.RestockArgs{Delivery: "d1", Sku: "A", Qty: 5})
		}, sr.DoneBefore},
	}
	for _, s := range steps {
		r, err := s.call()
		if err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		if r.Outcome != s.want {
			t.Errorf("%s: %v, want %s", s.what, r, s.want)
		}
	}
	state, err := b.ReserveStock.Status(ctx, sr.ReserveStockKey{Order: "o1", Sku: "A"})
	if err != nil || state != sr.Posted {
		t.Errorf("the first reservation: %q, %v; want posted", state, err)
	}
	shelf, err := b.Balance.Shelf(ctx, sr.ShelfAccount{Sku: "A"})
	if err != nil {
		t.Fatal(err)
	}
	if shelf != (sr.Balance{Posted: 2}) {
		t.Errorf("the shelf of A: %+v, want 2 posted and nothing held", shelf)
	}
	// Another tenant is another set of accounts over the same client.
	other := sr.TigerBeetle(c, "t2")
	if shelf, err := other.Balance.Shelf(ctx, sr.ShelfAccount{Sku: "A"}); err != nil || shelf != (sr.Balance{}) {
		t.Errorf("the shelf of A for another tenant: %+v, %v; want nothing", shelf, err)
	}
}
