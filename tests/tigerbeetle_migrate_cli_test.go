package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

const migrateBook = `book wallet v%d

unit pt

account wallet(member: string) : pt
  at least %s refused as over_limit
  at most %s refused as wallet_full
account bank : pt outside

transfer pay(id: string, member: string, amount: pt)
  key id
  move amount from bank to wallet(member)

transfer spend(id: string, member: string, amount: pt)
  key id
  move amount from wallet(member) to bank
`

func walletBook(t *testing.T, dir string, version int, lower, upper string) (string, *chobotb.Def) {
	t.Helper()
	text := strings.NewReplacer("%d", string(rune('0'+version)), "%s refused as over_limit", lower+" refused as over_limit",
		"%s refused as wallet_full", upper+" refused as wallet_full").Replace(migrateBook)
	path := filepath.Join(dir, "wallet.v"+string(rune('0'+version))+".book")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res := check.Errors(path, []byte(text))
	if res.Book == nil {
		t.Fatalf("%s: %v", text, res.Diags)
	}
	return path, tigerbeetle.Def(res.Book)
}

// chobo migrate on a real replica: v1 keeps wallets from -10 to 100, v2
// from -20 to 30. The wallet at 50 stands outside v2's 30: it is moved
// all the same and named; a second run moves nothing; the calls of a v2
// client answer by v2, the one outside as the interpreter does.
func TestTigerBeetleMigrateCommand(t *testing.T) {
	realTigerBeetle(t)
	if !cli.CanMigrate() {
		fmt.Println("SKIP: this chobo is built without TigerBeetle's client (no cgo): chobo migrate not run")
		t.Skip("chobo built without TigerBeetle's client")
	}
	srv := tbtest.Replica(t)
	dir := t.TempDir()
	_, d1 := walletBook(t, dir, 1, "-10", "100")
	v2, d2 := walletBook(t, dir, 2, "-20", "30")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b1 := chobotb.NewBook(srv.Client, d1, "")
	pay, spend := 0, 1
	do := func(b *chobotb.Book, kind int, key, member string, n int64) string {
		t.Helper()
		r, err := b.Call(ctx, kind, "do", chobotb.Values{key, member, n})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return r.String()
	}
	do(b1, pay, "p1", "rich", 50)
	do(b1, pay, "p2", "mid", 20)
	do(b1, spend, "s1", "low", 5)
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := cli.Main(append([]string{"migrate", v2, "--addresses", srv.Address}, args...),
			cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, ReadFile: os.ReadFile})
		return code, errb.String()
	}
	code, msg := run()
	if code != cli.ExitOK || !strings.Contains(msg, "1 accounts stand outside the narrowed bound") || !strings.Contains(msg, "at most 30, the account stands at 50") {
		t.Fatalf("exit %d:\n%s", code, msg)
	}
	b2 := chobotb.NewBook(srv.Client, d2, "")
	for _, c := range []struct {
		kind        int
		key, member string
		n           int64
		want        string
	}{
		{pay, "a", "mid", 11, "refused(wallet_full)"}, // 31 > 30
		{pay, "b", "mid", 10, "done"},
		{spend, "c", "low", 16, "refused(over_limit)"}, // -21 < -20
		{spend, "d", "low", 15, "done"},
		{pay, "e", "rich", 1, "refused(wallet_full)"}, // 50, further out
		{spend, "f", "rich", 10, "done"},              // back to 40, outside still
		{pay, "f2", "rich", 1, "refused(wallet_full)"},
		{spend, "g", "rich", 20, "done"}, // 20, inside
		{pay, "g2", "rich", 10, "done"},  // 30
	} {
		if got := do(b2, c.kind, c.key, c.member, c.n); got != c.want {
			t.Errorf("%s: %s, want %s", c.key, got, c.want)
		}
	}
	do(b2, spend, "g3", "rich", 10) // back to 20
	code, msg = run()
	if code != cli.ExitOK || !strings.Contains(msg, "0 floors and rooms moved") {
		t.Fatalf("a second run: exit %d:\n%s", code, msg)
	}
	if got := do(b2, pay, "h", "rich", 11); got != "refused(wallet_full)" {
		t.Fatalf("rich at 20: %s, want refused(wallet_full) under 30", got)
	}
	// Bad use: no address, a cluster id that is not one.
	var errb bytes.Buffer
	env := cli.Env{Stdout: &errb, Stderr: &errb, Getenv: func(string) string { return "" }, ReadFile: os.ReadFile}
	if code := cli.Main([]string{"migrate", v2}, env); code != cli.ExitUsage || !strings.Contains(errb.String(), "--addresses is required") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	errb.Reset()
	if code := cli.Main([]string{"migrate", v2, "--addresses", srv.Address, "--cluster", "-1"}, env); code != cli.ExitUsage || !strings.Contains(errb.String(), "not a cluster id") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// A migration on a real replica stopped after k requests and run again
