package chobotb_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// BenchmarkHold measures holds per second through chobotb.Book over the
// model behind an imitation network (tbmodel.Network) with a round trip
// of 500 µs, about what one request of one event costs against a real
// replica here (tigerbeetle-observations.md §4: 0.5–2 ms). Every caller
// holds from its own stock account (lower bound 0, so one event a hold)
// to its own customer; the accounts are made before the timer starts, so
// every hold is one create_transfers round trip unless packed with
// others. With Pack, requests that wait while one is in flight go
// together, as tigerbeetle-go 0.17.9 packs them.
//
// The figures measure the client runtime and the packing, not
// TigerBeetle: the model applies a request in microseconds.
func BenchmarkHold(b *testing.B) {
	for _, pack := range []bool{false, true} {
		for _, callers := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("pack=%v/callers=%d", pack, callers), func(b *testing.B) {
				benchHold(b, callers, pack)
			})
		}
	}
}

func benchHold(b *testing.B, callers int, pack bool) {
	m := tbmodel.New()
	// The model's pulse looks at every pending transfer on every request;
	// the holds pile up and would make the model the bottleneck. No hold
	// expires within a run anyway.
	m.SetPulse(false)
	net := tbmodel.NewNetwork(m, 500*time.Microsecond, pack)
	book := chobotb.NewBook(net, testDef(), "bench")
	kind := kindOf("hold", aStock, aCust)
	for i := range callers {
		s, c := fmt.Sprint("s", i), fmt.Sprint("c", i)
		r, err := book.Call(ctx, kindOf("do", aSupplier, aStock), "do", vals("fund-"+s, "x", s, 1<<40))
		if err != nil || r.Outcome != chobo.Done {
			b.Fatal(r, err)
		}
		// the first hold makes the customer's account
		if r, err := book.Call(ctx, kind, "hold", vals("warm-"+s, s, c, 1)); err != nil || r.Outcome != chobo.Done {
			b.Fatal(r, err)
		}
	}
	before := net.Stats()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := range callers {
		s, c := fmt.Sprint("s", i), fmt.Sprint("c", i)
		wg.Go(func() {
			for {
				j := next.Add(1)
				if j > int64(b.N) {
					return
				}
				r, err := book.Call(ctx, kind, "hold", vals(fmt.Sprint("h", j), s, c, 1))
				if err != nil || r.Outcome != chobo.Done {
					b.Error(r, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	after := net.Stats()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(after.RoundTrips-before.RoundTrips)/float64(b.N), "trips/op")
	b.ReportMetric(float64(after.MaxPacked), "max-packed")
	if trips := after.RoundTrips - before.RoundTrips; trips > 0 {
		b.ReportMetric(float64((after.InFlight-before.InFlight).Microseconds())/float64(trips), "µs/trip")
	}
}

// BenchmarkBoundedCall measures one do through chobotb.Book over the model
// (no network) for a move between two accounts with a floor and a room
// each (the longest layout: move, floor_net, floor_take, room_give,
// room_net, room_take, floor_give, key guard): the client's work and the
// model's per call, which the nettings add to.
func BenchmarkBoundedCall(b *testing.B) {
	d := testDef()
	m := tbmodel.New()
	bk := chobotb.NewBook(m, d, "")
	k := kindOf("do", aDst, aDst)
	if r, err := bk.Call(ctx, k, "do", vals("warm", "a", "b", 0)); err != nil || r.Outcome != chobo.Done {
		b.Fatal(r, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// 0 moves nothing, so no bound is ever reached however long the run.
		if r, err := bk.Call(ctx, k, "do", vals(fmt.Sprint("c", i), "a", "b", 0)); err != nil || r.Outcome != chobo.Done {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkEndHold measures one post or one void through chobotb.Book
// over the model (no network) of a hold between two accounts with a floor
// and a room each (move, floor_take, room_give, room_take, floor_give
// pending): the lookup of every place a layout may put the hold's events
// (six), reading the hold from what it finds, and the chain that ends
// them. The holds are made before the timer starts.
func BenchmarkEndHold(b *testing.B) {
	for _, op := range []string{"post", "void"} {
		b.Run(op, func(b *testing.B) {
			d := testDef()
			m := tbmodel.New()
			m.SetPulse(false)
			bk := chobotb.NewBook(m, d, "")
			k := kindOf("hold", aDst, aDst)
			for i := range b.N {
				// 0 holds nothing, so no bound is ever reached however long the run.
				if r, err := bk.Call(ctx, k, "hold", vals(fmt.Sprint("h", i), "a", "b", 0)); err != nil || r.Outcome != chobo.Done {
					b.Fatal(r, err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				key := chobotb.Values{fmt.Sprint("h", i)}
				var r chobo.Result
				var err error
				if op == "post" {
					r, err = bk.Post(ctx, k, key, nil)
				} else {
					r, err = bk.Void(ctx, k, key)
				}
				if err != nil || r.Outcome != chobo.Done {
					b.Fatal(r, err)
				}
			}
		})
	}
}

// accepting is a Client that answers every event created at once: what
// is left of a bulk call is the runtime's own work.
type accepting struct{}

func (accepting) CreateAccounts(_ context.Context, as []chobotb.Account) ([]chobotb.Status, error) {
	return created(len(as)), nil
}

func (accepting) CreateTransfers(_ context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	return created(len(ts)), nil
}

func (accepting) LookupAccounts(context.Context, []ids.ID) ([]chobotb.Account, error) {
	return nil, nil
}

func (accepting) LookupTransfers(context.Context, []ids.ID) ([]chobotb.Transfer, error) {
	return nil, nil
}

func created(n int) []chobotb.Status {
	st := make([]chobotb.Status, n)
	for i := range st {
		st[i] = chobotb.Created
	}
	return st
}

// BenchmarkBulkClientWork measures what the runtime spends on one call of
// a Bulk of MaxEvents calls, each a move into an account with a lower
// bound (one event, and the key guard), the server's part taken away: the
// ids, the chains, the packing and the reading of the answers. A raw
// request of as many transfers costs the official client the filling of
// its records alone; the difference is chobo's, per call.
func BenchmarkBulkClientWork(b *testing.B) {
	bk := chobotb.NewBook(accepting{}, testDef(), "bench")
	k := kindOf("do", aSupplier, aStock)
	ops := make([]chobotb.Op, chobotb.MaxEvents/2)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		for j := range ops {
			ops[j] = chobotb.Op{Kind: k, Op: "do", Values: vals(fmt.Sprint("c", i, "-", j), "x", fmt.Sprint("s", j%16), 1)}
		}
		answers, err := bk.Bulk(ctx, ops)
		if err != nil || answers[0].Err != nil || answers[0].Result.Outcome != chobo.Done {
			b.Fatal(answers[0], err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ops)), "ns/call")
}
