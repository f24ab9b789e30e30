package tbmodel

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Network is a chobotb.Client that puts Inner behind an imitation of one
// client session talking to one replica over a network, for tests and
// benchmarks of how requests queue and pack. It is not a model of
// TigerBeetle's networking: no loss, no reordering, no retries.
//
//   - At most one request is in flight, as a TigerBeetle client session
//     allows. A request that comes while one is in flight waits.
//   - Every round trip costs RoundTrip, after which the events are applied
//     to Inner and the answers delivered. The wait is a sleep for all but
//     the last 2 ms and a yielding spin for those, because a sleep of
//     less than the host's timer granularity (about 1.1 ms on some
//     virtual machines) lasts the whole granularity.
//   - With Pack, the requests of one operation that waited while a round
//     trip was in flight go together in the next round trip, as
//     tigerbeetle-go 0.17.9's tb_client packs them: each request stays its
//     own sub-batch, applied to Inner as its own call, one after another
//     in the order they came, with its own statuses, so a linked chain
//     never crosses into another caller's events. A round trip carries at
//     most Limit events (chobotb.MaxEvents when 0); a request that does not
//     fit waits for the next one. Without Pack, every request is a round
//     trip of its own, in the order they came.
//
// A request of more than Limit events (chobotb.MaxEvents when 0) is
// refused with ErrTooMuchData before it is sent, as the official client
// refuses one its cluster does not take. A
// call whose context ends while it waits is withdrawn and never applied;
// one whose context ends while it is in flight returns ctx's error at once
// and may still be applied, as with the official client.
//
// The zero value, with Inner set, is ready to use; do not copy a Network
// once used. It is safe for concurrent use when Inner is.
type Network struct {
	Inner     chobotb.Client
	RoundTrip time.Duration
	Pack      bool
	Limit     int // the most events a request or round trip carries; 0 is chobotb.MaxEvents

	mu    sync.Mutex
	busy  bool
	queue []*netCall
	stats NetworkStats
}

var _ chobotb.Client = (*Network)(nil)

// NewNetwork returns a Network over inner.
func NewNetwork(inner chobotb.Client, roundTrip time.Duration, pack bool) *Network {
	return &Network{Inner: inner, RoundTrip: roundTrip, Pack: pack}
}

// NetworkStats counts what went over a Network.
type NetworkStats struct {
	Requests   int           // requests sent (withdrawn and refused ones not counted)
	RoundTrips int           // round trips made
	MaxPacked  int           // the most requests one round trip carried
	InFlight   time.Duration // the time round trips were in flight, applying included
}

// Stats returns the counts so far.
func (n *Network) Stats() NetworkStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stats
}

// waiting is how many requests wait for a round trip (for tests).
func (n *Network) waiting() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.queue)
}

type netCall struct {
	op     Op
	events int
	ctx    context.Context
	apply  func(context.Context) // sends the request to Inner and keeps its answer
	done   chan struct{}
}

// send queues c and waits for its answer or for ctx to end.
func (n *Network) send(ctx context.Context, c *netCall) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.events > n.limit() {
		return ErrTooMuchData
	}
	c.ctx, c.done = ctx, make(chan struct{})
	n.mu.Lock()
	n.queue = append(n.queue, c)
	n.start()
	n.mu.Unlock()
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
	}
	n.mu.Lock()
	if i := slices.Index(n.queue, c); i >= 0 {
		n.queue = slices.Delete(n.queue, i, i+1)
	}
	n.mu.Unlock()
	return fmt.Errorf("tbmodel: network: %s of %d events: %w", c.op, c.events, ctx.Err())
}

// start begins the next round trip when none is in flight and a request
// waits. n.mu is held.
func (n *Network) start() {
	if n.busy || len(n.queue) == 0 {
		return
	}
	first := n.queue[0]
	trip := []*netCall{first}
	rest := n.queue[:0:0]
	if n.Pack {
		limit := n.limit()
		events := first.events
		for _, c := range n.queue[1:] {
			if c.op == first.op && events+c.events <= limit {
				trip = append(trip, c)
				events += c.events
			} else {
				rest = append(rest, c)
			}
		}
	} else {
		rest = append(rest, n.queue[1:]...)
	}
	n.queue = rest
	n.busy = true
	n.stats.Requests += len(trip)
	n.stats.RoundTrips++
	n.stats.MaxPacked = max(n.stats.MaxPacked, len(trip))
	go n.fly(trip)
}

// fly makes one round trip.
func (n *Network) fly(trip []*netCall) {
	start := time.Now()
	pause(n.RoundTrip)
	for _, c := range trip {
		// Once sent, a request is applied whether or not its caller still waits.
		c.apply(context.WithoutCancel(c.ctx))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range trip {
		close(c.done)
	}
	n.busy = false
	n.stats.InFlight += time.Since(start)
	n.start()
}

// spin is how much of a pause is spent yielding instead of sleeping.
const spin = 2 * time.Millisecond

// pause waits d: a sleep, then a spin that yields to other goroutines.
func pause(d time.Duration) {
	end := time.Now().Add(d)
	if d > spin {
		time.Sleep(d - spin)
	}
	for time.Now().Before(end) {
		runtime.Gosched()
	}
}

// CreateAccounts implements chobotb.Client.
func (n *Network) CreateAccounts(ctx context.Context, accounts []chobotb.Account) ([]chobotb.Status, error) {
	sent := slices.Clone(accounts)
	var st []chobotb.Status
	var err error
	c := &netCall{op: OpCreateAccounts, events: len(sent), apply: func(ctx context.Context) {
		st, err = n.Inner.CreateAccounts(ctx, sent)
	}}
	if e := n.send(ctx, c); e != nil {
		return nil, e
	}
	return st, err
}

// CreateTransfers implements chobotb.Client.
func (n *Network) CreateTransfers(ctx context.Context, transfers []chobotb.Transfer) ([]chobotb.Status, error) {
	sent := slices.Clone(transfers)
	var st []chobotb.Status
	var err error
	c := &netCall{op: OpCreateTransfers, events: len(sent), apply: func(ctx context.Context) {
		st, err = n.Inner.CreateTransfers(ctx, sent)
	}}
	if e := n.send(ctx, c); e != nil {
		return nil, e
	}
	return st, err
}

// LookupAccounts implements chobotb.Client.
func (n *Network) LookupAccounts(ctx context.Context, idList []ids.ID) ([]chobotb.Account, error) {
	sent := slices.Clone(idList)
	var found []chobotb.Account
	var err error
	c := &netCall{op: OpLookupAccounts, events: len(sent), apply: func(ctx context.Context) {
		found, err = n.Inner.LookupAccounts(ctx, sent)
	}}
	if e := n.send(ctx, c); e != nil {
		return nil, e
	}
	return found, err
}

// LookupTransfers implements chobotb.Client.
func (n *Network) LookupTransfers(ctx context.Context, idList []ids.ID) ([]chobotb.Transfer, error) {
	sent := slices.Clone(idList)
	var found []chobotb.Transfer
	var err error
	c := &netCall{op: OpLookupTransfers, events: len(sent), apply: func(ctx context.Context) {
		found, err = n.Inner.LookupTransfers(ctx, sent)
	}}
	if e := n.send(ctx, c); e != nil {
		return nil, e
	}
	return found, err
}

// limit is the most events a request carries.
func (n *Network) limit() int {
	if n.Limit > 0 {
		return n.Limit
	}
	return chobotb.MaxEvents
}
