// Package pgtest runs throwaway PostgreSQL clusters, for Go tests and for
// programs such as the conformance runner of the Bazel rules.
//
// Launch makes a fresh cluster in a temporary directory (initdb with fsync
// off, reachable only through a unix socket) and starts it; Stop ends it
// and removes its files; Restart stops and starts it on the same data, for
// tests of what a client does when its server goes away and comes back. A
// cluster whose process was killed before it could stop it is found
// through a small registry of records and removed by the next Launch.
//
// Tests call Start instead, which stops the cluster in t.Cleanup, and the
// Connect and Pool helpers, which close what they open at cleanup. Where
// the server binaries come from is decided by Bin. When none are found,
// Start skips the test with a line that starts with "SKIP: ", except under
// CI=true, where a missing server is a failure; Launch returns an error
// that wraps ErrNoServer.
//
// PostgreSQL refuses to run as root. Under root, the server programs run
// as an unprivileged system user (postgres if it exists, else chobo-pg,
// created on first use), switched to by this process itself (no runuser or
// su, so a PATH without /usr/sbin does), and the cluster's directories
// belong to that user.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// User is the superuser of every test cluster (authentication: trust).
	User = "chobo"
	// DefaultDB is the database that Connect, Pool and OpenPool open.
	DefaultDB = "postgres"
)

// ErrNoServer is wrapped by the error of Launch when no server binaries
// are found: the one failure a test may choose to skip on.
var ErrNoServer = errors.New("no PostgreSQL server")

// Server is a throwaway PostgreSQL cluster.
type Server struct {
	// Dir is the cluster's data directory.
	Dir string
	// SocketDir is the directory of the server's unix socket; it is also
	// the "host" of ConnString.
	SocketDir string
	// Port is the port number in the socket's name (no TCP listener).
	Port int

	bin     string // directory of initdb, pg_ctl, postgres
	runAs   string // unprivileged user the server runs as; "" = ourselves
	uid     int    // runAs's user and group ids
	gid     int
	rootDir string // holds Dir, SocketDir and the server log
	logFile string
	recPath string // this cluster's record in the registry

	mu            sync.Mutex
	postmasterPID int
	stopped       bool
}

// Psql is the psql program of the server's own binaries, else the one on
// PATH; "" when there is neither (the pinned server binaries have none).
func (s *Server) Psql() string {
	if p := filepath.Join(s.bin, "psql"); executable(p) {
		return p
	}
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	return ""
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Launch makes a fresh cluster and starts it. It first cleans up the
// clusters of earlier processes that were killed. The caller must Stop
// the server; until then its record keeps a later Launch from touching
// it, and once this process is gone the record lets one clean it up.
//
// The cluster is a copy of a cached initdb result (see template.go), in
// /dev/shm when that has room, else in a short temporary directory; it
// listens only on a unix socket in SocketDir, with fsync off.
func Launch() (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w: %v", ErrNoServer, err)
	}
	sweep()

	runAs, uid, gid, err := serverUser()
	if err != nil {
		return nil, fmt.Errorf("pgtest: %v", err)
	}
	rootDir, err := os.MkdirTemp(clusterBase(runAs != ""), "chobo-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %v", err)
	}
	s := &Server{
		Dir:       filepath.Join(rootDir, "data"),
		SocketDir: filepath.Join(rootDir, "s"),
		Port:      5433 + rand.IntN(40000),
		bin:       bin,
		runAs:     runAs,
		uid:       uid,
		gid:       gid,
		rootDir:   rootDir,
		logFile:   filepath.Join(rootDir, "server.log"),
		recPath:   filepath.Join(registryDir(), filepath.Base(rootDir)+".json"),
	}
	if err := s.start(uid, gid); err != nil {
		// Whatever got made so far goes; the start's error is the telling one.
		_ = s.Stop()
		return nil, fmt.Errorf("pgtest: %v", err)
	}
	return s, nil
}

// start fills and starts the cluster whose directories Launch chose.
func (s *Server) start(uid, gid int) error {
	if err := s.record(); err != nil {
		return fmt.Errorf("writing the cluster record: %v", err)
	}
	for _, d := range []string{s.Dir, s.SocketDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if s.runAs != "" {
		for _, d := range []string{s.rootDir, s.Dir, s.SocketDir} {
			if err := os.Chown(d, uid, gid); err != nil {
				return err
			}
		}
	}
	if err := s.initCluster(uid, gid); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serve()
}

// serve starts the postmaster on the cluster's data directory and notes
// its PID, in the Server and in the record. The caller holds s.mu.
func (s *Server) serve() error {
	// Dynamic shared memory as files in the data directory, so that even a
	// killed server leaves nothing behind once its directory is removed.
	// Room for 400 connections: a conformance run keeps one driver process
	// per book, each with a pool of its own.
	opts := fmt.Sprintf("-c fsync=off -c synchronous_commit=off -c full_page_writes=off -k %s -c listen_addresses='' -p %d -c max_connections=400 -c dynamic_shared_memory_type=mmap",
		s.SocketDir, s.Port)
	if out, err := s.run("pg_ctl", "-D", s.Dir, "-l", s.logFile, "-w", "-t", "60", "-o", opts, "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v\n%s\nserver log:\n%s", err, out, s.logTail())
	}
	pid := postmasterFromPidFile(s.Dir)
	if !isOurPostmaster(pid, s.Dir) {
		return fmt.Errorf("started, but no postmaster for %s found (pid file says %d)\nserver log:\n%s", s.Dir, pid, s.logTail())
	}
	s.postmasterPID = pid
	if err := s.record(); err != nil {
		return fmt.Errorf("updating the cluster record: %v", err)
	}
	return nil
}

