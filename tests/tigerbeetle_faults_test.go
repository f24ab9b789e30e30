package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbwire"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// Faults on a real TigerBeetle: a replica killed and restarted in the
// middle of concurrent calls, a replica paused past the client's
// deadline, and a cluster of three replicas, whole and with one killed.
// They run when there is a binary (see realTigerBeetle). The calls go
// through chobotb.Book, the runtime every generated tigerbeetle-go client
// calls, on the official client (tbgo).

// tbFaultBook is the inventory case's book and its TigerBeetle definition.
func tbFaultBook(t *testing.T) (*book.Book, *chobotb.Def) {
	t.Helper()
	path := filepath.Join(casesDir, "inventory", "inventory.book")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(path, src)
	if res.Book == nil {
		t.Fatalf("%s does not check", path)
	}
	return res.Book, tigerbeetle.Def(res.Book)
}

// kindIndex is the index of a transfer kind in the definition.
func kindIndex(t *testing.T, def *chobotb.Def, name string) int {
	t.Helper()
	for i, k := range def.Transfers {
		if k.Name == name {
			return i
		}
	}
	t.Fatalf("no transfer %s", name)
	return -1
}

func accountIndex(t *testing.T, def *chobotb.Def, name string) int {
	t.Helper()
	for i, a := range def.Accounts {
		if a.Name == name {
			return i
		}
	}
	t.Fatalf("no account %s", name)
	return -1
}

