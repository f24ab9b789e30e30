// Package tbtest runs throwaway TigerBeetle clusters for Go tests and for
// programs such as the conformance runner: one replica, or several on
// loopback.
//
// The server binary is the one CHOBO_TIGERBEETLE names; when that is
// unset, ../shared/tools/tigerbeetle/tigerbeetle beside the checkout of
// chobo, where the developers' machines and CI keep a real 0.17.9 server;
// nothing here downloads one. Launch formats fresh data files in a
// temporary directory, starts --development replicas on free loopback
// ports, waits until each listens and the cluster answers a client
// request, and returns it with a ready chobotb.Client (through
// runtime/go/chobotb/tbgo). Stop ends the replicas and removes their files.
//
// Tests call Replica, which skips the test with SkipMessage when there is
// no binary, or Optional, which logs that line and returns ok=false so the
// test can fall back to the model of TigerBeetle. Both stop the replica in
// t.Cleanup. A binary that CHOBO_TIGERBEETLE names but that is not there
// or does not start is a failure, never a skip.
//
// A replica takes about 1.5 GiB of memory and a few seconds to start; a
// test binary that needs many should share one (Launch in TestMain).
// The commands are the documented ones of TigerBeetle 0.17.9, for replica
// i of n:
//
//	tigerbeetle format --cluster=0 --replica=i --replica-count=n --development DIR/0_i.tigerbeetle
//	tigerbeetle start --addresses=A0,…,An-1 --development --experimental --limit-pipeline-requests=56 DIR/0_i.tigerbeetle
//
// The last two flags are there because a --development replica otherwise
// keeps only 8 client connections (its pipeline of 8 prepares and no
// queued requests): a ninth client is accepted by the kernel and then
// never served, and its requests time out. The conformance tests connect
// one client per book; see ClientsMax.
//
// LaunchProduction starts replicas as a deployment runs them instead:
// formatted and started without --development (Direct I/O, requests of
// up to 8,189 events, the default queue of requests) and with a smaller
// grid cache than the default 1 GiB:
//
//	tigerbeetle format --cluster=0 --replica=i --replica-count=n DIR/0_i.tigerbeetle
//	tigerbeetle start --addresses=A0,…,An-1 --cache-grid=256MiB DIR/0_i.tigerbeetle
//
// Such a replica holds about 2.3 GiB (2.1 GiB of it whatever the cache),
// so six take about 14 GiB: they fit a machine of 24 GiB that runs little
// else. LaunchProduction refuses, with ErrShortOfMemory, a cluster the
// machine has no room for.
package tbtest

import (
	"bufio"
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
	"syscall"
	"testing"
	"time"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
)

// EnvVar names the tigerbeetle binary the tests run.
const EnvVar = "CHOBO_TIGERBEETLE"

// SharedBin is where the developers' machines and CI keep a real server,
// relative to the root of the checkout of chobo. Users never have it.
const SharedBin = "../shared/tools/tigerbeetle/tigerbeetle"

// SkipMessage is the line a test prints when it cannot run a real replica.
const SkipMessage = "SKIP: real TigerBeetle: " + EnvVar + " is not set and " + SharedBin + " is not there"

// ErrNoBinary is wrapped by the error of Bin and Launch when no binary is
// named and none is beside the checkout: the one failure a test may skip on.
var ErrNoBinary = errors.New("real TigerBeetle: " + EnvVar + " is not set and " + SharedBin + " is not there")

// ClusterID is the cluster of every replica started here (0, TigerBeetle's
// cluster for testing).
const ClusterID = 0

// PipelineRequests is the --limit-pipeline-requests every replica here is
// started with, the most TigerBeetle 0.17.9 allows below its 64 sessions.
const PipelineRequests = 56

// ClientsMax is how many clients may be connected to a replica started
// here at once: the 8 prepares of its pipeline and PipelineRequests. It is
// also the size of TigerBeetle's table of client sessions; the oldest
// client is evicted when one more registers.
const ClientsMax = 8 + PipelineRequests

// ProductionCacheGrid is the --cache-grid of a replica LaunchProduction
// starts.
const ProductionCacheGrid = "256MiB"

// ProductionMemory is what one replica LaunchProduction starts holds, with
// a margin: about 2.3 GiB observed with ProductionCacheGrid.
const ProductionMemory = 2560 << 20

// ProductionRequestEvents is how many events a request to a replica
// started without --development takes: the limit of TigerBeetle 0.17.9's
// 1 MiB messages.
const ProductionRequestEvents = 8189

