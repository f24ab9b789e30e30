// The runner behind chobo_conformance_test: it runs every scenario of one
// book on every backend and client it is given, and compares each run with
// the reference interpreter; the `expect` and `outcomes` a scenario file
// gives are checked as `chobo run` checks them, on every pair.
//
//   - PostgreSQL: a throwaway cluster, through the book's SQL functions and
//     through each client whose target's backend is PostgreSQL, driven as
//     a process (the driver protocol, docs/formats.md). The SQL functions
//     have a database of their own, where a scenario's deploy step loads
//     another version of the book; a client, built for one version, skips
//     such a scenario aloud.
//   - TigerBeetle: each client whose target's backend is TigerBeetle,
//     driven as a process, on a real replica when the TigerBeetle
//     toolchain has a binary, and, when its language
//     reaches TigerBeetle through this process (tbwire, which shortens
//     hold timeouts to the test copy's), on chobo's model of TigerBeetle
//     (a test double) kept here too. On the model, the scenarios that
//     deploy also run through chobo's Go runtime in this process, which
//     migrates the bounds at each deploy (deploysInProcess).
//
// A client's backend and language come from the registry of targets
// (chobo/target); what differs by language is its driver kit
// (chobo/conformance/driverkit), one of runtime/driverkits.
//
// Each test of chobo_conformance_test runs one part of this: PostgreSQL,
// the model, or the real replica, which the rule makes incompatible
// without a binary so that Bazel reports it skipped. Run with every part
// (no CHOBO_CONFORMANCE_PARTS), a missing binary is one SKIP line instead.
//
// It prints one line per pair whose every scenario agreed, and exits 1 on
// any difference or unmet expectation.
//
// The rule passes everything through the environment, as runfiles paths:
//
//	CHOBO_CONFORMANCE_BOOK          the .book file
//	CHOBO_CONFORMANCE_SCENARIOS     hand-written scenario files (.json), separated by spaces; the
//	                                versions their deploy steps name are read from beside them
//	CHOBO_CONFORMANCE_INITDB        initdb of the PostgreSQL toolchain (its directory holds pg_ctl and postgres)
//	CHOBO_CONFORMANCE_DRIVERS       the driver programs of the book's clients, TARGET=PATH, separated by spaces
//	CHOBO_CONFORMANCE_TIGERBEETLE   the TigerBeetle toolchain's binary, or empty
//	CHOBO_CONFORMANCE_TIGERBEETLE_MISSING  why the toolchain has none
//	CHOBO_CONFORMANCE_TIGERBEETLE_ERROR    why the binary the user named cannot be used (a failure, not a skip)
//	CHOBO_CONFORMANCE_PARTS         which parts to run, separated by spaces: postgres, tigerbeetle-model, tigerbeetle (real replica); empty: all
//
// and what a client language's toolchain hands over besides, which its
// kit's Prepare reads (lang/<language>/driver).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbwire"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/runtime/driverkits"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

func main() {
	if os.Getenv("CHOBO_CONFORMANCE_BOOK") == "" {
		fmt.Fprintln(os.Stderr, "runner: CHOBO_CONFORMANCE_BOOK is not set; this program is run by chobo_conformance_test")
		os.Exit(2)
	}
	r := &run{out: os.Stdout, errOut: os.Stderr}
	// A test that times out gets SIGTERM: the cluster and the driver go
	// first, rather than wait for the next run's sweep.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		s := <-sig
		r.errorf("stopped by %v", s)
		r.finish()
		os.Exit(1)
	}()
	cfg, err := fromEnv()
	if err == nil {
		err = r.main(cfg)
	}
	if err != nil {
		r.errorf("%v", err)
	}
	r.end()
	if r.failed {
		os.Exit(1)
	}
}

// config is what the rule hands over, as paths valid from the working
// directory.
type config struct {
	book        string   // the .book file
	scenarios   []string // hand-written scenario files
	drivers     []driver // the driver programs of the book's clients
	tigerbeetle string   // the tigerbeetle binary; "" for none
	tbMissing   string   // why there is none
	// parts are the parts of the run asked for (partPostgres,
	// partModel, partReplica); none: every part.
	parts map[string]bool
}

