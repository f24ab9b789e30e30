#!/usr/bin/env bash
# Builds the example workspace's SQL, clients and page in two fresh output bases,
# without the shared disk cache, and fails unless every output has the same
# sha256 both times. That is what lets a remote cache share the outputs.
# Takes a few minutes: each build starts a Bazel server and builds from scratch.
set -euo pipefail
cd "$(dirname "$0")/../examples/workspace"

targets=(//ledger:stock_sql //ledger:stock_go_client_srcs //ledger:stock_go_client //ledger:stock_tb_client_srcs //ledger:stock_tb_client //ledger:stock_ts_client_srcs //ledger:stock_tb_ts_client_srcs //ledger:stock_doc)
# What the targets write, under bazel-bin.
outputs=(
  ledger/stock_sql.sql
  ledger/stock_go_client_srcs/stock/book.go
  ledger/stock_go_client.a
  ledger/stock_tb_client_srcs/stock/book.go
  ledger/stock_tb_client.a
  ledger/stock_ts_client_srcs/stock.ts
  ledger/stock_tb_ts_client_srcs/stock.ts
  ledger/stock_doc/stock.md
  ledger/stock.check.txt
)

bases=()
cleanup() {
  for ob in "${bases[@]}"; do
    bazel --output_base="$ob" shutdown >/dev/null 2>&1 || true
    chmod -R u+w "$ob" 2>/dev/null || true
    rm -rf "$ob"
  done
}
trap cleanup EXIT

sums=()
for run in 1 2; do
  ob=$(mktemp -d "${TMPDIR:-/tmp}/chobo-determinism-$run.XXXXXX")
  bases+=("$ob")
  start=$SECONDS
  # --symlink_prefix=/: leave the bazel-* links of the normal output base alone.
  bazel --output_base="$ob" build --disk_cache= --symlink_prefix=/ "${targets[@]}" >"$ob.log" 2>&1 || {
    tail -30 "$ob.log" >&2
    rm -f "$ob.log"
    exit 1
  }
  rm -f "$ob.log"
  bin=$(bazel --output_base="$ob" info bazel-bin 2>/dev/null)
  sums+=("$(cd "$bin" && sha256sum "${outputs[@]}")")
  # The page's scenarios attribute (stock.more.json) reaches chobo doc.
  grep -q '^#### stock.more.json$' "$bin/ledger/stock_doc/stock.md" || {
    echo "determinism: ledger/stock_doc/stock.md does not show the scenarios of stock.more.json" >&2
    exit 1
  }
  echo "determinism: build $run took $((SECONDS - start)) s"
done

if [ "${sums[0]}" != "${sums[1]}" ]; then
  echo "determinism: outputs differ between two clean builds:" >&2
  diff <(echo "${sums[0]}") <(echo "${sums[1]}") >&2 || true
  exit 1
fi
echo "${sums[0]}"
echo "determinism: all ${#outputs[@]} outputs are byte-identical across two clean output bases"
