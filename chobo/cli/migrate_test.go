package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

const walletV1 = `book wallet v1
unit pt
account wallet(member: string) : pt
  at most 100 refused as wallet_full
account bank : pt outside
transfer pay(id: string, member: string, amount: pt)
  key id
  move amount from bank to wallet(member)
`

// migrateOn runs chobo migrate with args on m, with the dialer and the
// context the test gives, and returns the exit code and standard error.
func migrateOn(t *testing.T, m *tbmodel.Model, ctx context.Context, env map[string]string, args ...string) (int, string) {
	t.Helper()
	dial, mctx := dialTigerBeetle, migrateContext
	t.Cleanup(func() { dialTigerBeetle, migrateContext = dial, mctx })
	dialTigerBeetle = func(cluster chobotb.U128, addrs []string) (chobotb.MigrateClient, func(), error) {
		dialed = append(dialed, dialing{cluster, addrs})
		if addrs[0] == "unreachable" {
			return nil, nil, errors.New("no replica there")
		}
		return m, func() {}, nil
	}
	if m == nil {
		dialTigerBeetle = nil
	}
	migrateContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	var out, errb bytes.Buffer
	code := Main(args, Env{Stdout: &out, Stderr: &errb, ReadFile: os.ReadFile,
		Getenv: func(k string) string { return env[k] }})
	if out.Len() > 0 {
		t.Errorf("chobo migrate printed on standard output: %s", out.String())
	}
	return code, errb.String()
}

type dialing struct {
	cluster chobotb.U128
	addrs   []string
}

// dialed lists what migrateOn was asked to dial.
var dialed []dialing

func TestMigrateCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("v1.book", walletV1)
	v2 := write("v2.book", strings.NewReplacer("v1", "v2", "at most 100", "at most 30").Replace(walletV1))
	res := check.Errors("v1.book", []byte(walletV1))
	m := tbmodel.New()
	b := chobotb.NewBook(m, tigerbeetle.Def(res.Book), "")
	ctx := context.Background()
	for _, c := range []struct {
		key, member string
		n           int64
	}{{"p1", "rich", 50}, {"p2", "poor", 10}} {
		if r, err := b.Call(ctx, 0, "do", chobotb.Values{c.key, c.member, c.n}); err != nil || r.String() != "done" {
			t.Fatal(r, err)
		}
	}

	// rich at 50 stands outside 30: moved all the same, and named.
	code, msg := migrateOn(t, m, ctx, nil, "migrate", v2, "--addresses", "3000", "--lang", "ja")
	if code != ExitOK || !strings.Contains(msg, "狭めた境界の外") || !strings.Contains(msg, "wallet ") || !strings.Contains(msg, "揃いました") {
		t.Fatalf("exit %d:\n%s", code, msg)
	}
	if !strings.Contains(msg, "リクエスト") {
		t.Errorf("no progress:\n%s", msg)
	}
	b2 := chobotb.NewBook(m, tigerbeetle.Def(check.Errors("v2.book", []byte(strings.NewReplacer("v1", "v2", "at most 100", "at most 30").Replace(walletV1))).Book), "")
	if r, err := b2.Call(ctx, 0, "do", chobotb.Values{"p3", "rich", int64(1)}); err != nil || r.String() != "refused(wallet_full)" {
		t.Fatalf("rich at 50, outside 30, 1 more: %v %v", r, err)
	}
	if r, err := b2.Call(ctx, 0, "do", chobotb.Values{"p4", "poor", int64(21)}); err != nil || r.String() != "refused(wallet_full)" {
		t.Fatalf("poor moved to 30: %v %v", r, err)
	}

	// A second run moves nothing; the cluster and the replicas as given.
	dialed = nil
	code, msg = migrateOn(t, m, ctx, nil, "migrate", v2, "--addresses", "127.0.0.1:3000, 127.0.0.1:3001", "--cluster", "18446744073709551617")
	if code != ExitOK || !strings.Contains(msg, "0 floors and rooms moved") || strings.Contains(msg, "outside") {
		t.Fatalf("exit %d:\n%s", code, msg)
	}
	if len(dialed) != 1 || dialed[0].cluster != (chobotb.U128{Hi: 1, Lo: 1}) || strings.Join(dialed[0].addrs, " ") != "127.0.0.1:3000 127.0.0.1:3001" {
		t.Fatalf("dialed %+v", dialed)
	}

	// A stopped run says so; the replicas from TB_ADDRESS.
	stopped, stop := context.WithCancel(ctx)
	stop()
	code, msg = migrateOn(t, m, stopped, map[string]string{"TB_ADDRESS": "3000"}, "migrate", v2)
	if code != ExitUsage || !strings.Contains(msg, "stopped") {
		t.Fatalf("exit %d:\n%s", code, msg)
	}

	for _, c := range []struct {
		args []string
		env  map[string]string
		nil_ bool
		want string
	}{
		{[]string{"migrate", v2}, nil, false, "--addresses is required"},
		{[]string{"migrate", v2, "--addresses", "3000", "--cluster", "x"}, nil, false, "is not a cluster id"},
		{[]string{"migrate", v2, "--addresses", "3000", "--cluster", "340282366920938463463374607431768211456"}, nil, false, "is not a cluster id"},
		{[]string{"migrate", v2, "--addresses", "unreachable"}, nil, false, "cannot connect to TigerBeetle"},
		{[]string{"migrate", v2, "--addresses", "3000"}, nil, true, "built without TigerBeetle's client"},
		{[]string{"migrate", filepath.Join(dir, "none.book"), "--addresses", "3000"}, nil, false, "none.book"},
	} {
		var model *tbmodel.Model
		if !c.nil_ {
			model = m
		}
		code, msg := migrateOn(t, model, ctx, c.env, c.args...)
		if code != ExitUsage || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q:\n%s", c.args, code, c.want, msg)
		}
	}
}
