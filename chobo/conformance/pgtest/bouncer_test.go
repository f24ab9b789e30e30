package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The bouncer reaches the server in the mode asked, and after Restart it
// listens again on the same port while the connections of before are gone.
func TestBouncer(t *testing.T) {
	s := Start(t)
	for _, mode := range []string{TransactionPooling, SessionPooling} {
		t.Run(mode, func(t *testing.T) {
			b := StartBouncer(t, s, mode)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, b.ConnString(DefaultDB))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var shown string
			// SHOW answers on the admin console only; the server itself says
			// nothing of the pooler, so ask the console for the mode.
			admin, err := pgx.Connect(ctx, b.ConnString("pgbouncer")+" default_query_exec_mode=simple_protocol")
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(ctx)
			rows, err := admin.Query(ctx, "SHOW CONFIG")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				vals, _ := rows.Values()
				if vals[0] == "pool_mode" {
					shown, _ = vals[1].(string)
				}
			}
			if shown != mode {
				t.Fatalf("pool_mode %q, want %q", shown, mode)
			}
			port := b.Port
			if err := b.Restart(); err != nil {
				t.Fatal(err)
			}
			if b.Port != port {
				t.Fatalf("port %d after Restart, was %d", b.Port, port)
			}
			var one int
			if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err == nil {
				t.Fatal("a connection of before the restart still answers")
			}
			again, err := pgx.Connect(ctx, b.ConnString(DefaultDB))
			if err != nil {
				t.Fatalf("after Restart: %v", err)
			}
			defer again.Close(ctx)
			if err := again.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("after Restart: %v %d", err, one)
			}
		})
	}
}
