package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/evolve"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// conformanceCases are the cases every backend must agree on: those
// whose book goes to PostgreSQL.
func conformanceCases(t *testing.T) []testCase {
	t.Helper()
	return casesWith(t, filepath.Join("postgres", "*.sql"), "PostgreSQL")
}

// casesWith lists the cases that chobo builds a file matching pattern
// for (under expected/), and fails when there are too few of them to go
// to the backend named: the goldens would have gone missing.
func casesWith(t *testing.T, pattern, backend string) []testCase {
	t.Helper()
	var out []testCase
	for _, c := range cases(t) {
		if found, _ := filepath.Glob(c.expected(pattern)); len(found) == 1 {
			out = append(out, c)
		}
	}
	if len(out) < 12 {
		t.Fatalf("found only %d cases that go to %s", len(out), backend)
	}
	return out
}

// loaded is a book ready to run on a backend, and the case it is of.
type loaded struct {
	*conformance.Loaded
	name string // the case
	path string
}

func loadForBackends(t *testing.T, c testCase) loaded {
	t.Helper()
	path := c.path()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var more []conformance.File
	if data, err := os.ReadFile(filepath.Join(c.Dir, "scenarios.json")); err == nil {
		more = append(more, conformance.File{Name: filepath.Join(c.Dir, "scenarios.json"), Data: data})
	}
	l, err := conformance.Load(conformance.File{Name: filepath.Base(path), Data: src}, more...)
	if err != nil {
		t.Fatal(err)
	}

	// Generated scenarios must not depend on how long holds last: their
	// passes go past every deadline.
	for _, sc := range scenario.Generate(l.Book) {
		if !sameOutcomes(scenario.Run(l.Book, sc), scenario.Run(l.Copy, sc)) {
			t.Errorf("%s: %q answers differently on the test copy", path, sc.Name)
		}
	}
	return loaded{Loaded: l, name: c.Name, path: path}
}

// TestBackendsKeepReadSteps loads for the backends the cases whose own
// scenarios read the history: they go with their read steps, after the
// generated ones, for the runner to hold every backend's reads to the
// interpreter's.
func TestBackendsKeepReadSteps(t *testing.T) {
	for _, name := range []string{"history", "history_ja", "wallet"} {
		c := caseByName(t, name)
		l := loadForBackends(t, c)
		generated := scenario.Generate(l.Book)
		reads := 0
		for _, sc := range l.Scenarios[len(generated):] {
			for _, st := range sc.Steps {
				if st.Read != nil {
					reads++
				}
			}
		}
		if len(l.Scenarios) <= len(generated) || (reads > 0) != (name != "wallet") {
			t.Errorf("%s: %d scenarios, %d of them generated, %d read steps among its own", name, len(l.Scenarios), len(generated), reads)
		}
	}
}

// withDeploys is books with the scenarios of each case's deploys.json
// after their own, for the conformance runs: a pair that cannot deploy
// says so in a SKIP line for each. The books given are left as they are.
func withDeploys(t *testing.T, books []loaded) []loaded {
	t.Helper()
	out := make([]loaded, len(books))
	for i, l := range books {
		out[i] = l
		dir := filepath.Dir(l.path)
		data, err := os.ReadFile(filepath.Join(dir, deploysFile))
		if err != nil {
			continue
		}
		cp := *l.Loaded
		cp.Scenarios = slices.Clone(cp.Scenarios)
		if err := cp.LoadDeploys(conformance.File{Name: filepath.Join(dir, deploysFile), Data: data}, readVersion(dir)); err != nil {
			t.Fatal(err)
		}
		out[i].Loaded = &cp
	}
	return out
}

// readVersion reads a version of the book a deploy step names, from the
// scenario file's folder dir, and refuses it as `chobo run` does: when it
// does not check, or cannot follow the version before it.
func readVersion(dir string) conformance.ReadVersion {
	return func(cur *book.Book, file string) (*book.Book, []byte, error) {
		name := filepath.Join(dir, filepath.FromSlash(file))
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		res := check.Errors(name, src)
		if res.Book != nil {
			res.Extend(src, evolve.Compare(evolve.FromBook(cur), res.Book))
		}
		if res.Book == nil {
			return nil, nil, fmt.Errorf("%s cannot follow %s v%d: %+v", name, cur.Name, cur.Version, res.Diags)
		}
		return res.Book, src, nil
	}
}

