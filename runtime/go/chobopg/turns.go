package chobopg

import (
	"context"
	"runtime"
	"sync"
	"weak"

	"github.com/jackc/pgx/v5"
)

// A *pgx.Conn serves one statement, or one pipeline, at a time; pgx leaves
// it to the caller to keep goroutines from using it at once, and two that
// do race on its state, the second getting "conn busy" before anything of
// its statement was sent. A book's calls over one connection therefore
// take turns: every book over the same *pgx.Conn (directly, through a
// pgx.Tx begun on it, or through a *pgxpool.Conn) shares one turn, held
// for the whole of a call, retries included, or of a pipeline. A pool needs
// none: each call has a connection of its own for as long as it runs.

// turns maps a connection to its turn: a channel of one slot, so that a
// call can stop waiting when its context ends. The key is a weak pointer,
// so that the map keeps no connection alive; a connection's entry goes
// when the connection is collected.
var turns sync.Map // weak.Pointer[pgx.Conn] -> chan struct{}

// connOf is the single connection q sends on, or nil for a pool.
func connOf(q Querier) *pgx.Conn {
	switch c := q.(type) {
	case *pgx.Conn:
		return c
	case interface{ Conn() *pgx.Conn }: // pgx.Tx, *pgxpool.Conn, *pgxpool.Tx
		return c.Conn()
	}
	return nil
}

// takeTurn waits for q's connection to be free and returns what gives it
// back. It waits no longer than ctx: a call whose context ends first, or
// had ended already (over a pool too), is not sent, and its error wraps
// ErrNotSent and the context's error.
func takeTurn(ctx context.Context, q Querier) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, lost{ErrNotSent, err}
	}
	conn := connOf(q)
	if conn == nil {
		return func() {}, nil
	}
	key := weak.Make(conn)
	v, loaded := turns.Load(key)
	if !loaded {
		v, loaded = turns.LoadOrStore(key, make(chan struct{}, 1))
		if !loaded {
			runtime.AddCleanup(conn, func(k weak.Pointer[pgx.Conn]) { turns.Delete(k) }, key)
		}
	}
	turn := v.(chan struct{})
	select {
	case turn <- struct{}{}:
		return func() { <-turn }, nil
	case <-ctx.Done():
		return nil, lost{ErrNotSent, ctx.Err()}
	}
}
