// Command stocktb shows how a program uses the book's TigerBeetle client:
// it dials a replica through the official client (tbgo, which links
// tigerbeetle-go with cgo), builds the book over it, and places one order.
//
//	stocktb 127.0.0.1:3000
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"example.com/warehouse/ledger/stocktb"

	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stocktb <replica address>")
		os.Exit(2)
	}
	conn, err := tbgo.Dial(chobotb.U128{}, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	// Every request has a deadline: with no replica answering, the call
	// ends with an error instead of waiting for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b := stock.TigerBeetle(conn, "warehouse-1")
	r, err := b.Deliver.Do(ctx, stock.DeliverArgs{Delivery: "d-1", Site: "north", Sku: "A-1", Qty: 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("deliver:", r)
}
