package chobotb_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// Calls made at once on a gathering Book share requests, and each gets
// its own answer: 32 holds from one stock of 20, so 20 are done and 12
// refused, in fewer requests than calls.
func TestGatherPacksConcurrentCalls(t *testing.T) {
	m := tbmodel.New()
	b := chobotb.NewBook(m, testDef(), "gather")
	if r, err := b.Call(ctx, kindOf("do", aSupplier, aStock), "do", vals("fill", "x", "s", 20)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	hold := kindOf("hold", aStock, aCust)
	// The accounts first, so that what is counted is the chains.
	if r, err := b.Call(ctx, hold, "hold", vals("warm", "s", "c", 0)); err != nil || r.Outcome != chobo.Done {
		t.Fatal(r, err)
	}
	b.Gather(50 * time.Millisecond)
	m.ResetRequests()
	const callers = 32
	results := make([]chobo.Result, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := b.Call(ctx, hold, "hold", vals(fmt.Sprint("h", i), "s", "c", 1))
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	done, refused := 0, 0
	for _, r := range results {
		switch {
		case r.Outcome == chobo.Done:
			done++
		case r.Outcome == chobo.Refused && r.Reason == "out_of_stock":
			refused++
		default:
			t.Errorf("a hold answered %s", r)
		}
	}
	if done != 20 || refused != 12 {
		t.Errorf("%d done and %d refused, want 20 and 12", done, refused)
	}
	n := m.Count(tbmodel.OpCreateTransfers)
	if n >= callers || n == 0 {
		t.Errorf("%d requests for %d calls: not gathered", n, callers)
	}
	t.Logf("%d calls in %d requests", callers, n)

	// Off again: one request a call.
	b.Gather(0)
	m.ResetRequests()
	if r, err := b.Call(ctx, hold, "hold", vals("alone", "s", "c", 1)); err != nil || r.Reason != "out_of_stock" {
		t.Fatal(r, err)
	}
	if n := m.Count(tbmodel.OpCreateTransfers); n != 1 {
		t.Errorf("%d requests for one call without gathering", n)
	}
}

// A call whose context ends while it waits returns with an error that
// says a retry is safe.
func TestGatherHonoursTheContext(t *testing.T) {
	m := tbmodel.New()
	b := chobotb.NewBook(m, testDef(), "gather")
	b.Gather(time.Hour)
	c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err := b.Call(c, kindOf("do", aSupplier, aStock), "do", vals("fill", "x", "s", 20))
	if err == nil || !containsAll(err.Error(), "no answer", "again is safe") {
		t.Errorf("a call that waits past its deadline: %v", err)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// A book told that its cluster takes fuller requests packs its bulk calls
// and its accounts into them; a cluster that takes fewer refuses the
// request, and nothing of it is applied.
func TestRequestEvents(t *testing.T) {
	for _, n := range []int{0, -1, chobotb.MaxRequestEvents + 1} {
		if err := chobotb.NewBook(tbmodel.New(), testDef(), "x").RequestEvents(n); err == nil {
			t.Errorf("RequestEvents(%d): no error", n)
		}
	}
	receive := kindOf("do", aSupplier, aStock)
	calls := func(prefix string, n int) []chobotb.Op {
		ops := make([]chobotb.Op, n)
		for i := range ops {
			ops[i] = chobotb.Op{Kind: receive, Op: "do", Values: vals(fmt.Sprint(prefix, i), "x", fmt.Sprint("s", i), 1)}
		}
		return ops
	}
	sizes := func(m *tbmodel.Model, op tbmodel.Op) []int {
		var out []int
		for _, r := range m.Requests() {
			if r.Op == op {
				out = append(out, r.Events())
			}
		}
		return out
	}
	for _, c := range []struct {
		limit, events    int
		accounts, chains string
	}{
		// 3,036 accounts (a stock each and the supplier), 3,035 chains of one event
		{chobotb.MaxEvents, 0, "[253 253 253 253 253 253 253 253 253 253 253 253]", "[253 253 253 253 253 253 253 253 253 253 253 252]"},
		{chobotb.MaxRequestEvents, 1000, "[1000 1000 1000 36]", "[1000 1000 1000 35]"},
	} {
		m := tbmodel.New()
		m.SetRequestLimit(c.limit)
		b := chobotb.NewBook(m, testDef(), fmt.Sprint("fuller", c.events))
		if c.events > 0 {
			if err := b.RequestEvents(c.events); err != nil {
				t.Fatal(err)
			}
		}
		answers, err := b.Bulk(ctx, calls("r", 3035))
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range answers {
			if a.Err != nil || a.Result.Outcome != chobo.Done {
				t.Fatalf("call %d: %v, %v", i, a.Result, a.Err)
			}
		}
		if got := fmt.Sprint(sizes(m, tbmodel.OpCreateAccounts)); got != c.accounts {
			t.Errorf("%d events a request: account requests of %s, want %s", c.events, got, c.accounts)
		}
		if got := fmt.Sprint(sizes(m, tbmodel.OpCreateTransfers)); got != c.chains {
			t.Errorf("%d events a request: chain requests of %s, want %s", c.events, got, c.chains)
		}
	}
	// A book told more than its cluster takes: the cluster refuses, nothing moves.
	m := tbmodel.New()
	b := chobotb.NewBook(m, testDef(), "too-full")
	if err := b.RequestEvents(300); err != nil {
		t.Fatal(err)
	}
	answers, err := b.Bulk(ctx, calls("t", 300))
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(answers[0].Err, tbmodel.ErrTooMuchData) {
		t.Errorf("a request of 300 events to a cluster of 253: %v", answers[0].Err)
	}
}
