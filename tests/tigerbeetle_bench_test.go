package tests

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

const benchBook = `book benchwallet v1

unit pt

account wallet(member: string) : pt
  at least -1000000000 refused as over_limit
  at most 1000000000 refused as wallet_full
account bank : pt outside

transfer pay(id: string, member: string, amount: pt)
  key id
  move amount from bank to wallet(member)

transfer swap(id: string, a: string, b: string, amount: pt)
  key id
  move amount from wallet(a) to wallet(b)

transfer lend(id: string, a: string, b: string, amount: pt)
  key id
  pending expires after 1 hour
  move amount from wallet(a) to wallet(b)
`

var benchRuns int

// BenchmarkTigerBeetleBoundedCalls sends calls one after the other to a
// real replica, each a chain through a room (pay: move, room_net,
// room_take) or through a floor and a room on both sides (swap: move,
// floor_net, floor_take, room_give, room_net, room_take, floor_give, and
// the key guard): what a call of a bounded kind costs, end to end.
func BenchmarkTigerBeetleBoundedCalls(b *testing.B) {
	if _, err := tbtest.Bin(); err != nil {
		b.Skip(err)
	}
	srv := tbtest.Replica(b)
	res := check.Errors("bench.book", []byte(benchBook))
	if res.Book == nil {
		b.Fatal(res.Diags)
	}
	d := tigerbeetle.Def(res.Book)
	ctx := context.Background()
	for _, k := range []struct {
		name string
		kind int
		vals func(i int) chobotb.Values
	}{
		{"pay", 0, func(i int) chobotb.Values {
			return chobotb.Values{"p" + strconv.Itoa(i), "m" + strconv.Itoa(i%8), int64(1)}
		}},
		{"swap", 1, func(i int) chobotb.Values {
			return chobotb.Values{"s" + strconv.Itoa(i), "m" + strconv.Itoa(i%8), "m" + strconv.Itoa((i+1)%8), int64(1)}
		}},
	} {
		b.Run(k.name, func(b *testing.B) {
			benchRuns++ // every run its own tenant: its own keys and accounts
			bk := chobotb.NewBook(srv.Client, d, fmt.Sprint("t", benchRuns))
			if r, err := bk.Call(ctx, k.kind, "do", k.vals(-1)); err != nil || r.String() != "done" {
				b.Fatal(r, err)
			}
			b.ResetTimer()
			for i := range b.N {
				if r, err := bk.Call(ctx, k.kind, "do", k.vals(i)); err != nil || r.String() != "done" {
					b.Fatal(r, err)
				}
			}
		})
	}
}

// BenchmarkTigerBeetleEndHold posts or voids, one after the other on a
// real replica, holds through a floor and a room on both sides (lend:
// move, floor_take, room_give, room_take, floor_give pending), made
// before the timer starts: one lookup_transfers of every place a layout
// may put a hold's events, then the chain that ends those found.
func BenchmarkTigerBeetleEndHold(b *testing.B) {
	if _, err := tbtest.Bin(); err != nil {
		b.Skip(err)
	}
	srv := tbtest.Replica(b)
	res := check.Errors("bench.book", []byte(benchBook))
	if res.Book == nil {
		b.Fatal(res.Diags)
	}
	d := tigerbeetle.Def(res.Book)
	ctx := context.Background()
	for _, op := range []string{"post", "void"} {
		b.Run(op, func(b *testing.B) {
			benchRuns++
			bk := chobotb.NewBook(srv.Client, d, fmt.Sprint("t", benchRuns))
			var ops []chobotb.Op
			for i := range b.N {
				ops = append(ops, chobotb.Op{Kind: 2, Op: "hold", Values: chobotb.Values{"h" + strconv.Itoa(i), "m" + strconv.Itoa(i%8), "m" + strconv.Itoa((i+1)%8), int64(1)}})
			}
			as, err := bk.Bulk(ctx, ops)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range as {
				if a.Err != nil || a.Result.String() != "done" {
					b.Fatal(a.Result, a.Err)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				key := chobotb.Values{"h" + strconv.Itoa(i)}
				var r fmt.Stringer
				if op == "post" {
					r, err = bk.Post(ctx, 2, key, nil)
				} else {
					r, err = bk.Void(ctx, 2, key)
				}
				if err != nil || r.String() != "done" {
					b.Fatal(r, err)
				}
			}
		})
	}
}
