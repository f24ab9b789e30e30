package tbmodel

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// netWorkload is what one caller sends: its own two accounts, so that its
// answers do not depend on the other callers. It returns every answer, with
// timestamps zeroed (they depend on how the callers interleave).
func netWorkload(ctx context.Context, c chobotb.Client, caller int) ([]string, error) {
	a, b := fmt.Sprint("net-a", caller), fmt.Sprint("net-b", caller)
	var out []string
	add := func(v any, err error) error {
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%+v", v))
		return nil
	}
	tr := func(name string, amount uint64) chobotb.Transfer { return mv(fmt.Sprint(name, caller), b, a, amount) }
	back := func(name string, amount uint64) chobotb.Transfer { return mv(fmt.Sprint(name, caller), a, b, amount) }
	open := back("open", 1)
	open.Flags |= chobotb.TransferLinked
	held := back("held", 2)
	held.Flags |= chobotb.TransferPending
	requests := [][]chobotb.Transfer{
		one(tr("fund", 5)),
		chain(back("c1", 3), back("c2", 3)), // the second is refused: the chain is
		one(open),                           // a chain left open at the end of the request
		one(held),
		one(tr("fund", 5)), // again: exists
		chain(back("c1", 3), back("c3", 2)),
	}
	if err := add(c.CreateAccounts(ctx, []chobotb.Account{acct(a, dnec), acct(b, 0)})); err != nil {
		return nil, err
	}
	for _, r := range requests {
		if err := add(c.CreateTransfers(ctx, r)); err != nil {
			return nil, err
		}
	}
	accounts, err := c.LookupAccounts(ctx, []ids.ID{id(a), id(b), id("nowhere")})
	for i := range accounts {
		accounts[i].Timestamp = 0
	}
	if err := add(accounts, err); err != nil {
		return nil, err
	}
	transfers, err := c.LookupTransfers(ctx, []ids.ID{id(fmt.Sprint("c1", caller)), id(fmt.Sprint("c2", caller))})
	for i := range transfers {
		transfers[i].Timestamp = 0
	}
	return out, add(transfers, err)
}

func runWorkload(t *testing.T, c chobotb.Client, callers int) [][]string {
	t.Helper()
	out := make([][]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			var err error
			if out[i], err = netWorkload(context.Background(), c, i); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	return out
}

func TestNetworkSameAnswers(t *testing.T) {
	const callers = 8
	want := runWorkload(t, New(), callers)
	if want[0][2] != fmt.Sprint(sts(lef, chobotb.ExceedsCredits)) || want[0][3] != fmt.Sprint(sts(LinkedEventChainOpen)) {
		t.Fatalf("the workload did not go as planned: %v", want[0])
	}
	for _, pack := range []bool{false, true} {
		t.Run(fmt.Sprint("pack=", pack), func(t *testing.T) {
			n := NewNetwork(New(), 2*time.Millisecond, pack)
			got := runWorkload(t, n, callers)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("answers differ from the model's:\n%v\n%v", got, want)
			}
			st := n.Stats()
			if st.Requests != callers*9 {
				t.Errorf("%d requests, want %d", st.Requests, callers*9)
			}
			if !pack && (st.RoundTrips != st.Requests || st.MaxPacked != 1) {
				t.Errorf("unpacked: %+v", st)
			}
			if pack && st.RoundTrips > st.Requests {
				t.Errorf("packed: %+v", st)
			}
			t.Logf("%+v", st)
		})
	}
}

// gated is a client whose lookup of the account "blocker" waits until
// release is closed: it holds a Network's round trip in flight.
type gated struct {
	chobotb.Client
	release chan struct{}
}

func (g gated) LookupAccounts(ctx context.Context, idList []ids.ID) ([]chobotb.Account, error) {
	if slices.Contains(idList, id("blocker")) {
		<-g.release
	}
	return g.Client.LookupAccounts(ctx, idList)
}

// queueBehind sends a lookup that holds the network until every request
// of send has been queued, one at a time in order, then lets it go and
// waits for them all. n.Inner must be a gated. It returns their answers
// (or errors) in the order sent.
func queueBehind(t *testing.T, n *Network, send []func() (any, error)) []any {
	t.Helper()
	g := n.Inner.(gated)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = n.LookupAccounts(context.Background(), []ids.ID{id("blocker")}) })
	for n.Stats().RoundTrips == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	out := make([]any, len(send))
	for i, f := range send {
		wg.Go(func() {
			v, err := f()
			if err != nil {
				v = err
			}
			out[i] = v
		})
		for n.waiting() < i+1 {
			time.Sleep(100 * time.Microsecond)
		}
	}
	close(g.release)
	wg.Wait()
	return out
}

func gate(m *Model) gated { return gated{m, make(chan struct{})} }

