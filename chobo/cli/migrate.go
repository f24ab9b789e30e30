package cli

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/signal"
	"strings"

	tigerbeetle "github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// dialTigerBeetle connects to a cluster for `chobo migrate`. It is the
// official client where chobo was built with cgo (migrate_cgo.go); tests
// put the model here.
var dialTigerBeetle func(cluster chobotb.U128, addresses []string) (chobotb.MigrateClient, func(), error)

// migrateCommand is the table's entry for chobo migrate, kept beside the
// command it runs.
func migrateCommand() Command {
	return Command{
		Name: "migrate", Args: "<file.book> --addresses <addresses>",
		Summary: diag.T("move the floors and rooms of a TigerBeetle ledger onto a new version's bounds",
			"TigerBeetle の台帳のフロアとルームを、新しいバージョンの境界に移す"),
		Flags: []Flag{
			{Name: "addresses", Value: "<a,b,…>",
				Help: diag.T("the replicas of the cluster, as tigerbeetle start takes them (3000, 127.0.0.1:3000,…; default: $TB_ADDRESS)",
					"クラスターのレプリカ。tigerbeetle start と同じ書き方(3000、127.0.0.1:3000,…。既定は $TB_ADDRESS)")},
			{Name: "cluster", Value: "<id>",
				Help: diag.T("the cluster id (default: 0)", "クラスター ID(既定は 0)")},
			{Name: "tenant", Value: "<tenant>", Repeat: true,
				Help: diag.T("a tenant whose accounts to move (default: the tenant \"\" alone); may be given more than once",
					"勘定を動かすテナント(既定はテナント \"\" だけ)。何度でも指定できる")},
		},
		MinArgs: 1, MaxArgs: 1, Run: runMigrate,
	}
}

// CanMigrate reports whether this chobo can reach a TigerBeetle cluster:
// it was built with cgo, which TigerBeetle's official client needs, and
// with that client.
func CanMigrate() bool { return dialTigerBeetle != nil }

// migrateContext is what a migration runs under: cancelled by an
// interrupt, so that a run stopped by the user says where it stopped.
var migrateContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

func runMigrate(inv *Invocation) int {
	env := inv.Env
	name := inv.Args[0]
	b, code := loadBook(inv, name)
	if b == nil {
		return code
	}
	list, cluster, ok := migrateTarget(inv)
	if !ok {
		return ExitUsage
	}
	if dialTigerBeetle == nil {
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			"chobo migrate: this chobo was built without TigerBeetle's client, which needs cgo (the chobo Bazel builds has none): build chobo with go build and cgo (CGO_ENABLED=1 and a C compiler) to migrate",
			"chobo migrate: この chobo は TigerBeetle のクライアントなしでビルドされています(クライアントには cgo が要り、Bazel がビルドする chobo にはありません)。移行するには go build で cgo あり(CGO_ENABLED=1 と C コンパイラ)で chobo をビルドしてください").In(inv.Lang))
		return ExitUsage
	}
	c, closeClient, err := dialTigerBeetle(cluster, list)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo migrate: cannot connect to TigerBeetle at %s: %v", strings.Join(list, ","), err),
			fmt.Sprintf("chobo migrate: %s の TigerBeetle につなげません: %v", strings.Join(list, ","), err)).In(inv.Lang))
		return ExitUsage
	}
	defer closeClient()
	ctx, cancel := migrateContext()
	defer cancel()
	tenants := inv.Lists["tenant"]
	progress := func(p chobotb.MigrateProgress) {
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo migrate: %d accounts seen, %d floors and rooms moved, %d requests", p.Seen, p.Changed, p.Requests),
			fmt.Sprintf("chobo migrate: 勘定 %d 件を読み、フロアとルーム %d 件を動かし、リクエスト %d 回", p.Seen, p.Changed, p.Requests)).In(inv.Lang))
	}
	r, err := chobotb.Migrate(ctx, c, tigerbeetle.Def(b), chobotb.MigrateOptions{Version: b.Version, Tenants: tenants, Progress: progress})
	progress(r.MigrateProgress)
	return migrateOutcome(ctx, inv, b.Name, b.Version, r, err)
}