// Restart stops the server and starts it again on the same data
// directory, socket and port, as an operator's restart would: a fast
// shutdown, which ends every session and writes a checkpoint, so all that
// was committed is still there afterwards (the cluster runs with
// synchronous_commit off, so a crash, unlike this, could lose the last
// commits). Connections opened before are dead after it; new ones reach
// the new postmaster at the same ConnString.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("pgtest: Restart of a stopped server")
	}
	if err := s.shutdown("fast"); err != nil {
		return err
	}
	if err := s.serve(); err != nil {
		return fmt.Errorf("pgtest: %v", err)
	}
	return nil
}

// Start is Launch for a test: the cluster is stopped and removed in
// t.Cleanup, even when the test fails. Without server binaries it skips
// the test ("SKIP: <reason>"), unless CI=true, where it fails instead.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Launch()
	if errors.Is(err, ErrNoServer) && os.Getenv("CI") != "true" {
		t.Skip("SKIP: " + err.Error())
	}
	if errors.Is(err, ErrNoServer) {
		t.Fatalf("%v (CI=true, where a PostgreSQL server must be available)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return s
}

// shutdown stops the postmaster with pg_ctl in mode (fast, immediate)
// and waits until the process is gone; s.mu is held.
func (s *Server) shutdown(mode string) error {
	if out, err := s.run("pg_ctl", "-D", s.Dir, "-m", mode, "-w", "-t", "60", "stop"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop -m %s: %v\n%s\nserver log:\n%s", mode, err, out, s.logTail())
	}
	// pg_ctl -w returns once the pid file is gone, which the postmaster
	// removes before it has exited: wait for the process itself.
	if !waitGone(s.postmasterPID, stopWait) && isOurPostmaster(s.postmasterPID, s.Dir) {
		return fmt.Errorf("pgtest: postmaster %d of %s did not end within %v of pg_ctl stop -m %s", s.postmasterPID, s.Dir, stopWait, mode)
	}
	return nil
}

// ConnString returns a libpq-style connection string for database db, as
// the superuser User.
func (s *Server) ConnString(db string) string {
	return s.ConnStringAs(User, db)
}

// ConnStringAs returns a libpq-style connection string for database db, as
// the role user (which must be able to log in; authentication is trust).
func (s *Server) ConnStringAs(user, db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
		quoteConnValue(s.SocketDir), s.Port, quoteConnValue(user), quoteConnValue(db))
}

// OpenConn opens a pgx connection to the default database (DefaultDB).
// The caller closes it.
func (s *Server) OpenConn(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, s.ConnString(DefaultDB))
	if err != nil {
		return nil, fmt.Errorf("pgtest: connect: %v", err)
	}
	return conn, nil
}

// OpenPool opens a pgxpool.Pool on the default database with at most
// maxConns connections, and checks that it reaches the server. The caller
// closes it.
func (s *Server) OpenPool(ctx context.Context, maxConns int) (*pgxpool.Pool, error) {
	return s.OpenPoolAs(ctx, User, maxConns)
}

// OpenPoolAs is OpenPool with connections made as the role user.
func (s *Server) OpenPoolAs(ctx context.Context, user string, maxConns int) (*pgxpool.Pool, error) {
	return s.OpenPoolOn(ctx, user, DefaultDB, maxConns)
}

// OpenPoolOn is OpenPoolAs on the database db.
func (s *Server) OpenPoolOn(ctx context.Context, user, db string, maxConns int) (*pgxpool.Pool, error) {
	if maxConns < 1 {
		return nil, fmt.Errorf("pgtest: OpenPool: maxConns must be at least 1, got %d", maxConns)
	}
	cfg, err := pgxpool.ParseConfig(s.ConnStringAs(user, db))
	if err != nil {
		return nil, fmt.Errorf("pgtest: pool config: %v", err)
	}
	cfg.MaxConns = int32(maxConns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgtest: pool: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgtest: pool ping: %v", err)
	}
	return pool, nil
}

// Connect is OpenConn for a test: the connection is closed at cleanup.
func (s *Server) Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := s.OpenConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Close(ctx)
	})
	return conn
}

// Pool is OpenPool for a test: the pool is closed at cleanup.
func (s *Server) Pool(t testing.TB, maxConns int) *pgxpool.Pool {
	t.Helper()
	return s.PoolAs(t, User, maxConns)
}

