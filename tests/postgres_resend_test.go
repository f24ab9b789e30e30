package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// A call sent again by a client whose connection was lost while the call
// was out: the client sends the same call id each time, and the SQL tells
// its own first sending from another caller's earlier call by it.

// callID is a call id of the tests: a uuid numbered n.
func callID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// walletBalance reads the wallet of member as the application.
func walletBalance(t *testing.T, ctx context.Context, db pgdeploy.DB, member string) string {
	t.Helper()
	var posted, heldIn, heldOut int64
	if err := db.QueryRow(ctx, `select * from "wallet".balance_wallet('', $1)`, member).Scan(&posted, &heldIn, &heldOut); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("posted %d, held out %d", posted, heldOut)
}

type resendStep struct {
	stmt string
	args []any
	want string
}

func runSteps(t *testing.T, ctx context.Context, db pgdeploy.DB, what string, steps []resendStep) {
	t.Helper()
	for _, s := range steps {
		if got := call(ctx, db, s.stmt, s.args...); got != s.want {
			t.Errorf("%s: %s %v: %s, want %s", what, s.stmt, s.args, got, s.want)
		}
	}
}

// TestResendAnswersTheFirstAnswer: a call sent again with its call id
// answers what its first sending answered (done; refused with the bound's
// reason), for a do, a hold, a post and a void, and moves nothing twice.
// Another call id, a null one, or none at all answers as a second call
// with the key always has (done_before, already_refused); the same call
// id with other values is another call (key_conflict).
func TestResendAnswersTheFirstAnswer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	const (
		give  = `select * from "wallet".give_do('', 'g-1', 'm', 100, $1)`
		short = `select * from "wallet".buy_hold('', 'o-short', 'poor', 50, $1)`
		hold1 = `select * from "wallet".buy_hold('', 'o-1', 'm', 20, $1)`
		post1 = `select * from "wallet".buy_post('', 'o-1', null, $1)`
		hold2 = `select * from "wallet".buy_hold('', 'o-2', 'm', 30, $1)`
		void2 = `select * from "wallet".buy_void('', 'o-2', $1)`
	)
	id := func(n int) []any { return []any{callID(n)} }
	null := []any{nil}
	runSteps(t, ctx, u.app, "as the application", []resendStep{
		{give, id(1), "done"},
		{give, id(1), "done"},
		{give, id(2), "done_before"},
		{give, null, "done_before"},
		{`select * from "wallet".give_do('', 'g-1', 'm', 100)`, nil, "done_before"},
		{`select * from "wallet".give_do('', 'g-1', 'm', 7, $1)`, id(1), "refused: key_conflict"},

		{short, id(3), "refused: wallet_short"},
		{short, id(3), "refused: wallet_short"},
		{short, id(4), "refused: already_refused"},
		{short, null, "refused: already_refused"},

		{hold1, id(5), "done"},
		{hold1, id(5), "done"},
		{hold1, id(6), "done_before"},
		{post1, id(7), "done"},
		{post1, id(7), "done"},
		{post1, id(8), "done_before"},
		{`select * from "wallet".buy_post('', 'o-1')`, nil, "done_before"},

		{hold2, id(9), "done"},
		{void2, id(10), "done"},
		{void2, id(10), "done"},
		{void2, id(11), "done_before"},
		{`select * from "wallet".buy_void('', 'o-2')`, nil, "done_before"},
	})
	// give 100; o-1 held 20 + 1 and posted them; o-2 held 30 + 1, voided
	if got := walletBalance(t, ctx, u.app, "m"); got != "posted 79, held out 0" {
		t.Errorf("m after the calls sent again: %s, want posted 79, held out 0", got)
	}
	var rows string
	if err := u.admin.QueryRow(ctx, `select string_agg(op || ' ' || key[1] || ' ' || result || ' ' || coalesce(call_id::text, '-'), '; ' order by at, op)
  from "wallet".keys`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"do g-1 done " + callID(1), "hold o-short refused " + callID(3), "hold o-1 done " + callID(5),
		"post o-1 done " + callID(7), "hold o-2 done " + callID(9), "void o-2 done " + callID(10),
	}, "; ")
	if rows != want {
		t.Errorf("the key rows: %s\nwant %s", rows, want)
	}
}

