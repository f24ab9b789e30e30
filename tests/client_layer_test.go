package tests

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
)

// TestClientLayer prices what each language's generated clients add to a
// call. On PostgreSQL: the same calls, one after another on one connection,
// through the client, then as the client's own statement sent through
// the language's database library (pgx, pg, psycopg) the way the client
// sends it (unnamed, parsed at every call, so that a pooler in
// transaction mode can stand between), then prepared once, as each
// library does by default or when asked (the price of the pooler's
// safety). Each run is timed by the driver itself (protocol.Bench), so
// that neither the protocol nor the making of the values is counted.
// The call is receive of the inventory case: a move into an account with
// a lower bound, which never refuses, as tbbench's chobo modes and
// pgbench's grant.
//
// On TigerBeetle (TestClientLayer/tigerbeetle, on a real replica), the
// same calls through each language's TigerBeetle client, beside
// requests of one transfer each sent through the official client itself:
// the least a program that calls TigerBeetle directly could send for a
// call of one event.
//
// It runs a few calls of each, to hold that every driver still times
// every way; CHOBO_BENCH_TIMES=2000 (bash tests/perf.sh sets it) makes
// it the benchmark, and it then prints, per client, the medians over
// five rounds, the order of the ways turned each round. It asserts no
// figure: a shared machine moves them.
func TestClientLayer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no PostgreSQL server is started")
	}
	r := layerRounds{times: 20, reps: 1}
	if v := os.Getenv("CHOBO_BENCH_TIMES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CHOBO_BENCH_TIMES=%q is not a count of calls", v)
		}
		r = layerRounds{times: n, reps: 5}
	}
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			kit, l := layerCase(t, tg)
			d := startPostgres(t, []loaded{l})
			p := startPostgresClient(t, tg, d, l)
			m, err := model.New(l.Copy, model.Postgres)
			if err != nil {
				t.Fatal(err)
			}
			var params []string
			for _, prm := range l.Copy.Transfer("receive").Params {
				params = append(params, prm.Name)
			}
			stmt := m.Transfer("receive").Operation("do").Statement
			for _, flavor := range driverkit.FlavorsOf(kit) {
				// the client, its statement sent as it sends it (unnamed),
				// the statement prepared once
				per, ratios := r.run(t, p, tg, flavor, []string{"client", "statement", "prepared statement"}, func(way int, req *protocol.Request) {
					if way > 0 {
						req.SQL, req.Params, req.Prepared = stmt, params, way == 2
					}
				})
				fmt.Printf("client layer: %-30s µs/call: client %6.1f, statement %6.1f, prepared %6.1f; client/statement %.3f, statement/prepared %.3f (%d calls, %d rounds)\n",
					layerName(tg, flavor), per[0], per[1], per[2], ratios[0], ratios[1], r.times, r.reps)
			}
		})
	}
	t.Run("tigerbeetle", func(t *testing.T) {
		replica, _ := startProxy(t, realTigerBeetle(t))
		for _, tg := range targetsOn("tigerbeetle") {
			t.Run(tg, func(t *testing.T) {
				kit, l := layerCase(t, tg)
				p := startClient(t, tg, l, protocol.Request{TigerBeetle: replica}, &conformance.TigerBeetle{Book: l.Copy, Replica: true}, "")
				for _, flavor := range driverkit.FlavorsOf(kit) {
					// the client, and transfers sent through the official client
					per, ratios := r.run(t, p, tg, flavor, []string{"client", "raw transfers"}, func(way int, req *protocol.Request) {
						req.Raw = way == 1
					})
					fmt.Printf("client layer: %-30s µs/call: client %6.1f, raw transfer %6.1f; client/raw %.3f (%d calls, %d rounds)\n",
						layerName(tg, flavor), per[0], per[1], ratios[0], r.times, r.reps)
				}
			})
		}
	})
}

// layerCase is the inventory case of target tg and its language's kit;
// it skips t where the language is not set up.
func layerCase(t *testing.T, tg string) (driverkit.Kit, loaded) {
	t.Helper()
	_, kit := languageOf(t, tg)
	driversOf(t, tg)
	cases := clientCases(t, tg)
	i := slices.IndexFunc(cases, func(l loaded) bool { return l.name == "inventory" })
	if i < 0 {
		t.Fatal("no inventory case")
	}
	return kit, cases[i]
}

func layerName(tg, flavor string) string {
	if flavor == "" {
		return tg
	}
	return tg + " (" + flavor + ")"
}

// layerRounds times the ways of sending the same calls against each other:
// times calls each, reps rounds, the order turned each round.
type layerRounds struct{ times, reps int }

// run times each way (named by ways; way shapes the request of each) once
// to warm up, then in rounds, and answers each way's median µs a call and
// the medians of each way's time over the next's.
func (r layerRounds) run(t *testing.T, p *conformance.Process, tg, flavor string, ways []string, way func(int, *protocol.Request)) (per, ratios []float64) {
	t.Helper()
	bench := func(w int, round string, n int) time.Duration {
		req := protocol.Request{Tenant: "bench-" + tg + "-" + flavor, Transfer: "receive", Operation: "do", Flavor: flavor,
			Args:     map[string]string{"delivery": fmt.Sprintf("%s-%s-%d", flavor, round, w), "sku": "A-1", "qty": "1"},
			KeyParam: "delivery", Times: n}
		way(w, &req)
		d, err := p.Bench(context.Background(), req)
		if err != nil {
			t.Fatalf("%s %s: %v", flavor, ways[w], err)
		}
		return d
	}
	// the first calls make the account and the server's plans
	for w := range ways {
		bench(w, "warm", min(r.times, 100))
	}
	us := make([][]float64, len(ways))
	over := make([][]float64, len(ways)-1)
	for rep := range r.reps {
		took := make([]time.Duration, len(ways))
		for j := range ways {
			w := (j + rep) % len(ways)
			took[w] = bench(w, strconv.Itoa(rep), r.times)
			us[w] = append(us[w], float64(took[w].Microseconds())/float64(r.times))
		}
		for w := range over {
			over[w] = append(over[w], float64(took[w])/float64(took[w+1]))
		}
	}
	for _, xs := range us {
		per = append(per, median(xs))
	}
	for _, xs := range over {
		ratios = append(ratios, median(xs))
	}
	return per, ratios
}

// median is the middle of xs, or the mean of the two middle ones.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
