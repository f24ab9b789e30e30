package tbtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
)

// fakeScript is a stand-in for the tigerbeetle binary: it writes each
// command line it is given to $FAKE_TB_LOG, "format" writes the data file
// (its last argument), and "start" notes its pid and then waits to be
// killed, as a replica would. FAKE_TB_START_FAILS makes start exit at once
// with that text on stderr; FAKE_TB_FORMAT_FAILS does the same for format.
const fakeScript = `#!/bin/sh
echo "$*" >> "$FAKE_TB_LOG"
for a in "$@"; do last="$a"; done
case "$1" in
format)
	if [ -n "$FAKE_TB_FORMAT_FAILS" ]; then echo "$FAKE_TB_FORMAT_FAILS" >&2; exit 1; fi
	echo data > "$last"
	echo "tmpdir=$TMPDIR" >> "$FAKE_TB_LOG"
	exit 0;;
start)
	if [ -n "$FAKE_TB_START_FAILS" ]; then echo "$FAKE_TB_START_FAILS" >&2; exit 1; fi
	echo $$ > "$FAKE_TB_LOG.pid"
	echo "info(main): 0: cluster=0: listening on 127.0.0.1"
	exec sleep 300;;
version)
	echo "TigerBeetle version fake"
	exit 0;;
esac
echo "unknown command $1" >&2
exit 2
`

type fakeTB struct {
	bin, log string
}

