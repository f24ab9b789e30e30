package pgtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary, run again as a subprocess, act as one of
// the helpers below instead of a test run.
const helperEnv = "CHOBO_PGTEST_HELPER"

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestStartConnectQuery(t *testing.T) {
	s := Start(t)
	conn := s.Connect(t)
	var one int
	if err := conn.QueryRow(ctx(t), "select 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("select 1: got %d, %v", one, err)
	}
	if _, err := conn.Exec(ctx(t), "create table stock (item text primary key, qty int not null)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx(t), "insert into stock values ('apple', 3), ('pear', 5)"); err != nil {
		t.Fatal(err)
	}
	var total int
	if err := conn.QueryRow(ctx(t), "select sum(qty) from stock").Scan(&total); err != nil || total != 8 {
		t.Fatalf("sum: got %d, %v", total, err)
	}
	var user, fsync string
	if err := conn.QueryRow(ctx(t), "select current_user, current_setting('fsync')").Scan(&user, &fsync); err != nil {
		t.Fatal(err)
	}
	if user != User || fsync != "off" {
		t.Errorf("current_user=%q fsync=%q, want %q and off", user, fsync, User)
	}
	if !strings.HasPrefix(s.ConnString("x"), "host="+s.SocketDir+" ") {
		t.Errorf("ConnString = %q", s.ConnString("x"))
	}
	if len(filepath.Join(s.SocketDir, fmt.Sprintf(".s.PGSQL.%d.lock", s.Port))) > 100 {
		t.Errorf("socket path too long: %s", s.SocketDir)
	}
	bin, _ := Bin()
	t.Logf("server binaries: %s; server user: %q", bin, s.runAs)
}

func TestTwoClustersAtOnce(t *testing.T) {
	a, b := Start(t), Start(t)
	if a.Dir == b.Dir || a.SocketDir == b.SocketDir {
		t.Fatalf("clusters share directories: %+v %+v", a, b)
	}
	ca, cb := a.Connect(t), b.Connect(t)
	if _, err := ca.Exec(ctx(t), "create table only_in_a (x int)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := cb.QueryRow(ctx(t), "select count(*) from pg_tables where tablename = 'only_in_a'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("second cluster sees the first one's table: n=%d err=%v", n, err)
	}
	if err := ca.QueryRow(ctx(t), "select count(*) from pg_tables where tablename = 'only_in_a'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("first cluster lost its table: n=%d err=%v", n, err)
	}
}

