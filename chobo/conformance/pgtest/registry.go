package pgtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// record is what the registry keeps about one cluster, so that a later
// Start can clean up after a test process that was killed before its
// t.Cleanup ran (a timeout, SIGKILL, a crash).
type record struct {
	// TestPID and TestStart identify the test process that owns the
	// cluster; the start time (field 22 of /proc/PID/stat) guards
	// against a recycled PID.
	TestPID   int    `json:"test_pid"`
	TestStart uint64 `json:"test_start"`
	// PostmasterPID is 0 until the server is up; then the sweeper still
	// finds it in DataDir/postmaster.pid.
	PostmasterPID int    `json:"postmaster_pid"`
	RootDir       string `json:"root_dir"`
	DataDir       string `json:"data_dir"`
	SocketDir     string `json:"socket_dir"`
	Port          int    `json:"port"`
}

// registryDir holds one JSON file per live cluster of this user.
func registryDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("chobo-pgtest-%d", os.Geteuid()))
}

func writeRecord(path string, r record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// procStart returns the start time of a process in clock ticks since boot,
// or ok=false when the process does not exist or is a zombie.
func procStart(pid int) (start uint64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state); field 22 (starttime) is fields[19].
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return 0, false
	}
	s, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return 0, false
	}
	return s, true
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	_, ok := procStart(pid)
	return ok
}

// isOurPostmaster reports whether pid is a running postgres process whose
// command line names dataDir (pg_ctl starts it as `postgres -D <dir> ...`).
func isOurPostmaster(pid int, dataDir string) bool {
	if pid <= 0 || !alive(pid) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if len(args) == 0 || !strings.HasPrefix(filepath.Base(args[0]), "postgres") {
		return false
	}
	for i, a := range args {
		if a == "-D" && i+1 < len(args) && filepath.Clean(args[i+1]) == filepath.Clean(dataDir) {
			return true
		}
		if a == "-D"+dataDir {
			return true
		}
	}
	return false
}

// postmasterFromPidFile reads the postmaster's PID from the first line of
// DataDir/postmaster.pid, or returns 0.
func postmasterFromPidFile(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0
	}
	return pid
}

// stopPostmaster ends a postmaster that we recorded: SIGQUIT (immediate
// shutdown, which also ends its children), then SIGKILL if it lingers.
// It only signals pid while pid is a postgres process for dataDir.
func stopPostmaster(pid int, dataDir string) {
	if !isOurPostmaster(pid, dataDir) {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGQUIT)
	if waitGone(pid, stopWait) {
		return
	}
	if isOurPostmaster(pid, dataDir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		waitGone(pid, stopWait)
	}
}

// stopWait bounds the wait for a postmaster to exit once told to. A
// loaded machine can take seconds; the wait ends as soon as it is gone.
const stopWait = 60 * time.Second

func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return !alive(pid)
}

// sweep removes the clusters of test processes that are gone. It holds an
// exclusive lock on the registry while it works, so two test processes do
// not clean the same record at once. Errors are ignored: a sweep is a
// best effort and must not fail the test that runs it.
func sweep() {
	dir := registryDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasSuffix(name, ".json.tmp") {
			// A record that was never finished; harmless, but stale
			// ones are removed after a while.
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				os.Remove(path)
			}
			continue
		}
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var r record
		if err := json.Unmarshal(b, &r); err != nil || r.TestPID <= 0 {
			continue
		}
		if start, ok := procStart(r.TestPID); ok && start == r.TestStart {
			continue // its test process still runs: not ours to touch
		}
		cleanRecord(r)
		os.Remove(path)
	}
}

// cleanRecord stops the recorded postmaster (if it is still the postgres
// process of the recorded data directory) and removes the cluster's files.
func cleanRecord(r record) {
	if r.DataDir != "" {
		pid := r.PostmasterPID
		if !isOurPostmaster(pid, r.DataDir) {
			pid = postmasterFromPidFile(r.DataDir)
		}
		stopPostmaster(pid, r.DataDir)
	}
	for _, d := range []string{r.RootDir, r.DataDir, r.SocketDir} {
		if safeToRemove(d) {
			os.RemoveAll(d)
		}
	}
}

// safeToRemove accepts only the directories that Start creates: absolute,
// and inside a directory whose name starts with "chobo-pg-".
func safeToRemove(d string) bool {
	if d == "" || !filepath.IsAbs(d) {
		return false
	}
	for p := filepath.Clean(d); p != "/" && p != "."; p = filepath.Dir(p) {
		if strings.HasPrefix(filepath.Base(p), "chobo-pg-") {
			return true
		}
	}
	return false
}