// The parts of a run, each a test target of chobo_conformance_test of its
// own, so that a part that cannot run shows as such in Bazel's summary
// rather than as a line of the log.
const (
	partPostgres = "postgres"          // a PostgreSQL cluster: the SQL functions and every PostgreSQL client
	partModel    = "tigerbeetle-model" // chobo's model of TigerBeetle: the TigerBeetle clients that reach it
	partReplica  = "tigerbeetle"       // a real replica: every TigerBeetle client
)

// runs reports whether the run has the part.
func (c config) runs(part string) bool {
	return len(c.parts) == 0 || c.parts[part]
}

// driver is the driver program of one client.
type driver struct {
	target  string // a client target of the registry (chobo/target)
	backend string // the target's, as the registry gives it
	path    string // what the rule hands over: a program, or a client its language compiles
	// kit is the driver kit of the target's language (runtime/driverkits),
	// which makes the driver ready and says how it reaches TigerBeetle.
	kit driverkit.Kit
	// command starts the driver when it is not the program at path, as
	// its kit's Prepare sets it.
	command driverkit.Start
}

// newDriver is the driver entry TARGET=PATH of the rule, checked against
// the registry of targets and the kits of the languages; a client of a
// language without a kit fails at once.
func newDriver(tg, path string) (driver, error) {
	t, ok := target.Lookup(tg)
	if !ok {
		return driver{}, fmt.Errorf("CHOBO_CONFORMANCE_DRIVERS: %q is not a chobo build target", tg)
	}
	kit, ok := driverkits.Of(t.Language)
	if !ok {
		return driver{}, fmt.Errorf("CHOBO_CONFORMANCE_DRIVERS: %s: no driver for %s clients", tg, t.Language)
	}
	return driver{target: tg, backend: t.Backend, path: path, kit: kit}, nil
}

// fromEnv reads the rule's environment and points pgtest at the
// toolchain's server.
func fromEnv() (config, error) {
	var cfg config
	var err error
	if cfg.book, err = runfile(os.Getenv("CHOBO_CONFORMANCE_BOOK")); err != nil {
		return cfg, err
	}
	for _, part := range strings.Fields(os.Getenv("CHOBO_CONFORMANCE_PARTS")) {
		switch part {
		case partPostgres, partModel, partReplica:
		default:
			return cfg, fmt.Errorf("CHOBO_CONFORMANCE_PARTS: no part %q (there are %s, %s and %s)", part, partPostgres, partModel, partReplica)
		}
		if cfg.parts == nil {
			cfg.parts = map[string]bool{}
		}
		cfg.parts[part] = true
	}
	// The server binaries: the toolchain hands over initdb; pgtest takes
	// the directory it really lives in (the toolchain's files may be
	// symlinks, and the server finds its share/ and lib/ from there).
	if cfg.runs(partPostgres) {
		initdb, err := runfile(os.Getenv("CHOBO_CONFORMANCE_INITDB"))
		if err == nil {
			initdb, err = filepath.EvalSymlinks(initdb)
		}
		if err != nil {
			return cfg, fmt.Errorf("the PostgreSQL toolchain's initdb: %v", err)
		}
		os.Setenv("CHOBO_PG_BIN", filepath.Dir(initdb))
	}
	for _, p := range strings.Fields(os.Getenv("CHOBO_CONFORMANCE_SCENARIOS")) {
		path, err := runfile(p)
		if err != nil {
			return cfg, err
		}
		cfg.scenarios = append(cfg.scenarios, path)
	}
	for _, d := range strings.Fields(os.Getenv("CHOBO_CONFORMANCE_DRIVERS")) {
		target, p, ok := strings.Cut(d, "=")
		if !ok {
			return cfg, fmt.Errorf("CHOBO_CONFORMANCE_DRIVERS: %q is not TARGET=PATH", d)
		}
		path, err := runfile(p)
		if err != nil {
			return cfg, err
		}
		d, err := newDriver(target, path)
		if err != nil {
			return cfg, err
		}
		cfg.drivers = append(cfg.drivers, d)
	}
	if tb := os.Getenv("CHOBO_CONFORMANCE_TIGERBEETLE"); tb != "" {
		if cfg.tigerbeetle, err = runfile(tb); err != nil {
			return cfg, err
		}
	}
	cfg.tbMissing = os.Getenv("CHOBO_CONFORMANCE_TIGERBEETLE_MISSING")
	if e := os.Getenv("CHOBO_CONFORMANCE_TIGERBEETLE_ERROR"); e != "" {
		return cfg, fmt.Errorf("real TigerBeetle: %s", e)
	}
	return cfg, nil
}