func TestPoolBoundsConnections(t *testing.T) {
	s := Start(t)
	pool := s.Pool(t, 3)
	if got := pool.Config().MaxConns; got != 3 {
		t.Fatalf("MaxConns = %d", got)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := pool.Exec(ctx(t), "select pg_sleep(0.02)")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := pool.Stat().TotalConns(); got > 3 {
		t.Errorf("pool opened %d connections, want at most 3", got)
	}
}

// A program (the conformance runner) has no testing.TB: Launch, OpenPool
// and Stop must do the whole job on their own.
func TestLaunchAndStopOutsideATest(t *testing.T) {
	if _, err := Bin(); err != nil {
		t.Skip("SKIP: " + err.Error())
	}
	s, err := Launch()
	if err != nil {
		t.Fatal(err)
	}
	pid := s.postmasterPID
	pool, err := s.OpenPool(ctx(t), 2)
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
	var one int
	err = pool.QueryRow(ctx(t), "select 1").Scan(&one)
	pool.Close()
	if err != nil || one != 1 {
		t.Errorf("select 1: got %d, %v", one, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	checkGone(t, pid, s.rootDir, s.recPath)
}

// TestRestartKeepsData: what was committed before a restart is there
// after it, at the same ConnString; a connection opened before is dead;
// the record names the new postmaster, so that Stop (and the sweep of a
// killed run) still find it; and a stopped server is not brought back.
func TestRestartKeepsData(t *testing.T) {
	s := Start(t)
	before := s.Connect(t)
	if _, err := before.Exec(ctx(t), "create table kept (x int); insert into kept values (3), (5)"); err != nil {
		t.Fatal(err)
	}
	oldPID := s.postmasterPID
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	newPID := s.postmasterPID
	if newPID == oldPID || !isOurPostmaster(newPID, s.Dir) {
		t.Fatalf("after Restart the postmaster is %d (was %d); running: %v", newPID, oldPID, isOurPostmaster(newPID, s.Dir))
	}
	b, err := os.ReadFile(s.recPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil || rec.PostmasterPID != newPID {
		t.Errorf("the record names postmaster %d, want %d (%v)", rec.PostmasterPID, newPID, err)
	}
	var n int
	if err := before.QueryRow(ctx(t), "select 1").Scan(&n); err == nil {
		t.Error("a connection opened before the restart still answers")
	}
	after := s.Connect(t)
	if err := after.QueryRow(ctx(t), "select sum(x) from kept").Scan(&n); err != nil || n != 8 {
		t.Fatalf("after the restart: sum %d, %v; want 8", n, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	checkGone(t, newPID, s.rootDir, s.recPath)
	if err := s.Restart(); err == nil {
		t.Error("Restart brought back a stopped server")
	}
}

func TestLaunchWithoutBinaries(t *testing.T) {
	t.Setenv("CHOBO_PG_BIN", t.TempDir())
	s, err := Launch()
	if !errors.Is(err, ErrNoServer) {
		if s != nil {
			s.Stop()
		}
		t.Fatalf("Launch without binaries: got %v, want an error wrapping ErrNoServer", err)
	}
}

func TestCleanupStopsAndRemoves(t *testing.T) {
	var s *Server
	var pid int
	var startTook time.Duration
	var stopBegan time.Time
	t.Run("cluster", func(t *testing.T) {
		began := time.Now()
		s = Start(t)
		startTook = time.Since(began)
		pid = s.postmasterPID
		if !isOurPostmaster(pid, s.Dir) {
			t.Fatalf("postmaster %d not running", pid)
		}
		if _, err := os.Stat(s.recPath); err != nil {
			t.Fatalf("no record: %v", err)
		}
		// The connection's cleanup must close it before the server stops.
		s.Connect(t)
		// Registered last, so it runs first (LIFO): the stop starts here.
		t.Cleanup(func() { stopBegan = time.Now() })
	})
	stopTook := time.Since(stopBegan)
	if s == nil {
		t.Fatal("no server")
	}
	checkGone(t, pid, s.rootDir, s.recPath)
	t.Logf("Start took %v; stop and removal took %v", startTook.Round(time.Millisecond), stopTook.Round(time.Millisecond))
}

// checkGone fails t unless the postmaster, the cluster's files and its
// record are all gone.
func checkGone(t *testing.T, pid int, rootDir, recPath string) {
	t.Helper()
	if alive(pid) {
		t.Errorf("postmaster %d still running (/proc/%d)", pid, pid)
	}
	if _, err := os.Stat(rootDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster dir %s still there (%v)", rootDir, err)
	}
	if _, err := os.Stat(recPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record %s still there", recPath)
	}
}

func TestCleanupRunsWhenTheTestFails(t *testing.T) {
	if _, err := Bin(); err != nil {
		t.Skip("SKIP: " + err.Error())
	}
	out, err := helper(t, "failing").CombinedOutput()
	if err == nil {
		t.Fatalf("the failing helper passed:\n%s", out)
	}
	var pid int
	var rootDir, recPath string
	for _, line := range strings.Split(string(out), "\n") {
		if _, err := fmt.Sscanf(line, "READY %d %s %s", &pid, &rootDir, &recPath); err == nil {
			break
		}
	}
	if pid == 0 {
		t.Fatalf("helper never reported a running cluster:\n%s", out)
	}
	checkGone(t, pid, rootDir, recPath)
}

func TestHelperProcess(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		t.Skip("helper for other tests; runs only as their subprocess")
	case "leftover":
		s := Start(t)
		fmt.Printf("READY %d %s %s\n", s.postmasterPID, s.rootDir, s.recPath)
		os.Stdout.Sync()
		time.Sleep(2 * time.Minute) // killed by the parent long before
	case "failing":
		s := Start(t)
		fmt.Printf("READY %d %s %s\n", s.postmasterPID, s.rootDir, s.recPath)
		t.Error("failing on purpose; the cleanup must still run")
	case "ci-fail":
		Start(t) // CHOBO_PG_BIN points nowhere and CI=true: must fail
		t.Log("HELPER: Start returned")
	}
}

func helper(t *testing.T, kind string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+kind), env...)
	return cmd
}

func TestLeftoverOfKilledRunIsCleaned(t *testing.T) {
	if _, err := Bin(); err != nil {
		t.Skip("SKIP: " + err.Error())
	}
	cmd := helper(t, "leftover")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	var pid int
	var rootDir, recPath string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "READY %d %s %s", &pid, &rootDir, &recPath); err == nil {
			break
		}
		t.Logf("helper: %s", sc.Text())
	}
	if pid == 0 {
		t.Fatal("helper never reported a running cluster")
	}
	// Kill the test process the hard way: no t.Cleanup runs.
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killed = true
	if !isOurPostmaster(pid, filepath.Join(rootDir, "data")) {
		t.Fatalf("postmaster %d of the killed run is not running; nothing to test", pid)
	}
	if _, err := os.Stat(recPath); err != nil {
		t.Fatalf("record of the killed run missing: %v", err)
	}

	Start(t) // sweeps the leftover before making its own cluster

	if alive(pid) {
		t.Errorf("postmaster %d of the killed run still running", pid)
	}
	if _, err := os.Stat(rootDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster dir %s of the killed run still there (%v)", rootDir, err)
	}
	if _, err := os.Stat(recPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record %s of the killed run still there", recPath)
	}
}

func TestSweepLeavesLiveAndForeignProcessesAlone(t *testing.T) {
	if _, err := Bin(); err != nil {
		t.Skip("SKIP: " + err.Error())
	}
	live := Start(t)
	// A forged record: dead test process, but the "postmaster" is this
	// test process, which is no postgres: it must not be signalled.
	dir, err := os.MkdirTemp("", "chobo-pg-")
	if err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(registryDir(), filepath.Base(dir)+".json")
	if err := writeRecord(forged, record{
		TestPID: 1 << 22, TestStart: 1, PostmasterPID: os.Getpid(),
		RootDir: dir, DataDir: filepath.Join(dir, "data"), SocketDir: filepath.Join(dir, "s"),
	}); err != nil {
		t.Fatal(err)
	}
	sweep() // we are still here, so it did not kill us
	if !isOurPostmaster(live.postmasterPID, live.Dir) {
		t.Errorf("sweep stopped a live test's cluster")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forged leftover dir not removed")
	}
	if _, err := os.Stat(forged); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forged record not removed")
	}
}