// deploySteps counts the deploy steps of the books' scenarios.
func deploySteps(books []loaded) int {
	n := 0
	for _, l := range books {
		for _, sc := range l.Scenarios {
			for _, st := range sc.Steps {
				if st.Deploy != nil {
					n++
				}
			}
		}
	}
	return n
}

// skippedDeploys writes a SKIP line for the scenarios with deploy steps a
// pair did not run (the log names each and why).
func skippedDeploys(pair string, st conformance.Stats) {
	if st.DeploysSkipped > 0 {
		fmt.Printf("SKIP: %d scenarios that deploy new versions of the book not run on %s (the log names each and why)\n", st.DeploysSkipped, pair)
	}
}

// skippedReads writes a SKIP line for the reads of the history a run
// did not compare (the log names each and why).
func skippedReads(pair string, st conformance.Stats) {
	if st.ReadsSkipped > 0 {
		fmt.Printf("SKIP: %d reads of the history not compared on %s, %d compared (the log names each and why)\n", st.ReadsSkipped, pair, st.Reads)
	}
}

func sameOutcomes(a, b []scenario.Outcome) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if conformance.FromOutcome(a[i]).String() != conformance.FromOutcome(b[i]).String() {
			return false
		}
	}
	return true
}

// runAll runs every scenario of every book on a backend, each for a
// tenant of its own, and compares with the interpreter.
func runAll(t *testing.T, books []loaded, pair string, backend func(loaded) conformance.Backend) conformance.Stats {
	t.Helper()
	return conformance.RunAll(t, jobsOf(books, pair, false, backend))
}

// jobsOf is every scenario of every book on its backend, and with bulk
// every scenario again, on the same backend under other tenants, through
// the client's bulk call.
func jobsOf(books []loaded, pair string, bulk bool, backend func(loaded) conformance.Backend) []conformance.Job {
	var jobs []conformance.Job
	for _, l := range books {
		be := backend(l)
		n := len(jobs)
		singles := l.Jobs(l.path, be, func(i int) string { return fmt.Sprintf("s%d", n+i) })
		for _, j := range singles {
			j.Pair = pair
			jobs = append(jobs, j)
		}
		if bulk {
			for _, j := range l.Jobs(l.path, be, func(i int) string { return fmt.Sprintf("b%d", n+i) }) {
				j.Pair, j.Bulk = pair+" bulk", true
				jobs = append(jobs, j)
			}
		}
		endWithBook(jobs[n:], be)
	}
	return jobs
}

// endWithBook ends a driver process once the last job of its book has
// ended. The driver keeps its connections open until it ends, and with
// every book's driver still open at the end of a run, the books together
// held more connections than the server takes. A driver that broke is
// still reported by the Close its start registered with t.Cleanup, which
// answers the same again.
func endWithBook(jobs []conformance.Job, be conformance.Backend) {
	p, ok := be.(interface{ Close() error })
	if !ok || len(jobs) == 0 {
		return
	}
	left := new(atomic.Int64)
	left.Store(int64(len(jobs)))
	for i := range jobs {
		jobs[i].Done = func() {
			if left.Add(-1) == 0 {
				_ = p.Close()
			}
		}
	}
}

// bulkCounter is a driver, or the drivers of the versions of a book.
type bulkCounter interface{ Bulks() conformance.BulkCount }

// bulkCounts adds up what the drivers say of their bulk calls, and fails
// t when no bulk carried more than one call: the bulk path went untried.
func bulkCounts[P bulkCounter](t *testing.T, ps []P) conformance.BulkCount {
	t.Helper()
	var c conformance.BulkCount
	for _, p := range ps {
		b := p.Bulks()
		c.Bulks, c.Calls = c.Bulks+b.Bulks, c.Calls+b.Calls
	}
	if c.Bulks == 0 {
		t.Errorf("no bulk call carried more than one call")
	}
	return c
}

