package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// historian is a role that may read the history and nothing else: USAGE
// on the schema and EXECUTE on the four reads, no right on any table.
const historian = "chobo_history"

// historyReads grants a role the four reads of the history.
func historyReads(role string) string {
	return `grant execute on function "wallet".history_statement(text, text, text[], timestamptz, timestamptz, text[], boolean, integer, bigint),
  "wallet".history_call(text, text, text[]), "wallet".history_open_holds(text, text, text[], text),
  "wallet".history_balance(text, text, text[], timestamptz) to ` + role
}

// walletID is the SQL of the id of a member's wallet in a tenant.
func walletID(tenant, member string) string {
	return `"wallet".chobo_id(array['account', 'wallet', '` + tenant + `', 'wallet', '` + member + `'])`
}

// historyEntries runs a statement or a call's entries (one of the
// client statements of postgres.History) and writes each row in one line:
// cursor, op, key, args, move and side, account and its values, the three
// changes and the balance after ("-" for none).
func historyEntries(t *testing.T, ctx context.Context, db pgdeploy.DB, sql string, args ...any) (string, int64) {
	t.Helper()
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Cursor                                 int64
		Kind, Op                               string
		Key, Args                              []string
		Move                                   int32
		Out                                    bool
		Account                                string
		AccountArgs                            []string
		Posted, HeldIn, HeldOut                int64
		AfterPosted, AfterHeldIn, AfterHeldOut *int64
		At                                     time.Time
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	var last int64
	for _, r := range got {
		side := "in"
		if r.Out {
			side = "out"
		}
		after := "-"
		if r.AfterPosted != nil {
			after = fmt.Sprintf("%d/%d/%d", *r.AfterPosted, *r.AfterHeldIn, *r.AfterHeldOut)
		}
		parts = append(parts, fmt.Sprintf("%s.%s%v%v %d %s %s%v %d/%d/%d -> %s", r.Kind, r.Op, r.Key, r.Args, r.Move, side,
			r.Account, r.AccountArgs, r.Posted, r.HeldIn, r.HeldOut, after))
		if r.At.IsZero() {
			t.Errorf("an entry without its time: %+v", r)
		}
		last = r.Cursor
	}
	return strings.Join(parts, "; "), last
}