func TestNoBinariesSkipsOrFailsUnderCI(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("CHOBO_PG_BIN", empty)
	if _, err := Bin(); err == nil {
		t.Fatal("Bin accepted an empty directory")
	}
	t.Setenv("CI", "")
	var skipped bool
	t.Run("skip", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Start(t)
	})
	if !skipped {
		t.Error("Start did not skip without binaries")
	}

	cmd := helper(t, "ci-fail", "CI=true", "CHOBO_PG_BIN="+empty)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "CI=true") || strings.Contains(string(out), "HELPER: Start returned") {
		t.Errorf("under CI=true, Start should fail the test; err=%v output:\n%s", err, out)
	}
}

func TestConnStringQuoting(t *testing.T) {
	s := &Server{SocketDir: "/tmp/a b", Port: 6000}
	want := `host='/tmp/a b' port=6000 user=chobo dbname='it''s' sslmode=disable`
	want = strings.ReplaceAll(want, `''`, `\'`)
	if got := s.ConnString("it's"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func BenchmarkStartStop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := Start(b)
		if err := s.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// Under root, with the PATH Bazel gives actions and tests under
// --incompatible_strict_action_env (no /usr/sbin, /sbin: no runuser, su
// or useradd), initdb and the server still run as the unprivileged user.
// No template: initdb itself must run under that PATH.
func TestStrictPathAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIP: not root; the user switch is made only under root")
	}
	t.Setenv("PATH", "/bin:/usr/bin:/usr/local/bin")
	t.Setenv("CHOBO_PGTEST_NO_TEMPLATE", "1")
	s := Start(t)
	var one int
	if err := s.Connect(t).QueryRow(ctx(t), "select 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.postmasterPID))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && f[1] == "0" {
			t.Errorf("the postmaster runs as root: %s", line)
		}
	}
}
