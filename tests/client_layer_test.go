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

// TestClientLayer prices what each language's generated PostgreSQL client
// adds to a call: the same calls, one after another on one connection,
// through the client, then as the client's own statement sent through
// the language's database library (pgx, pg, psycopg) the way the client
// sends it (unnamed, parsed at every call, so that a pooler in
// transaction mode can stand between), then prepared once, as each
// library does by default or when asked (the price of the pooler's
// safety). Each run is timed by the driver itself (protocol.Bench), so
// that neither the protocol nor the making of the values is counted. The call is receive of the
// inventory case: a move into an account with a lower bound, which never
// refuses, as tbbench's chobo modes and pgbench's grant.
//
// On TigerBeetle (TestClientLayer/tigerbeetle, on a real replica), the
// same calls through each language's TigerBeetle client, beside
// requests of one transfer each sent through the official client itself:
// the least a program that calls TigerBeetle directly could send for a
// call of one event.
//
// It runs a few calls of each, to hold that every driver still times
// every way; CHOBO_BENCH_TIMES=2000 (go run ./tests/perf sets it) makes
// it the benchmark, and it then prints, per client, the medians over
// five rounds, the order of the three turned each round. It asserts no
// figure: a shared machine moves them.
func TestClientLayer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no PostgreSQL server is started")
	}
	times, reps := 20, 1
	if v := os.Getenv("CHOBO_BENCH_TIMES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CHOBO_BENCH_TIMES=%q is not a count of calls", v)
		}
		times, reps = n, 5
	}
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			_, kit := languageOf(t, tg)
			driversOf(t, tg) // skips here where the language is not set up
			cases := clientCases(t, tg)
			i := slices.IndexFunc(cases, func(l loaded) bool { return l.name == "inventory" })
			if i < 0 {
				t.Fatal("no inventory case")
			}
			l := cases[i]
			d := startPostgres(t, []loaded{l})
			p := startPostgresClient(t, tg, d, l)
			m, err := model.New(l.Copy, model.Postgres)
			if err != nil {
				t.Fatal(err)
			}
			tr := l.Copy.Transfer("receive")
			var params []string
			for _, prm := range tr.Params {
				params = append(params, prm.Name)
			}
			ctx := context.Background()
			for _, flavor := range driverkit.FlavorsOf(kit) {
				// way 0 is the client, 1 its statement sent as it sends it
				// (unnamed), 2 the statement prepared once
				const ways = 3
				bench := func(way int, round string, n int) time.Duration {
					req := protocol.Request{Tenant: "bench", Transfer: "receive", Operation: "do", Flavor: flavor,
						Args:     map[string]string{"delivery": fmt.Sprintf("%s-%s-%d", flavor, round, way), "sku": "A-1", "qty": "1"},
						KeyParam: "delivery", Times: n}
					if way > 0 {
						req.SQL, req.Params, req.Prepared = m.Transfer("receive").Operation("do").Statement, params, way == 2
					}
					d, err := p.Bench(ctx, req)
					if err != nil {
						t.Fatalf("%s %s: %v", flavor, []string{"client", "statement", "prepared statement"}[way], err)
					}
					return d
				}
				// the first calls make the account and the server's plans
				for way := range ways {
					bench(way, "warm", min(times, 100))
				}
				per := make([][]float64, ways)
				var layer, unnamed []float64
				for rep := range reps {
					var took [ways]time.Duration
					for j := range ways {
						way := (j + rep) % ways
						took[way] = bench(way, strconv.Itoa(rep), times)
						per[way] = append(per[way], float64(took[way].Microseconds())/float64(times))
					}
					layer = append(layer, float64(took[0])/float64(took[1]))
					unnamed = append(unnamed, float64(took[1])/float64(took[2]))
				}
				name := tg
				if flavor != "" {
					name += " (" + flavor + ")"
				}
				fmt.Printf("client layer: %-30s µs/call: client %6.1f, statement %6.1f, prepared %6.1f; client/statement %.3f, statement/prepared %.3f (%d calls, %d rounds)\n",
					name, median(per[0]), median(per[1]), median(per[2]), median(layer), median(unnamed), times, reps)
			}
		})
	}
	t.Run("tigerbeetle", func(t *testing.T) {
		replica, _ := startProxy(t, realTigerBeetle(t))
		for _, tg := range targetsOn("tigerbeetle") {
			t.Run(tg, func(t *testing.T) {
				_, kit := languageOf(t, tg)
				driversOf(t, tg)
				cases := clientCases(t, tg)
				i := slices.IndexFunc(cases, func(l loaded) bool { return l.name == "inventory" })
				if i < 0 {
					t.Fatal("no inventory case")
				}
				l := cases[i]
				p := startClient(t, tg, l, protocol.Request{TigerBeetle: replica}, &conformance.TigerBeetle{Book: l.Copy, Replica: true}, "")
				ctx := context.Background()
				for _, flavor := range driverkit.FlavorsOf(kit) {
					// way 0 is the client, 1 a raw transfer through the official client
					bench := func(way int, round string, n int) time.Duration {
						req := protocol.Request{Tenant: "bench-" + tg + "-" + flavor, Transfer: "receive", Operation: "do", Flavor: flavor,
							Args:     map[string]string{"delivery": fmt.Sprintf("%s-%s-%d", flavor, round, way), "sku": "A-1", "qty": "1"},
							KeyParam: "delivery", Times: n, Raw: way == 1}
						d, err := p.Bench(ctx, req)
						if err != nil {
							t.Fatalf("%s %s: %v", flavor, []string{"client", "raw transfers"}[way], err)
						}
						return d
					}
					bench(0, "warm", min(times, 100))
					bench(1, "warm", min(times, 100))
					per := make([][]float64, 2)
					var layer []float64
					for rep := range reps {
						var took [2]time.Duration
						for j := range 2 {
							way := (j + rep) % 2
							took[way] = bench(way, strconv.Itoa(rep), times)
							per[way] = append(per[way], float64(took[way].Microseconds())/float64(times))
						}
						layer = append(layer, float64(took[0])/float64(took[1]))
					}
					name := tg
					if flavor != "" {
						name += " (" + flavor + ")"
					}
					fmt.Printf("client layer: %-30s µs/call: client %6.1f, raw transfer %6.1f; client/raw %.3f (%d calls, %d rounds)\n",
						name, median(per[0]), median(per[1]), median(layer), times, reps)
				}
			})
		}
	})
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
