package tests

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbdiff"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbwire"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/show"
	godriver "github.com/chobo-lang/chobo/lang/go/driver"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// Every client language's tigerbeetle client of each case is driven on a
// real replica when there is a tigerbeetle binary (tbtest.Bin: the one
// CHOBO_TIGERBEETLE names, else the server beside the checkout), which the
// tigerbeetle-go driver program, run as a proxy, formats, starts and
// stops; a language whose driver also reaches tbwire (viaWire) runs on the
// model of TigerBeetle (a test double, runtime/go/chobotb/tbmodel) kept in
// this process too.

// realTigerBeetle is the tigerbeetle binary the replica tests run, named in
// the log with its version. Without one (no CHOBO_TIGERBEETLE and no
// shared server beside the checkout) it prints SKIP once and skips t; a
// binary that is named but not there fails t.
func realTigerBeetle(t *testing.T) string {
	t.Helper()
	bin, err := tbtest.Bin()
	if errors.Is(err, tbtest.ErrNoBinary) {
		realSkipOnce.Do(func() { fmt.Println(tbtest.SkipMessage) })
		t.Skip(tbtest.SkipMessage)
	}
	if err != nil {
		t.Fatal(err)
	}
	version, err := tbtest.Version(bin)
	if err != nil {
		t.Fatal(err)
	}
	realOnce.Do(func() { fmt.Printf("real TigerBeetle: %s (%s)\n", bin, version) })
	t.Logf("real TigerBeetle: %s (%s)", bin, version)
	return bin
}

var realOnce, realSkipOnce sync.Once

// tbTarget is one TigerBeetle the conformance runs on.
type tbTarget struct {
	what    string // "model" or "real replica"
	address string // what the driver dials
	raw     chobotb.Client
	pulse   func()
	replica bool
	// bulk runs every scenario a second time, under other tenants,
	// through the client's bulk call, when the language's driver takes it.
	bulk bool
}