// TestHistoryReads: the history of the wallet read through its four
// functions with the statements a client sends (postgres.History), by a
// role granted those four alone and by the application: a statement in
// both orders, paged by its cursor while calls keep coming, filtered by
// transfer kind and time; a call's entries by its key; the open holds; a
// balance at a time, of an account with bounds and of one without. Each
// tenant reads only its own, and the reading role can do nothing else.
func TestHistoryReads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	for _, q := range []string{`create role ` + historian + ` login`} {
		if _, err := u.admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{`grant usage on schema "wallet" to ` + historian, historyReads(historian)} {
		if _, err := u.owner.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	reader := u.srv.PoolAs(t, historian, 2)
	b := check.Check("wallet.book", []byte(walletV1)).Book
	h := postgres.History(b)
	runSteps(t, ctx, u.app, "calls", []resendStep{
		{`select * from "wallet".give_do('t1', 'g-1', 'm', 100)`, nil, "done"},
		{`select * from "wallet".buy_hold('t1', 'o-1', 'm', 20)`, nil, "done"},
		{`select * from "wallet".buy_post('t1', 'o-1')`, nil, "done"},
		{`select * from "wallet".buy_hold('t1', 'o-2', 'm', 5)`, nil, "done"},
		{`select * from "wallet".buy_hold('t1', 'o-short', 'm', 500)`, nil, "refused: wallet_short"},
		{`select * from "wallet".give_do('t2', 'g-1', 'm', 7)`, nil, "done"},
	})
	// statement reads a page of m's statement in t1: newest first or not,
	// at most limit rows (0: all), past the cursor after (0: none).
	statement := func(db pgdeploy.DB, newest bool, limit int, after int64, kinds []string, to *time.Time) (string, int64) {
		t.Helper()
		var past *int64
		if after != 0 {
			past = &after
		}
		return historyEntries(t, ctx, db, h.Statement, "t1", "wallet", []string{"m"}, nil, to, kinds, newest, limit, past)
	}
	const (
		give  = "give.do[g-1][g-1 m 100] 1 in wallet[m] 100/0/0 -> 100/0/0"
		hold1 = "buy.hold[o-1][o-1 m 20] 1 out wallet[m] 0/0/20 -> 100/0/20; buy.hold[o-1][o-1 m 20] 2 out wallet[m] 0/0/1 -> 100/0/21"
		post1 = "buy.post[o-1][o-1] 1 out wallet[m] -20/0/-20 -> 80/0/1; buy.post[o-1][o-1] 2 out wallet[m] -1/0/-1 -> 79/0/0"
		hold2 = "buy.hold[o-2][o-2 m 5] 1 out wallet[m] 0/0/5 -> 79/0/5; buy.hold[o-2][o-2 m 5] 2 out wallet[m] 0/0/1 -> 79/0/6"
		void2 = "buy.void[o-2][o-2] 1 out wallet[m] 0/0/-5 -> 79/0/1; buy.void[o-2][o-2] 2 out wallet[m] 0/0/-1 -> 79/0/0"
	)
	all := strings.Join([]string{give, hold1, post1, hold2}, "; ")
	for _, db := range []struct {
		name string
		db   pgdeploy.DB
	}{{"the reading role", reader}, {"the application", u.app}} {
		if got, _ := statement(db.db, false, 0, 0, nil, nil); got != all {
			t.Errorf("%s: m's statement\n%s\nwant\n%s", db.name, got, all)
		}
	}
	// newest first, three at a time: each page starts past the cursor of
	// the one before
	page1, c1 := statement(reader, true, 3, 0, nil, nil)
	page2, c2 := statement(reader, true, 3, c1, nil, nil)
	if want1, want2 := strings.Split(post1, "; ")[1]+"; "+hold2, strings.Split(post1, "; ")[0]+"; "+"buy.hold[o-1][o-1 m 20] 2 out wallet[m] 0/0/1 -> 100/0/21; buy.hold[o-1][o-1 m 20] 1 out wallet[m] 0/0/20 -> 100/0/20"; page1 != reverse(want1) || page2 != want2 {
		t.Errorf("newest first, by pages of 3:\n%s\n%s\nwant\n%s\n%s", page1, page2, reverse(want1), want2)
	}
	// oldest first, a page read, then calls, then the next page: it holds
	// what came after the page, the new calls' entries too
	first, c := statement(reader, false, 4, 0, nil, nil)
	if want := give + "; " + hold1 + "; " + strings.Split(post1, "; ")[0]; first != want {
		t.Errorf("the first page oldest first:\n%s\nwant\n%s", first, want)
	}
	runSteps(t, ctx, u.app, "more calls", []resendStep{
		{`select * from "wallet".buy_void('t1', 'o-2')`, nil, "done"},
	})
	if next, _ := statement(reader, false, 0, c, nil, nil); next != strings.Split(post1, "; ")[1]+"; "+hold2+"; "+void2 {
		t.Errorf("the next page after a void:\n%s", next)
	}
	if _, last := statement(reader, true, 1, c2, nil, nil); last >= c2 {
		t.Errorf("newest first past %d gave %d", c2, last)
	}
	// by transfer kind, and by time: nothing before the first call
	if got, _ := statement(reader, false, 0, 0, []string{"give"}, nil); got != give {
		t.Errorf("the gives alone: %s", got)
	}
	y2000 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, _ := statement(reader, false, 0, 0, nil, &y2000); got != "" {
		t.Errorf("before 2000: %s", got)
	}
	// a call's entries by its key: the hold's, then its post's, both
	// sides of each move, each with the balance it left (none for an
	// account without bounds)
	entries, _ := historyEntries(t, ctx, reader, h.Call, "t1", "buy", []string{"o-1"})
	if want := "buy.hold[o-1][o-1 m 20] 1 out wallet[m] 0/0/20 -> 100/0/20; buy.hold[o-1][o-1 m 20] 1 in shops[] 0/20/0 -> -; " +
		"buy.hold[o-1][o-1 m 20] 2 out wallet[m] 0/0/1 -> 100/0/21; buy.hold[o-1][o-1 m 20] 2 in bank[] 0/1/0 -> -; " +
		"buy.post[o-1][o-1] 1 out wallet[m] -20/0/-20 -> 80/0/1; buy.post[o-1][o-1] 1 in shops[] 20/-20/0 -> -; " +
		"buy.post[o-1][o-1] 2 out wallet[m] -1/0/-1 -> 79/0/0; buy.post[o-1][o-1] 2 in bank[] 1/-1/0 -> -"; entries != want {
		t.Errorf("o-1's entries:\n%s\nwant\n%s", entries, want)
	}
	// a post that names its amounts is read with them
	runSteps(t, ctx, u.app, "a post in part", []resendStep{
		{`select * from "wallet".buy_hold('t1', 'o-4', 'm', 10)`, nil, "done"},
		{`select * from "wallet".buy_post('t1', 'o-4', 7)`, nil, "done"},
	})
	if got, _ := historyEntries(t, ctx, reader, h.Call, "t1", "buy", []string{"o-4"}); !strings.Contains(got, "buy.post[o-4][o-4 7] 1 out wallet[m] -7/0/-10 -> 72/0/1") {
		t.Errorf("o-4's entries: %s", got)
	}
	// open holds: o-3 in t1 alone, a row per move, with its deadline
	runSteps(t, ctx, u.app, "a hold", []resendStep{
		{`select * from "wallet".buy_hold('t1', 'o-3', 'm', 2)`, nil, "done"},
	})
	openHolds := func(tenant string, account, args, kind any) string {
		t.Helper()
		rows, err := reader.Query(ctx, h.OpenHolds, tenant, account, args, kind)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for rows.Next() {
			var kind, from, to string
			var key, fromArgs, toArgs []string
			var move int32
			var amount int64
			var created time.Time
			var deadline *time.Time
			if err := rows.Scan(&kind, &key, &move, &from, &fromArgs, &to, &toArgs, &amount, &created, &deadline); err != nil {
				t.Fatal(err)
			}
			life := "none"
			if deadline != nil {
				life = deadline.Sub(created).String()
			}
			parts = append(parts, fmt.Sprintf("%s%v %d %s%v %s%v %d %s", kind, key, move, from, fromArgs, to, toArgs, amount, life))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(parts, "; ")
	}
	const o3 = "buy[o-3] 1 wallet[m] shops[] 2 10m0s; buy[o-3] 2 wallet[m] bank[] 1 10m0s"
	for _, q := range []struct {
		name                string
		account, args, kind any
		want                string
	}{
		{"m's", "wallet", []string{"m"}, nil, o3},
		{"the bank's", "bank", []string{}, "buy", o3},
		{"any account's", nil, nil, nil, o3},
		{"another member's", "wallet", []string{"n"}, nil, ""},
		{"of another kind", nil, nil, "give", ""},
	} {
		if got := openHolds("t1", q.account, q.args, q.kind); got != q.want {
			t.Errorf("%s open holds: %q, want %q", q.name, got, q.want)
		}
	}
	if got := openHolds("t2", nil, nil, "buy"); got != "" {
		t.Errorf("t2's open holds: %q", got)
	}
	// a balance at a time: that of the entry before it; for an account
	// without bounds, the sum of its entries up to then
	balanceAt := func(account string, args []string, at time.Time) string {
		t.Helper()
		var p, i, o int64
		if err := reader.QueryRow(ctx, h.BalanceAt, "t1", account, args, at).Scan(&p, &i, &o); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("(%d,%d,%d)", p, i, o)
	}
	var at time.Time
	if err := u.admin.QueryRow(ctx, `select at from "wallet".account_entries where op = 'post' and tenant = 't1' and account = `+walletID("t1", "m")+` order by seq limit 1`).Scan(&at); err != nil {
		t.Fatal(err)
	}
	if before, after := balanceAt("wallet", []string{"m"}, at.Add(-time.Microsecond)), balanceAt("wallet", []string{"m"}, at); before != "(100,0,21)" || after != "(79,0,0)" {
		t.Errorf("balance before and at the post: %s %s, want (100,0,21) (79,0,0)", before, after)
	}
	if before, after := balanceAt("bank", []string{}, at.Add(-time.Microsecond)), balanceAt("bank", []string{}, at); before != "(-100,1,0)" || after != "(-99,0,0)" {
		t.Errorf("the bank before and at the post: %s %s, want (-100,1,0) (-99,0,0)", before, after)
	}
	var now, bank string
	if err := u.app.QueryRow(ctx, `select clock_timestamp()::text, "wallet".balance_bank('t1')::text`).Scan(&now, &bank); err != nil {
		t.Fatal(err)
	}
	if at, _ := time.Parse("2006-01-02 15:04:05.999999-07", now); balanceAt("bank", []string{}, at) != bank {
		t.Errorf("the bank now: %s, its balance %s", balanceAt("bank", []string{}, at), bank)
	}
	if got := balanceAt("wallet", []string{"m"}, y2000); got != "(0,0,0)" {
		t.Errorf("m in 2000: %s", got)
	}
	// each tenant its own: t2's m has one entry
	var n int
	if err := reader.QueryRow(ctx, `select count(*) from "wallet".history_statement('t2', 'wallet', array['m'], p_limit => 0)`).Scan(&n); err != nil || n != 1 {
		t.Errorf("t2's statement: %d entries %v, want 1", n, err)
	}
	if err := reader.QueryRow(ctx, `select count(*) from "wallet".history_statement('t2', 'wallet', array['nobody'], p_limit => 0)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("an account t2 never used: %d entries %v, want 0", n, err)
	}
	// reading the four functions is all the role may do: no call, no
	// table or view read or written, no helper run
	if got := call(ctx, reader, `select * from "wallet".give_do('t1', 'g-9', 'm', 1)`); got != "error 42501" {
		t.Errorf("a give as the reading role: %s, want error 42501", got)
	}
	for _, q := range []string{
		`select count(*) from "wallet".account_entries`, `select count(*) from "wallet".keys`,
		`select count(*) from "wallet".accounts`, `select count(*) from "wallet".account_shards`,
		`select count(*) from "wallet".entries`, `select count(*) from "wallet".holds`,
		`select "wallet".balance_wallet('t1', 'm')`, `select "wallet".chobo_id(array['x'])`,
		`insert into "wallet".account_entries (tenant, account, seq, kind, op, key, n, posted, held_in, held_out, at)
  values ('t1', ` + walletID("t1", "m") + `, 99, 'give', 'do', array['x'], 1, 1, 0, 0, now())`,
		`update "wallet".accounts set posted = 0`,
		`select "wallet".chobo_record('t1', 'give', 'do', array['x'], array['00000000-0000-0000-0000-000000000001'::uuid], array[1]::bigint[], array[0]::bigint[], array[0]::bigint[])`,
		`select nextval('"wallet".entry_order')`,
	} {
		if _, err := reader.Exec(ctx, q); sqlState(err) != "42501" {
			t.Errorf("%.60s as the reading role: %v, want 42501", q, err)
		}
	}
	// a statement with a limit below 0 fails
	if _, err := reader.Exec(ctx, `select * from "wallet".history_statement('t1', 'wallet', array['m'], p_limit => -1)`); sqlState(err) != "22023" {
		t.Errorf("a limit of -1: %v, want 22023", err)
	}
	langtest.EntriesBalance(t, u.admin, b)
}

// reverse reverses the order of the rows of a page written "a; b; c".
func reverse(page string) string {
	rows := strings.Split(page, "; ")
	slices.Reverse(rows)
	return strings.Join(rows, "; ")
}

func itoa[T int | int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// TestHistoryAtScale fills the wallet's history with entries over many
// accounts, and reads one page of 100 of one account through
// history_statement, newest first and then oldest first past a cursor:
// auto_explain, loaded in the reading session, shows the plan the
// function ran, which must read account_entries through its primary key
// (no scan of the table, no sort) and touch a handful of pages. The
// server time is logged, not held to a figure: the machines the tests run
// on are shared. CHOBO_HISTORY_SCALE=1 runs it at 1,000,000 entries over
// 10,000 accounts; without it, at 100,000 over 1,000. The rows are written
// as the functions write them (a key row per call, its two entries, the
// counters), by one statement each rather than by a million calls.
func TestHistoryAtScale(t *testing.T) {
	entries, accounts := 100_000, 1_000
	if os.Getenv("CHOBO_HISTORY_SCALE") == "1" {
		entries, accounts = 1_000_000, 10_000
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	calls := entries / 2
	start := time.Now()
	for _, q := range []string{
		`create temporary table member (i integer primary key, id uuid not null)`,
		fmt.Sprintf(`insert into member select i, "wallet".chobo_id(array['account', 'wallet', 't', 'wallet', 'm' || i])
  from generate_series(0, %d) i`, accounts-1),
		`insert into "wallet".accounts (tenant, id, kind, args, unit, lower_bound, posted)
select 't', id, 'wallet', array['m' || i], 'pts', 0, 1000000000 from member`,
		// call c moves 1 from member c mod A to another member, a
		// different one for each round of A calls
		fmt.Sprintf(`create temporary table moves as
select c, f.id as from_id, t.id as to_id, timestamptz '2026-01-01' + c * interval '1 millisecond' as at
  from generate_series(1, %[1]d) c
  join member f on f.i = c %% %[2]d
  join member t on t.i = (c + 1 + (c / %[2]d) %% (%[2]d - 1)) %% %[2]d`, calls, accounts),
		`insert into "wallet".keys (tenant, kind, op, key, content, definition, result, at)
select 't', 'give', 'do', array['g-' || c], json_build_array('g-' || c, 'x', 1)::text, 'bulk', 'done', at
  from moves`,
		`insert into "wallet".account_entries
  (tenant, account, seq, kind, op, key, n, posted, held_in, held_out, after_posted, after_held_in, after_held_out, at)
select 't', x.account, row_number() over w, 'give', 'do', array['g-' || x.c], x.n, x.posted, 0, 0,
       1000000000 + sum(x.posted) over w, 0, 0, x.at
  from (select c, 1 as n, from_id as account, -1::bigint as posted, at from moves
        union all
        select c, 2, to_id, 1, at from moves) x
window w as (partition by x.account order by x.c, x.n rows between unbounded preceding and current row)`,
		`update "wallet".accounts a set entry_seq = e.n, posted = 1000000000 + e.p
  from (select account, count(*) as n, sum(posted) as p from "wallet".account_entries group by account) e
 where a.tenant = 't' and a.id = e.account`,
		`analyze "wallet".accounts, "wallet".keys, "wallet".account_entries`,
	} {
		if _, err := u.admin.Exec(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	var total, members int
	if err := u.admin.QueryRow(ctx, `select count(*), count(distinct account) from "wallet".account_entries`).Scan(&total, &members); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d entries over %d accounts in %s", total, members, time.Since(start).Round(time.Millisecond))
	if total != entries || members != accounts {
		t.Fatalf("loaded %d entries over %d accounts, want %d over %d", total, members, entries, accounts)
	}
	// a call through the function after the load numbers on from the
	// loaded entries
	var before, after int64
	m7 := `(select id from member where i = 7)`
	if err := u.admin.QueryRow(ctx, `select max(seq) from "wallet".account_entries where account = `+m7).Scan(&before); err != nil {
		t.Fatal(err)
	}
	runSteps(t, ctx, u.app, "a call after the load", []resendStep{
		{`select * from "wallet".give_do('t', 'g-new', 'm7', 5)`, nil, "done"},
	})
	if err := u.admin.QueryRow(ctx, `select max(seq) from "wallet".account_entries where account = `+m7).Scan(&after); err != nil || after != before+1 {
		t.Errorf("m7's entries after a call: %d, want %d (%v)", after, before+1, err)
	}

	// The reading session: auto_explain sends the plan of every statement
	// it runs, those inside functions too, back as a notice.
	cfg, err := pgx.ParseConfig(u.srv.ConnString(pgtest.DefaultDB))
	if err != nil {
		t.Fatal(err)
	}
	var plans []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if strings.Contains(n.Message, "account_entries") {
			plans = append(plans, n.Message)
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range []string{`load 'auto_explain'`, `set auto_explain.log_min_duration = 0`, `set auto_explain.log_analyze = on`,
		`set auto_explain.log_buffers = on`, `set auto_explain.log_timing = off`, `set auto_explain.log_nested_statements = on`, `set auto_explain.log_format = json`,
		`set client_min_messages = log`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	member := "m" + itoa(accounts/2)
	read := func(args string) int64 {
		t.Helper()
		plans = nil
		rows, err := conn.Query(ctx, `select cursor from "wallet".history_statement('t', 'wallet', array['`+member+`'], p_limit => 100`+args+`)`)
		if err != nil {
			t.Fatal(err)
		}
		cursors, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		if len(cursors) == 0 {
			t.Fatalf("no entries for %s", member)
		}
		return cursors[len(cursors)-1]
	}
	for _, order := range []struct{ name, args string }{
		{"newest first", ", p_newest => true"},
		{"oldest first past a cursor", ", p_after => 3"},
	} {
		// a session's first calls have plans made for their values, the
		// later ones may have the generic plan: both are read
		for i := range 8 {
			read(order.args)
			if len(plans) != 1 {
				t.Fatalf("%s: %d plans of the statement on account_entries, want 1", order.name, len(plans))
			}
			if i != 0 && i != 7 {
				continue
			}
			p := parsePlan(t, plans[0])
			t.Logf("%s, call %d: %s", order.name, i+1, p)
			if p.scans != 0 || p.sorts != 0 || p.index != "account_entries_pkey" {
				t.Errorf("%s: the page does not come from the primary key alone:\n%s", order.name, plans[0])
			}
			if p.indexBuffers > 20 {
				t.Errorf("%s: the index scan of the page touched %d pages", order.name, p.indexBuffers)
			}
		}
	}
}

// planFigures is what TestHistoryAtScale reads of a plan.
type planFigures struct {
	ms            float64 // server time of the statement
	index         string  // the index account_entries was read through
	scans, sorts  int     // sequential scans and sorts of account_entries
	buffers, rows int     // shared pages hit or read; rows of the index scan
	indexBuffers  int     // shared pages hit or read by the index scan
}

func (p planFigures) String() string {
	return fmt.Sprintf("%d rows through %s (%d shared pages); the statement %d shared pages and %.3f ms of server time",
		p.rows, p.index, p.indexBuffers, p.buffers, p.ms)
}

// parsePlan reads the JSON plan auto_explain sends in a notice.
func parsePlan(t *testing.T, notice string) planFigures {
	t.Helper()
	i := strings.Index(notice, "{")
	if i < 0 {
		t.Fatalf("no plan in %q", notice)
	}
	var doc struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(notice[i:]), &doc); err != nil {
		t.Fatalf("%v in %q", err, notice)
	}
	num := func(v any) int { f, _ := v.(float64); return int(f) }
	// the notice starts "duration: 0.123 ms  plan:"; timing each node of
	// the plan would cost more than the statement
	var out planFigures
	if _, err := fmt.Sscanf(notice, "duration: %f ms", &out.ms); err != nil {
		t.Fatalf("no duration in %q: %v", notice, err)
	}
	out.buffers = num(doc.Plan["Shared Hit Blocks"]) + num(doc.Plan["Shared Read Blocks"])
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		rel, _ := n["Relation Name"].(string)
		switch n["Node Type"] {
		case "Seq Scan", "Bitmap Heap Scan":
			if rel == "account_entries" {
				out.scans++
			}
		case "Sort", "Incremental Sort":
			out.sorts++
		case "Index Scan", "Index Only Scan":
			if rel == "account_entries" {
				out.index, _ = n["Index Name"].(string)
				out.rows = num(n["Actual Rows"])
				out.indexBuffers = num(n["Shared Hit Blocks"]) + num(n["Shared Read Blocks"])
			}
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m)
			}
		}
	}
	walk(doc.Plan)
	return out
}

// TestUpgradeFromEntriesKeptTwice loads the SQL of a chobo whose ledger
// kept each call's entries twice, as arrays on its key row and as rows of
// account_entries with what the call was given copied onto each, makes
// calls, grants a role the four reads, and then loads the SQL of today
// over it: the entries stay as they were (numbers, balances, times), the
// arrays and the copies are gone, account_entries is keyed by account and
// number, the reads answer the entries of before with what their calls
// were given, the role granted the reads of before may still read, calls
// after the load number on, and a second load changes nothing.
func TestUpgradeFromEntriesKeptTwice(t *testing.T) {
	earlier, err := os.ReadFile(filepath.Join(casesDir, "wallet-entries-kept-twice.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u := startUpgradeServerWith(t, ctx, string(earlier))
	if _, err := u.owner.Exec(ctx, historyReads(reporter)); err != nil {
		t.Fatal(err)
	}
	runSteps(t, ctx, u.app, "before", []resendStep{
		{`select * from "wallet".give_do('t', 'g-1', 'm', 100)`, nil, "done"},
		{`select * from "wallet".buy_hold('t', 'o-1', 'm', 20)`, nil, "done"},
		{`select * from "wallet".buy_post('t', 'o-1', 15)`, nil, "done"},
		{`select * from "wallet".buy_hold('t', 'o-2', 'm', 10)`, nil, "done"},
		{`select * from "wallet".buy_post('t', 'o-2')`, nil, "done"},
		{`select * from "wallet".buy_hold('t', 'o-3', 'm', 5)`, nil, "done"},
		{`select * from "wallet".buy_void('t', 'o-3')`, nil, "done"},
		{`select * from "wallet".buy_hold('t', 'o-4', 'm', 1)`, nil, "done"},
	})
	if _, err := u.admin.Exec(ctx, `update "wallet".keys set deadline = clock_timestamp() - interval '1 second' where op = 'hold' and key = array['o-4']`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := u.app.QueryRow(ctx, `select "wallet".expire(1000)`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("expire() before: %d, %v", n, err)
	}
	stored := func() string {
		t.Helper()
		var s string
		if err := u.admin.QueryRow(ctx, `select jsonb_agg(to_jsonb(e) - 'content' order by e.account, e.seq)::text from "wallet".account_entries e`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := stored()
	today := walletSQL(t, walletV1)
	u.load(t, ctx, today)
	if after := stored(); after != before {
		t.Fatalf("the entries changed in the load:\nbefore %s\nafter  %s", before, after)
	}
	var left, key string
	if err := u.admin.QueryRow(ctx, `select coalesce(string_agg(attrelid::regclass::text || '.' || attname, ' '), '') from pg_attribute
 where attrelid in ('"wallet".keys'::regclass, '"wallet".account_entries'::regclass) and not attisdropped
   and (attname like 'entry\_%' or attname = 'content' and attrelid = '"wallet".account_entries'::regclass)`).Scan(&left); err != nil || left != "" {
		t.Errorf("columns left over: %q %v", left, err)
	}
	if err := u.admin.QueryRow(ctx, `select pg_get_constraintdef(oid) from pg_constraint where conrelid = '"wallet".account_entries'::regclass and contype = 'p'`).Scan(&key); err != nil || key != "PRIMARY KEY (account, seq)" {
		t.Errorf("the primary key of account_entries: %q %v", key, err)
	}
	h := postgres.History(check.Check("wallet.book", []byte(walletV1)).Book)
	// the role granted the reads before the load reads with them after it
	got, _ := historyEntries(t, ctx, u.report, h.Statement, "t", "wallet", []string{"m"}, nil, nil, nil, false, 0, nil)
	if want := "give.do[g-1][g-1 m 100] 1 in wallet[m] 100/0/0 -> 100/0/0; " +
		"buy.hold[o-1][o-1 m 20] 1 out wallet[m] 0/0/20 -> 100/0/20; buy.hold[o-1][o-1 m 20] 2 out wallet[m] 0/0/1 -> 100/0/21; " +
		"buy.post[o-1][o-1 15] 1 out wallet[m] -15/0/-20 -> 85/0/1; buy.post[o-1][o-1 15] 2 out wallet[m] -1/0/-1 -> 84/0/0; " +
		"buy.hold[o-2][o-2 m 10] 1 out wallet[m] 0/0/10 -> 84/0/10; buy.hold[o-2][o-2 m 10] 2 out wallet[m] 0/0/1 -> 84/0/11; " +
		"buy.post[o-2][o-2] 1 out wallet[m] -10/0/-10 -> 74/0/1; buy.post[o-2][o-2] 2 out wallet[m] -1/0/-1 -> 73/0/0; " +
		"buy.hold[o-3][o-3 m 5] 1 out wallet[m] 0/0/5 -> 73/0/5; buy.hold[o-3][o-3 m 5] 2 out wallet[m] 0/0/1 -> 73/0/6; " +
		"buy.void[o-3][o-3] 1 out wallet[m] 0/0/-5 -> 73/0/1; buy.void[o-3][o-3] 2 out wallet[m] 0/0/-1 -> 73/0/0; " +
		"buy.hold[o-4][o-4 m 1] 1 out wallet[m] 0/0/1 -> 73/0/1; buy.hold[o-4][o-4 m 1] 2 out wallet[m] 0/0/1 -> 73/0/2; " +
		"buy.expire[o-4][o-4] 1 out wallet[m] 0/0/-1 -> 73/0/1; buy.expire[o-4][o-4] 2 out wallet[m] 0/0/-1 -> 73/0/0"; got != want {
		t.Errorf("m's statement after the load:\n%s\nwant\n%s", got, want)
	}
	if got, _ := historyEntries(t, ctx, u.report, h.Call, "t", "give", []string{"g-1"}); got != "give.do[g-1][g-1 m 100] 1 out bank[] -100/0/0 -> -; give.do[g-1][g-1 m 100] 1 in wallet[m] 100/0/0 -> 100/0/0" {
		t.Errorf("g-1's entries after the load: %s", got)
	}
	runSteps(t, ctx, u.app, "after", []resendStep{
		{`select * from "wallet".give_do('t', 'g-1', 'm', 100)`, nil, "done_before"},
		{`select * from "wallet".give_do('t', 'g-2', 'm', 7)`, nil, "done"},
	})
	var last string
	if err := u.admin.QueryRow(ctx, `select seq || ' ' || key[1] || ' ' || after_posted from "wallet".account_entries
 where account = `+walletID("t", "m")+` order by seq desc limit 1`).Scan(&last); err != nil || last != "18 g-2 80" {
		t.Errorf("m's last entry after a call: %q %v, want 18 g-2 80", last, err)
	}
	loaded := stored()
	u.load(t, ctx, today)
	if again := stored(); again != loaded {
		t.Errorf("a second load changed the entries")
	}
	if got := publicRights(t, ctx, u.admin); len(got) > 0 {
		t.Errorf("PUBLIC may execute %v", got)
	}
	langtest.EntriesBalance(t, u.admin, check.Check("wallet.book", []byte(walletV1)).Book)
}
