package chobotb

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Gather makes the calls of this Book that run at the same time wait up
// to d for one another, so that their chains go to TigerBeetle in one
// request (at most the book's RequestEvents, no chain split) instead of one
// request each. A request is sent as soon as the next chain would not
// fit, as soon as as many chains wait as the last request carried (the
// callers it answered are back), and at the latest d after its first
// chain came; d of 0 turns gathering off.
//
// The official client already puts requests that wait while one is in
// flight into one message; waiting a little before the first one goes
// makes the messages fuller when many callers share a Book. Each call
// still gets its own answer, the one it would get alone. A call whose
// context ends while it waits returns, as an unanswered call does; its
// chain may still be sent, and sending it again is safe.
func (b *Book) Gather(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d <= 0 {
		b.gather = nil
		return
	}
	b.gather = &gatherer{b: b, window: d}
}

// gatherer holds the chains that wait for the next request.
type gatherer struct {
	b      *Book
	window time.Duration

	mu      sync.Mutex
	waiting []*gathered
	events  int
	timer   *time.Timer
	// expect is how many chains the last request carried: callers that
	// call again as soon as they have their answer come back that many
	// at a time, and the request goes as soon as they are all there.
	expect int
}

type gathered struct {
	chain    []Transfer
	deadline time.Time
	done     chan struct{}
	st       []Status
	err      error
}

func (b *Book) gathering() *gatherer {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gather
}

// send puts a chain among those waiting and returns its statuses once
// the request that carried it is answered.
func (g *gatherer) send(ctx context.Context, chain []Transfer) ([]Status, error) {
	most := g.b.requestEvents()
	if len(chain) > most {
		return nil, chainTooLong(len(chain), most)
	}
	w := &gathered{chain: chain, done: make(chan struct{})}
	if dl, ok := ctx.Deadline(); ok {
		w.deadline = dl
	} else {
		w.deadline = time.Now().Add(DefaultTimeout)
	}
	g.mu.Lock()
	if g.events+len(chain) > most {
		g.flushLocked()
	}
	g.waiting = append(g.waiting, w)
	g.events += len(chain)
	switch {
	case g.events == most || (g.expect > 0 && len(g.waiting) >= g.expect):
		g.flushLocked()
	case len(g.waiting) == 1:
		g.timer = time.AfterFunc(g.window, g.flush)
	}
	g.mu.Unlock()
	select {
	case <-w.done:
		return w.st, w.err
	case <-ctx.Done():
		return nil, fmt.Errorf("chobotb: no answer before the context ended: %w; the chain may still be applied later, and sending the same call again is safe", ctx.Err())
	}
}

func (g *gatherer) flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.flushLocked()
}

// flushLocked sends what waits as one request, on its own goroutine.
func (g *gatherer) flushLocked() {
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
	batch := g.waiting
	g.waiting, g.events = nil, 0
	if len(batch) == 0 {
		return
	}
	g.expect = len(batch)
	go g.b.sendGathered(batch)
}

// sendGathered sends the chains of a batch in one request, bounded by the
// latest deadline among them, and gives each its statuses.
func (b *Book) sendGathered(batch []*gathered) {
	var ts []Transfer
	latest := batch[0].deadline
	for _, w := range batch {
		ts = append(ts, w.chain...)
		if w.deadline.After(latest) {
			latest = w.deadline
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), latest)
	defer cancel()
	st, err := b.createTransfers(ctx, ts)
	at := 0
	for _, w := range batch {
		if err != nil {
			w.err = err
		} else {
			w.st = st[at : at+len(w.chain)]
		}
		at += len(w.chain)
		close(w.done)
	}
}
