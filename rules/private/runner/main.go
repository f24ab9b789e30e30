// The runner behind chobo_conformance_test: it runs every scenario of one
// book on a throwaway PostgreSQL cluster, through the book's SQL
// functions and, when the rule was given a client, through that client
// driven as a process (the driver protocol, docs/formats.md), and
// compares each run with the reference interpreter; the `expect` and
// `outcomes` a scenario file gives are checked as `chobo run` checks
// them. It prints one line per backend whose every scenario agreed, and
// exits 1 on any difference or unmet expectation.
//
// The rule passes everything through the environment, as runfiles paths:
//
//	CHOBO_CONFORMANCE_BOOK       the .book file
//	CHOBO_CONFORMANCE_SCENARIOS  hand-written scenario files (.json), separated by spaces
//	CHOBO_CONFORMANCE_INITDB     initdb of the PostgreSQL toolchain (its directory holds pg_ctl and postgres)
//	CHOBO_CONFORMANCE_DRIVER     optional: the driver program of the book's client
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
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
	r.finish()
	if r.failed {
		os.Exit(1)
	}
}

// config is what the rule hands over, as paths valid from the working
// directory.
type config struct {
	book      string   // the .book file
	scenarios []string // hand-written scenario files
	driver    string   // the driver program of the book's client; "" for none
}

// fromEnv reads the rule's environment and points pgtest at the
// toolchain's server.
func fromEnv() (config, error) {
	var cfg config
	var err error
	if cfg.book, err = runfile(os.Getenv("CHOBO_CONFORMANCE_BOOK")); err != nil {
		return cfg, err
	}
	// The server binaries: the toolchain hands over initdb; pgtest takes
	// the directory it really lives in (the toolchain's files may be
	// symlinks, and the server finds its share/ and lib/ from there).
	initdb, err := runfile(os.Getenv("CHOBO_CONFORMANCE_INITDB"))
	if err == nil {
		initdb, err = filepath.EvalSymlinks(initdb)
	}
	if err != nil {
		return cfg, fmt.Errorf("the PostgreSQL toolchain's initdb: %v", err)
	}
	os.Setenv("CHOBO_PG_BIN", filepath.Dir(initdb))
	fmt.Printf("PostgreSQL server binaries: %s\n", filepath.Dir(initdb))
	for _, p := range strings.Fields(os.Getenv("CHOBO_CONFORMANCE_SCENARIOS")) {
		path, err := runfile(p)
		if err != nil {
			return cfg, err
		}
		cfg.scenarios = append(cfg.scenarios, path)
	}
	if d := os.Getenv("CHOBO_CONFORMANCE_DRIVER"); d != "" {
		if cfg.driver, err = runfile(d); err != nil {
			return cfg, err
		}
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

// main runs every scenario of the book on every backend.
func (r *run) main(cfg config) error {
	src, err := os.ReadFile(cfg.book)
	if err != nil {
		return err
	}
	var files []conformance.File
	for _, path := range cfg.scenarios {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, conformance.File{Name: filepath.Base(path), Data: data})
	}
	// Holds expire in real time on the server: the scenarios run on a copy
	// of the book whose holds last seconds (see conformance.Shorten). They
	// stay in the book's time; RunAll scales each to the copy.
	l, err := conformance.Load(conformance.File{Name: filepath.Base(cfg.book), Data: src}, files...)
	if err != nil {
		return err
	}
	name, cp := l.Name, l.Copy

	srv, err := pgtest.Launch()
	if err != nil {
		return err
	}
	r.atEnd(func() {
		if err := srv.Stop(); err != nil {
			r.errorf("%v", err)
		}
	})
	ctx := context.Background()
	pool, err := srv.OpenPool(ctx, 20)
	if err != nil {
		return err
	}
	r.atEnd(pool.Close)
	if err := l.InstallSQL(ctx, pool); err != nil {
		return err
	}

	backends, err := r.backends(srv, pool, cp, name, l.CopySrc, cfg.driver)
	if err != nil {
		return err
	}
	for _, be := range backends {
		rep := &reporter{run: r}
		jobs := l.Jobs(name, be.backend, func(i int) string { return fmt.Sprintf("%s-s%d", be.name, i) })
		st := conformance.RunAll(rep, jobs)
		if !rep.failed {
			fmt.Fprintf(r.out, "%s: %d scenarios on %s, each equal to the interpreter\n", name, st.Total, be.name)
		}
	}
	bad, err := conformance.EntriesBalance(ctx, pool, cp)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		r.errorf("balances that are not the sum of their entries: %v", bad)
	}
	return nil
}

type namedBackend struct {
	name    string
	backend conformance.Backend
}

// backends are the ways the book is reached: its SQL functions, and the
// client the rule was given, through its driver. Backends share the
// server, so the tenants of each carry its name.
func (r *run) backends(srv *pgtest.Server, pool *pgxpool.Pool, cp *book.Book, name string, copySrc []byte, driverPath string) ([]namedBackend, error) {
	sql, err := conformance.NewSQL(cp, pool)
	if err != nil {
		return nil, err
	}
	out := []namedBackend{{"postgres-sql", sql}}
	if driverPath == "" {
		return out, nil
	}
	// The driver opens the book whose SQL is loaded: the test copy.
	dir, err := os.MkdirTemp("", "chobo-conformance-")
	if err != nil {
		return nil, err
	}
	r.atEnd(func() { os.RemoveAll(dir) })
	copyPath := filepath.Join(dir, name)
	if err := os.WriteFile(copyPath, copySrc, 0o644); err != nil {
		return nil, err
	}
	p, err := conformance.StartProcess(exec.Command(driverPath), copyPath, srv.ConnString(pgtest.DefaultDB),
		conformance.PostgresReader{Pool: pool, Book: cp})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
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
	return append(out, namedBackend{p.Client(), p}), nil
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