// runTigerBeetle runs every scenario of every book through the clients
// of target tg on one TigerBeetle and says, per book, how many were equal
// to the interpreter. A driver that writes down what its client sends is
// held to what `chobo run --show tigerbeetle` prints. A deploy step
// migrates TigerBeetle from this process and hands the calls to the
// driver of the new version's client, where TigerBeetleDrivers does not
// refuse it (a SKIP line says why).
func runTigerBeetle(t *testing.T, tg string, books []loaded, on tbTarget) {
	t.Helper()
	_, lang := languageOf(t, tg)
	books = withDeploys(t, books)
	var jobs, bulkJobs []conformance.Job
	var procs []bulkCounter
	bulk := on.bulk && driverkit.BulkOn(lang, "tigerbeetle")
	counts := map[string]int{}
	records := map[*conformance.Loaded]string{}
	for _, l := range books {
		tb := &conformance.TigerBeetle{Raw: on.raw, Book: l.Copy, Replica: on.replica, Pulse: on.pulse}
		// On the model the requests are seen there; elsewhere only the
		// driver can say what its client sent.
		if lang.Record() != "" && (on.replica || !lang.ViaWire()) {
			records[l.Loaded] = filepath.Join(t.TempDir(), "sent.jsonl")
		}
		p := startClient(t, tg, l, protocol.Request{TigerBeetle: on.address}, tb, records[l.Loaded])
		tb.Calls = p
		var be conformance.Backend = tb
		var counter bulkCounter = p
		if l.Versions != nil && !on.replica {
			// A deploy step migrates TigerBeetle from this process, then
			// the driver of the new version's client takes the calls.
			// Not on the replica here: every driver a deploy starts opens
			// a session of the few a replica keeps, and the books' drivers
			// already fill them, so the replica would evict a live one;
			// TestTigerBeetleClientsDeploy deploys through every language
			// on a replica of its own, and the scenarios are skipped here
			// aloud.
			d := clientDrivers(t, tg, l, p, protocol.Request{TigerBeetle: on.address},
				func(*conformance.Version) conformance.Reader { return tb }, nil)
			be, counter = conformance.NewTigerBeetleDrivers(tb, d), d
		}
		procs = append(procs, counter)
		n := len(jobs)
		for _, j := range l.Jobs(l.path, be, func(i int) string { return fmt.Sprintf("tb%d", n+i) }) {
			j.Pair = tg + " (" + on.what + ")"
			jobs = append(jobs, j)
			counts[l.path]++
		}
		if bulk {
			// The same scenarios through the bulk call, on the same
			// driver: what it sends is not what --show prints one call
			// at a time, so these are left out of sentAsShown.
			for _, j := range l.Jobs(l.path, be, func(i int) string { return fmt.Sprintf("tbb%d", n+i) }) {
				j.Pair, j.Bulk = tg+" bulk ("+on.what+")", true
				bulkJobs = append(bulkJobs, j)
			}
		}
	}
	st := conformance.RunAll(t, append(slices.Clip(jobs), bulkJobs...))
	skippedDeploys(tg+" on TigerBeetle ("+on.what+")", st)
	skippedReads(tg+" on TigerBeetle ("+on.what+")", st)
	if t.Failed() {
		return
	}
	for _, l := range books {
		t.Logf("%s: %d scenarios on %s (%s), each equal to the interpreter", l.path, counts[l.path], tg, on.what)
	}
	if on.bulk && !bulk {
		fmt.Printf("SKIP: the %s driver takes no bulk request\n", tg)
	}
	if bulk {
		c := bulkCounts(t, procs)
		t.Logf("%d scenarios through the %s bulk call (%s); %d bulk calls carried %d calls", len(bulkJobs), tg, on.what, c.Bulks, c.Calls)
	}
	t.Logf("%d scenarios of %d books on %s (%s), %d with together, %d run again; %d where a balance leaves 64 bits, run up to that call and held to what TigerBeetle does there (done, then an error reading the balance); %d not run (named above); %d deploy steps run, %d scenarios that deploy skipped (named above); %d reads of the history compared, %d not (named above)",
		st.Total, len(books), tg, on.what, st.Together, st.Again, st.Wide, st.NotRun, st.Deploys, st.DeploysSkipped, st.Reads, st.ReadsSkipped)
	if len(records) > 0 {
		sentAsShown(t, tg, books, jobs, records)
	}
}

