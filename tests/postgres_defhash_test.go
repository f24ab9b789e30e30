package tests

import (
	"context"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/check"
)

// TestPostgresAcceptsLegacyDefinitions: earlier versions of chobo
// recorded, with every key, a definition hash that had the bounds of the
// accounts in it (book.Transfer.LegacyDefinition). A ledger they made
// keeps its answers under this version's SQL of the same book: a retry
// of a call recorded with the legacy hash is done_before, a hold
// recorded with it is posted and voided; a call recorded with any other
// hash is still key_conflict.
func TestPostgresAcceptsLegacyDefinitions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	b := check.Check("wallet.book", []byte(walletV1)).Book
	give, buy := b.Transfer("give"), b.Transfer("buy")
	if give.LegacyDefinition() == give.Definition() || buy.LegacyDefinition() == buy.Definition() {
		t.Fatal("the wallet is bounded, yet its transfers have one hash each")
	}
	for _, c := range []string{
		`select * from "wallet".give_do('', 'g-1', 'm', 100)`,
		`select * from "wallet".give_do('', 'g-2', 'm', 100)`,
		`select * from "wallet".buy_hold('', 'o-1', 'm', 10)`,
		`select * from "wallet".buy_hold('', 'o-2', 'm', 10)`,
		`select * from "wallet".buy_hold('', 'o-3', 'm', 10)`,
		`select * from "wallet".buy_hold('', 'o-4', 'm', 10)`,
		`select * from "wallet".buy_post('', 'o-4')`,
	} {
		if got := call(ctx, u.app, c); got != "done" {
			t.Fatalf("%s: %s", c, got)
		}
	}
	// What an earlier chobo left: its hash on g-1, o-1, o-2 and o-4's
	// post; a hash of no version of this book on g-2 and o-3.
	set := func(kind, op, key, def string) {
		t.Helper()
		tag, err := u.admin.Exec(ctx, `update "wallet".keys set definition = $1
 where tenant = '' and kind = $2 and op = $3 and key = array[$4]::text[]`, def, kind, op, key)
		if err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("recording %s %s %s with %s: %v (%d rows)", kind, op, key, def, err, tag.RowsAffected())
		}
	}
	set("give", "do", "g-1", give.LegacyDefinition())
	set("buy", "hold", "o-1", buy.LegacyDefinition())
	set("buy", "hold", "o-2", buy.LegacyDefinition())
	set("buy", "post", "o-4", buy.LegacyDefinition())
	set("give", "do", "g-2", "0123456789abcdef")
	set("buy", "hold", "o-3", "0123456789abcdef")
	for _, c := range []struct{ stmt, want string }{
		{`select * from "wallet".give_do('', 'g-1', 'm', 100)`, "done_before"},
		{`select * from "wallet".buy_hold('', 'o-1', 'm', 10)`, "done_before"},
		{`select * from "wallet".buy_post('', 'o-1')`, "done"},
		{`select * from "wallet".buy_post('', 'o-1')`, "done_before"},
		{`select * from "wallet".buy_void('', 'o-2')`, "done"},
		{`select * from "wallet".buy_void('', 'o-2')`, "done_before"},
		{`select * from "wallet".buy_post('', 'o-4')`, "done_before"},
		{`select * from "wallet".give_do('', 'g-2', 'm', 100)`, "refused: key_conflict"},
		{`select * from "wallet".buy_post('', 'o-3')`, "refused: key_conflict"},
		{`select * from "wallet".buy_void('', 'o-3')`, "refused: key_conflict"},
	} {
		if got := call(ctx, u.app, c.stmt); got != c.want {
			t.Errorf("%s: %s, want %s", c.stmt, got, c.want)
		}
	}
	// The calls this version made recorded its own hash.
	var n int
	if err := u.admin.QueryRow(ctx, `select count(*) from "wallet".keys
 where kind = 'buy' and op in ('post', 'void') and key in (array['o-1'], array['o-2']) and definition = $1`,
		buy.Definition()).Scan(&n); err != nil || n != 2 {
		t.Errorf("post and void recorded with this version's hash: %d rows, %v", n, err)
	}
	// o-1 and o-4 posted, 10 and a fee of 1 each: o-3 is still held.
	var balance int64
	if err := u.admin.QueryRow(ctx, `select posted from "wallet".accounts where posted <> 0 and lower_bound = 0`).Scan(&balance); err != nil || balance != 200-11-11 {
		t.Errorf("the wallet holds %d, want %d (%v)", balance, 200-11-11, err)
	}
}