// replicaClient starts a replica for t, when there is a binary, and
// returns an official client of it, closed when t ends.
func replicaClient(t *testing.T) chobotb.Client {
	t.Helper()
	realTigerBeetle(t)
	conn, err := tbtest.Replica(t).Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// faultReplica starts a replica and returns a book of the inventory case
// on it, through a client of its own, for a tenant.
func faultReplica(t *testing.T, tenant string) (*tbtest.Server, *chobotb.Book, *chobotb.Def) {
	t.Helper()
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	_, def := tbFaultBook(t)
	conn, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return srv, chobotb.NewBook(conn, def, tenant), def
}

// callUntilAnswered makes one call again and again, with the same
// arguments, each try bounded by try, until TigerBeetle answers it or
// the whole deadline passes.
func callUntilAnswered(ctx context.Context, b *chobotb.Book, kind int, vals chobotb.Values, try time.Duration) (chobo.Result, int, error) {
	for tries := 1; ; tries++ {
		c, cancel := context.WithTimeout(ctx, try)
		r, err := b.Call(c, kind, "do", vals)
		cancel()
		if err == nil {
			return r, tries, nil
		}
		if ctx.Err() != nil {
			return r, tries, fmt.Errorf("no answer after %d tries: %w", tries, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A replica killed (SIGKILL) while 16 callers receive stock, and started
// again on the same data file: every call, retried with the same
// arguments, gets an answer, and each moves exactly once.
func TestTigerBeetleReplicaKilledMidCalls(t *testing.T) {
	srv, b, def := faultReplica(t, "killed")
	receive := kindIndex(t, def, "receive")

	const callers, each = 16, 20
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var answered, retried atomic.Int64
	results := make([][]chobo.Result, callers)
	errs := make(chan error, callers)
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r, tries, err := callUntilAnswered(ctx, b, receive, chobotb.Values{fmt.Sprintf("d-%d-%d", c, i), "A-1", int64(1)}, time.Second)
				if err != nil {
					errs <- fmt.Errorf("caller %d, call %d: %w", c, i, err)
					return
				}
				if tries > 1 {
					retried.Add(1)
				}
				results[c] = append(results[c], r)
				answered.Add(1)
			}
		}()
	}
	// Kill the replica once some calls are done and others are on their
	// way, and start it again a moment later.
	for answered.Load() < callers*each/4 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	before := answered.Load()
	if err := srv.Kill(0); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	// Down for longer than a try's deadline, so that calls on their way
	// give up and are sent again.
	time.Sleep(2 * time.Second)
	if err := srv.Restart(ctx, 0); err != nil {
		t.Fatal(err)
	}
	down := time.Since(killed)
	atRestart := answered.Load()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	done, doneBefore := 0, 0
	for _, rs := range results {
		for _, r := range rs {
			switch r.Outcome {
			case chobo.Done:
				done++
			case chobo.DoneBefore:
				doneBefore++ // a try whose answer was lost had moved it
			default:
				t.Errorf("a receive answered %s", r)
			}
		}
	}
	bal, err := b.Balance(ctx, accountIndex(t, def, "stock"), "A-1")
	if err != nil {
		t.Fatal(err)
	}
	// The interpreter's balance for these calls: each receives 1, once.
	if bal.Posted != callers*each || bal.HeldIn != 0 || bal.HeldOut != 0 {
		t.Errorf("stock(A-1) is %+v after %d calls of 1: a call moved twice or not at all", bal, callers*each)
	}
	if atRestart-before > callers {
		t.Errorf("%d calls were answered while the replica was down: it was not killed", atRestart-before)
	}
	t.Logf("killed the replica after %d of %d calls, listening again %v later; %d calls were tried again, all %d answered (%d done, %d done_before), stock(A-1) = %d",
		before, callers*each, down.Round(time.Millisecond), retried.Load(), done+doneBefore, done, doneBefore, bal.Posted)
}

// A replica paused (SIGSTOP) until the client's deadline passes: the call
// fails with an error that says a retry is safe; after SIGCONT the retry
// is answered and the amount moved once.
func TestTigerBeetleReplicaPausedPastTheDeadline(t *testing.T) {
	srv, b, def := faultReplica(t, "paused")
	receive := kindIndex(t, def, "receive")
	ctx := context.Background()
	// The accounts first, so that the paused call is the chain itself.
	if r, err := b.Call(ctx, receive, "do", chobotb.Values{"warm-up", "A-1", int64(1)}); err != nil || r.Outcome != chobo.Done {
		t.Fatalf("warm-up: %v %v", r, err)
	}
	if err := srv.Pause(0); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			srv.Resume(0)
		}
	}()
	short, cancel := context.WithTimeout(ctx, time.Second)
	_, err := b.Call(short, receive, "do", chobotb.Values{"d-1", "A-1", int64(5)})
	cancel()
	if !errors.Is(err, tbgo.ErrNoAnswer) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call to a paused replica: %v; want tbgo.ErrNoAnswer after the deadline", err)
	}
	for _, want := range []string{"no answer", "may still be applied later", "again is safe"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	if err := srv.Resume(0); err != nil {
		t.Fatal(err)
	}
	resumed = true
	long, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	r, err := b.Call(long, receive, "do", chobotb.Values{"d-1", "A-1", int64(5)})
	if err != nil || (r.Outcome != chobo.Done && r.Outcome != chobo.DoneBefore) {
		t.Fatalf("the retry after SIGCONT: %v %v", r, err)
	}
	bal, err := b.Balance(long, accountIndex(t, def, "stock"), "A-1")
	if err != nil {
		t.Fatal(err)
	}
	if bal.Posted != 1+5 {
		t.Errorf("stock(A-1) = %d, want 6: the 5 moved once", bal.Posted)
	}
	t.Logf("paused: %v; after SIGCONT the retry answered %s and stock(A-1) = %d", err, r, bal.Posted)
}

// A cluster of three replicas on loopback: the conformance scenarios of
// one case pass on it; then again while one replica is killed in the
// middle of the run and not started again.
func TestTigerBeetleThreeReplicas(t *testing.T) {
	realTigerBeetle(t)
	l := clientCase(t, "tigerbeetle-go", "inventory")
	driversOf(t, "tigerbeetle-go")
	srv := tbtest.Cluster(t, 3)
	// The drivers reach the cluster through this process's client, which
	// knows the three addresses.
	addr, stop, err := tbwire.Listen(srv.Client)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	run := func(t *testing.T, tenant string, during func()) {
		tb := &conformance.TigerBeetle{Raw: srv.Client, Book: l.Copy, Replica: true}
		tb.Calls = startClient(t, "tigerbeetle-go", l, protocol.Request{TigerBeetle: "wire:" + addr}, tb, "")
		var jobs []conformance.Job
		for _, j := range l.Jobs(l.path, tb, func(i int) string { return fmt.Sprintf("%s%d", tenant, i) }) {
			j.Pair = "tigerbeetle-go (3 replicas)"
			jobs = append(jobs, j)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if during != nil {
				during()
			}
		}()
		st := conformance.RunAll(t, jobs)
		<-done
		t.Logf("%s: %d scenarios on a cluster of 3 replicas, each equal to the interpreter (%d run again)", l.path, st.Total, st.Again)
	}
	t.Run("whole", func(t *testing.T) { run(t, "whole", nil) })
	// The primary, when the logs say which it is: the cluster must
	// change views as well as carry on without it.
	t.Run("one killed", func(t *testing.T) {
		run(t, "killed", func() {
			time.Sleep(time.Second)
			victim := srv.Primary()
			if victim < 0 {
				victim = 0
			}
			if err := srv.Kill(victim); err != nil {
				t.Error(err)
			}
			t.Logf("killed replica %d (the primary: %v) in the middle of the run", victim, srv.Primary() == victim)
		})
	})
}

