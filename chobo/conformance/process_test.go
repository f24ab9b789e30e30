package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/target"
)

// fakeEnv makes this test binary, started again by a test below, a fake
// driver that misbehaves in the way the value names.
const fakeEnv = "CHOBO_FAKE_DRIVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeDriver(mode))
	}
	os.Exit(m.Run())
}

// fakeDriver speaks the protocol by hand, so the runner side is tested
// against the wire format and not against the Go driver's reading of it.
//
//	ok        answers a call done, or refused with the reason in its
//	          "reason" argument, or fails it when it has an "error" one;
//	          holds back the answer to a call whose "wait" argument is
//	          "yes" until the next call has been answered; answers a
//	          read of the history with an error, as a driver that
//	          knows none does
//	echo      refuses every call with its request line as the reason
//	garbage   writes a line that is not JSON for the first call
//	exit      exits 3 at the first call, saying why on stderr
//	stranger  answers the first call with an id never asked
//	refuse    answers open with an error
//	linger    exits 4 at the end of stdin
func fakeDriver(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	var mu sync.Mutex
	write := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		b, _ := json.Marshal(v)
		os.Stdout.Write(append(b, '\n'))
	}
	var held []map[string]any // answers held back
	for in.Scan() {
		line := in.Text()
		var req protocol.Request
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			fmt.Fprintf(os.Stderr, "fake: bad request %q\n", line)
			return 2
		}
		if req.Op == protocol.Open {
			if mode == "refuse" {
				write(map[string]any{"id": req.ID, "error": "no such database"})
				continue
			}
			write(map[string]any{"id": req.ID, "ok": true, "client": "fake-" + mode})
			continue
		}
		switch mode {
		case "garbage":
			fmt.Fprintln(os.Stderr, "fake: about to write garbage")
			fmt.Println("this is not JSON")
			continue
		case "exit":
			fmt.Fprintln(os.Stderr, "fake: the client panicked: out of cheese")
			return 3
		case "stranger":
			write(map[string]any{"id": req.ID + 100, "outcome": "done"})
			continue
		case "echo":
			write(map[string]any{"id": req.ID, "outcome": "refused", "reason": line})
			continue
		}
		var res map[string]any
		switch {
		case req.Op == protocol.Expire:
			res = map[string]any{"id": req.ID, "expired": 0}
		case slices.Contains([]string{protocol.Statement, protocol.Entries, protocol.Holds, protocol.BalanceAt}, req.Op):
			// As a driver that knows no history answers.
			res = map[string]any{"id": req.ID, "error": fmt.Sprintf("unknown op %q", req.Op)}
		case req.Op == protocol.Balance:
			res = map[string]any{"id": req.ID, "posted": "9223372036854775807", "held_in": "0", "held_out": "2"}
		case req.Operation == "status":
			res = map[string]any{"id": req.ID, "state": ""}
		case req.Args["error"] != "":
			res = map[string]any{"id": req.ID, "error": req.Args["error"]}
		case req.Args["reason"] != "":
			res = map[string]any{"id": req.ID, "outcome": "refused", "reason": req.Args["reason"]}
		default:
			res = map[string]any{"id": req.ID, "outcome": "done"}
		}
		if req.Args["wait"] == "yes" {
			held = append(held, res)
			continue
		}
		write(res)
		for _, h := range held {
			write(h)
		}
		held = nil
	}
	if mode == "linger" {
		fmt.Fprintln(os.Stderr, "fake: unhappy at the end")
		return 4
	}
	return 0
}

// nobody is a Reader for tests that never read the ledger.
type nobody struct{}

func (nobody) Ledger(context.Context, string) ([]string, []string, error) { return nil, nil, nil }
func (nobody) HeldPastDeadline(context.Context, string) (bool, error)     { return false, nil }

func startFake(t *testing.T, mode string) *Process {
	t.Helper()
	p, err := tryFake(mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func tryFake(mode string) (*Process, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), fakeEnv+"="+mode)
	return StartProcess(cmd, "shop.book", "host=/nowhere", nobody{})
}

