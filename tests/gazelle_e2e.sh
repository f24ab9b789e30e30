#!/usr/bin/env bash
# chobo's Gazelle language end to end, on a copy of examples/workspace
# (the checkout is not modified). tests/run.sh runs it.
#
# 1. The checkout's BUILD files are what Gazelle writes: `gazelle -mode
#    diff` on the untouched copy prints nothing. (The hand-written comments
#    and the extra, manual stock_breaking_change target are Gazelle's to
#    keep, not to write, so the check is "no change", not "same bytes".)
# 2. With ledger/BUILD.bazel and cmd/*/BUILD.bazel deleted, `bazel run
#    //:gazelle` writes them again: the book's targets from ledger/stock.book
#    (with its stock.more.json and stock.deployed.api.json), the programs'
#    deps on the generated clients from their imports.
# 3. `bazel build //...` and `bazel test //ledger:conformance` pass on them.
# 4. A second Gazelle run changes nothing.
#
# Usage: tests/gazelle_e2e.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)

ws=$(mktemp -d "${TMPDIR:-/tmp}/chobo-gazelle.XXXXXX")
cleanup() {
  (cd "$ws" && bazel shutdown) >/dev/null 2>&1 || true
  rm -rf "$ws"
}
trap cleanup EXIT

# The workspace without its bazel-* links; chobo from this checkout, and
# every other path it names in the checkout (the Python interpreter) too.
(cd "$root/examples/workspace" && tar --exclude='./bazel-*' -cf - .) | (cd "$ws" && tar -xf -)
sed -i "s|path = \"\\.\\./\\.\\.\\([/\"]\\)|path = \"$root\\1|" "$ws/MODULE.bazel"
grep -q "path = \"$root\"" "$ws/MODULE.bazel" || {
  echo "gazelle e2e: could not point the copy's local_path_override at $root" >&2
  exit 1
}
cd "$ws"

# Gazelle's -mode diff: prints a unified diff, exits non-zero on a change.
no_change() {
  local out
  if ! out=$(bazel run //:gazelle -- -mode diff 2>&1) || grep -q '^+++ ' <<<"$out"; then
    sed -n '/^--- /,$p' <<<"$out" >&2
    echo "gazelle e2e: $1" >&2
    exit 1
  fi
}

no_change "the BUILD files of examples/workspace are not what Gazelle writes; run: (cd examples/workspace && bazel run //:gazelle)"
echo "gazelle e2e: examples/workspace's BUILD files are what Gazelle writes"

rm ledger/BUILD.bazel cmd/*/BUILD.bazel
bazel run //:gazelle
for f in ledger/BUILD.bazel cmd/stockctl/BUILD.bazel cmd/stocktb/BUILD.bazel; do
  [ -f "$f" ] || { echo "gazelle e2e: $f was not written" >&2; exit 1; }
done
# The programs depend on the generated clients through their imports only.
grep -q '"//ledger:stock_go_client"' cmd/stockctl/BUILD.bazel
grep -q '"//ledger:stock_tb_client"' cmd/stocktb/BUILD.bazel
echo "gazelle e2e: BUILD files written again:"
cat ledger/BUILD.bazel

bazel build //...
bazel test --test_env=CI //ledger:conformance
no_change "a second Gazelle run changed the BUILD files it wrote"
echo "gazelle e2e: regenerated BUILD files build and test, and a second run changes nothing"