// TestExpireResendAnswersTheTotal: expire() sent again with its call id
// answers what its first sending gave back and what it gives back now,
// gives back at most p_max in all and no hold twice; without a call id
// it answers what it gives back now, as ever. A second sending that comes
// while the first is still running waits for it, and counts what it gave
// back.
func TestExpireResendAnswersTheTotal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	if got := call(ctx, u.app, `select * from "wallet".give_do('', 'g-1', 'm', 100)`); got != "done" {
		t.Fatalf("give: %s", got)
	}
	hold := func(orders ...string) {
		t.Helper()
		for _, o := range orders {
			if got := call(ctx, u.app, `select * from "wallet".buy_hold('', $1, 'm', 1)`, o); got != "done" {
				t.Fatalf("hold %s: %s", o, got)
			}
		}
		if _, err := u.admin.Exec(ctx, `update "wallet".keys set deadline = clock_timestamp() - interval '1 second'
 where op = 'hold' and key[1] = any($1)`, orders); err != nil {
			t.Fatal(err)
		}
	}
	expire := func(max int, id any) int {
		t.Helper()
		var n int
		if err := u.app.QueryRow(ctx, `select "wallet".expire($1, $2)`, max, id).Scan(&n); err != nil {
			t.Fatalf("expire(%d, %v): %v", max, id, err)
		}
		return n
	}
	hold("o-1", "o-2", "o-3", "o-4", "o-5") // each holds 2
	for _, c := range []struct {
		max  int
		id   any
		want int
		held string
	}{
		{3, callID(1), 3, "posted 100, held out 4"},
		{3, callID(1), 3, "posted 100, held out 4"}, // p_max reached: nothing more
		{10, callID(1), 5, "posted 100, held out 0"},
		{10, callID(1), 5, "posted 100, held out 0"},
		{10, callID(2), 0, "posted 100, held out 0"},
		{10, nil, 0, "posted 100, held out 0"},
	} {
		if got := expire(c.max, c.id); got != c.want {
			t.Errorf("expire(%d, %v) = %d, want %d", c.max, c.id, got, c.want)
		}
		if got := walletBalance(t, ctx, u.app, "m"); got != c.held {
			t.Errorf("after expire(%d, %v): %s, want %s", c.max, c.id, got, c.held)
		}
	}
	// Without a call id, as before: each call counts only its own.
	hold("o-6", "o-7")
	if got := expire(1000, nil); got != 2 {
		t.Errorf("expire(1000) = %d, want 2", got)
	}
	if got := expire(1000, nil); got != 0 {
		t.Errorf("expire(1000) again = %d, want 0", got)
	}

	// The first sending still open when the second comes.
	hold("o-8")
	first, err := u.app.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(context.Background())
	var n int
	if err := first.QueryRow(ctx, `select "wallet".expire(10, $1)`, callID(3)).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the first sending: %d, %v", n, err)
	}
	second, err := u.app.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	var pid int
	if err := second.QueryRow(ctx, `select pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	answer := make(chan string, 1)
	go func() {
		var m int
		if err := second.QueryRow(ctx, `select "wallet".expire(10, $1)`, callID(3)).Scan(&m); err != nil {
			answer <- "error " + err.Error()
			return
		}
		answer <- fmt.Sprint(m)
	}()
	for waiting := false; !waiting; {
		select {
		case got := <-answer:
			t.Fatalf("the second sending answered %s while the first was still open", got)
		case <-ctx.Done():
			t.Fatal("the second sending never waited for the first")
		case <-time.After(20 * time.Millisecond):
		}
		if err := u.admin.QueryRow(ctx, `select coalesce(bool_or(wait_event = 'advisory'), false) from pg_stat_activity where pid = $1`, pid).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := <-answer; got != "1" {
		t.Errorf("the second sending, after the first committed: %s, want 1", got)
	}
	if got := walletBalance(t, ctx, u.app, "m"); got != "posted 100, held out 0" {
		t.Errorf("at the end: %s", got)
	}
}

// TestUpgradeFromBeforeCallIDs loads, over a schema the chobo before call
// ids wrote and used (tests/testdata/wallet-before-call-ids.sql), the SQL
// of today, and runs no grant after it: every row stays as it was, the
// application's role still calls every operation (each of which changed
// its arguments) with and without a call id, and no role gets a right it
// did not have.
func TestUpgradeFromBeforeCallIDs(t *testing.T) {
	earlier, err := os.ReadFile(filepath.Join(casesDir, "wallet-before-call-ids.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u := startUpgradeServerWith(t, ctx, string(earlier))
	runSteps(t, ctx, u.app, "before", []resendStep{
		{`select * from "wallet".give_do('', 'g-1', 'm', 100)`, nil, "done"},
		{`select * from "wallet".buy_hold('', 'o-1', 'm', 20)`, nil, "done"},
		{`select * from "wallet".buy_hold('', 'o-short', 'poor', 5)`, nil, "refused: wallet_short"},
		{`select * from "wallet".buy_post('', 'o-1')`, nil, "done"},
		{`select * from "wallet".buy_hold('', 'o-2', 'm', 10)`, nil, "done"},
		{`select * from "wallet".buy_hold('', 'o-3', 'm', 5)`, nil, "done"},
		{`select * from "wallet".buy_hold('', 'o-4', 'm', 1)`, nil, "done"},
	})
	if _, err := u.admin.Exec(ctx, `update "wallet".keys set deadline = clock_timestamp() - interval '1 second' where op = 'hold' and key = array['o-3']`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := u.app.QueryRow(ctx, `select "wallet".expire(1000)`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("expire() before: %d, %v", n, err)
	}
	// everything stored, as the owner reads it (keys without the columns
	// today adds, and without the entries they kept before, which move to
	// account_entries, read below)
	state := func() string {
		t.Helper()
		var s string
		if err := u.owner.QueryRow(ctx, `select (select jsonb_agg(to_jsonb(k) - array['call_id', 'post_args', 'entry_accounts', 'entry_posted', 'entry_held_in', 'entry_held_out']
                         order by k.tenant, k.kind, k.op, k.key) from "wallet".keys k)::text
  || (select jsonb_agg(to_jsonb(a) - 'entry_seq' order by a.tenant, a.id) from "wallet".accounts a)::text
  || (select coalesce(jsonb_agg(to_jsonb(s) order by s.tenant, s.id, s.shard), '[]') from "wallet".account_shards s)::text`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	// A session of a client of before keeps a statement prepared on the
	// functions of before, as pgx does, across the load.
	held, err := u.app.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	const giveStmt = `select result, reason from "wallet"."give_do"($1, $2, $3, $4)`
	if _, err := held.Conn().Prepare(ctx, "give", giveStmt); err != nil {
		t.Fatal(err)
	}
	if got := call(ctx, held, "give", "", "g-0", "m", 1); got != "done" {
		t.Fatalf("the prepared give before: %s", got)
	}

	before, balance := state(), walletBalance(t, ctx, u.app, "m")
	if balance != "posted 80, held out 13" {
		t.Fatalf("before the upgrade: %s", balance)
	}

	today := walletSQL(t, walletV1)
	if today == string(earlier) || !strings.Contains(today, "p_call_id$") {
		t.Fatal("today's SQL takes no call id")
	}
	u.load(t, ctx, today)
	// the function it was prepared on is gone; PostgreSQL prepares it
	// again, on the function of today, its call id left to its default
	if got := call(ctx, held, "give", "", "g-0", "m", 1); got != "done_before" {
		t.Errorf("the statement prepared before the load, after it: %s, want done_before", got)
	}
	if after := state(); after != before {
		t.Fatalf("the rows changed in the upgrade:\nbefore %s\nafter  %s", before, after)
	}
	// The entries of before are in the history, each account's numbered
	// from 1 with the balance each left; m's last one left what m holds.
	wallet := check.Check("wallet.book", []byte(walletV1)).Book
	langtest.EntriesBalance(t, u.admin, wallet)
	m := `"wallet".chobo_id(array['account', 'wallet', '', 'wallet', 'm'])`
	var history string
	if err := u.admin.QueryRow(ctx, `select string_agg(seq || ' ' || op || ' ' || key[1] || ' ' || posted || ' ' || after_posted || ' ' || after_held_out, '; ' order by seq)
  from "wallet".account_entries where tenant = '' and account = `+m).Scan(&history); err != nil {
		t.Fatal(err)
	}
	const wantHistory = "1 do g-1 100 100 0; 2 hold o-1 0 100 20; 3 hold o-1 0 100 21; 4 post o-1 -20 80 1; 5 post o-1 -1 79 0; " +
		"6 hold o-2 0 79 10; 7 hold o-2 0 79 11; 8 hold o-3 0 79 16; 9 hold o-3 0 79 17; 10 hold o-4 0 79 18; 11 hold o-4 0 79 19; " +
		"12 expire o-3 0 79 14; 13 expire o-3 0 79 13; 14 do g-0 1 80 13"
	if history != wantHistory {
		t.Errorf("m's statement after the upgrade:\n%s\nwant\n%s", history, wantHistory)
	}
	// the key rows keep no entries now, and a second load changes nothing
	var arrays int
	if err := u.admin.QueryRow(ctx, `select count(*) from pg_attribute
 where attrelid = '"wallet".keys'::regclass and attname like 'entry\_%' and not attisdropped`).Scan(&arrays); err != nil || arrays != 0 {
		t.Errorf("the key rows keep %d entry columns (%v), want none", arrays, err)
	}
	entriesNow := func() string {
		t.Helper()
		var s string
		if err := u.admin.QueryRow(ctx, `select jsonb_agg(to_jsonb(e) order by e.account, e.seq)::text from "wallet".account_entries e`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	loaded := entriesNow()
	u.load(t, ctx, today)
	if again := entriesNow(); again != loaded {
		t.Errorf("a second load changed the entries:\n%s\n%s", loaded, again)
	}
	// a post of before reads as what it was given: the key alone, the
	// full hold
	var given string
	if err := u.admin.QueryRow(ctx, `select string_agg(distinct op || ' ' || args::text, '; ') from "wallet".history_call('', 'buy', array['o-1'])`).Scan(&given); err != nil ||
		given != `hold {o-1,m,20}; post {o-1}` {
		t.Errorf("o-1's calls after the upgrade: %q %v", given, err)
	}
	// each function once: the overloads of before are gone
	var overloads string
	if err := u.admin.QueryRow(ctx, `select coalesce(string_agg(proname, ' '), '') from (select proname from pg_proc
 where pronamespace = '"wallet"'::regnamespace group by proname having count(*) > 1) o`).Scan(&overloads); err != nil || overloads != "" {
		t.Errorf("functions with two overloads: %q %v", overloads, err)
	}
	if got := publicRights(t, ctx, u.admin); len(got) > 0 {
		t.Errorf("PUBLIC may execute %v", got)
	}
	id := func(n int) []any { return []any{callID(n)} }
	// No grant since the load.
	runSteps(t, ctx, u.app, "after, as the application", []resendStep{
		{`select * from "wallet".give_do('', 'g-1', 'm', 100)`, nil, "done_before"},
		{`select * from "wallet".give_do('', 'g-1', 'm', 100, $1)`, id(1), "done_before"},
		{`select * from "wallet".buy_hold('', 'o-short', 'poor', 5, $1)`, id(1), "refused: already_refused"},
		{`select * from "wallet".buy_post('', 'o-1', null, $1)`, id(1), "done_before"},
		{`select * from "wallet".give_do('', 'g-2', 'm', 50, $1)`, id(2), "done"},
		{`select * from "wallet".give_do('', 'g-2', 'm', 50, $1)`, id(2), "done"},
		{`select * from "wallet".buy_void('', 'o-4', $1)`, id(3), "done"},
		{`select * from "wallet".buy_void('', 'o-4', $1)`, id(3), "done"},
		{`select * from "wallet".buy_hold('', 'o-5', 'm', 2, $1)`, id(4), "done"},
		{`select "wallet".buy_status('', 'o-5'), null::text`, nil, "held"},
	})
	if _, err := u.admin.Exec(ctx, `update "wallet".keys set deadline = clock_timestamp() - interval '1 second' where op = 'hold' and key = array['o-2']`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := u.app.QueryRow(ctx, `select "wallet".expire(1000, $1)`, callID(5)).Scan(&n); err != nil || n != 1 {
			t.Errorf("expire(1000, id) after: %d, %v; want 1", n, err)
		}
	}
	// give 50 more; o-4 voided, o-2 given back; o-5 holds 2 + 1
	if got := walletBalance(t, ctx, u.app, "m"); got != "posted 130, held out 3" {
		t.Errorf("after the upgrade: %s, want posted 130, held out 3", got)
	}
	// and the entries of today follow them, numbered on from 14
	langtest.EntriesBalance(t, u.admin, wallet)
	var last int64
	if err := u.admin.QueryRow(ctx, `select max(seq) from "wallet".account_entries where tenant = '' and account = `+m).Scan(&last); err != nil || last <= 14 {
		t.Errorf("m's last entry after calls of today: %d %v", last, err)
	}
	// The reporting role may still call nothing.
	if got := call(ctx, u.report, `select * from "wallet".give_do('', 'g-3', 'm', 1, $1)`, callID(6)); got != "error 42501" {
		t.Errorf("give as the reporting role: %s, want error 42501", got)
	}
	// Loaded once more, nothing changes: the functions are replaced in
	// place and keep their grants.
	u.load(t, ctx, today)
	if got := call(ctx, u.app, `select * from "wallet".give_do('', 'g-2', 'm', 50, $1)`, callID(2)); got != "done" {
		t.Errorf("after a second load: %s", got)
	}
	var grantees string
	if err := u.admin.QueryRow(ctx, `select coalesce(string_agg(distinct a.grantee::regrole::text, ' '), '')
  from pg_proc p, aclexplode(p.proacl) a
 where p.pronamespace = '"wallet"'::regnamespace and a.grantee <> p.proowner`).Scan(&grantees); err != nil || grantees != pgdeploy.App {
		t.Errorf("roles that may execute a function of the book: %q %v, want %s alone", grantees, err, pgdeploy.App)
	}
}