// leaves what one uninterrupted run leaves.
func TestTigerBeetleMigrateStoppedPartWay(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	dir := t.TempDir()
	_, d1 := walletBook(t, dir, 1, "-10", "100")
	_, d2 := walletBook(t, dir, 2, "-20", "30")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b1 := chobotb.NewBook(srv.Client, d1, "")
	const n = 200
	for i := range n {
		if r, err := b1.Call(ctx, 0, "do", chobotb.Values{"p" + itoa(i), "m" + itoa(i), int64(i % 25)}); err != nil || r.String() != "done" {
			t.Fatal(r, err)
		}
	}
	stopped, stop := context.WithCancel(ctx)
	_, err := chobotb.Migrate(stopped, srv.Client.(chobotb.MigrateClient), d2, chobotb.MigrateOptions{Version: 2,
		Progress: func(p chobotb.MigrateProgress) {
			if p.Requests == 4 {
				stop()
			}
		}})
	stop()
	if err == nil {
		t.Fatal("a run stopped after 4 requests ended without an error")
	}
	r, err := chobotb.Migrate(ctx, srv.Client.(chobotb.MigrateClient), d2, chobotb.MigrateOptions{Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := chobotb.Migrate(ctx, srv.Client.(chobotb.MigrateClient), d2, chobotb.MigrateOptions{Version: 2}); err != nil || again.Changed != 0 {
		t.Fatalf("%+v %v", again, err)
	}
	b2 := chobotb.NewBook(srv.Client, d2, "")
	for i := range n {
		bal := int64(i % 25)
		if r, err := b2.Call(ctx, 0, "do", chobotb.Values{"q" + itoa(i), "m" + itoa(i), 30 - bal + 1}); err != nil || r.String() != "refused(wallet_full)" {
			t.Fatalf("m%d (%+v): %v %v", i, r, r, err)
		}
		if r, err := b2.Call(ctx, 1, "do", chobotb.Values{"s" + itoa(i), "m" + itoa(i), bal + 20}); err != nil || r.String() != "done" {
			t.Fatalf("m%d down to -20: %v %v", i, r, err)
		}
	}
	_ = r
}

// Calls through the Go client during a migration on a real replica
// answer by the old bound or the new one, never an error; the
// migration moves no balance, and each floor or room once.
func TestTigerBeetleMigrateWhileCalling(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	dir := t.TempDir()
	_, d1 := walletBook(t, dir, 1, "-10", "100")
	_, d2 := walletBook(t, dir, 2, "-10", "27")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b1 := chobotb.NewBook(srv.Client, d1, "")
	const n = 120
	for i := range n {
		if r, err := b1.Call(ctx, 0, "do", chobotb.Values{"p" + itoa(i), "m" + itoa(i), int64(25)}); err != nil || r.String() != "done" {
			t.Fatal(r, err)
		}
	}
	b2 := chobotb.NewBook(srv.Client, d2, "")
	done := map[int]int64{}
	calls := 0
	r, err := chobotb.Migrate(ctx, srv.Client.(chobotb.MigrateClient), d2, chobotb.MigrateOptions{Version: 2,
		Progress: func(chobotb.MigrateProgress) {
			i := calls * 7 % n
			calls++
			res, err := b2.Call(ctx, 0, "do", chobotb.Values{"w" + itoa(calls), "m" + itoa(i), int64(2)})
			switch {
			case err != nil:
				t.Errorf("a call during the migration: %v", err)
			case res.String() == "done":
				done[i] += 2
			case res.String() != "refused(wallet_full)":
				t.Errorf("a call during the migration: %s", res)
			}
		}})
	if err != nil && !errors.Is(err, chobotb.ErrLeft) {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, l := range r.Left {
		left[l.Account.Hex()] = true
	}
	if calls < 5 {
		t.Fatalf("only %d calls during the migration", calls)
	}
	for i := range n {
		bal, err := b2.Balance(ctx, 0, "m"+itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if bal.Posted != 25+done[i] {
			t.Fatalf("m%d at %d, want %d", i, bal.Posted, 25+done[i])
		}
		if bal.Posted > 27 {
			continue // left outside by a call under the old bound
		}
		if got, err := b2.Call(ctx, 0, "do", chobotb.Values{"f" + itoa(i), "m" + itoa(i), 27 - bal.Posted + 1}); err != nil || got.String() != "refused(wallet_full)" {
			t.Fatalf("m%d at %d: past 27: %v %v", i, bal.Posted, got, err)
		}
	}
	again, err := chobotb.Migrate(ctx, srv.Client.(chobotb.MigrateClient), d2, chobotb.MigrateOptions{Version: 2})
	if (err != nil && !errors.Is(err, chobotb.ErrLeft)) || again.Changed != 0 || len(again.Left) != len(r.Left) {
		t.Fatalf("a second run: %+v %v (first left %d)", again, err, len(r.Left))
	}
}