// pgDeployment is a cluster set up as docs/targets.md deploys books
// (pgdeploy): the SQL of every book's test copy loaded by an owner role,
// an application role given only USAGE on each schema and EXECUTE on its
// functions, and lookalikes of every built-in the SQL uses before
// pg_catalog on the path of both. Every call goes through app, so a call
// that needs any other right, or that resolves a name on the caller's
// path, fails; admin, the superuser, reads what the tables hold.
type pgDeployment struct {
	srv   *pgtest.Server
	admin *pgxpool.Pool
	app   *pgxpool.Pool
}

// load loads the SQL of another version of a book as docs/targets.md
// deploys it: as the owner, in one transaction (SQL.Load).
func (d pgDeployment) load(ctx context.Context, name, sql string) error {
	return pgdeploy.Load(ctx, d.srv, d.admin, pgdeploy.Book{Name: name, SQL: sql})
}

// postgresDrivers is the driver p of l's client of tg on d as a pair that
// deploys: a deploy step loads the new version's SQL, as the SQL pair
// does, then the driver of that version's client takes the calls.
func postgresDrivers(t *testing.T, tg string, d pgDeployment, l loaded, p *conformance.Process) *conformance.Drivers {
	t.Helper()
	sql, err := conformance.NewSQL(l.Copy, d.app, d.admin)
	if err != nil {
		t.Fatal(err)
	}
	sql.Load = d.load
	return clientDrivers(t, tg, l, p, protocol.Request{DSN: d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
		func(v *conformance.Version) conformance.Reader {
			return conformance.PostgresReader{Pool: d.admin, Book: v.Copy}
		},
		sql.Deploy)
}

// startPostgres starts a cluster and deploys every book on it.
func startPostgres(t *testing.T, books []loaded) pgDeployment {
	t.Helper()
	var sqls []pgdeploy.Book
	for _, l := range books {
		sql, err := l.SQL()
		if err != nil {
			t.Fatal(err)
		}
		sqls = append(sqls, pgdeploy.Book{Name: l.Copy.Name, SQL: sql})
	}
	return deploy(t, sqls, 20)
}

// deploy starts a cluster and deploys the books on it (see
// pgDeployment), with at most conns connections for the calls.
func deploy(t testing.TB, books []pgdeploy.Book, conns int) pgDeployment {
	t.Helper()
	d := langtest.Deploy(t, books, conns)
	return pgDeployment{srv: d.Server, admin: d.Admin, app: d.App}
}

// TestPostgresConformance runs every scenario of every book through the
// SQL functions on a real PostgreSQL server.
func TestPostgresConformance(t *testing.T) {
	var books []loaded
	for _, c := range conformanceCases(t) {
		books = append(books, loadForBackends(t, c))
	}
	books = withDeploys(t, books)
	var st conformance.Stats
	rounds := schemaRounds(t, books)
	for _, round := range rounds {
		d := startPostgres(t, round)
		rs := runAll(t, round, "postgres", func(l loaded) conformance.Backend {
			be, err := conformance.NewSQL(l.Copy, d.app, d.admin)
			if err != nil {
				t.Fatal(err)
			}
			be.Load = d.load
			return be
		})
		checkEntries(t, d.admin, round)
		st = addStats(st, rs)
	}
	skippedReads("postgres", st)
	// Every deploy step of the cases ran: none was skipped, silently or
	// aloud.
	if want := deploySteps(books); want == 0 || st.Deploys != want || st.DeploysSkipped > 0 {
		t.Errorf("%d deploy steps run on PostgreSQL, %d scenarios with them skipped; the cases have %d", st.Deploys, st.DeploysSkipped, want)
	}
	t.Logf("%d scenarios of %d books on PostgreSQL through SQL, on %d servers (%d with together, %d run again), %d reads of the history compared, %d deploy steps run",
		st.Total, len(books), len(rounds), st.Together, st.Again, st.Reads, st.Deploys)
}

// schemaRounds splits books into rounds that can each go to one server:
// a book's schema is named after it, so two books of one name whose SQL
// differs (versions of one book, in cases of their own) go to different
// rounds, and a scenario that deploys reaches only its own book's schema.
func schemaRounds(t *testing.T, books []loaded) [][]loaded {
	t.Helper()
	var rounds [][]loaded
	var sqls []map[string]string // by round, the SQL loaded for each name
	for _, l := range books {
		sql, err := l.SQL()
		if err != nil {
			t.Fatal(err)
		}
		deploys := l.Versions != nil
		r := 0
		for ; r < len(rounds); r++ {
			have, taken := sqls[r][l.Copy.Name]
			if !taken || (have == sql && !deploys) {
				break
			}
		}
		if r == len(rounds) {
			rounds, sqls = append(rounds, nil), append(sqls, map[string]string{})
		}
		rounds[r] = append(rounds[r], l)
		sqls[r][l.Copy.Name] = sql
		if deploys {
			// No other book may share the schema its deploys change.
			sqls[r][l.Copy.Name] = "\x00deploys"
		}
	}
	return rounds
}

// addStats adds up the counts of two runs.
func addStats(a, b conformance.Stats) conformance.Stats {
	a.Total += b.Total
	a.Together += b.Together
	a.Again += b.Again
	a.Failed += b.Failed
	a.Wide += b.Wide
	a.NotRun += b.NotRun
	a.Reads += b.Reads
	a.ReadsSkipped += b.ReadsSkipped
	a.Deploys += b.Deploys
	a.DeploysSkipped += b.DeploysSkipped
	return a
}

// TestClientConformance runs every scenario of every case through each
// client language's PostgreSQL client of it, on a real server as the
// application's role. Each client is driven as a process, through the
// driver protocol, as the Bazel rule drives it (see languages_test.go). A
// deploy step loads the new version's SQL and ends the driver, and the
// driver of that version's client, built beside the case's, takes the
// calls after it: every deploy step runs.
func TestClientConformance(t *testing.T) {
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			// Most of a language's run waits on its servers and drivers
			// (a third of a core's time, measured): the languages run side
			// by side, each on servers of its own.
			t.Parallel()
			_, lang := languageOf(t, tg)
			books := withDeploys(t, clientCases(t, tg))
			driversOf(t, tg) // skips here, before a server starts, when the language is not set up
			var procs []*conformance.Drivers
			var st conformance.Stats
			// Books of one name whose SQL differs go to servers of their own.
			for _, round := range schemaRounds(t, books) {
				d := startPostgres(t, round)
				jobs := jobsOf(round, tg, driverkit.BulkOn(lang, "postgres"), func(l loaded) conformance.Backend {
					p := postgresDrivers(t, tg, d, l, startPostgresClient(t, tg, d, l))
					procs = append(procs, p)
					return p
				})
				st = addStats(st, conformance.RunAll(t, jobs))
				checkEntries(t, d.admin, round)
			}
			skippedReads(tg, st)
			skippedDeploys(tg, st)
			// Every deploy step of the cases ran, through the driver of
			// each version's client: none was skipped, silently or aloud.
			runs := 1
			if driverkit.BulkOn(lang, "postgres") {
				runs = 2
			}
			if want := deploySteps(books) * runs; want == 0 || st.Deploys != want || st.DeploysSkipped > 0 {
				t.Errorf("%d deploy steps run through the %s clients, %d scenarios with them skipped; the cases have %d, run %d times", st.Deploys, tg, st.DeploysSkipped, want/runs, runs)
			}
			started := 0
			for _, p := range procs {
				started += p.Started()
			}
			if started < st.Deploys {
				t.Errorf("%d deploy steps run, but only %d drivers of another version started", st.Deploys, started)
			}
			if !driverkit.BulkOn(lang, "postgres") {
				fmt.Printf("SKIP: the %s driver takes no bulk request\n", tg)
				t.Logf("%d scenarios of %d books on PostgreSQL through the %s clients, each driven as a process (%d with together, %d run again); %d deploy steps run, %d drivers of another version started",
					st.Total, len(books), tg, st.Together, st.Again, st.Deploys, started)
				return
			}
			c := bulkCounts(t, procs)
			t.Logf("%d scenarios of %d books on PostgreSQL through the %s clients, each driven as a process, half of them through the bulk call (%d with together, %d run again); %d bulk calls carried %d calls; %d deploy steps run, %d drivers of another version started",
				st.Total, len(books), tg, st.Together, st.Again, c.Bulks, c.Calls, st.Deploys, started)
		})
	}
}

