// Command stockctl shows how a program uses the generated client: it
// builds the client over any Querier (a *pgxpool.Pool, *pgx.Conn or
// pgx.Tx in a real program) and calls the book's operations on it.
package main

import (
	"fmt"
	"os"

	"example.com/warehouse/ledger/stock"
)

func main() {
	// A real program passes a *pgxpool.Pool here; with none, the client
	// is only built, to show the operations it offers.
	var q stock.Querier
	b := stock.Postgres(q, "warehouse-1")
	fmt.Fprintf(os.Stdout, "book stock for tenant warehouse-1: %T, %T, %T\n", b.Deliver, b.Order, b.Relocate)
}