// TestTigerBeetleConformance runs every scenario of every case through
// each client language's TigerBeetle client of it: on a real replica when
// there is a tigerbeetle binary (realTigerBeetle), and on the model for a
// language whose driver reaches it.
func TestTigerBeetleConformance(t *testing.T) {
	for _, tg := range targetsOn("tigerbeetle") {
		t.Run(tg, func(t *testing.T) {
			// The languages run side by side, each on replicas of its own:
			// most of a run waits on holds' deadlines and on drivers.
			t.Parallel()
			_, lang := languageOf(t, tg)
			books := clientCases(t, tg)
			driversOf(t, tg)
			if lang.ViaWire() {
				t.Run("model", func(t *testing.T) {
					m := tbmodel.New()
					m.FollowWallClock()
					addr, stop, err := tbwire.Listen(m)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(stop)
					runTigerBeetle(t, tg, books, tbTarget{what: "model", address: "wire:" + addr, raw: m, pulse: m.Pulse, bulk: true})
				})
			}
			t.Run("replica", func(t *testing.T) {
				bin := realTigerBeetle(t)
				// One official client per book's driver, and the proxy's: a
				// replica serves tbtest.ClientsMax at once, so the books go
				// in rounds that fit, each on a replica of its own.
				per := tbtest.ClientsMax - 1
				for start := 0; start < len(books); start += per {
					round := books[start:min(start+per, len(books))]
					replica, raw := startProxy(t, bin)
					runTigerBeetle(t, tg, round, tbTarget{what: "real replica", address: replica, raw: raw, replica: true, bulk: true})
				}
			})
		})
	}

	// The model held to the real server: every request of every scenario,
	// as the clients that reach tbwire send it, goes to both, one at a
	// time, and their answers and, at the end, every account and transfer
	// record must be equal (timestamps aside).
	//
	// It runs before the languages above, alone in this process: every
	// request waits for both servers, so on a busy machine a hold of a
	// few seconds could lapse before its scenario ends.
	t.Run("model against replica", func(t *testing.T) {
		bin := realTigerBeetle(t)
		for _, tg := range targetsOn("tigerbeetle") {
			if _, lang := languageOf(t, tg); !lang.ViaWire() {
				continue
			}
			t.Run(tg, func(t *testing.T) {
				t.Parallel()
				books := clientCases(t, tg)
				driversOf(t, tg)
				_, raw := startProxy(t, bin)
				m := tbmodel.New()
				m.FollowWallClock()
				tee := tbdiff.New(raw, m)
				// A hold past its deadline goes back on the replica at its
				// pulse, which a busy machine delays, and on the model at its
				// next create: a lookup between the two is asked again once
				// both have had the time.
				tee.Settle = func() {
					time.Sleep(300 * time.Millisecond)
					m.Pulse()
				}
				addr, stop, err := tbwire.Listen(tee)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(stop)
				runTigerBeetle(t, tg, books, tbTarget{what: "real replica, the model beside it", address: "wire:" + addr, raw: tee, pulse: m.Pulse, replica: true})
				n, err := tee.Records(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				diffs := tee.Diffs()
				for _, d := range diffs {
					t.Errorf("the model differs from the real replica: %s", d)
				}
				if tee.Requests() == 0 || n == 0 {
					t.Fatalf("%d requests and %d records compared: nothing was held to the replica", tee.Requests(), n)
				}
				t.Logf("the model answered %d requests as the real replica did, and its %d account and transfer records are the replica's (timestamps aside)", tee.Requests(), n)
			})
		}
	})
}

// startProxy runs the tigerbeetle-go driver program, which links the
// official client, as a proxy: it formats and starts a
// replica, and serves it over tbwire so that this process reads it
// without the official client. It returns the replica's address and a
// client of the proxy, which t's cleanup closes, and then the proxy's
// stdin, which stops and removes the replica.
func startProxy(t *testing.T, bin string) (replica string, raw *tbwire.Client) {
	t.Helper()
	cmd := driversOf(t, "tigerbeetle-go")("")
	cmd.Env = append(cmd.Env, godriver.ProxyEnv+"=1", tbtest.EnvVar+"="+bin)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the replica proxy: %v", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("the replica proxy did not stop within 30 s")
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the replica proxy did not start: %v", err)
	}
	f := strings.Fields(line)
	if len(f) != 2 {
		t.Fatalf("the replica proxy printed %q", line)
	}
	raw, err = tbwire.Dial(f[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return f[0], raw
}

// TestTigerBeetleSendsWhatShowPrints is the check that what `chobo run
// --show tigerbeetle` prints is what a client sends: every scenario of
// every case without a together, one at a time through the case's client
// of each language whose driver reaches the model, on a model of its own,
// compared request by request (the two random ids of a status chain
// aside). Passes move the model's clock; nothing is waited out. On a
// real replica, TestTigerBeetleConformance holds every client whose
// driver writes down what it sends to the same.
func TestTigerBeetleSendsWhatShowPrints(t *testing.T) {
	for _, tg := range targetsOn("tigerbeetle") {
		if _, lang := languageOf(t, tg); !lang.ViaWire() {
			continue
		}
		t.Run(tg, func(t *testing.T) {
			books := clientCases(t, tg)
			driversOf(t, tg)
			checked := 0
			for _, l := range books {
				m := tbmodel.New()
				addr, stop, err := tbwire.Listen(m)
				if err != nil {
					t.Fatal(err)
				}
				p := startClient(t, tg, l, protocol.Request{TigerBeetle: "wire:" + addr}, &conformance.TigerBeetle{Raw: m, Book: l.Copy}, "")
				ctx := context.Background()
				for i, sc := range l.Scenarios {
					if hasTogether(sc) {
						continue
					}
					tenant := fmt.Sprintf("sent%d", i)
					want, err := show.TigerBeetleSteps(l.Copy, tigerbeetle.Def(l.Copy), sc, tenant)
					if err != nil {
						t.Fatalf("%s %q: %v", l.path, sc.Name, err)
					}
					m.ResetRequests()
					for _, st := range sc.Steps {
						switch {
						case st.Call != nil:
							if st.Call.Bad == "" {
								p.Call(ctx, st.Call.Call, tenant) // the answers are the conformance test's to check
							}
						default:
							m.Advance(time.Duration(st.Pass) * time.Second)
						}
					}
					if diff := compareSent(expectedRequests(want), m.Requests()); diff != "" {
						t.Errorf("%s %q: the client sent other than --show tigerbeetle prints: %s", l.path, sc.Name, diff)
					}
					checked++
				}
				stop()
			}
			t.Logf("%d scenarios: the %s clients sent what --show tigerbeetle prints", checked, tg)
		})
	}
}

func hasTogether(sc scenario.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Together != nil {
			return true
		}
	}
	return false
}

// expectedRequests flattens the steps --show prints into the requests a
// client makes: accounts, openings, the lookup, the chain.
func expectedRequests(steps []show.TBStep) []tbmodel.Request {
	var out []tbmodel.Request
	for _, st := range steps {
		for i := 0; i < len(st.Accounts); i += chobotb.MaxEvents {
			out = append(out, tbmodel.Request{Op: tbmodel.OpCreateAccounts, Accounts: st.Accounts[i:min(i+chobotb.MaxEvents, len(st.Accounts))]})
		}
		for i := 0; i < len(st.Openings); i += chobotb.MaxEvents {
			out = append(out, tbmodel.Request{Op: tbmodel.OpCreateTransfers, Transfers: st.Openings[i:min(i+chobotb.MaxEvents, len(st.Openings))]})
		}
		if len(st.Lookup) > 0 {
			out = append(out, tbmodel.Request{Op: tbmodel.OpLookupTransfers, IDs: st.Lookup})
		}
		for _, chain := range [][]chobotb.Event{st.Chain, st.Again} {
			if len(chain) > 0 {
				r := tbmodel.Request{Op: tbmodel.OpCreateTransfers}
				for _, e := range chain {
					r.Transfers = append(r.Transfers, e.Transfer)
				}
				out = append(out, r)
			}
		}
	}
	return out
}

// compareSent says how the requests sent differ from those expected; the
// ids of a status chain's two events are drawn at random and not compared.
func compareSent(want, got []tbmodel.Request) string {
	text := func(r tbmodel.Request) string {
		ts := append([]chobotb.Transfer(nil), r.Transfers...)
		if len(ts) == 2 && ts[0].Flags&chobotb.TransferVoidPending != 0 && ts[1].DebitAccountID == ts[1].CreditAccountID {
			ts[0].ID, ts[1].ID = [16]byte{}, [16]byte{}
		}
		return fmt.Sprintf("%s %v %v %v", r.Op, r.Accounts, ts, r.IDs)
	}
	for i := 0; i < max(len(want), len(got)); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("request %d not sent: %s", i+1, text(want[i]))
		case i >= len(want):
			return fmt.Sprintf("request %d sent but not shown: %s", i+1, text(got[i]))
		case text(want[i]) != text(got[i]):
			return fmt.Sprintf("request %d:\n  shown %s\n  sent  %s", i+1, text(want[i]), text(got[i]))
		}
	}
	return ""
}