// TestDriverStatusAndBalance covers, for every PostgreSQL client, what
// the scenarios do not ask a driver for: status, balance, a partial post,
// a call the client must refuse to make, and a request naming a
// parameter the operation does not have. A language whose driver has
// variants on PostgreSQL (driverkit.Varied: another database library)
// runs it again in each.
func TestDriverStatusAndBalance(t *testing.T) {
	l := loadForBackends(t, caseByName(t, "inventory"))
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) { statusAndBalance(t, tg, l) })
		_, kit := languageOf(t, tg)
		for _, v := range driverkit.VariantsOf(kit, "postgres") {
			t.Run(tg+"/"+v.Name, func(t *testing.T) {
				for _, kv := range v.Env {
					k, val, _ := strings.Cut(kv, "=")
					t.Setenv(k, val)
				}
				statusAndBalance(t, tg, l)
			})
		}
	}
}

func statusAndBalance(t *testing.T, tg string, l loaded) {
	driversOf(t, tg)
	p := startPostgresClient(t, tg, startPostgres(t, []loaded{l}), l)
	ctx := context.Background()
	const tenant = "status-and-balance"
	call := func(transfer string, op book.Op, strs map[string]string, amounts map[string]int64) interp.Call {
		return interp.Call{Transfer: l.Copy.Transfer(transfer), Op: op, Strings: strs, Amounts: amounts}
	}
	key := map[string]string{"order": "o-1", "sku": "A-1"}
	// What each call answers is the interpreter's to say.
	ref := interp.New(l.Copy)
	for i, c := range []interp.Call{
		call("receive", book.Do, map[string]string{"delivery": "d-1", "sku": "A-1"}, map[string]int64{"qty": 5}),
		call("reserve", book.Hold, key, map[string]int64{"qty": 3}),
		call("reserve", book.Hold, map[string]string{"order": "o-2", "sku": "A-1"}, map[string]int64{"qty": 9}),
		call("reserve", book.Post, key, map[string]int64{"qty": 2}),
		call("reserve", book.Post, key, nil),
		// A negative amount: the client must fail the call, not send it.
		call("take_back", book.Do, map[string]string{"return_id": "r-1", "sku": "A-1"}, map[string]int64{"qty": -1}),
	} {
		want := conformance.ShortResult(ref.Apply(c))
		r, err := p.Call(ctx, c, tenant)
		if got := conformance.ShortResult(r, err); got != want {
			t.Errorf("call %d, %s: got %s (%v), want %s", i+1, c, got, err, want)
		}
	}
	for _, c := range []struct {
		key  map[string]string
		want string
	}{{key, "posted"}, {map[string]string{"order": "o-3", "sku": "A-1"}, ""}} {
		got, err := p.Status(ctx, call("reserve", "status", c.key, nil), tenant)
		if err != nil || got != c.want {
			t.Errorf("status of %v: got %q, %v; want %q", c.key, got, err, c.want)
		}
	}
	accounts, _, err := p.Ledger(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		kind string
		args map[string]string
		name string
	}{{"stock", map[string]string{"sku": "A-1"}, "stock(A-1)"}, {"customers", nil, "customers"}} {
		b, err := p.Balance(ctx, tenant, a.kind, a.args)
		if err != nil {
			t.Fatalf("balance %s: %v", a.name, err)
		}
		if line := conformance.AccountLine(a.name, b); !slices.Contains(accounts, line) {
			t.Errorf("balance through the driver: %s; the tables hold %v", line, accounts)
		}
	}
	if _, err := p.Balance(ctx, tenant, "stock", map[string]string{"sku": "A-1", "colour": "red"}); err == nil {
		t.Errorf("balance with a parameter the account does not have: no error")
	}
	misspelt := call("reserve", book.Void, map[string]string{"order": "o-2", "sku": "A-1", "colour": "red"}, nil)
	if r, err := p.Call(ctx, misspelt, tenant); err == nil {
		t.Errorf("void with a parameter the transfer does not have: %v, no error", r)
	}
}

// checkEntries fails for every account whose balance is not the sum of
// its entries.
func checkEntries(t *testing.T, pool *pgxpool.Pool, books []loaded) {
	t.Helper()
	for _, l := range books {
		bad, err := conformance.EntriesBalance(context.Background(), pool, l.Copy)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Errorf("%s: balances that are not the sum of their entries: %v", l.path, bad)
		}
	}
}