// TestTigerBeetleKeyRefusedBeforeTheGuard names the one window the key
// guard leaves: a key a bound refused while calls were sent without the
// guard (clients of chobo before it) has only the refused event's id used
// up. Its first retry from a client with the guard can stop at an earlier
// move that no longer fits, with that move's reason (nothing moves); that
// refusal uses the key up, and every later retry is already_refused. A
// key refused by a client with the guard never shows that reason. On the
// model and, when there is a binary, on a real replica.
func TestTigerBeetleKeyRefusedBeforeTheGuard(t *testing.T) {
	path := filepath.Join(casesDir, "retry_after_refusal", "retry_after_refusal.book")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(path, src)
	if res.Book == nil {
		t.Fatalf("%s does not check", path)
	}
	def := tigerbeetle.Def(res.Book)
	stock, spare, ship := kindIndex(t, def, "stock"), kindIndex(t, def, "restock_spare"), kindIndex(t, def, "ship")
	if !def.Guarded(ship) {
		t.Fatal("ship has no key guard")
	}
	run := func(t *testing.T, c chobotb.Client) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b := chobotb.NewBook(c, def, "before-the-guard")
		call := func(kind int, vals ...any) string {
			t.Helper()
			r, err := b.Call(ctx, kind, "do", chobotb.Values(vals))
			if err != nil {
				t.Fatal(err)
			}
			return r.String()
		}
		want := func(got, want string) {
			t.Helper()
			if got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		}
		want(call(stock, "d-1", "A", int64(5)), "done")
		// The accounts of a ship, made by a call with a key of its own.
		want(call(ship, "o-0", "A", int64(1), int64(1)), "refused(no_spare)")
		want(call(ship, "o-3", "A", int64(1), int64(1)), "refused(no_spare)")
		// o-1 as a client without the guard sent it: the chain alone.
		p, err := def.Build("before-the-guard", ship, "do", chobotb.Values{"o-1", "A", int64(1), int64(1)})
		if err != nil {
			t.Fatal(err)
		}
		chain := p.Chain[:len(p.Chain)-1]
		ts := make([]chobotb.Transfer, len(chain))
		for i, e := range chain {
			ts[i] = e.Transfer
		}
		st, err := c.CreateTransfers(ctx, ts)
		if err != nil {
			t.Fatal(err)
		}
		r, err := chobotb.Read(chain, st)
		if err != nil {
			t.Fatal(err)
		}
		want(r.String(), "refused(no_spare)")
		// The shelf is emptied: the first move alone no longer fits.
		want(call(spare, "s-1", int64(1)), "done")
		want(call(ship, "o-2", "A", int64(5), int64(1)), "done")
		// The window: o-1's first retry meets the first move's bound.
		want(call(ship, "o-1", "A", int64(1), int64(1)), "refused(shelf_empty)")
		want(call(ship, "o-1", "A", int64(1), int64(1)), "refused(already_refused)")
		want(call(ship, "o-1", "A", int64(2), int64(0)), "refused(already_refused)")
		// o-3, refused with its guard: already_refused from the first retry.
		want(call(ship, "o-3", "A", int64(1), int64(1)), "refused(already_refused)")
		want(call(ship, "o-3", "A", int64(2), int64(0)), "refused(already_refused)")
		if bal, err := b.Balance(ctx, accountIndex(t, def, "shelf"), "A"); err != nil || bal.Posted != 0 || bal.HeldOut != 0 {
			t.Fatalf("shelf(A): %+v, %v; want nothing left and nothing held", bal, err)
		}
	}
	t.Run("model", func(t *testing.T) { run(t, tbmodel.New()) })
	t.Run("replica", func(t *testing.T) { run(t, replicaClient(t)) })
}

