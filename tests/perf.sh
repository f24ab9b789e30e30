#!/usr/bin/env bash
# Runs chobo's benchmarks one after another and prints the ratios each
# measures against its baseline, taken in the same run on this machine
# (docs/performance.md reads them):
#
#   1. PostgreSQL, per call: chobo's generated functions beside functions
#      written by hand with the same guarantees, a bare UPDATE and a
#      floor (pgbench; goal: chobo/tuned >= 0.95, chobo/bare >= 0.5);
#   2. TigerBeetle: calls and bulk calls of the Go runtime beside raw
#      requests of the official client on a real replica (tbbench; goal:
#      bulk >= 0.9 of raw 253-event requests, 64 callers >= 0.95 of raw);
#      a SKIP line where no TigerBeetle server is at hand; then bulk calls
#      beside raw full requests (8,189 events) on a replica started as
#      production runs it (tbbench -production 1; goal: >= 0.9), a SKIP
#      line where the machine has not the 2.5 GiB it takes;
#   3. every client language's PostgreSQL client beside its own statement
#      sent through the language's database library, and its TigerBeetle
#      client beside raw transfers of the official client where a server
#      is at hand (TestClientLayer; goal: <= 1.05, <= 1.1 for an
#      interpreted language);
#   4. the Go runtime's own work per call of a bulk call, no server
#      (BenchmarkBulkClientWork).
#
#   bash tests/perf.sh [quick]
#
# It takes about ten minutes on two cores; "quick" runs each part on a
# few calls, to see that it runs. Keep the machine otherwise quiet: the
# ratios hold up on a busy machine better than the rates, but not wholly.
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"

quick=${1:-}
pg_flags=(-calls 3000 -reps 5)
tb_flags=(-for 3s)
times=2000
benchtime=2000x
if [ "$quick" = quick ]; then
  pg_flags=(-calls 50 -reps 1 -conns 1,2)
  tb_flags=(-for 200ms -only raw-1)
  times=20
  benchtime=10x
fi

echo "== 1. PostgreSQL: chobo's functions beside hand-written ones, a bare UPDATE and the floor"
go run ./tests/pgbench "${pg_flags[@]}"
echo
echo "== 2. TigerBeetle: the Go runtime beside raw requests of the official client"
go run ./tests/tbbench "${tb_flags[@]}"
echo
echo "== 2b. TigerBeetle in production mode: bulk calls beside full raw requests"
go run ./tests/tbbench "${tb_flags[@]}" -production 1 -only "chobo bulk"
echo
echo "== 3. Each language's clients beside its own database library"
CHOBO_BENCH_TIMES=$times go test ./tests -run '^TestClientLayer$' -count=1 -v |
  grep -E '^(client layer|SKIP|--- FAIL|FAIL)' || true
echo
echo "== 4. The Go runtime's own work per call of a bulk call"
go test ./runtime/go/chobotb -run '^$' -bench '^BenchmarkBulkClientWork$' -benchtime "$benchtime" | grep -E '^Benchmark|FAIL'