// migrateTarget reads the cluster chobo migrate reaches: its replicas
// (--addresses, else TB_ADDRESS) and its id. A usage error is printed
// and ok is false.
func migrateTarget(inv *Invocation) (list []string, cluster chobotb.U128, ok bool) {
	env := inv.Env
	addrs := inv.Flags["addresses"]
	if addrs == "" && env.Getenv != nil {
		addrs = env.Getenv("TB_ADDRESS")
	}
	if addrs == "" {
		usageError(env, inv.Cmd, inv.Lang, diag.T("--addresses is required (or TB_ADDRESS)", "--addresses が要ります(または TB_ADDRESS)"))
		return nil, cluster, false
	}
	for _, a := range strings.Split(addrs, ",") {
		if a = strings.TrimSpace(a); a != "" {
			list = append(list, a)
		}
	}
	if s, ok := inv.Flags["cluster"]; ok {
		v, ok := new(big.Int).SetString(s, 10)
		if ok {
			cluster, ok = chobotb.U128Of(v)
		}
		if !ok {
			usageError(env, inv.Cmd, inv.Lang, diag.T(
				fmt.Sprintf("--cluster %q is not a cluster id: a whole number from 0 to 2^128-1", s),
				fmt.Sprintf("--cluster %q はクラスター ID ではありません(0 から 2^128-1 までの整数)", s)))
			return nil, cluster, false
		}
	}
	return list, cluster, true
}

// migrateOutcome says how a migration ended and gives its exit code.
func migrateOutcome(ctx context.Context, inv *Invocation, book string, version int, r chobotb.MigrateReport, err error) int {
	env := inv.Env
	// Accounts moved onto a bound they stand outside: told, not an error.
	for _, o := range r.Outside {
		fmt.Fprintf(env.Stderr, "chobo migrate: %s\n", o)
	}
	if n := len(r.Outside); n > 0 {
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo migrate: %d accounts stand outside the narrowed bound: calls that take them further out are refused with the bound's reason, calls that bring them back are done, and once inside the bound holds", n),
			fmt.Sprintf("chobo migrate: 勘定 %d 件が狭めた境界の外にあります。さらに外へ出す呼び出しは境界の理由で拒否され、戻す呼び出しは通り、内側に入ればあとは境界のとおりです", n)).In(inv.Lang))
	}
	switch {
	case err == nil:
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo migrate: every account of %s v%d keeps the book's bounds", book, version),
			fmt.Sprintf("chobo migrate: %s v%d の勘定はどれも帳簿の境界に揃いました", book, version)).In(inv.Lang))
		return ExitOK
	case errors.Is(err, chobotb.ErrLeft):
		for _, o := range r.Left {
			fmt.Fprintf(env.Stderr, "chobo migrate: %s\n", o)
		}
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo migrate: %d accounts have holds open from before the bound; they keep the bound they had, every other account was moved. Run chobo migrate again once those holds have ended", len(r.Left)),
			fmt.Sprintf("chobo migrate: 勘定 %d 件には境界より前の仮押さえが残っています。これらは元の境界のままで、ほかの勘定は動かしました。その仮押さえが終わってから、もう一度 chobo migrate を実行してください", len(r.Left))).In(inv.Lang))
		return ExitError
	case ctx.Err() != nil:
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			"chobo migrate: stopped; every floor and room holds its old bound or its new one, and running chobo migrate again finishes the rest",
			"chobo migrate: 止めました。フロアとルームはどれも元の境界か新しい境界のどちらかです。もう一度 chobo migrate を実行すれば残りを終えます").In(inv.Lang))
		return ExitUsage
	default:
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo migrate: %v; running it again goes on from where it stopped", err),
			fmt.Sprintf("chobo migrate: %v。もう一度実行すれば止まったところから続けます", err)).In(inv.Lang))
		return ExitUsage
	}
}