// ErrShortOfMemory is wrapped by the error of LaunchProduction when the
// machine has less memory free than the cluster needs.
var ErrShortOfMemory = errors.New("not enough memory free for the cluster")

// DataFileName is the data file of the first replica, inside Server.Dir.
const DataFileName = "0_0.tigerbeetle"

// DefaultStartTimeout bounds formatting and starting a cluster when the
// caller's context has no earlier deadline.
const DefaultStartTimeout = 2 * time.Minute

// Bin returns the tigerbeetle binary: the one CHOBO_TIGERBEETLE names, else
// SharedBin when it is beside the checkout the working directory is in.
// A named binary that is not an executable file is an error; no binary at
// all wraps ErrNoBinary.
func Bin() (string, error) {
	wd, _ := os.Getwd()
	return findBin(os.Getenv(EnvVar), wd)
}

func findBin(named, wd string) (string, error) {
	if named != "" {
		abs, err := filepath.Abs(named)
		if err != nil {
			return "", fmt.Errorf("tbtest: %s=%q: %v", EnvVar, named, err)
		}
		if err := executable(abs); err != nil {
			return "", fmt.Errorf("tbtest: %s=%q: %v", EnvVar, named, err)
		}
		return abs, nil
	}
	root := checkoutRoot(wd)
	if root == "" {
		return "", ErrNoBinary
	}
	p := filepath.Join(root, filepath.FromSlash(SharedBin))
	if _, err := os.Stat(p); err != nil {
		return "", ErrNoBinary
	}
	if err := executable(p); err != nil {
		return "", fmt.Errorf("tbtest: %s: %v", p, err)
	}
	return p, nil
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}

// checkoutRoot is the folder above dir (or dir itself) whose go.mod is
// chobo's, or "" when there is none.
func checkoutRoot(dir string) string {
	for dir != "" {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			line, _ := bufio.NewReader(f).ReadString('\n')
			f.Close()
			if strings.TrimSpace(line) == "module github.com/chobo-lang/chobo" {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// Version runs `bin version` and returns what it prints, for example
// "TigerBeetle version 0.17.9+bf66a72".
func Version(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tbtest: %s version: %v\n%s", bin, err, tail(out))
	}
	return strings.TrimSpace(lastLine(string(out))), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Server is a running TigerBeetle cluster of one or more replicas.
type Server struct {
	// Address is where the first replica listens: 127.0.0.1 and a port.
	Address string
	// Addresses are where every replica listens, in replica order.
	Addresses []string
	// Dir is the temporary directory of the data files and the logs; it is
	// removed by Stop.
	Dir string
	// DataFile is the first replica's data file, inside Dir.
	DataFile string
	// Client is a chobotb.Client on the cluster, already registered: its
	// first request has been answered. Stop closes it.
	Client chobotb.Client
	// Bin is the tigerbeetle binary, and Version what it says it is.
	Bin, Version string
	// Production says the replicas run as a deployment runs them, without
	// --development (LaunchProduction).
	Production bool

	conn *tbgo.Conn

	mu       sync.Mutex
	replicas []*replica
	stopped  bool
}

// replica is one member of the cluster; proc is its latest process.
type replica struct {
	index    int
	dataFile string
	logPath  string
	proc     *proc
}

// proc is one run of a replica.
type proc struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd has been waited for
	waitErr error         // set before exited is closed
}

// probeFunc reports when the cluster answers. The default asks it for an
// account through s.conn; tests of the harness put their own.
type probeFunc func(ctx context.Context, s *Server) error

// Launch formats and starts a single replica and waits until it answers a
// client request, all bounded by ctx (and by DefaultStartTimeout). The
// caller must Stop it.
func Launch(ctx context.Context) (*Server, error) {
	return LaunchCluster(ctx, 1)
}

// LaunchCluster is Launch for a cluster of n replicas on loopback, each a
// process of its own.
func LaunchCluster(ctx context.Context, n int) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	return launch(ctx, bin, n, probeLookup)
}

// LaunchProduction is LaunchCluster for replicas formatted and started as
// production runs them (see the package's comment). It fails with
// ErrShortOfMemory, starting nothing, when /proc/meminfo says less than
// ProductionMemory a replica is available.
func LaunchProduction(ctx context.Context, n int) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	if err := roomFor(n); err != nil {
		return nil, err
	}
	return launchWith(ctx, bin, n, probeLookup, true)
}

