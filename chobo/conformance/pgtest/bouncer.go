package pgtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ErrNoBouncer is wrapped by the error of LaunchBouncer when no pgbouncer
// program is found.
var ErrNoBouncer = errors.New("no pgbouncer")

// Pool modes of PgBouncer that a Bouncer can run in.
const (
	// SessionPooling lends a server connection to a client for as long as
	// the client stays connected.
	SessionPooling = "session"
	// TransactionPooling lends a server connection for one transaction:
	// consecutive transactions of a client may run on different server
	// connections, which carry whatever the clients before left on them.
	TransactionPooling = "transaction"
)

// Bouncer is a PgBouncer in front of a Server: it listens on 127.0.0.1 at
// Port and lends connections to the server's unix socket, with PgBouncer's
// defaults except for the pool mode. It runs as the user the server runs
// as (PgBouncer, like PostgreSQL, refuses to run as root).
type Bouncer struct {
	// Port is the TCP port on 127.0.0.1 that clients connect to.
	Port int
	// Mode is the pool mode (SessionPooling, TransactionPooling).
	Mode string

	server *Server
	prog   string
	quit   syscall.Signal // what ends this PgBouncer at once (stopSignal)
	dir    string         // holds the ini, the user list and the log
	ini    string
	log    string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when cmd has exited
	stopped bool
}

// BouncerProgram is the pgbouncer program: CHOBO_PGBOUNCER when set, else
// the one on PATH, else Debian's /usr/sbin/pgbouncer (a strict PATH leaves
// /usr/sbin out).
func BouncerProgram() (string, error) {
	if p := os.Getenv("CHOBO_PGBOUNCER"); p != "" {
		if !executable(p) {
			return "", fmt.Errorf("CHOBO_PGBOUNCER=%s is not an executable file", p)
		}
		return p, nil
	}
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	if p := "/usr/sbin/pgbouncer"; executable(p) {
		return p, nil
	}
	return "", errors.New("no pgbouncer on PATH or in /usr/sbin (tests/setup.sh installs Debian's package)")
}

