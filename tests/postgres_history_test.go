package tests

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
)

// historyReads grants a reading role the four reads of the history and
// nothing else.
const historyReads = `grant execute on function "wallet".history_statement(text, text, text[], timestamptz, timestamptz, text[], boolean, integer, bigint),
  "wallet".history_call(text, text, text[]), "wallet".history_open_holds(text, text, text[], text),
  "wallet".history_balance(text, text, text[], timestamptz) to ` + reporter

// walletID is the SQL of the id of a member's wallet in a tenant.
func walletID(tenant, member string) string {
	return `"wallet".chobo_id(array['account', 'wallet', '` + tenant + `', 'wallet', '` + member + `'])`
}

// TestHistoryReads: the history of the wallet read through its four
// functions, by a role that may read and nothing more, and by the
// application: a statement in both orders, paged by its cursor while
// calls keep coming, filtered by transfer kind and time; a call's
// entries by its key; the open holds; a balance at a time. Each tenant
// reads only its own.
func TestHistoryReads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	if _, err := u.owner.Exec(ctx, historyReads); err != nil {
		t.Fatal(err)
	}
	runSteps(t, ctx, u.app, "calls", []resendStep{
		{`select * from "wallet".give_do('t1', 'g-1', 'm', 100)`, nil, "done"},
		{`select * from "wallet".buy_hold('t1', 'o-1', 'm', 20)`, nil, "done"},
		{`select * from "wallet".buy_post('t1', 'o-1')`, nil, "done"},
		{`select * from "wallet".buy_hold('t1', 'o-2', 'm', 5)`, nil, "done"},
		{`select * from "wallet".buy_hold('t1', 'o-short', 'm', 500)`, nil, "refused: wallet_short"},
		{`select * from "wallet".give_do('t2', 'g-1', 'm', 7)`, nil, "done"},
	})
	m := walletID("t1", "m")
	statement := func(db pgdeploy.DB, args string) (string, int64) {
		t.Helper()
		rows, err := db.Query(ctx, `select cursor, op, key[1], n, posted, held_out, after_posted, after_held_out
  from "wallet".history_statement('t1', 'wallet', array['m']`+args+`)`)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			Cursor                                  int64
			Op, Key                                 string
			N                                       int
			Posted, HeldOut, AfterPosted, AfterHeld int64
		}
		got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		var last int64
		for _, r := range got {
			parts = append(parts, strings.Join([]string{r.Op, r.Key, itoa(r.N), itoa(r.Posted), itoa(r.HeldOut), "->", itoa(r.AfterPosted), itoa(r.AfterHeld)}, " "))
			last = r.Cursor
		}
		return strings.Join(parts, "; "), last
	}
	const all = "do g-1 2 100 0 -> 100 0; hold o-1 1 0 20 -> 100 20; hold o-1 3 0 1 -> 100 21; " +
		"post o-1 1 -20 -20 -> 80 1; post o-1 3 -1 -1 -> 79 0; hold o-2 1 0 5 -> 79 5; hold o-2 3 0 1 -> 79 6"
	for _, db := range []struct {
		name string
		db   pgdeploy.DB
	}{{"the reading role", u.report}, {"the application", u.app}} {
		if got, _ := statement(db.db, ", p_limit => 0"); got != all {
			t.Errorf("%s: m's statement\n%s\nwant\n%s", db.name, got, all)
		}
	}
	// newest first, three at a time: each page starts past the cursor of
	// the one before
	page1, c1 := statement(u.report, ", p_newest => true, p_limit => 3")
	page2, c2 := statement(u.report, ", p_newest => true, p_limit => 3, p_after => "+itoa(c1))
	if page1 != "hold o-2 3 0 1 -> 79 6; hold o-2 1 0 5 -> 79 5; post o-1 3 -1 -1 -> 79 0" ||
		page2 != "post o-1 1 -20 -20 -> 80 1; hold o-1 3 0 1 -> 100 21; hold o-1 1 0 20 -> 100 20" {
		t.Errorf("newest first, by pages of 3:\n%s\n%s", page1, page2)
	}
	// oldest first, a page read, then calls, then the next page: it holds
	// what came after the page, the new calls' entries too
	first, c := statement(u.report, ", p_limit => 4")
	if first != "do g-1 2 100 0 -> 100 0; hold o-1 1 0 20 -> 100 20; hold o-1 3 0 1 -> 100 21; post o-1 1 -20 -20 -> 80 1" {
		t.Errorf("the first page oldest first: %s", first)
	}
	runSteps(t, ctx, u.app, "more calls", []resendStep{
		{`select * from "wallet".buy_void('t1', 'o-2')`, nil, "done"},
	})
	next, _ := statement(u.report, ", p_limit => 0, p_after => "+itoa(c))
	if want := "post o-1 3 -1 -1 -> 79 0; hold o-2 1 0 5 -> 79 5; hold o-2 3 0 1 -> 79 6; void o-2 1 0 -5 -> 79 1; void o-2 3 0 -1 -> 79 0"; next != want {
		t.Errorf("the next page after a void:\n%s\nwant\n%s", next, want)
	}
	if _, last := statement(u.report, ", p_newest => true, p_limit => 1, p_after => "+itoa(c2)); last >= c2 {
		t.Errorf("newest first past %d gave %d", c2, last)
	}
	// by transfer kind, and by time: nothing before the first call
	if got, _ := statement(u.report, ", p_kinds => array['give'], p_limit => 0"); got != "do g-1 2 100 0 -> 100 0" {
		t.Errorf("the gives alone: %s", got)
	}
	if got, _ := statement(u.report, ", p_to => '2000-01-01', p_limit => 0"); got != "" {
		t.Errorf("before 2000: %s", got)
	}
	// a call's entries by its key: the hold's, then its post's
	var entries string
	if err := u.report.QueryRow(ctx, `select string_agg(op || ' ' || n || ' ' || posted || ' ' || held_in || ' ' || held_out, '; ')
  from "wallet".history_call('t1', 'buy', array['o-1'])`).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	if want := "hold 1 0 0 20; hold 2 0 20 0; hold 3 0 0 1; hold 4 0 1 0; post 1 -20 0 -20; post 2 20 -20 0; post 3 -1 0 -1; post 4 1 -1 0"; entries != want {
		t.Errorf("o-1's entries:\n%s\nwant\n%s", entries, want)
	}
	// open holds: o-3 in t1 alone, with its deadline
	runSteps(t, ctx, u.app, "a hold", []resendStep{
		{`select * from "wallet".buy_hold('t1', 'o-3', 'm', 2)`, nil, "done"},
	})
	var open string
	if err := u.report.QueryRow(ctx, `select coalesce(string_agg(kind || ' ' || key[1] || ' ' || amounts::text || ' ' || (deadline - created_at)::text, '; '), '')
  from "wallet".history_open_holds('t1', 'wallet', array['m'])`).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != "buy o-3 {2,1} 00:10:00" {
		t.Errorf("m's open holds: %q", open)
	}
	if err := u.report.QueryRow(ctx, `select coalesce(string_agg(key[1], ' '), '') from "wallet".history_open_holds('t2', p_kind => 'buy')`).Scan(&open); err != nil || open != "" {
		t.Errorf("t2's open holds: %q %v", open, err)
	}
	// a balance at a time: that of the entry before it
	var at time.Time
	if err := u.admin.QueryRow(ctx, `select at from "wallet".account_entries where op = 'post' and tenant = 't1' and account = `+m+` order by seq limit 1`).Scan(&at); err != nil {
		t.Fatal(err)
	}
	var before, after string
	if err := u.report.QueryRow(ctx, `select "wallet".history_balance('t1', 'wallet', array['m'], $1::timestamptz - interval '1 microsecond')::text,
  "wallet".history_balance('t1', 'wallet', array['m'], $1::timestamptz)::text`, at).Scan(&before, &after); err != nil {
		t.Fatal(err)
	}
	if before != "(100,0,21)" || after != "(79,0,0)" {
		t.Errorf("balance before and at the post: %s %s, want (100,0,21) (79,0,0)", before, after)
	}
	// each tenant its own: t2's m has one entry
	var n int
	if err := u.report.QueryRow(ctx, `select count(*) from "wallet".history_statement('t2', 'wallet', array['m'], p_limit => 0)`).Scan(&n); err != nil || n != 1 {
		t.Errorf("t2's statement: %d entries %v, want 1", n, err)
	}
	if err := u.report.QueryRow(ctx, `select count(*) from "wallet".history_statement('t2', 'wallet', array['nobody'], p_limit => 0)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("an account t2 never used: %d entries %v, want 0", n, err)
	}
	// reading is all the role may do
	if got := call(ctx, u.report, `select * from "wallet".give_do('t1', 'g-9', 'm', 1)`); got != "error 42501" {
		t.Errorf("a give as the reading role: %s, want error 42501", got)
	}
	for _, q := range []string{`select count(*) from "wallet".account_entries`,
		`select "wallet".chobo_record('t1', 'give', 'do', array['x'], array[` + m + `], array[1]::bigint[], array[0]::bigint[], array[0]::bigint[])`} {
		if _, err := u.report.Exec(ctx, q); sqlState(err) != "42501" {
			t.Errorf("%.50s as the reading role: %v, want 42501", q, err)
		}
	}
	// a statement with a limit below 0 fails
	if _, err := u.report.Exec(ctx, `select * from "wallet".history_statement('t1', 'wallet', array['m'], p_limit => -1)`); sqlState(err) != "22023" {
		t.Errorf("a limit of -1: %v, want 22023", err)
	}
	wantEntriesBalance(t, u.admin, check.Check("wallet.book", []byte(walletV1)).Book)
}

func itoa[T int | int64](n T) string { return strconv.FormatInt(int64(n), 10) }
