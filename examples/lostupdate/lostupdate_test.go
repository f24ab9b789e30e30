package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/tests/golden"
)

// The client in inventory/ is what `chobo build --target postgres-go`
// writes for the book the program carries, byte for byte: the demo shows
// chobo's real output, not a copy that drifted. CHOBO_BLESS=1 writes it
// again.
func TestClientIsTheBuildOfTheBook(t *testing.T) {
	onDisk, err := os.ReadFile(bookFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, bookSrc) {
		t.Fatalf("%s differs from the book the program embeds", bookFile)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := cli.Main([]string{"build", bookFile, "--target", "postgres-go", "--out", out}, cli.Env{
		Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, ReadFile: os.ReadFile,
	})
	if code != cli.ExitOK {
		t.Fatalf("chobo build: exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(out, "inventory", "book.go"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("inventory", "book.go"), got)
}

// TestDemo runs both ways with a few callers on a throwaway cluster. The
// naive way is not required to lose an update: whether two callers meet
// between a read and a write depends on the machine. What it reports
// must be true of the table, and whatever happened there, the client
// must reserve exactly the stock, every round.
func TestDemo(t *testing.T) {
	const callers, stock, rounds = 6, 3, 5
	srv := pgtest.Start(t)
	ctx := context.Background()
	// Every call below is made as the application's role, which may call
	// the book's functions and touch none of its tables.
	pool, err := setUp(ctx, srv, srv.Pool(t, 1), callers+1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `update inventory.accounts set posted = posted + 1`); err == nil {
		t.Fatal("the application's role could write the book's accounts itself")
	}
	lost := 0
	for i := range rounds {
		r, err := naive(ctx, pool, fmt.Sprintf("naive-%d", i), callers, stock, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("read-modify-write, round %d: %+v: %d lost, %d oversold", i+1, r, r.Lost(), r.Oversold())
		if r.Sold+r.TurnedAway != callers || r.Left < 0 || r.Lost() < 0 {
			t.Errorf("round %d: the counts do not add up: %+v", i+1, r)
		}
		// With nothing lost the callers ran as if one after another, and
		// then none can have sold what was not there.
		if r.Lost() == 0 && (r.Sold > stock || r.Left != stock-int64(r.Sold)) {
			t.Errorf("round %d: reported nothing lost, but the table says otherwise: %+v", i+1, r)
		}
		lost += r.Lost()
	}
	t.Logf("read-modify-write lost %d updates in %d rounds (the race is real but not certain on every machine)", lost, rounds)
	for i := range rounds {
		r, err := viaClient(ctx, pool, fmt.Sprintf("client-%d", i), callers, stock, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Done != stock || r.OutOfStock != callers-stock || r.Held != stock || r.Left != 0 {
			t.Errorf("through the client, round %d: %+v; want %d done, %d refused out_of_stock, %d held, 0 left",
				i+1, r, stock, callers-stock, stock)
		}
	}
}
