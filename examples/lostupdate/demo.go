package main

import (
	"context"
	_ "embed"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/examples/lostupdate/inventory"
)

// bookFile is the book the client in inventory/ was generated from. The
// program carries it, so that the SQL it loads is built from the same
// bytes, wherever it is run from.
const bookFile = "inventory.book"

//go:embed inventory.book
var bookSrc []byte

// bookSQL builds the PostgreSQL target of the book, as `chobo build
// --target postgres` would write it, and says the book's name (its
// schema).
func bookSQL() (name, sql string, err error) {
	res := check.Check(bookFile, bookSrc)
	if res.Book == nil {
		return "", "", fmt.Errorf("%s does not check: %v", bookFile, res.Diags)
	}
	pg, _ := target.Lookup("postgres")
	files, ds, err := pg.Build(res.Book, gen.NewSource(bookFile, bookSrc), gen.Options{})
	if err != nil || len(ds) > 0 || len(files) != 1 {
		return "", "", fmt.Errorf("%s: building its SQL: %v %v", bookFile, ds, err)
	}
	return res.Book.Name, string(files[0].Data), nil
}

// naiveSQL is the stock as a program would keep it by hand: one number
// per SKU, read, changed in Go and written back by the application's
// role, which must therefore be given the table.
var naiveSQL = `
create schema if not exists naive;
create table if not exists naive.stock (sku text primary key, qty bigint not null);
grant usage on schema naive to ` + pgdeploy.App + `;
grant select, insert, update on naive.stock to ` + pgdeploy.App + `;
`

// setUp loads both, each deployed as it would be: the hand-kept table,
// and the book's schema, loaded by an owner role, of which the
// application's role may only call the functions (docs/targets.md).
// admin is a superuser's pool; the pool returned is the application's,
// with at most conns connections, and the caller closes it.
func setUp(ctx context.Context, srv *pgtest.Server, admin *pgxpool.Pool, conns int) (*pgxpool.Pool, error) {
	name, sql, err := bookSQL()
	if err != nil {
		return nil, err
	}
	app, _, err := pgdeploy.Deploy(ctx, srv, admin, []pgdeploy.Book{{Name: name, SQL: sql}}, pgdeploy.Options{Conns: conns})
	if err != nil {
		return nil, err
	}
	if _, err := admin.Exec(ctx, naiveSQL); err != nil {
		app.Close()
		return nil, err
	}
	return app, nil
}

// race runs one function per caller, each on a connection of its own,
// all let go at the same instant: connections are taken first, so that
// no caller waits for one while the others have already run.
func race(ctx context.Context, pool *pgxpool.Pool, callers int, call func(i int, conn *pgxpool.Conn) error) error {
	conns := make([]*pgxpool.Conn, callers)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range conns {
		c, err := pool.Acquire(ctx)
		if err != nil {
			return err
		}
		conns[i] = c
	}
	start := make(chan struct{})
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = call(i, c)
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// NaiveRound is one round of read-modify-write.
type NaiveRound struct {
	Stock      int64 // what the SKU held at the start
	Sold       int   // callers that read a unit left and wrote the stock back one lower
	TurnedAway int   // callers that read 0 and sold nothing
	Left       int64 // what the table holds at the end
}

// Lost is how many of the writes left no trace: each sale wrote the
// stock one lower, yet the stock went down by less.
func (r NaiveRound) Lost() int { return r.Sold - int(r.Stock-r.Left) }

// Oversold is how many units were sold that the stock never had.
func (r NaiveRound) Oversold() int { return max(0, r.Sold-int(r.Stock)) }

// naive lets callers take one unit each from a fresh SKU of stock units
// the way a handler written by hand would: read the number, check it and
// subtract in Go, write the result back. Each statement is correct on
// its own; between the read and the write another caller can read the
// same number, and the later write then overwrites the earlier one.
// think is time spent between the read and the write, as a handler
// that calls another service there would.
func naive(ctx context.Context, pool *pgxpool.Pool, sku string, callers int, stock int64, think time.Duration) (NaiveRound, error) {
	r := NaiveRound{Stock: stock}
	if _, err := pool.Exec(ctx, `insert into naive.stock (sku, qty) values ($1, $2)`, sku, stock); err != nil {
		return r, err
	}
	var mu sync.Mutex
	err := race(ctx, pool, callers, func(_ int, conn *pgxpool.Conn) error {
		var qty int64
		if err := conn.QueryRow(ctx, `select qty from naive.stock where sku = $1`, sku).Scan(&qty); err != nil {
			return err
		}
		if qty < 1 {
			mu.Lock()
			r.TurnedAway++
			mu.Unlock()
			return nil
		}
		time.Sleep(think)
		if _, err := conn.Exec(ctx, `update naive.stock set qty = $2 where sku = $1`, sku, qty-1); err != nil {
			return err
		}
		mu.Lock()
		r.Sold++
		mu.Unlock()
		return nil
	})
	if err != nil {
		return r, err
	}
	err = pool.QueryRow(ctx, `select qty from naive.stock where sku = $1`, sku).Scan(&r.Left)
	return r, err
}

// ClientRound is one round through the generated client.
type ClientRound struct {
	Stock      int64
	Done       int   // reservations the book made
	OutOfStock int   // reservations it refused with out_of_stock
	Held       int64 // what the stock account holds for orders at the end
	Left       int64 // what is still free to reserve: posted - held
}

// viaClient lets the same callers reserve one unit each through the
// client generated from the book: one call of the book's function per
// reservation, which checks the bound and writes in one statement on
// the locked account, so no write can be lost and no reservation can
// pass the bound. think is spent before the call: a handler that
// calls another service first loses nothing by it.
func viaClient(ctx context.Context, pool *pgxpool.Pool, sku string, callers int, stock int64, think time.Duration) (ClientRound, error) {
	r := ClientRound{Stock: stock}
	b := inventory.Postgres(pool, "")
	res, err := b.Receive.Do(ctx, inventory.ReceiveArgs{Delivery: "delivery-" + sku, Sku: sku, Qty: stock})
	if err != nil {
		return r, err
	}
	if res.Outcome != inventory.Done {
		return r, fmt.Errorf("receiving %d of %s: %v %s", stock, sku, res.Outcome, res.Reason)
	}
	var mu sync.Mutex
	err = race(ctx, pool, callers, func(i int, conn *pgxpool.Conn) error {
		time.Sleep(think)
		res, err := inventory.Postgres(conn, "").Reserve.Hold(ctx, inventory.ReserveArgs{
			Order: fmt.Sprintf("order-%s-%d", sku, i+1), Sku: sku, Qty: 1})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case res.Outcome == inventory.Done:
			r.Done++
		case res.Outcome == inventory.Refused && res.Reason == "out_of_stock":
			r.OutOfStock++
		default:
			return fmt.Errorf("reserving 1 of %s: %v %s", sku, res.Outcome, res.Reason)
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	bal, err := b.Balance.Stock(ctx, inventory.StockAccount{Sku: sku})
	r.Held, r.Left = bal.HeldOut, bal.Posted-bal.HeldOut
	return r, err
}
