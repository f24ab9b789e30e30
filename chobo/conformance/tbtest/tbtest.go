// Package tbtest runs a throwaway single-replica TigerBeetle for Go tests
// and for programs such as the conformance runner.
//
// The server binary comes from the environment variable CHOBO_TIGERBEETLE
// (a path to a tigerbeetle 0.17.9 executable); nothing here downloads one.
// Launch formats a fresh data file in a temporary directory, starts a
// --development replica on a free loopback port, waits until it answers a
// client request, and returns it with a ready chobotb.Client (through
// runtime/go/chobotb/tbgo). Stop ends the replica and removes its files.
//
// Tests call Replica, which skips the test with the one line
// "SKIP: real TigerBeetle: CHOBO_TIGERBEETLE is not set" when the variable
// is unset, or Optional, which logs that line and returns ok=false so the
// test can fall back to the model of TigerBeetle. Both stop the replica in
// t.Cleanup. A variable that is set but names something that does not
// start is a failure, not a skip.
//
// A replica takes about 1.5 GiB of memory and a few seconds to start; a
// test binary that needs many should share one (Launch in TestMain).
// The commands are the documented ones of TigerBeetle 0.17.9:
//
//	tigerbeetle format --cluster=0 --replica=0 --replica-count=1 --development DIR/0_0.tigerbeetle
//	tigerbeetle start --addresses=127.0.0.1:PORT --development DIR/0_0.tigerbeetle
package tbtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
)

// EnvVar names the tigerbeetle binary the tests run.
const EnvVar = "CHOBO_TIGERBEETLE"

// SkipMessage is the line a test prints when it cannot run a real replica.
const SkipMessage = "SKIP: real TigerBeetle: " + EnvVar + " is not set"

// ErrNotSet is wrapped by the error of Bin and Launch when CHOBO_TIGERBEETLE
// is unset or empty: the one failure a test may skip on.
var ErrNotSet = errors.New("real TigerBeetle: " + EnvVar + " is not set")

// ClusterID is the cluster of every replica started here (0, TigerBeetle's
// cluster for testing).
const ClusterID = 0

// DataFileName is the data file's name inside Server.Dir.
const DataFileName = "0_0.tigerbeetle"

// DefaultStartTimeout bounds formatting and starting a replica when the
// caller's context has no earlier deadline.
const DefaultStartTimeout = 2 * time.Minute

// Bin returns the path of the tigerbeetle binary named by CHOBO_TIGERBEETLE.
func Bin() (string, error) {
	p := os.Getenv(EnvVar)
	if p == "" {
		return "", ErrNotSet
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("tbtest: %s=%q: %v", EnvVar, p, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("tbtest: %s=%q: %v", EnvVar, p, err)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("tbtest: %s=%q is not an executable file", EnvVar, p)
	}
	return abs, nil
}

// Server is a running single-replica TigerBeetle cluster.
type Server struct {
	// Address is where the replica listens: 127.0.0.1 and a port.
	Address string
	// Dir is the temporary directory of the data file and the log; it is
	// removed by Stop.
	Dir string
	// DataFile is the replica's data file, inside Dir.
	DataFile string
	// Client is a chobotb.Client on the replica, already registered: its
	// first request has been answered. Stop closes it.
	Client chobotb.Client

	bin     string
	logPath string
	conn    *tbgo.Conn

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has been waited for
	stopped bool
}

// probeFunc reports when the replica at s.Address answers. The default asks
// it for an account through s.conn; tests of the harness put their own.
type probeFunc func(ctx context.Context, s *Server) error

// Launch formats and starts a replica and waits until it answers a client
// request, all bounded by ctx (and by DefaultStartTimeout). The caller
// must Stop it.
func Launch(ctx context.Context) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	return launch(ctx, bin, probeLookup)
}

func launch(ctx context.Context, bin string, probe probeFunc) (*Server, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultStartTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "chobo-tbreplica-")
	if err != nil {
		return nil, fmt.Errorf("tbtest: %v", err)
	}
	s := &Server{
		Dir:      dir,
		DataFile: filepath.Join(dir, DataFileName),
		bin:      bin,
		logPath:  filepath.Join(dir, "replica.log"),
	}
	if err := s.start(ctx, probe); err != nil {
		if stopErr := s.Stop(); stopErr != nil {
			err = fmt.Errorf("%w (and stopping: %v)", err, stopErr)
		}
		return nil, fmt.Errorf("tbtest: %w", err)
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, probe probeFunc) error {
	format := s.command(ctx, "format", "--cluster="+strconv.Itoa(ClusterID), "--replica=0", "--replica-count=1", "--development", s.DataFile)
	if out, err := format.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(format.Args, " "), err, tail(out))
	}
	// A free port may be taken between looking and binding; then the
	// replica stops at once and another port is tried.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		err := s.serve(ctx, probe)
		if err == nil {
			return nil
		}
		if attempt == attempts || !errors.Is(err, errPortTaken) {
			return err
		}
		s.closeConn()
	}
}