// LaunchBouncer starts PgBouncer in front of s in mode, letting in User
// and the roles given (authentication: trust, as on the server). The
// caller must Stop it.
func LaunchBouncer(s *Server, mode string, roles ...string) (*Bouncer, error) {
	if mode != SessionPooling && mode != TransactionPooling {
		return nil, fmt.Errorf("pgtest: pool mode %q: want %q or %q", mode, SessionPooling, TransactionPooling)
	}
	prog, err := BouncerProgram()
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w: %v", ErrNoBouncer, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("pgtest: a free port for pgbouncer: %v", err)
	}
	// Next to the cluster, so that it goes with it and the server user can
	// enter it.
	dir, err := os.MkdirTemp(s.rootDir, "bouncer-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %v", err)
	}
	b := &Bouncer{
		Port: port, Mode: mode, server: s, prog: prog, quit: stopSignal(prog), dir: dir,
		ini: filepath.Join(dir, "pgbouncer.ini"),
		log: filepath.Join(dir, "pgbouncer.log"),
	}
	users := filepath.Join(dir, "users.txt")
	// auth_type trust still wants the user listed.
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%d

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
admin_users = %s
pool_mode = %s
logfile = %s
`, s.SocketDir, s.Port, port, users, User, mode, b.log)
	if err := os.WriteFile(b.ini, []byte(ini), 0o600); err != nil {
		return nil, fmt.Errorf("pgtest: %v", err)
	}
	var list []byte
	for _, r := range append([]string{User}, roles...) {
		list = fmt.Appendf(list, "%s \"\"\n", strconv.Quote(r))
	}
	if err := os.WriteFile(users, list, 0o600); err != nil {
		return nil, fmt.Errorf("pgtest: %v", err)
	}
	if s.runAs != "" {
		for _, p := range []string{dir, b.ini, users} {
			if err := os.Chown(p, s.uid, s.gid); err != nil {
				return nil, fmt.Errorf("pgtest: %v", err)
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(); err != nil {
		return nil, err
	}
	return b, nil
}

// StartBouncer is LaunchBouncer for a test: PgBouncer is stopped at
// cleanup (before the server, which Start stops in an earlier cleanup).
// Without pgbouncer it skips the test ("SKIP: <reason>"), unless CI=true,
// where it fails instead.
func StartBouncer(t testing.TB, s *Server, mode string, roles ...string) *Bouncer {
	t.Helper()
	b, err := LaunchBouncer(s, mode, roles...)
	if errors.Is(err, ErrNoBouncer) && os.Getenv("CI") != "true" {
		t.Skip("SKIP: " + err.Error())
	}
	if errors.Is(err, ErrNoBouncer) {
		t.Fatalf("%v (CI=true, where pgbouncer must be available)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return b
}

// ConnString is a libpq-style connection string for database db through
// the bouncer, as the superuser User.
func (b *Bouncer) ConnString(db string) string { return b.ConnStringAs(User, db) }

// ConnStringAs is ConnString as role user, one of those the bouncer was
// started with.
func (b *Bouncer) ConnStringAs(user, db string) string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable", b.Port, quoteConnValue(user), quoteConnValue(db))
}

// start runs pgbouncer and waits until it accepts connections; b.mu is held.
func (b *Bouncer) start() error {
	cmd := exec.Command(b.prog, "-q", b.ini)
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if b.server.runAs != "" {
		attr.Credential = &syscall.Credential{Uid: uint32(b.server.uid), Gid: uint32(b.server.gid), Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	cmd.Dir = b.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: starting pgbouncer: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	b.cmd, b.done = cmd, done
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port)), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("pgtest: pgbouncer exited at start (%v)\nlog:\n%s", cmd.ProcessState, b.logTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.kill()
			return fmt.Errorf("pgtest: pgbouncer did not listen on port %d within 30s\nlog:\n%s", b.Port, b.logTail())
		}
	}
}

// kill ends the running pgbouncer at once (its immediate shutdown, which
// closes every client and server connection) and waits for it; b.mu is
// held.
func (b *Bouncer) kill() {
	if b.cmd == nil {
		return
	}
	_ = b.cmd.Process.Signal(b.quit)
	select {
	case <-b.done:
	case <-time.After(stopWait):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
	b.cmd = nil
}

// Restart stops PgBouncer at once and starts it again on the same port, as
// an operator's restart of the pooler would: every client connection
// through it breaks, and new ones reach the server again.
func (b *Bouncer) Restart() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return errors.New("pgtest: Restart of a stopped bouncer")
	}
	b.kill()
	return b.start()
}

// Stop ends PgBouncer. Calling it again does nothing.
func (b *Bouncer) Stop() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return nil
	}
	b.stopped = true
	b.kill()
	return nil
}

// Log is what PgBouncer wrote to its log so far (the last 4000 bytes).
func (b *Bouncer) Log() string { return b.logTail() }

func (b *Bouncer) logTail() string {
	buf, err := os.ReadFile(b.log)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(buf) > 4000 {
		buf = buf[len(buf)-4000:]
	}
	return string(buf)
}

// freePort is a TCP port on 127.0.0.1 that nothing listens on just now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// stopSignal is the signal that shuts prog down at once. PgBouncer 1.23
// made SIGTERM wait for every client to leave, and gave the immediate
// shutdown SIGTERM had until then to SIGQUIT; Debian 12 has 1.18, a newer
// Debian 1.26. A version that cannot be read is taken as a new one.
func stopSignal(prog string) syscall.Signal {
	out, err := exec.Command(prog, "--version").Output()
	if err != nil {
		return syscall.SIGQUIT
	}
	var major, minor int
	line, _, _ := strings.Cut(string(out), "\n")
	if _, err := fmt.Sscanf(line, "PgBouncer %d.%d", &major, &minor); err != nil {
		return syscall.SIGQUIT
	}
	if major == 1 && minor < 23 {
		return syscall.SIGTERM
	}
	return syscall.SIGQUIT
}