// roomFor checks that n production replicas fit in the memory available.
// Where the kernel does not say (no /proc/meminfo), it lets them try.
func roomFor(n int) error {
	avail, ok := availableMemory()
	if !ok {
		return nil
	}
	if need := uint64(n) * ProductionMemory; avail < need {
		return fmt.Errorf("tbtest: %w: %d replicas take about %.1f GiB, and %.1f GiB is available", ErrShortOfMemory, n,
			float64(need)/(1<<30), float64(avail)/(1<<30))
	}
	return nil
}

// availableMemory is MemAvailable of /proc/meminfo, in bytes.
func availableMemory() (uint64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseUint(f[0], 10, 64)
				return kb << 10, err == nil
			}
		}
	}
	return 0, false
}

func launch(ctx context.Context, bin string, n int, probe probeFunc) (*Server, error) {
	return launchWith(ctx, bin, n, probe, false)
}

func launchWith(ctx context.Context, bin string, n int, probe probeFunc, production bool) (*Server, error) {
	if n < 1 {
		return nil, fmt.Errorf("tbtest: a cluster of %d replicas", n)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultStartTimeout)
	defer cancel()
	version, err := Version(bin)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "chobo-tbreplica-")
	if err != nil {
		return nil, fmt.Errorf("tbtest: %v", err)
	}
	s := &Server{Dir: dir, Bin: bin, Version: version, Production: production}
	for i := 0; i < n; i++ {
		s.replicas = append(s.replicas, &replica{
			index:    i,
			dataFile: filepath.Join(dir, fmt.Sprintf("0_%d.tigerbeetle", i)),
			logPath:  filepath.Join(dir, fmt.Sprintf("0_%d.log", i)),
		})
	}
	s.DataFile = s.replicas[0].dataFile
	if err := s.start(ctx, probe); err != nil {
		if stopErr := s.Stop(); stopErr != nil {
			err = fmt.Errorf("%w (and stopping: %v)", err, stopErr)
		}
		return nil, fmt.Errorf("tbtest: %w", err)
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, probe probeFunc) error {
	for _, r := range s.replicas {
		args := []string{"format", "--cluster=" + strconv.Itoa(ClusterID), "--replica=" + strconv.Itoa(r.index),
			"--replica-count=" + strconv.Itoa(len(s.replicas))}
		if !s.Production {
			args = append(args, "--development")
		}
		format := s.command(ctx, append(args, r.dataFile)...)
		if out, err := format.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(format.Args, " "), err, tail(out))
		}
	}
	// A free port may be taken between looking and binding; then that
	// replica stops at once and the cluster is tried on other ports.
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
		for _, r := range s.replicas {
			if p := s.procOf(r); p != nil {
				stopProcess(p)
			}
		}
	}
}

var errPortTaken = errors.New("the port was taken")

// serve starts every replica on free ports, waits until each listens, and
// then until probe answers.
func (s *Server) serve(ctx context.Context, probe probeFunc) error {
	addrs := make([]string, len(s.replicas))
	for i := range addrs {
		port, err := freePort()
		if err != nil {
			return err
		}
		addrs[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	s.mu.Lock()
	s.Addresses, s.Address = addrs, addrs[0]
	s.mu.Unlock()
	for _, r := range s.replicas {
		if err := s.run(r); err != nil {
			return err
		}
	}
	for _, r := range s.replicas {
		if err := s.waitListening(ctx, r); err != nil {
			return err
		}
	}
	conn, err := tbgo.Dial(chobotb.U128{Lo: ClusterID}, addrs...)
	if err != nil {
		return err
	}
	s.conn, s.Client = conn, conn

	ready := make(chan error, 1)
	go func() { ready <- probe(ctx, s) }()
	// A replica that ends while the probe waits ends the wait: a cluster
	// short of a replica may never answer.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-ready:
			if r := s.exitedReplica(); r != nil {
				return s.exitError(r)
			}
			if err != nil {
				return fmt.Errorf("the cluster at %s did not answer: %v\n%s", strings.Join(addrs, ","), err, s.LogTail())
			}
			return nil
		case <-tick.C:
			if r := s.exitedReplica(); r != nil {
				return s.exitError(r)
			}
		}
	}
}