// TestTigerBeetleHoldsOfAnotherDefinition is TestUpgradeClosesWhatIsGone's
// rule on TigerBeetle: holds made by the wallet's v1 client can be
// neither posted nor voided by v2's (key_conflict, nothing sent but the
// lookup, nothing moved), and a hold of v2 is posted as ever. On the
// model and, when there is a binary, on a real replica.
func TestTigerBeetleHoldsOfAnotherDefinition(t *testing.T) {
	defOf := func(src string) *chobotb.Def {
		res := check.Check("wallet.book", []byte(src))
		if res.Book == nil {
			t.Fatalf("the wallet does not check: %v", res.Diags)
		}
		return tigerbeetle.Def(res.Book)
	}
	v1, v2 := defOf(walletV1), defOf(walletV2)
	run := func(t *testing.T, c chobotb.Client) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b1, b2 := chobotb.NewBook(c, v1, "upgrade"), chobotb.NewBook(c, v2, "upgrade")
		want := func(r chobo.Result, err error, want string) {
			t.Helper()
			if err != nil || r.String() != want {
				t.Fatalf("got %s, %v; want %s", r, err, want)
			}
		}
		r, err := b1.Call(ctx, kindIndex(t, v1, "give"), "do", chobotb.Values{"g-1", "m", int64(100)})
		want(r, err, "done")
		for _, o := range []string{"o-1", "o-2"} {
			r, err = b1.Call(ctx, kindIndex(t, v1, "buy"), "hold", chobotb.Values{o, "m", int64(20)})
			want(r, err, "done")
		}
		before, err := b2.Balance(ctx, accountIndex(t, v2, "wallet"), "m")
		if err != nil || before.HeldOut != 42 {
			t.Fatalf("wallet(m) %+v, %v", before, err)
		}
		buy := kindIndex(t, v2, "buy")
		r, err = b2.Void(ctx, buy, chobotb.Values{"o-1"})
		want(r, err, "refused(key_conflict)")
		r, err = b2.Post(ctx, buy, chobotb.Values{"o-2"}, nil)
		want(r, err, "refused(key_conflict)")
		r, err = b2.Post(ctx, buy, chobotb.Values{"o-2"}, []int64{5, 1})
		want(r, err, "refused(key_conflict)")
		if st, err := b2.Status(ctx, buy, chobotb.Values{"o-1"}); err != nil || st != chobo.Held {
			t.Fatalf("status of an old hold: %q, %v", st, err)
		}
		if after, err := b2.Balance(ctx, accountIndex(t, v2, "wallet"), "m"); err != nil || after != before {
			t.Fatalf("wallet(m) went from %+v to %+v (%v)", before, after, err)
		}
		r, err = b2.Call(ctx, buy, "hold", chobotb.Values{"o-3", "m", int64(10), int64(1)})
		want(r, err, "done")
		r, err = b2.Post(ctx, buy, chobotb.Values{"o-3"}, nil)
		want(r, err, "done")
		// v1's own client still ends its holds.
		r, err = b1.Void(ctx, kindIndex(t, v1, "buy"), chobotb.Values{"o-1"})
		want(r, err, "done")
	}
	t.Run("model", func(t *testing.T) { run(t, tbmodel.New()) })
	t.Run("replica", func(t *testing.T) { run(t, replicaClient(t)) })
}

