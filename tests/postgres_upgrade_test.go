package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Upgrades of a book's SQL as an operator runs them, on a real server:
// an owner role loads each version, an application role calls it (USAGE
// and EXECUTE), and a reporting role reads it (USAGE and SELECT on the
// views, as docs/targets.md suggests).

// The wallet, as deployed: members' wallets, filled from the bank; a
// purchase holds what it takes from a wallet until it ships.
const walletV1 = `book wallet v1
unit pts
account wallet(member: string) : pts
  at least 0 refused as wallet_short
account bank : pts outside
account shops : pts outside
transfer give(ref: string, member: string, amount: pts)
  key ref
  move amount from bank to wallet(member)
transfer buy(order: string, member: string, amount: pts)
  key order
  pending expires after 10 minutes
  move amount from wallet(member) to shops
  move 1 from wallet(member) to bank
`

// Version 2 adds a transfer (bonus), drops one (give: W107), and changes
// buy (E051): its fee is a parameter now, so its post takes one more
// amount.
const walletV2 = `book wallet v2
unit pts
account wallet(member: string) : pts
  at least 0 refused as wallet_short
account bank : pts outside
account shops : pts outside
transfer bonus(ref: string, member: string, amount: pts)
  key ref
  move amount from bank to wallet(member)
transfer buy(order: string, member: string, amount: pts, fee: pts)
  key order
  pending expires after 10 minutes
  move amount from wallet(member) to shops
  move fee from wallet(member) to bank
`

const reporter = "chobo_report"

// walletSQL is the SQL of a version of the wallet.
func walletSQL(t *testing.T, src string) string {
	t.Helper()
	res := check.Check("wallet.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("the wallet does not check: %v", res.Diags)
	}
	files, ds := postgres.Build(res.Book, gen.NewSource("wallet.book", []byte(src)), gen.Options{})
	if len(ds) > 0 || len(files) != 1 {
		t.Fatalf("building the wallet: %v", ds)
	}
	return string(files[0].Data)
}

// upgradeServer is a cluster with the three roles and v1 loaded.
type upgradeServer struct {
	srv                *pgtest.Server
	admin, app, report *pgxpool.Pool
	owner              *pgx.Conn
}

func startUpgradeServer(t *testing.T, ctx context.Context) *upgradeServer {
	t.Helper()
	return startUpgradeServerWith(t, ctx, walletSQL(t, walletV1))
}

// startUpgradeServerWith is startUpgradeServer with first the SQL given
// (another chobo's, say) loaded and granted.
func startUpgradeServerWith(t *testing.T, ctx context.Context, first string) *upgradeServer {
	t.Helper()
	srv := pgtest.Start(t)
	u := &upgradeServer{srv: srv, admin: srv.Pool(t, 4)}
	if err := pgdeploy.CreateRoles(ctx, u.admin, pgtest.DefaultDB); err != nil {
		t.Fatal(err)
	}
	if _, err := u.admin.Exec(ctx, "create role "+reporter+" login"); err != nil {
		t.Fatal(err)
	}
	owner, err := pgx.Connect(ctx, srv.ConnStringAs(pgdeploy.Owner, pgtest.DefaultDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.Close(context.Background()) })
	u.owner = owner
	u.load(t, ctx, first)
	u.grant(t, ctx)
	u.app = srv.PoolAs(t, pgdeploy.App, 4)
	u.report = srv.PoolAs(t, reporter, 4)
	return u
}

// load runs a version's SQL as the owner, the whole file at once.
func (u *upgradeServer) load(t *testing.T, ctx context.Context, sql string) {
	t.Helper()
	if _, err := u.owner.Exec(ctx, sql); err != nil {
		t.Fatalf("loading as the owner: %v", err)
	}
}