const shop = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account world : pcs outside
transfer reserve(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 30 minutes
  move qty from stock(sku) to world
`

func shopBook(t *testing.T) *book.Book {
	t.Helper()
	res := check.Check("shop.book", []byte(shop))
	if res.Book == nil {
		t.Fatalf("the test book does not check: %+v", res.Diags)
	}
	return res.Book
}

func hold(b *book.Book, strs map[string]string, qty int64) interp.Call {
	return interp.Call{Transfer: b.Transfer("reserve"), Op: book.Hold, Strings: strs, Amounts: map[string]int64{"qty": qty}}
}

func TestProcessWritesTheDocumentedRequest(t *testing.T) {
	b := shopBook(t)
	p := startFake(t, "echo")
	if p.Client() != "fake-echo" {
		t.Errorf("Client() = %q", p.Client())
	}
	r, err := p.Call(context.Background(), hold(b, map[string]string{"order": "o-1", "sku": "A-1"}, 3), "t")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"op":"call","tenant":"t","transfer":"reserve","operation":"hold","args":{"order":"o-1","qty":"3","sku":"A-1"}}`
	if r.Reason != want {
		t.Errorf("the request as written:\n got  %s\n want %s", r.Reason, want)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestProcessAnswersOutOfOrder(t *testing.T) {
	b := shopBook(t)
	p := startFake(t, "ok")
	ctx := context.Background()
	// The first call's answer is held back until the second is answered:
	// each must still get its own.
	first := make(chan string, 1)
	go func() {
		r, err := p.Call(ctx, hold(b, map[string]string{"order": "o-1", "sku": "A-1", "wait": "yes", "reason": "first"}, 1), "t")
		first <- ShortResult(r, err)
	}()
	// Let the first request go out before the second.
	time.Sleep(100 * time.Millisecond)
	r, err := p.Call(ctx, hold(b, map[string]string{"order": "o-2", "sku": "A-1", "reason": "second"}, 1), "t")
	if got := ShortResult(r, err); got != "refused: second" {
		t.Errorf("second call: %s (%v)", got, err)
	}
	select {
	case got := <-first:
		if got != "refused: first" {
			t.Errorf("first call: %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first call never got its answer")
	}

	// A call the driver fails is a failed call, not a broken driver.
	_, err = p.Call(ctx, hold(b, map[string]string{"order": "o-3", "sku": "A-1", "error": "the client said no"}, 1), "t")
	var de *DriverError
	if err == nil || errors.As(err, &de) || err.Error() != "the client said no" {
		t.Errorf("a failed call: %v", err)
	}
	if left, err := p.Expire(ctx, "t"); left || err != nil {
		t.Errorf("Expire: %v %v", left, err)
	}
	bal, err := p.Balance(ctx, "t", "stock", map[string]string{"sku": "A-1"})
	if err != nil || bal != (interp.Balance{Posted: 1<<63 - 1, HeldOut: 2}) {
		t.Errorf("Balance: %+v %v", bal, err)
	}
	state, err := p.Status(ctx, interp.Call{Transfer: b.Transfer("reserve"), Op: "status", Strings: map[string]string{"order": "o-9", "sku": "A-1"}}, "t")
	if state != "" || err != nil {
		t.Errorf("Status: %q %v", state, err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// brokenDriver checks that every call on a broken driver gets one and
// the same *DriverError, saying what went wrong and what the driver said.
func brokenDriver(t *testing.T, mode, msg, stderr string) {
	t.Helper()
	b := shopBook(t)
	p := startFake(t, mode)
	ctx := context.Background()
	_, err := p.Call(ctx, hold(b, map[string]string{"order": "o-1", "sku": "A-1"}, 1), "t")
	var de *DriverError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want a *DriverError", err)
	}
	if !strings.Contains(de.Msg, msg) || !strings.Contains(de.Stderr, stderr) {
		t.Errorf("got %q with stderr %q, want %q and %q", de.Msg, de.Stderr, msg, stderr)
	}
	if !strings.Contains(err.Error(), stderr) {
		t.Errorf("the error does not show the driver's stderr: %v", err)
	}
	_, again := p.Call(ctx, hold(b, map[string]string{"order": "o-2", "sku": "A-1"}, 1), "t")
	if again != err {
		t.Errorf("the next call: %v, want the same error", again)
	}
	if cerr := p.Close(); cerr != err {
		t.Errorf("Close: %v, want the same error", cerr)
	}
}

func TestProcessDriverWritesGarbage(t *testing.T) {
	brokenDriver(t, "garbage", "not a JSON object", "fake: about to write garbage")
}

func TestProcessDriverExits(t *testing.T) {
	brokenDriver(t, "exit", "exit status 3", "out of cheese")
}

func TestProcessDriverAnswersAStranger(t *testing.T) {
	brokenDriver(t, "stranger", "never asked", "")
}

func TestProcessOpenRefused(t *testing.T) {
	_, err := tryFake("refuse")
	var de *DriverError
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "no such database") {
		t.Errorf("got %v, want a *DriverError with the driver's reason", err)
	}
}

func TestProcessCloseReportsAnUnhappyExit(t *testing.T) {
	p, err := tryFake("linger")
	if err != nil {
		t.Fatal(err)
	}
	err = p.Close()
	if err == nil || !strings.Contains(err.Error(), "exit status 4") || !strings.Contains(err.Error(), "unhappy at the end") {
		t.Errorf("Close: %v", err)
	}
}

func TestProcessNoSuchProgram(t *testing.T) {
	_, err := StartProcess(exec.Command("/nonexistent/driver"), "shop.book", "", nobody{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/driver") {
		t.Errorf("got %v", err)
	}
}

// reporter collects what RunAll reports.
type reporter struct {
	mu     sync.Mutex
	errors []string
}

func (r *reporter) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *reporter) Logf(string, ...any) {}

func TestRunAllStopsAtABrokenDriver(t *testing.T) {
	b := shopBook(t)
	p := startFake(t, "exit")
	var jobs []Job
	sc := scenario.Generate(b)[0]
	for i := range 3 {
		jobs = append(jobs, Job{Where: "shop.book", Book: b, Scenario: sc, Backend: p, Tenant: fmt.Sprint(i)})
	}
	var r reporter
	RunAll(&r, jobs)
	if len(r.errors) != 3 {
		t.Fatalf("got %d errors, want one per scenario: %q", len(r.errors), r.errors)
	}
	full := 0
	for _, e := range r.errors {
		if strings.Contains(e, "differs from the interpreter") {
			t.Errorf("a broken driver read as a difference: %s", e)
		}
		if strings.Contains(e, "out of cheese") {
			full++
		}
	}
	if full != 1 {
		t.Errorf("the driver's stderr shown %d times, want once: %q", full, r.errors)
	}
}

// Open carries what `chobo api` says of the target, under the keys the
// drivers read, and nothing for a target chobo build does not know.
func TestOpenCarriesTheTargetsNames(t *testing.T) {
	b := shopBook(t)
	for _, c := range []struct {
		target, constructor string
	}{
		{"postgres-go", "Postgres"},
		{"tigerbeetle-go", "TigerBeetle"},
	} {
		open, err := Open(b, c.target)
		if err != nil {
			t.Errorf("%s: %v", c.target, err)
			continue
		}
		var names struct {
			Constructor string `json:"constructor"`
			Transfers   []struct {
				Transfer string `json:"transfer"`
			} `json:"transfers"`
		}
		if err := json.Unmarshal(open.Names, &names); err != nil {
			t.Errorf("%s: the names are not an object: %v", c.target, err)
		}
		if open.Op != "open" || open.Target != c.target || names.Constructor != c.constructor || len(names.Transfers) != 1 || names.Transfers[0].Transfer != "reserve" {
			t.Errorf("%s: got %s %s, names %s", c.target, open.Op, open.Target, open.Names)
		}
		line, _ := json.Marshal(open)
		if !strings.Contains(string(line), `"target":"`+c.target+`","names":{`) {
			t.Errorf("%s: written as %s", c.target, line)
		}
	}
	// Every client target of the registry: its names are what `chobo
	// api` says of it, whatever its language calls things.
	for _, tg := range target.All {
		if tg.Client() == nil {
			continue
		}
		open, err := Open(b, tg.Name)
		if err != nil {
			t.Errorf("%s: %v", tg.Name, err)
			continue
		}
		want, _ := json.Marshal(api.TargetsOf(b).Client(tg.Name))
		if open.Target != tg.Name || string(open.Names) != string(want) || !strings.Contains(string(open.Names), `"constructor":"`) {
			t.Errorf("%s: names %s, chobo api says %s", tg.Name, open.Names, want)
		}
	}
	if _, err := Open(b, "cobol"); err == nil {
		t.Error("a target chobo build does not know was opened")
	}
}