// run is one run of the runner. Every difference is reported as it is
// found and makes the exit status 1; an error that leaves nothing to go on
// with ends the run, after what was started is stopped.
type run struct {
	out, errOut io.Writer

	mu      sync.Mutex
	failed  bool
	cleanup []func()
	summary []string // one line per pair, which end prints last
}

func (r *run) errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	fmt.Fprintf(r.errOut, "FAIL: "+format+"\n", args...)
}

// atEnd registers f to run at the end, the last registered first.
func (r *run) atEnd(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanup = append(r.cleanup, f)
}

func (r *run) finish() {
	r.mu.Lock()
	fs := r.cleanup
	r.cleanup = nil
	r.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// end stops what the run started and ends the log with one line per
// pair, where a reader of a long log looks, after how long stopping took
// (a test's timeout counts that too).
func (r *run) end() {
	start := time.Now()
	r.finish()
	fmt.Fprintf(r.out, "time: stopping the drivers and servers: %.1f s\n", time.Since(start).Seconds())
	for _, line := range r.summary {
		fmt.Fprintln(r.out, line)
	}
}

// runfile turns a runfiles path ("repo/dir/file") into a path that is
// valid whatever the working directory is.
func runfile(p string) (string, error) {
	for _, env := range []string{"RUNFILES_DIR", "TEST_SRCDIR"} {
		if d := os.Getenv(env); d != "" {
			return filepath.Join(d, p), nil
		}
	}
	return "", fmt.Errorf("neither RUNFILES_DIR nor TEST_SRCDIR is set: run this through bazel test")
}

// main runs every scenario of the book on every backend of the parts
// cfg asks for. What takes time before a pair can run (the replica, the
// PostgreSQL cluster, compiling clients) is started at once, and each
// pair runs as soon as its backend is ready, beside the others: most of
// a pair's time is spent waiting for holds to expire, which the pairs
// can do together.
func (r *run) main(cfg config) error {
	began := time.Now()
	l, err := load(cfg)
	if err != nil {
		return err
	}
	name, cp := l.Name, l.Copy
	copyPath, err := r.writeCopy(name, l.CopySrc)
	if err != nil {
		return err
	}
	tbClients := slices.ContainsFunc(cfg.drivers, func(d driver) bool { return d.backend == "tigerbeetle" })
	replica := r.startReplica(cfg, tbClients)
	if replica != nil {
		// Not left starting when the run ends early: what it starts is
		// stopped at the end only once it is registered.
		defer func() { <-replica.done }()
	}
	// The drivers are prepared (a client compiled) while the
	// cluster starts, and the SQL functions run before they are ready.
	prepared := make(chan error, 1)
	go func() { prepared <- r.prepare(cfg.drivers) }()
	waitPrepared := sync.OnceValue(func() error { return <-prepared })
	defer waitPrepared()
	p := &pairs{run: r, l: l}
	defer p.wait()
	var dbs []checkedDB
	if cfg.runs(partPostgres) {
		if dbs, err = r.startPostgres(cfg, l, copyPath, p, began, waitPrepared); err != nil {
			return err
		}
	}
	if err := waitPrepared(); err != nil {
		return err
	}
	wire, direct := tigerBeetleDrivers(cfg.drivers)
	if cfg.runs(partModel) {
		m := tbmodel.New()
		m.FollowWallClock()
		on, err := r.onWire(wire, "model", m, m.Pulse, false, cp, name, copyPath)
		if err != nil {
			return err
		}
		p.start(began, on...)
		if len(on) > 0 {
			if d := deploysInProcess(l, m); d != nil {
				p.start(began, *d)
			}
		}
	}
	if cfg.runs(partReplica) && tbClients {
		on, err := r.onReplica(cfg, replica, wire, direct, cp, name, copyPath)
		if err != nil {
			return err
		}
		p.start(began, on...)
	}
	p.wait()
	if len(p.lines) == 0 {
		// The rule sorts clients it cannot see into every part; this part
		// had none of its own.
		fmt.Fprintf(r.out, "SKIP: %s: no client of this part among the test's clients\n", name)
	}
	// In the order the pairs were started, whatever order they ended in.
	for _, line := range p.lines {
		r.summary = append(r.summary, *line)
	}
	for _, db := range dbs {
		bad, err := conformance.EntriesBalance(context.Background(), db.pool, cp)
		if err != nil {
			return err
		}
		if len(bad) > 0 {
			r.errorf("%s: balances that are not the sum of their entries: %v", db.what, bad)
		}
	}
	return nil
}

// checkedDB is a database whose balances are checked against its
// entries once every pair is done.
type checkedDB struct {
	pool *pgxpool.Pool
	what string
}

// startPostgres starts the PostgreSQL part: the cluster with the test
// copy deployed, the pair that calls the SQL functions, then, once the
// drivers are prepared, the pairs of the clients. It returns the
// databases to check at the end.
func (r *run) startPostgres(cfg config, l *conformance.Loaded, copyPath string, p *pairs, began time.Time, waitPrepared func() error) ([]checkedDB, error) {
	srv, read, err := r.deploy(l)
	if err != nil {
		return nil, err
	}
	sql, err := r.sqlPair(srv, read, l)
	if err != nil {
		return nil, err
	}
	dbs := []checkedDB{{read, "the clients' database"}, {sql.Read, "the SQL functions' database"}}
	p.start(began, namedBackend{name: "postgres", backend: sql})
	if err := waitPrepared(); err != nil {
		return dbs, err
	}
	clients, err := r.postgresClients(srv, read, l.Copy, l.Name, copyPath, cfg.drivers)
	if err != nil {
		return dbs, err
	}
	p.start(began, clients...)
	return dbs, nil
}

// tigerBeetleDrivers sorts the TigerBeetle drivers by how they reach the
// server: through chobo's wire (which the model can answer) or directly.
func tigerBeetleDrivers(drivers []driver) (wire, direct []driver) {
	for _, d := range drivers {
		switch {
		case d.backend != "tigerbeetle":
		case d.kit.ViaWire():
			wire = append(wire, d)
		default:
			direct = append(direct, d)
		}
	}
	return wire, direct
}

// sqlDB is the database of the pair that calls the SQL functions: a
// deploy step loads another version's SQL into it, which the clients,
// built for the one version, must not see, so they have the default
// database to themselves.
const sqlDB = "sql_functions"

// sqlPair deploys the test copy's SQL into a database of its own on srv
// (sqlDB), as deploy does the shared one, and returns the pair that
// calls its functions and loads other versions there: as the owner, in
// one transaction (pgdeploy.LoadIn). admin is the superuser's pool on
// the default database.
func (r *run) sqlPair(srv *pgtest.Server, admin *pgxpool.Pool, l *conformance.Loaded) (conformance.SQL, error) {
	ctx := context.Background()
	sql, err := l.SQL()
	if err != nil {
		return conformance.SQL{}, err
	}
	app, _, err := pgdeploy.Deploy(ctx, srv, admin, []pgdeploy.Book{{Name: l.Copy.Name, SQL: sql}},
		pgdeploy.Options{Trap: true, Conns: 20, DB: sqlDB})
	if err != nil {
		return conformance.SQL{}, err
	}
	r.atEnd(app.Close)
	read, err := srv.OpenPoolOn(ctx, pgtest.User, sqlDB, 10)
	if err != nil {
		return conformance.SQL{}, err
	}
	r.atEnd(read.Close)
	pair, err := conformance.NewSQL(l.Copy, app, read)
	if err != nil {
		return conformance.SQL{}, err
	}
	pair.Load = func(ctx context.Context, name, sql string) error {
		return pgdeploy.LoadIn(ctx, srv, read, sqlDB, pgdeploy.Book{Name: name, SQL: sql})
	}
	return pair, nil
}

// inProcessDeploys names the pair deploysInProcess makes.
const inProcessDeploys = "tigerbeetle-go in the runner (model), the scenarios that deploy"

// deploysInProcess is a pair for the scenarios of l that deploy a new
// version, which the TigerBeetle clients, each a process built for one
// version, cannot run: chobo's Go runtime (chobotb) in this process, on
// the model m, which puts a version in place as an operator does, by
// running the migration of bounds (chobotb.Migrate) and calling through
// the new version's chains. nil when no scenario deploys.
func deploysInProcess(l *conformance.Loaded, m *tbmodel.Model) *namedBackend {
	only := l.Deploying()
	if only == nil {
		return nil
	}
	rt := &conformance.Runtime{Client: m, Def: tigerbeetle.Def(l.Copy), Book: l.Copy}
	tb := &conformance.TigerBeetle{Calls: rt, Raw: m, Book: l.Copy, Pulse: m.Pulse}
	return &namedBackend{name: inProcessDeploys, backend: tb, l: only}
}

// pairs are the pairs of one run, each running on its own.
type pairs struct {
	run   *run
	l     *conformance.Loaded
	wg    sync.WaitGroup
	lines []*string // one line per pair started, in that order, each filled in by its pair as it ends
}

func (p *pairs) start(began time.Time, bes ...namedBackend) {
	if len(bes) > 0 {
		// How long the book, the servers and the drivers took to be ready.
		fmt.Fprintf(p.run.out, "time: %s: ready after %.1f s\n", names(bes), time.Since(began).Seconds())
	}
	for _, be := range bes {
		line := new(string)
		p.lines = append(p.lines, line)
		p.wg.Add(1)
		l := p.l
		if be.l != nil {
			l = be.l
		}
		go func() {
			defer p.wg.Done()
			*line = p.run.runOn(l, be)
		}()
	}
}

func names(bes []namedBackend) string {
	var out []string
	for _, be := range bes {
		out = append(out, be.name)
	}
	return strings.Join(out, ", ")
}

// wait waits for every pair started; after an error, so that nothing
// the pairs use is stopped under them.
func (p *pairs) wait() { p.wg.Wait() }

// prepare makes every driver ready to start, all at once (compiling a
// client may take a while).
func (r *run) prepare(drivers []driver) error {
	errs := make([]error, len(drivers))
	var wg sync.WaitGroup
	for i := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.prepareOne(&drivers[i])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// prepareOne has d's kit make it ready, with a folder of its own under
// the test's temporary directory, removed at the end.
func (r *run) prepareOne(d *driver) error {
	start, err := d.kit.Prepare(driverkit.Handed{
		Target:  d.target,
		Backend: d.backend,
		Path:    d.path,
		Runfile: runfile,
		TempDir: func() (string, error) {
			dir, err := os.MkdirTemp(os.Getenv("TEST_TMPDIR"), "chobo-"+d.target+"-")
			if err != nil {
				return "", err
			}
			r.atEnd(func() { os.RemoveAll(dir) })
			return dir, nil
		},
		Log: r.out,
	})
	if err != nil {
		return fmt.Errorf("%s: %v", d.target, err)
	}
	d.command = start
	return nil
}

// load reads the book and the hand-written scenarios. Holds expire in
// real time on the server: the scenarios run on a copy of the book whose
// holds last seconds (see conformance.Shorten). They stay in the book's
// time; RunAll scales each to the copy. A deploy step naming a file
// reads it from the scenario file's folder, as `chobo run` does: the
// rule puts the files of its versions there, in the test's runfiles.
func load(cfg config) (*conformance.Loaded, error) {
	src, err := os.ReadFile(cfg.book)
	if err != nil {
		return nil, err
	}
	l, err := conformance.Load(conformance.File{Name: filepath.Base(cfg.book), Data: src})
	if err != nil {
		return nil, err
	}
	for _, path := range cfg.scenarios {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := l.LoadDeploys(conformance.File{Name: filepath.Base(path), Data: data}, readVersion(filepath.Dir(path))); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// readVersion reads the versions the deploy steps of a scenario file in
// dir name, and checks each as `chobo run` does (conformance.Follow).
func readVersion(dir string) conformance.ReadVersion {
	return func(cur *book.Book, file string) (*book.Book, []byte, error) {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("deploy %q: the test has no such file beside the scenario file; give it in the versions of chobo_conformance_test", file)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("deploy %q: %v", file, err)
		}
		nb, err := conformance.Follow(cur, file, src)
		return nb, src, err
	}
}

// deploy starts a PostgreSQL server and loads the test copy's SQL into
// its default database, for the clients. It returns the server and the
// superuser's pool.
func (r *run) deploy(l *conformance.Loaded) (*pgtest.Server, *pgxpool.Pool, error) {
	if bin := os.Getenv("CHOBO_PG_BIN"); bin != "" {
		fmt.Fprintf(r.out, "PostgreSQL server binaries: %s\n", bin)
	}
	start := time.Now()
	srv, err := pgtest.Launch()
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(r.out, "time: a PostgreSQL cluster: %.1f s to start\n", time.Since(start).Seconds())
	r.atEnd(func() {
		if err := srv.Stop(); err != nil {
			r.errorf("%v", err)
		}
	})
	ctx := context.Background()
	// Every client pair reads the tables over it at once, each up to
	// eight scenarios at a time.
	pool, err := srv.OpenPool(ctx, 40)
	if err != nil {
		return nil, nil, err
	}
	r.atEnd(pool.Close)
	// The book is deployed as docs/targets.md tells an operator to: its
	// owner loads the SQL, and every call is made as a role given only
	// USAGE on the schema and EXECUTE on its functions, with lookalikes
	// of the built-ins the SQL uses before pg_catalog on both paths. The
	// superuser's pool reads what the tables hold. The clients call as
	// that role from their own connections: the pool of it Deploy opens
	// is not used.
	sql, err := l.SQL()
	if err != nil {
		return nil, nil, err
	}
	app, planted, err := pgdeploy.Deploy(ctx, srv, pool, []pgdeploy.Book{{Name: l.Copy.Name, SQL: sql}}, pgdeploy.Options{Trap: true, Conns: 1})
	if err != nil {
		return nil, nil, err
	}
	app.Close()
	for _, s := range planted.Skipped {
		fmt.Fprintf(r.out, "note: no lookalike of %s\n", s)
	}
	return srv, pool, nil
}

// runOn runs every scenario on one backend and returns its summary line.
func (r *run) runOn(l *conformance.Loaded, be namedBackend) string {
	rep := &reporter{run: r}
	// How long each pair took is in the log, for a test near its timeout.
	start := time.Now()
	defer func() { fmt.Fprintf(r.out, "time: %s on %s: %.1f s\n", l.Name, be.name, time.Since(start).Seconds()) }()
	var jobs []conformance.Job
	for _, j := range l.Jobs(l.Name, be.backend, func(i int) string { return fmt.Sprintf("%s-s%d", be.name, i) }) {
		j.Pair = be.name
		jobs = append(jobs, j)
	}
	st := conformance.RunAll(rep, jobs)
	if st.Failed != 0 || rep.failed {
		return fmt.Sprintf("FAIL: %s on %s: %d of %d scenarios failed", l.Name, be.name, max(st.Failed, 1), len(jobs))
	}
	line := fmt.Sprintf("PASS: %s on %s: %d scenarios, each equal to the interpreter", l.Name, be.name, len(jobs)-st.NotRun-st.DeploysSkipped)
	if st.Wide > 0 {
		line += fmt.Sprintf(" (%d where a balance leaves 64 bits, as TigerBeetle is said to answer there)", st.Wide)
	}
	if st.Deploys > 0 {
		// What a reader of the log, or a check of it, looks for to know
		// the bound changes ran here.
		line += fmt.Sprintf("; %d deploy steps, each a new version put in place", st.Deploys)
	}
	if st.NotRun > 0 {
		line += fmt.Sprintf("; %d not run, named above", st.NotRun)
	}
	if st.DeploysSkipped > 0 {
		// The generated families that change a bound deploy a version
		// derived from the book; a pair that cannot deploy says so above.
		line += fmt.Sprintf("; %d that deploy a new version not run, named above", st.DeploysSkipped)
	}
	if st.Reads > 0 || st.ReadsSkipped > 0 {
		line += fmt.Sprintf("; %d reads of the history equal to the interpreter's", st.Reads)
		if st.ReadsSkipped > 0 {
			line += fmt.Sprintf(", %d not compared, named above", st.ReadsSkipped)
		}
	}
	return line
}

type namedBackend struct {
	name    string // the pair, as messages name it (postgres, postgres-go, tigerbeetle-go (model), …), and its tenants' prefix
	backend conformance.Backend
	l       *conformance.Loaded // the book and scenarios it runs, when not all of the run's
}

// writeCopy writes the test copy of the book where drivers can open it.
func (r *run) writeCopy(name string, src []byte) (string, error) {
	dir, err := os.MkdirTemp("", "chobo-conformance-")
	if err != nil {
		return "", err
	}
	r.atEnd(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, src, 0o644)
}

// startDriver starts one driver of a client of b, opened on the test copy
// at copyPath with what at says of where the backend is, and stops it at
// the end.
func (r *run) startDriver(name string, d driver, b *book.Book, copyPath string, at protocol.Request, read conformance.Reader) (*conformance.Process, error) {
	cmd := exec.Command(d.path)
	if d.command != nil {
		cmd = d.command()
	}
	p, err := conformance.StartDriver(cmd, b, d.target, copyPath, at, read)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", name, d.target, err)
	}
	r.atEnd(func() {
		done := make(chan error, 1)
		go func() { done <- p.Close() }()
		select {
		case err := <-done:
			if err != nil {
				r.errorf("%s: %v", name, err)
			}
		case <-time.After(30 * time.Second):
			r.errorf("%s: the driver did not stop", name)
		}
	})
	return p, nil
}

// postgresClients are the ways the book is reached on PostgreSQL besides
// its SQL functions: each PostgreSQL client, through its driver, calling
// as the application's role; the tables are read over read. Backends
// share the server, so the tenants of each carry its name.
func (r *run) postgresClients(srv *pgtest.Server, read *pgxpool.Pool, cp *book.Book, name, copyPath string, drivers []driver) ([]namedBackend, error) {
	var pg []driver
	for _, d := range drivers {
		if d.backend == "postgres" {
			pg = append(pg, d)
		}
	}
	return startEach(len(pg), func(i int) (namedBackend, error) {
		// The driver opens the book whose SQL is loaded: the test copy.
		p, err := r.startDriver(name, pg[i], cp, copyPath, protocol.Request{DSN: srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
			conformance.PostgresReader{Pool: read, Book: cp})
		if err != nil {
			return namedBackend{}, err
		}
		return namedBackend{name: p.Client(), backend: p}, nil
	})
}

// startEach calls start(0), …, start(n-1) at once (a driver takes a
// while to start: an interpreter, Node) and returns what they made, in
// that order, or their errors.
func startEach(n int, start func(i int) (namedBackend, error)) ([]namedBackend, error) {
	out := make([]namedBackend, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = start(i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// launched is a replica being started, or why there is none.
type launched struct {
	done chan struct{}
	srv  *tbtest.Server
	err  error
}

// startReplica starts a TigerBeetle replica in the background when the
// run has TigerBeetle clients to run on one and the toolchain has a
// binary (it takes seconds, which the other pairs need not wait for);
// nil when none is started.
func (r *run) startReplica(cfg config, clients bool) *launched {
	if !cfg.runs(partReplica) || !clients || cfg.tigerbeetle == "" {
		return nil
	}
	l := &launched{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.srv, l.err = r.replica(cfg.tigerbeetle)
	}()
	return l
}

// onReplica are the TigerBeetle clients on the real replica started by
// startReplica; without one, a SKIP line for the replica and for each
// client that reaches only a real one.
func (r *run) onReplica(cfg config, l *launched, wire, direct []driver, cp *book.Book, name, copyPath string) ([]namedBackend, error) {
	if l == nil {
		why := cfg.tbMissing
		if why == "" {
			why = "the TigerBeetle toolchain has no binary"
		}
		fmt.Fprintf(r.out, "SKIP: real TigerBeetle: %s\n", why)
		for _, d := range direct {
			fmt.Fprintf(r.out, "SKIP: %s: its driver reaches only a real replica, and there is none\n", d.target)
		}
		return nil, nil
	}
	<-l.done
	if l.err != nil {
		return nil, l.err
	}
	srv := l.srv
	out, err := r.onWire(wire, "real replica", srv.Client, nil, true, cp, name, copyPath)
	if err != nil {
		return nil, err
	}
	// These drivers dial the replica themselves; open tells them to cut
	// the timeouts of holds to the test copy's, as tbwire does for the
	// others.
	more, err := startEach(len(direct), func(i int) (namedBackend, error) {
		tb := &conformance.TigerBeetle{Raw: srv.Client, Book: cp, Replica: true}
		p, err := r.startDriver(name, direct[i], cp, copyPath, protocol.Request{TigerBeetle: srv.Address, HoldSeconds: int(conformance.Lifetime / time.Second)}, tb)
		if err != nil {
			return namedBackend{}, err
		}
		tb.Calls = p
		return namedBackend{name: fmt.Sprintf("%s (real replica)", p.Client()), backend: tb}, nil
	})
	return append(out, more...), err
}

// onWire serves raw to drivers over tbwire, hold timeouts shortened to
// the test copy's, and starts one driver per client against it; what
// names the TigerBeetle in the pairs' names.
func (r *run) onWire(drivers []driver, what string, raw chobotb.Client, pulse func(), replica bool, cp *book.Book, name, copyPath string) ([]namedBackend, error) {
	if len(drivers) == 0 {
		return nil, nil
	}
	addr, stop, err := tbwire.Listen(conformance.ShortenTimeouts(raw))
	if err != nil {
		return nil, err
	}
	r.atEnd(stop)
	return startEach(len(drivers), func(i int) (namedBackend, error) {
		tb := &conformance.TigerBeetle{Raw: raw, Book: cp, Replica: replica, Pulse: pulse}
		p, err := r.startDriver(name, drivers[i], cp, copyPath, protocol.Request{TigerBeetle: addr}, tb)
		if err != nil {
			return namedBackend{}, err
		}
		tb.Calls = p
		return namedBackend{name: fmt.Sprintf("%s (%s)", p.Client(), what), backend: tb}, nil
	})
}

// replica starts a TigerBeetle replica of the binary and stops it at the
// end.
func (r *run) replica(binary string) (*tbtest.Server, error) {
	os.Setenv(tbtest.EnvVar, binary)
	start := time.Now()
	srv, err := tbtest.Launch(context.Background())
	if err != nil {
		return nil, fmt.Errorf("starting a TigerBeetle replica: %v", err)
	}
	fmt.Fprintf(r.out, "real TigerBeetle: %s\n", srv.Describe())
	fmt.Fprintf(r.out, "time: a TigerBeetle replica: %.1f s to start\n", time.Since(start).Seconds())
	r.atEnd(func() {
		if err := srv.Stop(); err != nil {
			r.errorf("stopping the TigerBeetle replica: %v", err)
		}
	})
	return srv, nil
}

// reporter takes what RunAll reports on one backend.
type reporter struct {
	run    *run
	mu     sync.Mutex
	failed bool
}

func (p *reporter) Errorf(format string, args ...any) {
	p.mu.Lock()
	p.failed = true
	p.mu.Unlock()
	p.run.errorf(format, args...)
}

func (p *reporter) Logf(format string, args ...any) {
	fmt.Fprintf(p.run.out, format+"\n", args...)
}