var errPortTaken = errors.New("the port was taken")

// serve starts the replica on a free port and waits for probe.
func (s *Server) serve(ctx context.Context, probe probeFunc) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close() // the child has its own copy
	cmd := s.command(context.Background(), "start", "--addresses="+addr, "--development", s.DataFile)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	s.mu.Lock()
	s.cmd, s.exited, s.Address = cmd, exited, addr
	s.mu.Unlock()

	conn, err := tbgo.Dial(chobotb.U128{Lo: ClusterID}, addr)
	if err != nil {
		return err
	}
	s.conn, s.Client = conn, conn

	ready := make(chan error, 1)
	go func() { ready <- probe(ctx, s) }()
	select {
	case err := <-ready:
		if err == nil {
			return nil
		}
		select {
		case <-exited:
		default:
			return fmt.Errorf("replica at %s did not answer: %v\nreplica log:\n%s", addr, err, s.LogTail())
		}
	case <-exited:
	}
	log := s.LogTail()
	if strings.Contains(log, "AddressInUse") {
		return fmt.Errorf("%w: %s: %v", errPortTaken, addr, waitErr)
	}
	return fmt.Errorf("%s exited before it answered: %v\nreplica log:\n%s", strings.Join(cmd.Args, " "), waitErr, log)
}

// command makes a tigerbeetle command run in s.Dir, with its temporary
// files there too, so that Stop removes whatever it leaves.
func (s *Server) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "TMPDIR="+s.Dir)
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// probeLookup asks the replica for account 1 until it answers: the
// official client connects, registers and retries by itself, so one
// request bounded by ctx is the whole wait.
func probeLookup(ctx context.Context, s *Server) error {
	_, err := s.Client.LookupAccounts(ctx, []ids.ID{{15: 1}})
	return err
}

// Dial opens another client on the replica; the caller closes it.
func (s *Server) Dial() (*tbgo.Conn, error) {
	return tbgo.Dial(chobotb.U128{Lo: ClusterID}, s.Address)
}

// Raw is the official client behind Client.
func (s *Server) Raw() tb.Client { return s.conn.Raw() }

// LogTail returns the end of the replica's log.
func (s *Server) LogTail() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return tail(b)
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func (s *Server) closeConn() {
	if s.conn != nil {
		s.conn.Close()
		s.conn, s.Client = nil, nil
	}
}

// Stop closes the client, ends the replica (SIGTERM, then SIGKILL after
// five seconds; its data is thrown away) and removes Dir. Calling it again
// does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	s.closeConn()
	var errs []error
	if s.cmd != nil {
		if !stopProcess(s.cmd, s.exited) {
			errs = append(errs, fmt.Errorf("replica %d did not stop", s.cmd.Process.Pid))
		}
	}
	if err := os.RemoveAll(s.Dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func stopProcess(cmd *exec.Cmd, exited <-chan struct{}) bool {
	for _, step := range []struct {
		kill func(*exec.Cmd)
		wait time.Duration
	}{{terminate, 5 * time.Second}, {kill, 10 * time.Second}} {
		select {
		case <-exited:
			return true
		default:
		}
		step.kill(cmd)
		select {
		case <-exited:
			return true
		case <-time.After(step.wait):
		}
	}
	return false
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Replica starts a replica for t and stops it at t's cleanup. Without
// CHOBO_TIGERBEETLE it skips t with SkipMessage.
func Replica(t testing.TB) *Server {
	t.Helper()
	s, ok := open(t)
	if !ok {
		t.Skip(SkipMessage)
	}
	return s
}

// Optional is Replica for a test that falls back to the model: without
// CHOBO_TIGERBEETLE it logs SkipMessage and returns ok=false.
func Optional(t testing.TB) (s *Server, ok bool) {
	t.Helper()
	s, ok = open(t)
	if !ok {
		t.Log(SkipMessage)
	}
	return s, ok
}

func open(t testing.TB) (*Server, bool) {
	t.Helper()
	bin, err := Bin()
	if errors.Is(err, ErrNotSet) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := launch(context.Background(), bin, probeLookup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("tbtest: %v", err)
		}
	})
	return s, true
}
