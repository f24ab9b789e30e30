#!/usr/bin/env bash
# Compares what a call costs the server in this tree and at an earlier
# commit: builds the benchmark program of both, runs them in turn, the
# order rotated from one round to the next (each run on a cluster of its
# own, one repetition), and prints for each way of sending, shape and
# number of connections the median over the rounds of chobo's server CPU
# per operation in microseconds, and the median of each round's ratio.
# A shared machine moves single runs by a third: read the ratios, after
# enough rounds.
#
#   bash tests/pgbench/compare.sh COMMIT [ROUNDS] [pgbench flags…]
#   bash tests/pgbench/compare.sh 698a279b 7 -calls 2000 -modes single
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 COMMIT [ROUNDS] [pgbench flags...]" >&2
  exit 2
fi
ref=$1
shift
rounds=5
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
  rounds=$1
  shift
fi
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ref"
git -C "$root" archive "$ref" | tar -x -C "$tmp/ref"
(cd "$tmp/ref" && go build -o "$tmp/pgbench-ref" ./tests/pgbench)
(cd "$root" && go build -o "$tmp/pgbench-this" ./tests/pgbench)

for r in $(seq 1 "$rounds"); do
  order="ref this"
  if [ $((r % 2)) -eq 0 ]; then
    order="this ref"
  fi
  for v in $order; do
    dir=$root/tests
    if [ "$v" = ref ]; then
      dir=$tmp/ref/tests
    fi
    # bare only beside chobo: the ratio of CPU needs it, floor would
    # double the time of a round
    (cd "$dir" && "$tmp/pgbench-$v" -reps 1 -systems chobo,bare "$@") |
      awk -v r="$r" -v v="$v" '
        # the column of chobo cpu, which moved as systems were added: every
        # header word before it is one field of the rows too
        $1 == "mode" { for (i = 1; i < NF; i++) if ($i == "chobo" && $(i + 1) == "cpu") col = i }
        ($1 == "single" || $1 == "pipelined") && col { print r, v, $1, $2, $3, $col }' >>"$tmp/runs"
  done
done

# median of the numbers on standard input
median() {
  sort -g | awk '{ x[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print x[(NR + 1) / 2]; else print (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}

printf '%-9s %-8s %5s %10s %10s %8s  (%s rounds against %s)\n' mode shape conns "cpu $ref" "cpu this" "this/ref" "$rounds" "$ref"
awk '{ print $3, $4, $5 }' "$tmp/runs" | sort -u | while read -r mode shape conns; do
  sel() { awk -v m="$mode" -v s="$shape" -v c="$conns" -v v="$1" '$3 == m && $4 == s && $5 == c && $2 == v { print $1, $6 }' "$tmp/runs"; }
  refcpu=$(sel ref | awk '{ print $2 }' | median)
  thiscpu=$(sel this | awk '{ print $2 }' | median)
  ratio=$(join <(sel ref | sort) <(sel this | sort) | awk '$2 > 0 { print $3 / $2 }' | median)
  printf '%-9s %-8s %5s %10.1f %10.1f %8.2f\n' "$mode" "$shape" "$conns" "$refcpu" "$thiscpu" "$ratio"
done
