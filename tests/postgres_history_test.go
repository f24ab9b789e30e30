package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
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
	// each entry carries what its call was given
	var content string
	if err := u.report.QueryRow(ctx, `select string_agg(distinct op || ' ' || content, '; ') from "wallet".history_statement('t1', 'wallet', array['m'], p_limit => 0)`).Scan(&content); err != nil {
		t.Fatal(err)
	}
	if want := `do ["g-1", "m", 100]; hold ["o-1", "m", 20]; hold ["o-2", "m", 5]; post {20,1}`; content != want {
		t.Errorf("the calls of m's entries: %s, want %s", content, want)
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
		`select "wallet".chobo_record('t1', 'give', 'do', array['x'], '', array[` + m + `], array[1]::bigint[], array[0]::bigint[], array[0]::bigint[])`} {
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
		`insert into "wallet".keys (tenant, kind, op, key, content, definition, result, at,
                          entry_accounts, entry_posted, entry_held_in, entry_held_out)
select 't', 'give', 'do', array['g-' || c], json_build_array('g-' || c, 'x', 1)::text, 'bulk', 'done', at,
       array[from_id, to_id], array[-1, 1]::bigint[], array[0, 0]::bigint[], array[0, 0]::bigint[]
  from moves`,
		`insert into "wallet".account_entries
  (tenant, account, seq, kind, op, key, content, n, posted, held_in, held_out, after_posted, after_held_in, after_held_out, at)
select 't', x.account, row_number() over w, 'give', 'do', array['g-' || x.c], json_build_array('g-' || x.c, 'x', 1)::text, x.n, x.posted, 0, 0,
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