// run starts replica r on its address, its output appended to its log.
func (s *Server) run(r *replica) error {
	logFile, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close() // the child has its own copy
	// The start of this run in the log, so that waitListening reads only
	// what this run wrote.
	fmt.Fprintf(logFile, "--- tbtest: start\n")
	args := []string{"start", "--addresses=" + strings.Join(s.Addresses, ",")}
	if s.Production {
		args = append(args, "--cache-grid="+ProductionCacheGrid)
	} else {
		args = append(args, "--development", "--experimental", "--limit-pipeline-requests="+strconv.Itoa(PipelineRequests))
	}
	cmd := s.command(context.Background(), append(args, r.dataFile)...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	s.mu.Lock()
	r.proc = p
	s.mu.Unlock()
	return nil
}

// waitListening waits until replica r's log says it listens, so that no
// client tries to connect before and fills the test's output with the
// official client's "connection refused" warnings.
func (s *Server) waitListening(ctx context.Context, r *replica) error {
	p := s.procOf(r)
	for {
		if strings.Contains(thisRun(r.logPath), "listening on") {
			return nil
		}
		select {
		case <-p.exited:
			return s.exitError(r)
		case <-ctx.Done():
			return fmt.Errorf("replica %d does not listen after %v: %v\n%s", r.index, DefaultStartTimeout, ctx.Err(), thisRun(r.logPath))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// thisRun is what the latest run of a replica wrote to its log.
func thisRun(path string) string {
	b, _ := os.ReadFile(path)
	text := string(b)
	if i := strings.LastIndex(text, "--- tbtest: start\n"); i >= 0 {
		text = text[i+len("--- tbtest: start\n"):]
	}
	return text
}

func (s *Server) procOf(r *replica) *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return r.proc
}

// exitedReplica is a replica whose process has ended, or nil.
func (s *Server) exitedReplica() *replica {
	for _, r := range s.replicas {
		if p := s.procOf(r); p != nil && p.done() {
			return r
		}
	}
	return nil
}

func (p *proc) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitError says why replica r ended before it answered.
func (s *Server) exitError(r *replica) error {
	log := thisRun(r.logPath)
	p := s.procOf(r)
	<-p.exited
	args, waitErr := strings.Join(p.cmd.Args, " "), p.waitErr
	if strings.Contains(log, "AddressInUse") {
		return fmt.Errorf("%w: %s: %v", errPortTaken, s.Addresses[r.index], waitErr)
	}
	return fmt.Errorf("%s exited before it answered: %v\nreplica log:\n%s", args, waitErr, tail([]byte(log)))
}

// command makes a tigerbeetle command run in s.Dir, with its temporary
// files there too, so that Stop removes whatever it leaves.
func (s *Server) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "TMPDIR="+s.Dir)
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// probeLookup asks the cluster for account 1 until it answers: the
// official client connects, registers and retries by itself, so one
// request bounded by ctx is the whole wait.
func probeLookup(ctx context.Context, s *Server) error {
	_, err := s.Client.LookupAccounts(ctx, []ids.ID{{15: 1}})
	return err
}

// Dial opens another client on the cluster; the caller closes it.
func (s *Server) Dial() (*tbgo.Conn, error) {
	return tbgo.Dial(chobotb.U128{Lo: ClusterID}, s.Addresses...)
}

// Raw is the official client behind Client.
func (s *Server) Raw() tb.Client { return s.conn.Raw() }

// Describe names the binary and its version, for a test's log.
func (s *Server) Describe() string {
	mode := "--development"
	if s.Production {
		mode = "production mode, --cache-grid=" + ProductionCacheGrid
	}
	return fmt.Sprintf("%s (%s), %d replica(s) (%s) at %s", s.Bin, s.Version, len(s.Addresses), mode, strings.Join(s.Addresses, ","))
}

// Replicas is how many replicas the cluster has.
func (s *Server) Replicas() int { return len(s.replicas) }

// LogTail returns the end of every replica's log.
func (s *Server) LogTail() string {
	var b strings.Builder
	for _, r := range s.replicas {
		data, err := os.ReadFile(r.logPath)
		if err != nil {
			fmt.Fprintf(&b, "replica %d: (no log: %v)\n", r.index, err)
			continue
		}
		fmt.Fprintf(&b, "replica %d log:\n%s\n", r.index, tail(data))
	}
	return b.String()
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

func (s *Server) replica(i int) (*replica, error) {
	if i < 0 || i >= len(s.replicas) {
		return nil, fmt.Errorf("tbtest: no replica %d in a cluster of %d", i, len(s.replicas))
	}
	return s.replicas[i], nil
}

// Kill ends replica i at once (SIGKILL), as a crash would, and waits until
// its process is gone. Its data file stays for Restart.
func (s *Server) Kill(i int) error {
	r, err := s.replica(i)
	if err != nil {
		return err
	}
	p := s.procOf(r)
	if p == nil {
		return nil
	}
	kill(p.cmd)
	select {
	case <-p.exited:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("tbtest: replica %d (pid %d) did not end within 30 s of SIGKILL", i, p.cmd.Process.Pid)
	}
}

// Restart starts replica i again on its data file and address, after Kill,
// and waits until it listens.
func (s *Server) Restart(ctx context.Context, i int) error {
	r, err := s.replica(i)
	if err != nil {
		return err
	}
	if p := s.procOf(r); p != nil && !p.done() {
		return fmt.Errorf("tbtest: replica %d still runs", i)
	}
	if err := s.run(r); err != nil {
		return fmt.Errorf("tbtest: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultStartTimeout)
	defer cancel()
	if err := s.waitListening(ctx, r); err != nil {
		return fmt.Errorf("tbtest: %w", err)
	}
	return nil
}

// Primary is the replica whose log says, last, that it became the primary
// of a view (TigerBeetle's "transition_to_normal… primary" line), or -1
// when none says so yet. It is read from the logs, so it may be a view
// behind the cluster.
func (s *Server) Primary() int {
	best, bestAt := -1, ""
	for _, r := range s.replicas {
		for _, line := range strings.Split(thisRun(r.logPath), "\n") {
			if !strings.Contains(line, "transition_to_normal") {
				continue
			}
			// Lines start with their time, so that later ones sort after.
			if strings.HasSuffix(strings.TrimSpace(line), " primary") && line > bestAt {
				best, bestAt = r.index, line
			}
		}
	}
	return best
}

// Pause stops replica i where it is (SIGSTOP): it keeps its connections
// and answers nothing until Resume.
func (s *Server) Pause(i int) error { return s.signal(i, syscall.SIGSTOP) }

// Resume lets a paused replica go on (SIGCONT).
func (s *Server) Resume(i int) error { return s.signal(i, syscall.SIGCONT) }

func (s *Server) signal(i int, sig syscall.Signal) error {
	r, err := s.replica(i)
	if err != nil {
		return err
	}
	p := s.procOf(r)
	if p == nil || p.done() {
		return fmt.Errorf("tbtest: replica %d is not running", i)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("tbtest: replica %d: %v", i, err)
	}
	return nil
}

// Stop closes the client, ends every replica (SIGTERM, then SIGKILL after
// five seconds; a paused one is let go on first, so that it can end) and
// waits until each process is gone, then removes Dir. Calling it again
// does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	s.mu.Unlock()
	s.closeConn()
	var errs []error
	for _, r := range s.replicas {
		if p := s.procOf(r); p != nil {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			if !stopProcess(p) {
				errs = append(errs, fmt.Errorf("replica %d (pid %d) did not stop", r.index, p.cmd.Process.Pid))
			}
		}
	}
	if err := os.RemoveAll(s.Dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// stopProcess ends p and reports whether it was waited for: it returns
// true only once the process is gone, never on a pid file or a port that
// went away first.
func stopProcess(p *proc) bool {
	for _, step := range []struct {
		kill func(*exec.Cmd)
		wait time.Duration
	}{{terminate, 5 * time.Second}, {kill, 30 * time.Second}} {
		if p.done() {
			return true
		}
		step.kill(p.cmd)
		select {
		case <-p.exited:
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

// Replica starts a replica for t and stops it at t's cleanup. Without a
// binary it skips t with SkipMessage.
func Replica(t testing.TB) *Server {
	t.Helper()
	s, ok := open(t, 1)
	if !ok {
		t.Skip(SkipMessage)
	}
	return s
}

// Cluster is Replica for a cluster of n replicas.
func Cluster(t testing.TB, n int) *Server {
	t.Helper()
	s, ok := open(t, n)
	if !ok {
		t.Skip(SkipMessage)
	}
	return s
}

// Optional is Replica for a test that falls back to the model: without a
// binary it logs SkipMessage and returns ok=false.
func Optional(t testing.TB) (s *Server, ok bool) {
	t.Helper()
	s, ok = open(t, 1)
	if !ok {
		t.Log(SkipMessage)
	}
	return s, ok
}

func open(t testing.TB, n int) (*Server, bool) {
	t.Helper()
	bin, err := Bin()
	if errors.Is(err, ErrNoBinary) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := launch(context.Background(), bin, n, probeLookup)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("real TigerBeetle: %s", s.Describe())
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("tbtest: %v", err)
		}
	})
	return s, true
}
