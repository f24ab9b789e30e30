// Command stocktb shows how a program uses the book's TigerBeetle client:
// it makes TigerBeetle's official client (tigerbeetle-go, which links a
// native library with cgo), builds the book over it, and places one order.
//
//	stocktb 127.0.0.1:3000
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	tigerbeetle_go "github.com/tigerbeetle/tigerbeetle-go"

	"example.com/warehouse/ledger/stocktb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stocktb <replica address>")
		os.Exit(2)
	}
	// Cluster 0, the one `tigerbeetle format --cluster=0` makes.
	c, err := tigerbeetle_go.NewClient(tigerbeetle_go.ToUint128(0), []string{os.Args[1]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer c.Close()
	// Every request has a deadline: with no replica answering, the call
	// ends with an error instead of waiting for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b := stock.TigerBeetle(c, "warehouse-1")
	r, err := b.Deliver.Do(ctx, stock.DeliverArgs{Delivery: "d-1", Site: "north", Sku: "A-1", Qty: 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("deliver:", r)
}