// PoolAs is OpenPoolAs for a test: the pool is closed at cleanup.
func (s *Server) PoolAs(t testing.TB, user string, maxConns int) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := s.OpenPoolAs(ctx, user, maxConns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Stop ends the postmaster (immediate shutdown: the data is thrown away)
// and removes the cluster's files and its record. Calling it again does
// nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	var errs []error
	pid := s.postmasterPID
	if !isOurPostmaster(pid, s.Dir) {
		pid = postmasterFromPidFile(s.Dir)
	}
	stopPostmaster(pid, s.Dir)
	if isOurPostmaster(pid, s.Dir) {
		errs = append(errs, fmt.Errorf("postmaster %d of %s did not stop", pid, s.Dir))
	}
	if err := os.RemoveAll(s.rootDir); err != nil {
		errs = append(errs, fmt.Errorf("removing %s: %w", s.rootDir, err))
	}
	if err := os.Remove(s.recPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// record writes (or rewrites) this cluster's entry in the registry.
func (s *Server) record() error {
	if err := os.MkdirAll(registryDir(), 0o700); err != nil {
		return err
	}
	start, _ := procStart(os.Getpid())
	return writeRecord(s.recPath, record{
		TestPID:       os.Getpid(),
		TestStart:     start,
		PostmasterPID: s.postmasterPID,
		RootDir:       s.rootDir,
		DataDir:       s.Dir,
		SocketDir:     s.SocketDir,
		Port:          s.Port,
	})
}

// run runs one of the server programs, as the unprivileged user when the
// tests run as root, and returns its combined output.
//
// The switch of user is made by this process (setgroups, setgid, setuid
// in the child before it runs the program), not by runuser or su: those
// live in /usr/sbin or /sbin, which the PATH of a test need not hold
// (Bazel's --incompatible_strict_action_env gives /bin:/usr/bin:/usr/local/bin).
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, prog), args...)
	if s.runAs != "" {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{
			Uid: uint32(s.uid), Gid: uint32(s.gid),
			Groups: []uint32{}, // none of root's supplementary groups
		}}
	}
	// A directory the server user can enter, and messages in English.
	cmd.Dir = s.rootDir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	// The postmaster writes to the log file, never to our pipes; this only
	// guards against a stray descendant holding them open.
	cmd.WaitDelay = 10 * time.Second
	return cmd.CombinedOutput()
}

func (s *Server) logTail() string {
	b, err := os.ReadFile(s.logFile)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

var userMu sync.Mutex

// serverUser returns the user the server programs run as: "" when we are
// not root (they run as ourselves); else postgres if that user exists, else
// chobo-pg, created as a system user when missing.
func serverUser() (name string, uid, gid int, err error) {
	if os.Geteuid() != 0 {
		return "", -1, -1, nil
	}
	userMu.Lock()
	defer userMu.Unlock()
	for _, n := range []string{"postgres", "chobo-pg"} {
		if u, err := user.Lookup(n); err == nil {
			return ids(u)
		}
	}
	out, addErr := exec.Command(sbin("useradd"), "--system", "--no-create-home",
		"--shell", "/usr/sbin/nologin", "chobo-pg").CombinedOutput()
	// Another test process may have created it at the same moment.
	u, err := user.Lookup("chobo-pg")
	if err != nil {
		return "", 0, 0, fmt.Errorf("running as root and no unprivileged user for the server: useradd chobo-pg: %v %s", addErr, strings.TrimSpace(string(out)))
	}
	return ids(u)
}

// sbin is the path of an administration program: found on PATH when it is
// there, else in the usual system directories, which a strict PATH (such
// as Bazel's /bin:/usr/bin:/usr/local/bin) leaves out.
func sbin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return name
}

func ids(u *user.User) (string, int, int, error) {
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return "", 0, 0, err
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return "", 0, 0, err
	}
	return u.Username, uid, gid, nil
}

// clusterBase picks where cluster directories (and templates) go: /dev/shm
// when it is a writable directory with at least 1 GiB free — a cluster in
// memory starts and runs much faster than one on a busy disk — else a
// short temporary directory.
func clusterBase(otherUser bool) string {
	const shm = "/dev/shm"
	var st syscall.Statfs_t
	if fi, err := os.Stat(shm); err == nil && fi.IsDir() && fi.Mode().Perm()&0o003 == 0o003 &&
		syscall.Access(shm, 2 /* W_OK */) == nil &&
		syscall.Statfs(shm, &st) == nil && uint64(st.Bavail)*uint64(st.Bsize) >= 1<<30 {
		return shm
	}
	return shortTempBase(otherUser)
}

// shortTempBase picks where cluster directories go when /dev/shm does not
// serve. Unix socket paths are
// limited to about 103 bytes, so a long TMPDIR is passed over for /tmp; so
// is one that the server user could not enter.
func shortTempBase(otherUser bool) string {
	base := os.TempDir()
	if len(base) > 40 || (otherUser && !everyoneCanEnter(base)) {
		return "/tmp"
	}
	return base
}

// everyoneCanEnter reports whether every directory on the way to dir has
// the execute bit for others.
func everyoneCanEnter(dir string) bool {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == "/" {
			return true
		}
	}
}

// quoteConnValue quotes a value for a libpq key=value connection string
// when it needs it.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " '\\\t\n") {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(v) + "'"
}
