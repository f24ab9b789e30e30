package chobotb_test

import (
	"context"
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
