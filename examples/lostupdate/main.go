// Command lostupdate shows the lost update and how a book prevents it.
//
// Callers reserve one unit each from the same stock, all at once. First
// they do it the way a handler is often written by hand: read the stock,
// check and subtract in Go, write the result back. Two callers that read
// the same number both write "one less", and one of the two sales leaves
// no trace: the stock says more than the shelf has, and units are sold
// that were never there. Then they do it through the Go client generated
// from inventory.book, where each reservation is one call of the book's
// function: exactly the stock is reserved, and the rest are refused with
// out_of_stock.
//
// It starts a throwaway PostgreSQL cluster of its own and removes it at
// the end:
//
//	go run ./examples/lostupdate [-callers 16] [-stock 10] [-rounds 3] [-think 0s]
//
// See docs/lost-update.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
)

func main() {
	callers := flag.Int("callers", 16, "how many callers reserve at once, one unit each")
	stock := flag.Int64("stock", 10, "units in stock at the start of each round")
	rounds := flag.Int("rounds", 3, "rounds of each way, each on a fresh SKU")
	think := flag.Duration("think", 0, "time a naive caller spends between its read and its write (a call to another service, say)")
	flag.Parse()
	if *callers < 1 || *callers > 300 || *stock < 0 || *rounds < 1 || *think < 0 {
		fmt.Fprintln(os.Stderr, "lostupdate: -callers must be 1 to 300, -stock 0 or more, -rounds 1 or more, -think 0 or more")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := demo(ctx, os.Stdout, settings{callers: *callers, stock: *stock, rounds: *rounds, think: *think})
	if err != nil {
		fmt.Fprintln(os.Stderr, "lostupdate:", err)
		if errors.Is(err, pgtest.ErrNoServer) {
			fmt.Fprintln(os.Stderr, "lostupdate: it needs PostgreSQL's server programs (initdb, pg_ctl, postgres); tests/setup.sh installs them")
		}
		os.Exit(1)
	}
}

type settings struct {
	callers int
	stock   int64
	rounds  int
	think   time.Duration
}

// demo starts the cluster, runs both ways and stops the cluster, also
// when a round fails.
func demo(ctx context.Context, w io.Writer, s settings) (err error) {
	srv, err := pgtest.Launch()
	if err != nil {
		return err
	}
	defer func() {
		if e := srv.Stop(); e != nil && err == nil {
			err = e
		}
	}()
	admin, err := srv.OpenPool(ctx, 1)
	if err != nil {
		return err
	}
	defer admin.Close()
	pool, err := setUp(ctx, srv, admin, s.callers+1)
	if err != nil {
		return err
	}
	defer pool.Close()
	rounds := "rounds"
	if s.rounds == 1 {
		rounds = "round"
	}
	fmt.Fprintf(w, "%d callers reserve 1 unit each, all at once, from a stock of %d; %d %s each way,\n", s.callers, s.stock, s.rounds, rounds)
	fmt.Fprintf(w, "on a throwaway PostgreSQL cluster (removed at the end), as a role that may use the naive\n")
	fmt.Fprintf(w, "table and call the book's functions, and nothing else.\n\n")

	fmt.Fprintf(w, "Read, subtract in Go, write back (SELECT qty, then UPDATE ... SET qty = <read - 1>):\n")
	lost, oversold := 0, 0
	for i := 1; i <= s.rounds; i++ {
		r, err := naive(ctx, pool, fmt.Sprintf("naive-%d", i), s.callers, s.stock, s.think)
		if err != nil {
			return err
		}
		lost += r.Lost()
		oversold += r.Oversold()
		fmt.Fprintf(w, "  round %d: %d sold, %d turned away; the stock went %d -> %d: %d updates lost, %d units sold beyond the stock\n",
			i, r.Sold, r.TurnedAway, r.Stock, r.Left, r.Lost(), r.Oversold())
	}
	if lost == 0 {
		// The race is real but needs two callers between the same read
		// and write; on a machine with few cores that may not happen.
		fmt.Fprintf(w, "  no update was lost this time: try more -callers, or -think 1ms\n")
	}

	fmt.Fprintf(w, "\nThrough the client generated from %s (Reserve.Hold: one call of the book's function):\n", bookFile)
	for i := 1; i <= s.rounds; i++ {
		r, err := viaClient(ctx, pool, fmt.Sprintf("client-%d", i), s.callers, s.stock, s.think)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  round %d: %d done, %d refused out_of_stock; the stock holds %d for orders, %d left to reserve\n",
			i, r.Done, r.OutOfStock, r.Held, r.Left)
		if want := min(s.stock, int64(s.callers)); int64(r.Done) != want || r.Held != want || r.Left != s.stock-want {
			return fmt.Errorf("round %d through the client: %+v, want %d done and held", i, r, want)
		}
	}
	fmt.Fprintf(w, "\nLost: %d updates, and %d units sold that were not there, by read-modify-write; none through the book.\n", lost, oversold)
	return nil
}