func newFake(t *testing.T) fakeTB {
	if runtime.GOOS == "windows" {
		t.Skip("SKIP: the fake tigerbeetle is a shell script")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tigerbeetle")
	if err := os.WriteFile(bin, []byte(fakeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls.log")
	t.Setenv("FAKE_TB_LOG", log)
	return fakeTB{bin, log}
}

func (f fakeTB) lines(t *testing.T) []string {
	b, err := os.ReadFile(f.log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// started waits for the fake's start to note its pid: the fake's stand-in
// for "answers a client request".
func (f fakeTB) started(ctx context.Context, s *Server) error {
	for {
		if _, err := os.Stat(f.log + ".pid"); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (f fakeTB) pid(t *testing.T) int {
	b, err := os.ReadFile(f.log + ".pid")
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

func TestFormatThenStartThenCleanup(t *testing.T) {
	f := newFake(t)
	s, err := launch(context.Background(), f.bin, 1, f.started)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(s.Dir, "0_0.tigerbeetle")
	if s.DataFile != data {
		t.Errorf("DataFile %s, want %s", s.DataFile, data)
	}
	host, port, err := net.SplitHostPort(s.Address)
	if err != nil || host != "127.0.0.1" || port == "0" {
		t.Errorf("Address %q", s.Address)
	}
	if s.Client == nil || s.Raw() == nil {
		t.Error("no client")
	}
	if s.Version != "TigerBeetle version fake" || s.Bin != f.bin {
		t.Errorf("Bin %q, Version %q", s.Bin, s.Version)
	}
	got := f.lines(t)
	want := []string{
		"version",
		"format --cluster=0 --replica=0 --replica-count=1 --development " + data,
		"tmpdir=" + s.Dir,
		"start --addresses=127.0.0.1:" + port + " --development --experimental --limit-pipeline-requests=56 " + data,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the fake ran\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(data); err != nil {
		t.Errorf("data file: %v", err)
	}
	pid := f.pid(t)
	if !alive(pid) {
		t.Fatalf("replica %d is not running", pid)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("replica %d still runs after Stop", pid)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there after Stop: %v", s.Dir, err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestFormatFails(t *testing.T) {
	f := newFake(t)
	t.Setenv("FAKE_TB_FORMAT_FAILS", "error: bad disk")
	before := tempDirs(t)
	_, err := launch(context.Background(), f.bin, 1, f.started)
	if err == nil || !strings.Contains(err.Error(), "bad disk") || !strings.Contains(err.Error(), "format") {
		t.Fatalf("%v", err)
	}
	if lines := f.lines(t); len(lines) != 2 {
		t.Errorf("ran %q after a failed format", lines)
	}
	checkNoNewTempDirs(t, before)
}

func TestStartExits(t *testing.T) {
	f := newFake(t)
	t.Setenv("FAKE_TB_START_FAILS", "error: something else")
	before := tempDirs(t)
	_, err := launch(context.Background(), f.bin, 1, f.started)
	if err == nil || !strings.Contains(err.Error(), "something else") || !strings.Contains(err.Error(), "exited before it answered") {
		t.Fatalf("%v", err)
	}
	checkNoNewTempDirs(t, before)
}

// A replica that stops at once because its port was taken is started again
// on another port.
func TestPortTakenIsRetried(t *testing.T) {
	f := newFake(t)
	t.Setenv("FAKE_TB_START_FAILS", "error: AddressInUse")
	_, err := launch(context.Background(), f.bin, 1, f.started)
	if err == nil || !strings.Contains(err.Error(), "port was taken") {
		t.Fatalf("%v", err)
	}
	starts := 0
	for _, l := range f.lines(t) {
		if strings.HasPrefix(l, "start ") {
			starts++
		}
	}
	if starts != 3 {
		t.Errorf("%d starts, want 3", starts)
	}
}

// With the real probe (an official client's request) and a "replica" that
// never answers, Launch gives up at its deadline and cleans up.
func TestNoAnswerTimesOut(t *testing.T) {
	f := newFake(t)
	before := tempDirs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := launch(ctx, f.bin, 1, probeLookup)
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("%v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %v", took)
	}
	pid := f.pid(t)
	if alive(pid) {
		t.Errorf("replica %d still runs", pid)
	}
	checkNoNewTempDirs(t, before)
}

func tempDirs(t *testing.T) map[string]bool {
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "chobo-tbreplica-*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range m {
		out[d] = true
	}
	return out
}

func checkNoNewTempDirs(t *testing.T, before map[string]bool) {
	t.Helper()
	for d := range tempDirs(t) {
		if !before[d] {
			t.Errorf("%s left behind", d)
		}
	}
}

func TestBin(t *testing.T) {
	outside := t.TempDir()
	if _, err := findBin("", outside); !errors.Is(err, ErrNoBinary) {
		t.Errorf("unset, outside a checkout: %v", err)
	}
	dir := t.TempDir()
	if _, err := findBin(dir, outside); err == nil || errors.Is(err, ErrNoBinary) {
		t.Errorf("a directory: %v", err)
	}
	// A binary the user names and that is not there is an error, never a skip.
	if _, err := findBin(filepath.Join(dir, "missing"), outside); err == nil || errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing: %v", err)
	}
	f := newFake(t)
	if got, err := findBin(f.bin, outside); err != nil || got != f.bin {
		t.Errorf("%q, %v", got, err)
	}

	// Without the variable: the shared server beside the checkout, found
	// from any folder inside it.
	top := t.TempDir()
	root := filepath.Join(top, "clone")
	sub := filepath.Join(root, "tests", "deeper")
	shared := filepath.Join(top, "shared", "tools", "tigerbeetle")
	for _, d := range []string{sub, shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/chobo-lang/chobo\n\ngo 1.25.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := findBin("", sub); !errors.Is(err, ErrNoBinary) {
		t.Errorf("no shared server yet: %v", err)
	}
	sharedBin := filepath.Join(shared, "tigerbeetle")
	if err := os.WriteFile(sharedBin, []byte(fakeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := findBin("", sub); err != nil || got != sharedBin {
		t.Errorf("shared: %q, %v", got, err)
	}
	// The variable wins over the shared server.
	if got, err := findBin(f.bin, sub); err != nil || got != f.bin {
		t.Errorf("named beside shared: %q, %v", got, err)
	}
	// Another module's go.mod is not chobo's checkout.
	other := filepath.Join(top, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := findBin("", other); !errors.Is(err, ErrNoBinary) {
		t.Errorf("another module: %v", err)
	}
}

// recordingTB records what Replica and Optional say; Skip ends the
// goroutine as testing.T's does.
type recordingTB struct {
	testing.TB
	logs, skips []string
}

func (r *recordingTB) Helper()         {}
func (r *recordingTB) Log(args ...any) { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recordingTB) Skip(args ...any) {
	r.skips = append(r.skips, fmt.Sprint(args...))
	runtime.Goexit()
}
func (r *recordingTB) Fatal(args ...any) { r.TB.Fatal(args...) }

func TestUnsetSkipsWithOneLine(t *testing.T) {
	t.Setenv(EnvVar, "")
	t.Chdir(t.TempDir()) // outside the checkout: no shared server either
	r := &recordingTB{TB: t}
	done := make(chan *Server)
	go func() {
		defer close(done)
		done <- Replica(r)
	}()
	if s := <-done; s != nil {
		t.Error("Replica returned a server")
	}
	if len(r.skips) != 1 || r.skips[0] != "SKIP: real TigerBeetle: CHOBO_TIGERBEETLE is not set and ../shared/tools/tigerbeetle/tigerbeetle is not there" || len(r.logs) != 0 {
		t.Errorf("skips %q, logs %q", r.skips, r.logs)
	}

	r = &recordingTB{TB: t}
	s, ok := Optional(r)
	if ok || s != nil {
		t.Error("Optional returned a server")
	}
	if len(r.logs) != 1 || r.logs[0] != SkipMessage || len(r.skips) != 0 {
		t.Errorf("skips %q, logs %q", r.skips, r.logs)
	}
}

// With CHOBO_TIGERBEETLE set, the real thing: the harness's client and a
// second one, through tbgo, on a fresh replica, checked against the
// results recorded on a real 0.17.9 replica (design 4.2). Skipped where no
// server exists.
func TestRealReplica(t *testing.T) {
	s := Replica(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := s.Client
	statuses := func(st []chobotb.Status, err error) []chobotb.Status {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	a := chobotb.Account{ID: ids.Sum("tbtest", "a"), Ledger: 1, Code: 1, Flags: chobotb.AccountDebitsMustNotExceedCredits}
	b := chobotb.Account{ID: ids.Sum("tbtest", "b"), Ledger: 1, Code: 1}
	expect(t, "create accounts", statuses(c.CreateAccounts(ctx, []chobotb.Account{a, b})), chobotb.Created, chobotb.Created)
	expect(t, "again", statuses(c.CreateAccounts(ctx, []chobotb.Account{a, b})), chobotb.Exists, chobotb.Exists)

	tr := func(key string, debit, credit ids.ID, amount uint64, flags uint16) chobotb.Transfer {
		return chobotb.Transfer{ID: ids.Sum("tbtest", key), DebitAccountID: debit, CreditAccountID: credit,
			Amount: chobotb.U64(amount), Ledger: 1, Code: 1, Flags: flags}
	}
	in := tr("in", b.ID, a.ID, 5, 0)
	expect(t, "receive 5", statuses(c.CreateTransfers(ctx, []chobotb.Transfer{in})), chobotb.Created)
	over := tr("over", a.ID, b.ID, 10, 0)
	expect(t, "take 10", statuses(c.CreateTransfers(ctx, []chobotb.Transfer{over})), chobotb.ExceedsCredits)
	expect(t, "take 10 again", statuses(c.CreateTransfers(ctx, []chobotb.Transfer{over})), chobotb.IDAlreadyFailed)
	in2 := in
	in2.Amount = chobotb.U64(6)
	expect(t, "receive 6 with the id of 5", statuses(c.CreateTransfers(ctx, []chobotb.Transfer{in2})), chobotb.ExistsWithDifferentAmount)
	expect(t, "chain", statuses(c.CreateTransfers(ctx, []chobotb.Transfer{
		tr("c1", b.ID, a.ID, 1, chobotb.TransferLinked),
		tr("c2", a.ID, a.ID, 1, 0),
	})), chobotb.LinkedEventFailed, chobotb.AccountsMustBeDifferent)

	hold := tr("hold", a.ID, b.ID, 2, chobotb.TransferPending)
	hold.Timeout = 60
	post := chobotb.Transfer{ID: ids.Sum("tbtest", "post"), PendingID: hold.ID, Amount: chobotb.AmountMax, Ledger: 1, Code: 1, Flags: chobotb.TransferPostPending}
	expect(t, "hold and post", statuses(c.CreateTransfers(ctx, []chobotb.Transfer{hold, post})), chobotb.Created, chobotb.Created)

	missing := ids.Sum("tbtest", "missing")
	accs, err := c.LookupAccounts(ctx, []ids.ID{b.ID, missing, a.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(accs) != 2 || accs[0].ID != b.ID || accs[1].ID != a.ID {
		t.Fatalf("lookup: %+v", accs)
	}
	gotA := accs[1]
	if gotA.CreditsPosted != chobotb.U64(5) || gotA.DebitsPosted != chobotb.U64(2) || !gotA.DebitsPending.IsZero() ||
		gotA.Flags != a.Flags || gotA.Ledger != 1 || gotA.Code != 1 || gotA.Timestamp == 0 {
		t.Errorf("account a: %+v", gotA)
	}
	trs, err := c.LookupTransfers(ctx, []ids.ID{over.ID, in.ID, hold.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 2 || trs[0].ID != in.ID || trs[1].ID != hold.ID {
		t.Fatalf("lookup transfers: %+v", trs)
	}
	if got := trs[0]; got.Amount != in.Amount || got.DebitAccountID != b.ID || got.CreditAccountID != a.ID || got.Timestamp == 0 {
		t.Errorf("transfer in: %+v", got)
	}
	if got := trs[1]; got.Timeout != 60 || got.Flags != chobotb.TransferPending {
		t.Errorf("hold: %+v", got)
	}

	// A --development replica takes a chain of chobotb.MaxEvents; one more
	// is refused by the official client before sending.
	chain := make([]chobotb.Transfer, chobotb.MaxEvents)
	for i := range chain {
		chain[i] = tr(fmt.Sprint("long", i), b.ID, a.ID, 1, chobotb.TransferLinked)
	}
	chain[len(chain)-1].Flags = 0
	st := statuses(c.CreateTransfers(ctx, chain))
	for i, s := range st {
		if s != chobotb.Created {
			t.Fatalf("long chain event %d: %s", i, s)
		}
	}
	raw := make([]tb.Transfer, chobotb.MaxEvents+1)
	for i := range raw {
		raw[i] = tbgo.TransferToTB(tr(fmt.Sprint("too long", i), b.ID, a.ID, 1, 0))
	}
	done := make(chan error, 1)
	go func() { _, err := s.Raw().CreateTransfers(raw); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, tb.ErrTooMuchData) {
			t.Errorf("%d events: %v", len(raw), err)
		}
	case <-ctx.Done():
		t.Fatal("no answer")
	}

	// Another client sees the same state.
	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	expect(t, "receive 5 from another client", statuses(conn.CreateTransfers(ctx, []chobotb.Transfer{in})), chobotb.Exists)
}

func expect(t *testing.T, what string, got []chobotb.Status, want ...chobotb.Status) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// Primary reads the latest "transition_to_normal … primary" line of the
// logs of this run of each replica.
func TestPrimaryFromTheLogs(t *testing.T) {
	dir := t.TempDir()
	logs := []string{
		"--- tbtest: start\n2026-12-01 10:00:01.000Z info(replica): 0n: transition_to_normal_from_recovering_status: view=0 backup\n" +
			"2026-12-01 10:00:05.000Z info(replica): 0n: transition_to_normal_from_view_change_status: view=3..3 primary\n",
		"--- tbtest: start\n2026-12-01 10:00:02.000Z info(replica): 1N: transition_to_normal_from_view_change_status: view=1..1 primary\n" +
			"2026-12-01 10:00:04.000Z info(replica): 1n: transition_to_normal_from_view_change_status: view=3..3 backup\n",
		"--- tbtest: start\n2026-12-01 10:00:09.000Z info(replica): 2N: transition_to_normal_from_view_change_status: view=5..5 primary\n" +
			"--- tbtest: start\n", // started again since: its earlier view does not count
	}
	s := &Server{}
	for i, text := range logs {
		p := filepath.Join(dir, fmt.Sprintf("%d.log", i))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		s.replicas = append(s.replicas, &replica{index: i, logPath: p})
	}
	if got := s.Primary(); got != 0 {
		t.Errorf("Primary() = %d, want 0", got)
	}
	if got := (&Server{}).Primary(); got != -1 {
		t.Errorf("no replicas: %d", got)
	}
}