// grant gives the application its two grants and the reporter its reads.
func (u *upgradeServer) grant(t *testing.T, ctx context.Context) {
	t.Helper()
	for _, stmt := range []string{
		pgdeploy.Grants("wallet", pgdeploy.App),
		`grant usage on schema "wallet" to ` + reporter,
		`grant select on "wallet".holds, "wallet".entries to ` + reporter,
	} {
		if _, err := u.owner.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// publicRights lists the functions of the schema PUBLIC may execute
// (a function with no ACL at all has PostgreSQL's default, which lets it).
func publicRights(t *testing.T, ctx context.Context, db pgdeploy.DB) []string {
	t.Helper()
	rows, err := db.Query(ctx, `
select p.oid::regprocedure::text from pg_proc p
 where p.pronamespace = '"wallet"'::regnamespace
   and (p.proacl is null or exists (select 1 from aclexplode(p.proacl) a where a.grantee = 0))
 order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// functions lists the functions of the schema, by their signatures.
func functions(t *testing.T, ctx context.Context, db pgdeploy.DB) []string {
	t.Helper()
	rows, err := db.Query(ctx, `select p.oid::regprocedure::text from pg_proc p
 where p.pronamespace = '"wallet"'::regnamespace order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// call makes one call and returns its answer as "done", "refused: …", or
// the error's SQLSTATE.
func call(ctx context.Context, db pgdeploy.DB, stmt string, args ...any) string {
	var result string
	var reason *string
	err := db.QueryRow(ctx, stmt, args...).Scan(&result, &reason)
	switch {
	case err != nil:
		return "error " + sqlState(err)
	case reason != nil:
		return result + ": " + *reason
	}
	return result
}

// TestUpgradeGivesNoRightBeforeCommit loads v2, which adds the transfer
// bonus, while the reporting role calls bonus_do in a loop: not one of
// its calls may get through, before, during or after the load. The load
// runs as an operator runs it, `psql -v ON_ERROR_STOP=1 -f`, one
// statement at a time (without psql, the same statements are sent one by
// one). Afterwards no function gives PUBLIC a right, the application
// still calls what it called, and calls bonus once granted again.
func TestUpgradeGivesNoRightBeforeCommit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	if got := call(ctx, u.app, `select * from "wallet".give_do('', 'g-1', 'm', 100)`); got != "done" {
		t.Fatalf("v1 give: %s", got)
	}
	v2 := walletSQL(t, walletV2)

	var attempts, through atomic.Int64
	var seen sync.Map // SQLSTATEs the reporter got
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				got := call(ctx, u.report, `select * from "wallet".bonus_do('', $1, 'm', 1000)`, fmt.Sprintf("r-%d-%d", w, i))
				attempts.Add(1)
				seen.Store(got, true)
				if !strings.HasPrefix(got, "error ") {
					through.Add(1)
				}
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	if psql := u.srv.Psql(); psql != "" {
		path := filepath.Join(t.TempDir(), "wallet.sql")
		if err := os.WriteFile(path, []byte(v2), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(ctx, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1",
			"-d", u.srv.ConnStringAs(pgdeploy.Owner, pgtest.DefaultDB), "-f", path).CombinedOutput()
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
		t.Logf("v2 loaded with %s", psql)
	} else {
		t.Log("SKIP: psql: no psql beside the server or on PATH; the statements are sent one by one instead")
		conn, err := pgx.Connect(ctx, u.srv.ConnStringAs(pgdeploy.Owner, pgtest.DefaultDB))
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range pgdeploy.Statements(v2) {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		conn.Close(ctx)
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	var states []string
	seen.Range(func(k, _ any) bool { states = append(states, k.(string)); return true })
	t.Logf("the reporting role called bonus_do %d times while v2 loaded: %s", attempts.Load(), strings.Join(states, ", "))
	if n := through.Load(); n > 0 {
		t.Fatalf("%d calls of bonus_do by the reporting role got through", n)
	}
	if _, ok := seen.Load("error 42501"); !ok {
		t.Error("the reporting role never met bonus_do refused for want of a right: did v2 load?")
	}
	if got := publicRights(t, ctx, u.admin); len(got) > 0 {
		t.Errorf("PUBLIC may execute %v", got)
	}
	if got := call(ctx, u.app, `select * from "wallet".bonus_do('', 'b-1', 'm', 5)`); got != "error 42501" {
		t.Errorf("bonus as the application before it is granted again: %s, want error 42501", got)
	}
	u.grant(t, ctx)
	if got := call(ctx, u.app, `select * from "wallet".bonus_do('', 'b-1', 'm', 5)`); got != "done" {
		t.Errorf("bonus as the application: %s", got)
	}
}

// TestUpgradeStoppedPartWay cuts the load of v2 after each of its
// statements and closes the session there, as a load killed part-way
// ends: every time, v1 is whole (its functions there and answering, none
// of v2's), and PUBLIC may execute nothing. Then a psql killed while it
// loads leaves either v1 or v2, whole.
func TestUpgradeStoppedPartWay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	v1 := functions(t, ctx, u.admin)
	stmts := pgdeploy.Statements(walletSQL(t, walletV2))
	if len(stmts) < 10 {
		t.Fatalf("v2 is %d statements", len(stmts))
	}
	for k := 1; k < len(stmts); k++ {
		conn, err := pgx.Connect(ctx, u.srv.ConnStringAs(pgdeploy.Owner, pgtest.DefaultDB))
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range stmts[:k] {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatalf("statement %d: %v", k, err)
			}
		}
		conn.Close(ctx)
		if got := functions(t, ctx, u.admin); strings.Join(got, " ") != strings.Join(v1, " ") {
			t.Fatalf("cut after statement %d of %d: the functions are %v, want v1's %v", k, len(stmts), got, v1)
		}
		if got := publicRights(t, ctx, u.admin); len(got) > 0 {
			t.Fatalf("cut after statement %d: PUBLIC may execute %v", k, got)
		}
		if got := call(ctx, u.app, `select * from "wallet".give_do('', $1, 'm', 1)`, fmt.Sprintf("cut-%d", k)); got != "done" {
			t.Fatalf("cut after statement %d: v1's give answers %s", k, got)
		}
	}
	t.Logf("v2 cut after each of its %d statements: v1 stayed whole every time", len(stmts)-1)

	psql := u.srv.Psql()
	if psql == "" {
		t.Log("SKIP: a psql killed part-way: no psql beside the server or on PATH")
		return
	}
	path := filepath.Join(t.TempDir(), "wallet.sql")
	if err := os.WriteFile(path, []byte(walletSQL(t, walletV2)), 0o644); err != nil {
		t.Fatal(err)
	}
	v2 := ""
	for _, wait := range []time.Duration{2 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond} {
		cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", u.srv.ConnStringAs(pgdeploy.Owner, pgtest.DefaultDB), "-f", path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(wait)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		// The server ends the killed session's transaction once it sees
		// the connection gone; until then the catalog is as before.
		var got []string
		for deadline := time.Now().Add(10 * time.Second); ; {
			var open int
			if err := u.admin.QueryRow(ctx, `select count(*) from pg_stat_activity where usename = $1 and state <> 'idle'`, pgdeploy.Owner).Scan(&open); err != nil {
				t.Fatal(err)
			}
			got = functions(t, ctx, u.admin)
			if open == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		whole := strings.Join(got, " ")
		switch {
		case whole == strings.Join(v1, " "):
		case strings.Contains(whole, "bonus_do") && !strings.Contains(whole, "give_do"):
			v2 = whole
		default:
			t.Fatalf("psql killed after %v left %v: neither v1 nor v2", wait, got)
		}
		if got := publicRights(t, ctx, u.admin); len(got) > 0 {
			t.Fatalf("psql killed after %v: PUBLIC may execute %v", wait, got)
		}
		if v2 != "" {
			break
		}
	}
	t.Logf("a psql killed part-way left v1 or v2 whole (v2 reached: %v)", v2 != "")
}

// TestUpgradeClosesWhatIsGone loads v2 over v1 with holds of v1 in
// place: give, which v2 removes, is no longer callable; only v2's
// overloads of buy remain, so a post with its amounts left out is not
// ambiguous (v1's took one amount, v2's two); and a hold made under v1, whose definition v2 changed, can
// be neither posted nor voided (key_conflict, nothing moves) but is given
// back in full by expire() at its deadline. A hold made under v2 is
// posted as ever.
func TestUpgradeClosesWhatIsGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	balance := func() string {
		t.Helper()
		var posted, heldIn, heldOut int64
		if err := u.app.QueryRow(ctx, `select * from "wallet".balance_wallet('', 'm')`).Scan(&posted, &heldIn, &heldOut); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("posted %d, held out %d", posted, heldOut)
	}
	for _, c := range []struct{ stmt, want string }{
		{`select * from "wallet".give_do('', 'g-1', 'm', 100)`, "done"},
		{`select * from "wallet".buy_hold('', 'o-1', 'm', 20)`, "done"},
		{`select * from "wallet".buy_hold('', 'o-2', 'm', 30)`, "done"},
	} {
		if got := call(ctx, u.app, c.stmt); got != c.want {
			t.Fatalf("%s: %s", c.stmt, got)
		}
	}
	if got := balance(); got != "posted 100, held out 52" {
		t.Fatalf("before the upgrade: %s", got)
	}
	u.load(t, ctx, walletSQL(t, walletV2))
	u.grant(t, ctx)
	for _, c := range []struct{ stmt, want string }{
		// give is gone
		{`select * from "wallet".give_do('', 'g-2', 'm', 100)`, "error 42883"},
		// the old holds: neither posted nor voided
		{`select * from "wallet".buy_void('', 'o-1')`, "refused: key_conflict"},
		{`select * from "wallet".buy_post('', 'o-2')`, "refused: key_conflict"},
		{`select * from "wallet".buy_post('', 'o-2', 5, 1)`, "refused: key_conflict"},
		// a hold of v2
		{`select * from "wallet".buy_hold('', 'o-3', 'm', 10, 1)`, "done"},
		{`select * from "wallet".buy_post('', 'o-3')`, "done"},
	} {
		if got := call(ctx, u.app, c.stmt); got != c.want {
			t.Errorf("after the upgrade, %s: %s, want %s", c.stmt, got, c.want)
		}
	}
	var status string
	if err := u.app.QueryRow(ctx, `select "wallet".buy_status('', 'o-1')`).Scan(&status); err != nil || status != "held" {
		t.Errorf("the status of an old hold: %q, %v", status, err)
	}
	if got := balance(); got != "posted 89, held out 52" {
		t.Errorf("after the upgrade: %s, want the old holds still held", got)
	}
	var buys int
	if err := u.admin.QueryRow(ctx, `select count(*) from pg_proc where pronamespace = '"wallet"'::regnamespace and proname like 'buy\_%'`).Scan(&buys); err != nil || buys != 4 {
		t.Errorf("%d functions of buy (%v), want hold, post, void and status", buys, err)
	}
	// At their deadline the old holds are given back whole.
	if _, err := u.admin.Exec(ctx, `update "wallet".keys set deadline = clock_timestamp() - interval '1 second' where op = 'hold' and key[1] in ('o-1', 'o-2')`); err != nil {
		t.Fatal(err)
	}
	var expired int
	if err := u.app.QueryRow(ctx, `select "wallet".expire(1000)`).Scan(&expired); err != nil || expired != 2 {
		t.Fatalf("expire(): %d, %v", expired, err)
	}
	if got := balance(); got != "posted 89, held out 0" {
		t.Errorf("after expire(): %s", got)
	}
}

// chobosNames is a book whose accounts, transfers and parameters take the
// names chobo's own SQL uses: its tables and views (accounts, keys,
// holds, entries, account_shards), types (result, balance), functions
// (chobo_id, expire, a transfer status with its own status), columns and
// parameters (tenant, kind, op, id, state, deadline, posted …), and the
// parameters of its helpers (ids, d, write).
const chobosNames = `book chobo_names v1
unit pcs
account accounts(tenant: string, kind: string) : pcs
  at least 0 refused as short
account keys : pcs outside
account holds(id: string) : pcs
  at most 1000 refused as full
account entries(op: string) : pcs
  at least -10 refused as low
account result : pcs
  at least 0 refused as result_short
account balance : pcs outside
account account_shards : pcs outside
account chobo_id : pcs
  at most 100000 refused as id_full
transfer chobo(tenant: string, kind: string, op: string, id: string, max: string, content: string, definition: string, result: string, reason: string, state: string, deadline: string, posted: pcs, held_in: pcs, held_out: pcs, amounts: pcs)
  key tenant, kind, id, op
  move posted from keys to accounts(tenant, kind)
  move held_in from keys to holds(id)
  move held_out from entries(op) to keys
  move amounts from accounts(tenant, kind) to result
transfer status(tenant: string, lower_bound: string, upper_bound: pcs)
  key tenant, lower_bound
  pending expires after 1 hours
  move upper_bound from accounts(tenant, tenant) to balance
transfer expire(args: string, from_ids: string, posted_amounts: pcs)
  key args, from_ids
  move posted_amounts from result to chobo_id
transfer keys_shard(write: string, ids: string, d: pcs)
  key write
  move d from holds(ids) to account_shards
`

// TestBookTakesChobosNames: a book whose names are those chobo's own SQL
// uses checks without an error for PostgreSQL, loads (as the owner, with
// lookalikes of the built-ins on the path), and answers every operation,
// status, balance and expire() as the application's role.
func TestBookTakesChobosNames(t *testing.T) {
	res := check.Check("chobo_names.book", []byte(chobosNames))
	if res.Book == nil {
		t.Fatalf("the book does not check: %v", res.Diags)
	}
	if ds := postgres.Check(res.Book); len(ds) > 0 {
		t.Fatalf("refused for PostgreSQL: %v", ds)
	}
	files, ds := postgres.Build(res.Book, gen.NewSource("chobo_names.book", []byte(chobosNames)), gen.Options{})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	d := deploy(t, []pgdeploy.Book{{Name: res.Book.Name, SQL: string(files[0].Data)}}, 2)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	calls := callEveryFunction(t, ctx, d.app, m, "names", res.Book.Name)
	t.Logf("%d calls answered", calls)
}

// TestTextLimitsAndNulls: the SQL refuses what the clients refuse before
// sending (a tenant past book.MaxTenant bytes, text values past
// book.MaxTexts), and every function a caller calls, status and balance
// included, fails on a NULL tenant or key as the operations do.
func TestTextLimitsAndNulls(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	long := strings.Repeat("t", book.MaxTenant+1)
	key := strings.Repeat("k", book.MaxTexts-2*book.TextOverhead) // with the member's "m", one byte past
	for _, c := range []struct {
		stmt string
		args []any
		want string
	}{
		{`select * from "wallet".give_do($1, 'g-1', 'm', 1)`, []any{long}, "error 22001"},
		{`select * from "wallet".give_do($1, 'g-1', 'm', 1)`, []any{long[1:]}, "done"},
		{`select * from "wallet".give_do('', $1, 'm', 1)`, []any{key}, "error 22001"},
		{`select * from "wallet".give_do('', $1, '', 1)`, []any{key}, "done"},
		{`select * from "wallet".buy_hold('', $1, 'm', 1)`, []any{key}, "error 22001"},
		{`select * from "wallet".buy_void('', $1)`, []any{strings.Repeat("k", book.MaxTexts-book.TextOverhead+1)}, "error 22001"},
		{`select * from "wallet".buy_void('', $1)`, []any{strings.Repeat("k", book.MaxTexts-book.TextOverhead)}, "refused: no_such_hold"},
	} {
		if got := call(ctx, u.app, c.stmt, c.args...); got != c.want {
			t.Errorf("%s with a value of %d bytes: %s, want %s", c.stmt, len(c.args[0].(string)), got, c.want)
		}
	}
	for _, c := range []struct {
		stmt string
		args []any
		want string
	}{
		{`select "wallet".buy_status($1, 'o-1')::text`, []any{nil}, "22004"},
		{`select "wallet".buy_status('', $1)::text`, []any{nil}, "22004"},
		{`select "wallet".buy_status($1, 'o-1')::text`, []any{long}, "22001"},
		{`select "wallet".balance_wallet($1, 'm')::text`, []any{nil}, "22004"},
		{`select "wallet".balance_wallet('', $1)::text`, []any{nil}, "22004"},
		{`select "wallet".balance_wallet($1, 'm')::text`, []any{long}, "22001"},
		{`select "wallet".balance_wallet('', $1)::text`, []any{strings.Repeat("m", book.MaxTexts)}, "22001"},
	} {
		var out *string
		err := u.app.QueryRow(ctx, c.stmt, c.args...).Scan(&out)
		if got := sqlState(err); got != c.want {
			t.Errorf("%s with %v: %v (SQLSTATE %q), want %s", c.stmt, c.args, err, got, c.want)
		}
	}
}

// TestUpgradeRenamesAParameter: a version that renames a parameter of a
// transfer kind (E051, loaded anyway) loads over the one before, though
// PostgreSQL replaces no function whose arguments are named otherwise:
// the file drops it first, in its transaction, and makes it again, with
// the EXECUTE the dropped one gave (and no more).
func TestUpgradeRenamesAParameter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := startUpgradeServer(t, ctx)
	renamed := strings.Replace(walletV1, "transfer give(ref: string, member: string, amount: pts)\n  key ref",
		"transfer give(reference: string, member: string, amount: pts)\n  key reference", 1)
	if renamed == walletV1 {
		t.Fatal("the rename did not take")
	}
	u.load(t, ctx, walletSQL(t, renamed))
	var args string
	if err := u.admin.QueryRow(ctx, `select array_to_string(proargnames, ' ') from pg_proc
 where oid = to_regprocedure('"wallet".give_do(text, text, text, bigint, uuid)')`).Scan(&args); err != nil || args != "p_tenant p_reference p_member p_amount p_call_id$" {
		t.Fatalf("give_do's arguments: %q, %v", args, err)
	}
	// The function made again kept the application's EXECUTE: no grant
	// was run since the load.
	if got := call(ctx, u.app, `select * from "wallet".give_do('', 'g-1', 'm', 5)`); got != "done" {
		t.Errorf("give after the rename, as the application: %s", got)
	}
	if got := call(ctx, u.report, `select * from "wallet".give_do('', 'g-2', 'm', 5)`); got != "error 42501" {
		t.Errorf("give after the rename, as the reporting role: %s, want error 42501", got)
	}
	if got := publicRights(t, ctx, u.admin); len(got) > 0 {
		t.Errorf("PUBLIC may execute %v", got)
	}
}