// TestTigerBeetleHoldsOfTheLegacyDefinition: a client made by an earlier
// chobo tagged its holds, and hashed the content of its calls, with the
// legacy definition hash (bounds included). This version's client of the
// same book answers its retries done_before, posts and voids its holds,
// alone and in a bulk, and answers a post or void retried after the old
// client made it done_before; a client whose legacy hash is another's
// still meets key_conflict. On the model and, when there is a binary, on
// a real replica.
func TestTigerBeetleHoldsOfTheLegacyDefinition(t *testing.T) {
	res := check.Check("wallet.book", []byte(walletV1))
	if res.Book == nil {
		t.Fatalf("the wallet does not check: %v", res.Diags)
	}
	now := tigerbeetle.Def(res.Book)
	// What the earlier chobo wrote into its client: the legacy hash as
	// the definition, and no other.
	old := tigerbeetle.Def(res.Book)
	for i := range old.Transfers {
		k := &old.Transfers[i]
		if k.Legacy == k.Definition {
			t.Fatalf("%s: the wallet is bounded, yet it has one hash", k.Name)
		}
		k.Definition, k.Legacy = k.Legacy, ""
	}
	// Another book's legacy hash: not this kind's.
	other := tigerbeetle.Def(res.Book)
	for i := range other.Transfers {
		other.Transfers[i].Legacy = "0123456789abcdef"
	}
	give, buy := kindIndex(t, now, "give"), kindIndex(t, now, "buy")
	run := func(t *testing.T, c chobotb.Client) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b0, b1, b2 := chobotb.NewBook(c, old, "legacy"), chobotb.NewBook(c, now, "legacy"), chobotb.NewBook(c, other, "legacy")
		want := func(what string, r chobo.Result, err error, want string) {
			t.Helper()
			if err != nil || r.String() != want {
				t.Fatalf("%s: got %s, %v; want %s", what, r, err, want)
			}
		}
		r, err := b0.Call(ctx, give, "do", chobotb.Values{"g-1", "m", int64(100)})
		want("old give", r, err, "done")
		for _, o := range []string{"o-1", "o-2", "o-3", "o-4", "o-5"} {
			r, err = b0.Call(ctx, buy, "hold", chobotb.Values{o, "m", int64(10)})
			want("old hold "+o, r, err, "done")
		}
		r, err = b0.Post(ctx, buy, chobotb.Values{"o-5"}, nil)
		want("old post o-5", r, err, "done")

		r, err = b2.Call(ctx, give, "do", chobotb.Values{"g-1", "m", int64(100)})
		want("give again, another legacy hash", r, err, "refused(key_conflict)")
		r, err = b2.Post(ctx, buy, chobotb.Values{"o-1"}, nil)
		want("post, another legacy hash", r, err, "refused(key_conflict)")

		r, err = b1.Call(ctx, give, "do", chobotb.Values{"g-1", "m", int64(100)})
		want("give again", r, err, "done_before")
		r, err = b1.Call(ctx, buy, "hold", chobotb.Values{"o-1", "m", int64(10)})
		want("hold again", r, err, "done_before")
		r, err = b1.Call(ctx, buy, "hold", chobotb.Values{"o-1", "m", int64(11)})
		want("hold again, other content", r, err, "refused(key_conflict)")
		r, err = b1.Post(ctx, buy, chobotb.Values{"o-1"}, nil)
		want("post", r, err, "done")
		r, err = b1.Post(ctx, buy, chobotb.Values{"o-1"}, nil)
		want("post again", r, err, "done_before")
		r, err = b1.Void(ctx, buy, chobotb.Values{"o-2"})
		want("void", r, err, "done")
		r, err = b1.Post(ctx, buy, chobotb.Values{"o-5"}, nil)
		want("the old client's post again", r, err, "done_before")
		answers, err := b1.Bulk(ctx, []chobotb.Op{
			{Kind: buy, Op: "post", Values: chobotb.Values{"o-3"}},
			{Kind: buy, Op: "void", Values: chobotb.Values{"o-4"}},
			{Kind: buy, Op: "hold", Values: chobotb.Values{"o-1", "m", int64(10)}},
			{Kind: give, Op: "do", Values: chobotb.Values{"g-1", "m", int64(100)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range []string{"done", "done", "done_before", "done_before"} {
			if a := answers[i]; a.Err != nil || a.Result.String() != w {
				t.Errorf("bulk call %d: %s, %v; want %s", i, a.Result, a.Err, w)
			}
		}
		answers, err = b1.Bulk(ctx, []chobotb.Op{{Kind: buy, Op: "post", Values: chobotb.Values{"o-3"}}, {Kind: buy, Op: "void", Values: chobotb.Values{"o-4"}}})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range answers {
			if a.Err != nil || a.Result.String() != "done_before" {
				t.Errorf("bulk call %d again: %s, %v; want done_before", i, a.Result, a.Err)
			}
		}
		// 100 given; o-1, o-3, o-5 posted, 10 and a fee of 1 each.
		if bal, err := b1.Balance(ctx, accountIndex(t, now, "wallet"), "m"); err != nil || bal.Posted != 100-33 || bal.HeldOut != 0 {
			t.Errorf("wallet(m) %+v, %v; want 67 posted, none held", bal, err)
		}
	}
	t.Run("model", func(t *testing.T) { run(t, tbmodel.New()) })
	t.Run("replica", func(t *testing.T) { run(t, replicaClient(t)) })
}
