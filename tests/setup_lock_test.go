package tests

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSetupLockSays holds tests/setup/lock.sh to what a waiting setup
// prints: nothing when the lock is free, and when another setup holds it
// a line naming the lock and its holder as it starts to wait, then one
// when it has the lock.
func TestSetupLockSays(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("SKIP: no flock command")
	}
	script, err := filepath.Abs(filepath.Join("setup", "lock.sh"))
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(t.TempDir(), ".setup.lock")
	// The same log as bazel.sh's, so that the lines are the ones a setup prints.
	prelude := `log() { printf '[bazel.sh] %s\n' "$*" >&2; }; . "$1"; take_setup_lock "$2" /the/checkout; `

	holder := exec.Command("bash", "-c", prelude+`echo "$$"; read -r _ || true`, "holder", script, lock)
	var holderErr bytes.Buffer
	holder.Stderr = &holderErr
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the holder did not take the lock: %v\n%s", err, holderErr.String())
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the holder printed %q", line)
	}
	if holderErr.Len() != 0 {
		t.Errorf("a setup that did not wait printed %q", holderErr.String())
	}

	waiter := exec.Command("bash", "-c", prelude, "waiter", script, lock)
	var waiterErr syncBuffer
	waiter.Stderr = &waiterErr
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = waiter.Process.Kill() }()
	want := "[bazel.sh] waiting for the setup lock " + lock + ": another setup is installing (held by pid " + strconv.Itoa(pid) + " since "
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(waiterErr.String(), "waiting"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a setup waiting for the lock printed nothing in 20 s: %q", waiterErr.String())
		}
	}
	if got := waiterErr.String(); !strings.HasPrefix(got, want) || !strings.Contains(got, ", setting up /the/checkout)") {
		t.Errorf("the waiting setup printed\n%q\nwhich should start with\n%q\nand name what the holder sets up", got, want)
	}
	if strings.Contains(waiterErr.String(), "got the setup lock") {
		t.Fatal("the waiting setup says it has the lock while the holder still holds it")
	}
	stdin.Close()
	if err := holder.Wait(); err != nil {
		t.Fatalf("holder: %v\n%s", err, holderErr.String())
	}
	if err := waiter.Wait(); err != nil {
		t.Fatalf("waiter: %v\n%s", err, waiterErr.String())
	}
	lines := strings.Split(strings.TrimSpace(waiterErr.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "[bazel.sh] got the setup lock "+lock+" after ") || !strings.HasSuffix(lines[1], " s") {
		t.Errorf("once the holder is done, the waiter printed\n%s\nwhose second and last line should say it got the lock and after how long", waiterErr.String())
	}
}

// syncBuffer is a buffer a command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
