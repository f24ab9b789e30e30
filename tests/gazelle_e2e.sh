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
#    (with its stock.more.json, stock.scenarios.json, stock.v2.book and
#    stock.deployed.api.json), the programs' deps on the generated clients
#    from their imports.
# 3. `bazel build //...` and `bazel test //ledger:conformance` pass on them.
# 4. A second Gazelle run changes nothing.
# 5. A directive chobo cannot follow (a wrong word in chobo_client, a
#    misspelt name) stops the run with a non-zero status and a "did you
#    mean", in -mode fix and -mode diff, before any BUILD file is written or
#    printed, and before the Go language looks up a client's import path as
#    a module (which a client dropped by going on with the defaults makes
#    it do, and which fails with an error from the module proxy).
# 6. A Japanese book in a file with an ASCII name gets a Japanese page; a
#    book whose file name is not ASCII gets the commands to rename it,
#    which give it targets that build.
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
# every other path it names in the checkout (a toolchain's interpreter) too.
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
# The version a scenario deploys goes to the conformance test, not a book.
grep -q 'versions = \["stock.v2.book"\]' ledger/BUILD.bazel || { echo "gazelle e2e: ledger/stock.v2.book is not among the conformance test's versions" >&2; cat ledger/BUILD.bazel >&2; exit 1; }
! grep -q 'src = "stock.v2.book"' ledger/BUILD.bazel || { echo "gazelle e2e: ledger/stock.v2.book was made a book of its own" >&2; exit 1; }
echo "gazelle e2e: BUILD files written again:"
cat ledger/BUILD.bazel

bazel build //...
bazel test --test_env=CI //ledger:conformance
no_change "a second Gazelle run changed the BUILD files it wrote"
echo "gazelle e2e: regenerated BUILD files build and test, and a second run changes nothing"

# Every file of the copy with its checksum, the bazel-* links left out.
tree() { find . -path './bazel-*' -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; }

# bad_directive FILE OLD NEW WANT: with OLD replaced by NEW in FILE,
# Gazelle must fail, print WANT, and change, write or print no BUILD file.
bad_directive() {
  local file=$1 old=$2 new=$3 want=$4 mode out before
  cp "$file" .gazelle-e2e-keep
  sed -i "s|$old|$new|" "$file"
  ! cmp -s "$file" .gazelle-e2e-keep || { echo "gazelle e2e: $file has no $old" >&2; exit 1; }
  before=$(tree)
  for mode in fix diff; do
    if out=$(bazel run //:gazelle -- -mode "$mode" 2>&1); then
      echo "$out" >&2
      echo "gazelle e2e: Gazelle did not fail on \`$new\` in $file (-mode $mode)" >&2
      exit 1
    fi
    if ! grep -qF "$want" <<<"$out" || grep -qi 'bad request\|^+++ \|chobo_book(' <<<"$out" ||
      [ "$(tree)" != "$before" ]; then
      echo "$out" >&2
      echo "gazelle e2e: on \`$new\` in $file (-mode $mode), Gazelle must print \"$want\", look nothing up and write nothing" >&2
      exit 1
    fi
  done
  mv .gazelle-e2e-keep "$file"
}
bad_directive BUILD.bazel 'chobo_client postgres-go tigerbeetle-go' 'chobo_client postgres-go tigerbeetle-go tigerbeetle-og' \
  'unknown client target "tigerbeetle-og"; did you mean tigerbeetle-go?'
bad_directive BUILD.bazel 'gazelle:chobo_client ' 'gazelle:chobo_clients ' \
  'gazelle:chobo_clients is not a directive of chobo; did you mean # gazelle:chobo_client?'
bad_directive BUILD.bazel 'gazelle:chobo_client ' 'gazelle:chobbo_client ' \
  'gazelle:chobbo_client is not a directive of chobo; did you mean # gazelle:chobo_client?'
bad_directive ledger/BUILD.bazel '^chobo_book(' '# gazelle:chobo-doc html\nchobo_book(' \
  'gazelle:chobo-doc is not a directive of chobo; did you mean # gazelle:chobo_doc?'
no_change "the BUILD files changed while the directives were being put back"
echo "gazelle e2e: a directive chobo cannot follow stops Gazelle before it writes or looks up anything"

# The Japanese inventory book under an ASCII file name, as README.ja.md
# suggests: its page is in Japanese.
mkdir shop
cp "$root/examples/inventory/inventory.ja.book" shop/zaiko.book
bazel run //:gazelle
grep -q 'lang = "ja"' shop/BUILD.bazel || { cat shop/BUILD.bazel >&2; echo "gazelle e2e: zaiko.book's page is not asked for in Japanese" >&2; exit 1; }
bazel build //shop:zaiko_doc
grep -qx '## 勘定' "$(bazel info bazel-bin)/shop/zaiko_doc/zaiko.md" || {
  echo "gazelle e2e: //shop:zaiko_doc is not in Japanese" >&2
  exit 1
}
echo "gazelle e2e: a Japanese book named zaiko.book gets a Japanese page"

# A book whose file name is not ASCII and which is named in Japanese: the
# message gives the commands; done with a name for NAME, the book builds.
cp "$root/examples/points/points.ja.book" shop/ポイント.book
echo '[]' >shop/ポイント.more.json
out=$(bazel run //:gazelle -- -mode diff 2>&1 || true)
grep -F 'mv ポイント.book NAME.book && mv ポイント.more.json NAME.more.json, with that name for NAME' <<<"$out" >/dev/null || {
  echo "$out" >&2
  echo "gazelle e2e: no rename commands for shop/ポイント.book" >&2
  exit 1
}
(cd shop && mv ポイント.book pointo.book && mv ポイント.more.json pointo.more.json)
bazel run //:gazelle
bazel build //shop:pointo //shop:pointo_doc
grep -qx '## 勘定' "$(bazel info bazel-bin)/shop/pointo_doc/pointo.md"
no_change "a Gazelle run after the rename changed the BUILD files it wrote"
echo "gazelle e2e: ポイント.book is told how to rename itself, and builds renamed"