func TestNetworkPacking(t *testing.T) {
	ctx := context.Background()
	// Behind the blocker (a lookup_accounts in flight) wait, in this order:
	// T1 (a chain left open), L, T1, T2 (a chain refused), L, T1, where T
	// is a create_transfers of so many events and L a lookup_accounts.
	for _, c := range []struct {
		name  string
		pack  bool
		limit int
		order []string // as applied to the model, the blocker first
		trips int
		max   int
	}{
		{"unpacked", false, 0, []string{"L", "T1", "L", "T1", "T2", "L", "T1"}, 7, 1},
		{"packed", true, 0, []string{"L", "T1", "T1", "T2", "T1", "L", "L"}, 3, 4},
		// the chain of 2 does not fit with the three others
		{"packed, limit 3", true, 3, []string{"L", "T1", "T1", "T1", "L", "L", "T2"}, 4, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newUniverse(t)
			n := &Network{Inner: gate(m), RoundTrip: time.Millisecond, Pack: c.pack, Limit: c.limit}
			openChain := mv("n-open", "supplier", "cust", 1)
			openChain.Flags |= chobotb.TransferLinked
			sends := []func() (any, error){
				func() (any, error) { return n.CreateTransfers(ctx, one(openChain)) },
				func() (any, error) { return n.LookupAccounts(ctx, []ids.ID{id("cust")}) },
				func() (any, error) { return n.CreateTransfers(ctx, one(mv("n-1", "supplier", "cust", 2))) },
				func() (any, error) {
					return n.CreateTransfers(ctx, chain(mv("n-2", "supplier", "stock", 5), mv("n-3", "stock", "cust", 6)))
				},
				func() (any, error) { return n.LookupAccounts(ctx, []ids.ID{id("supplier")}) },
				func() (any, error) { return n.CreateTransfers(ctx, one(mv("n-4", "supplier", "cust", 4))) },
			}
			got := queueBehind(t, n, sends)
			// Each caller keeps its own statuses; the open chain of the first
			// does not swallow the events of the others.
			want := []string{
				fmt.Sprint(sts(LinkedEventChainOpen)),
				"", // a lookup, checked below
				fmt.Sprint(sts(created)),
				fmt.Sprint(sts(lef, chobotb.ExceedsCredits)),
				"",
				fmt.Sprint(sts(created)),
			}
			for i, w := range want {
				if w != "" && fmt.Sprint(got[i]) != w {
					t.Errorf("request %d: %v, want %s", i, got[i], w)
				}
			}
			if a, ok := got[1].([]chobotb.Account); !ok || len(a) != 1 || a[0].ID != id("cust") {
				t.Errorf("lookup: %v", got[1])
			}
			// With packing, the requests of one op go together in the order
			// they came, and the applied order shows it.
			var order []string
			for _, r := range m.Requests() {
				switch r.Op {
				case OpCreateTransfers:
					order = append(order, fmt.Sprint("T", len(r.Transfers)))
				default:
					order = append(order, "L")
				}
			}
			if !slices.Equal(order, c.order) {
				t.Errorf("applied %v, want %v", order, c.order)
			}
			st := n.Stats()
			st.InFlight = 0
			if st != (NetworkStats{Requests: 7, RoundTrips: c.trips, MaxPacked: c.max}) {
				t.Errorf("%+v, want %d round trips of 7 requests, at most %d in one", st, c.trips, c.max)
			}
		})
	}
}

func TestNetworkManyPacked(t *testing.T) {
	ctx := context.Background()
	for _, pack := range []bool{false, true} {
		m := newUniverse(t)
		n := NewNetwork(gate(m), time.Millisecond, pack)
		var sends []func() (any, error)
		for i := range 20 {
			sends = append(sends, func() (any, error) {
				return n.CreateTransfers(ctx, one(mv(fmt.Sprint("many-", i), "supplier", "cust", 1)))
			})
		}
		for i, v := range queueBehind(t, n, sends) {
			if fmt.Sprint(v) != fmt.Sprint(sts(created)) {
				t.Errorf("request %d: %v", i, v)
			}
		}
		st := n.Stats()
		st.InFlight = 0
		want := NetworkStats{Requests: 21, RoundTrips: 21, MaxPacked: 1}
		if pack {
			want = NetworkStats{Requests: 21, RoundTrips: 2, MaxPacked: 20}
		}
		if st != want {
			t.Errorf("pack %v: %+v, want %+v", pack, st, want)
		}
	}
}

func TestNetworkWithdrawn(t *testing.T) {
	m := newUniverse(t)
	g := gate(m)
	n := NewNetwork(g, time.Millisecond, true)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = n.LookupAccounts(context.Background(), []ids.ID{id("blocker")}) })
	for n.Stats().RoundTrips == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wg.Go(func() {
		for n.waiting() == 0 {
			time.Sleep(100 * time.Microsecond)
		}
		cancel()
	})
	_, err := n.CreateTransfers(ctx, one(mv("w-1", "supplier", "cust", 1)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	close(g.release)
	wg.Wait() // the blocker's round trip is over
	if c := m.Count(OpCreateTransfers); c != 0 {
		t.Fatalf("a withdrawn request was applied (%d)", c)
	}
	if st := n.Stats(); st.Requests != 1 || n.waiting() != 0 {
		t.Fatalf("%+v, %d waiting", st, n.waiting())
	}
	// A done context sends nothing.
	if _, err := n.CreateTransfers(ctx, one(mv("w-2", "supplier", "cust", 1))); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

func TestNetworkTooMuchData(t *testing.T) {
	n := NewNetwork(New(), time.Millisecond, true)
	ts := make([]chobotb.Transfer, chobotb.MaxEvents+1)
	if _, err := n.CreateTransfers(context.Background(), ts); !errors.Is(err, ErrTooMuchData) {
		t.Fatal(err)
	}
	if st := n.Stats(); st != (NetworkStats{}) {
		t.Fatalf("%+v", st)
	}
}

func TestNetworkRoundTripCost(t *testing.T) {
	m := newUniverse(t)
	n := NewNetwork(m, 5*time.Millisecond, true)
	start := time.Now()
	for i := range 4 {
		if _, err := n.CreateTransfers(context.Background(), one(mv(fmt.Sprint("cost-", i), "supplier", "cust", 1))); err != nil {
			t.Fatal(err)
		}
	}
	// a lower bound only: sleeps never end early
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Fatalf("4 round trips of 5 ms took %v", el)
	}
	if st := n.Stats(); st.RoundTrips != 4 {
		t.Fatalf("%+v", st)
	}
}
