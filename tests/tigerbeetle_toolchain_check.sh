#!/usr/bin/env bash
# The TigerBeetle toolchain in a user's module outside this checkout
# (tests/run.sh runs it when there is a tigerbeetle binary to work with):
#
# - tigerbeetle.release(version = "0.17.9") with no urls and no sha256
#   picks the official archive of this platform and its pinned sha256: a
#   mirror serving another archive under that name is refused, with a
#   message that names the archive and the pinned sum;
# - urls and sha256 given: a local zip made from the binary is fetched,
#   unpacked and its binary runs; the same zip with a wrong sha256 is
#   refused, naming the archive;
# - tigerbeetle.local() with CHOBO_TIGERBEETLE naming a file that is not
#   there fails the conformance test (never a skip), and once the file is
#   there the same command runs the real replica: nothing of the earlier
#   run is served from the cache.
#
# Usage: tests/tigerbeetle_toolchain_check.sh TIGERBEETLE_BINARY
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
bin=$(readlink -f "$1")
[ -x "$bin" ] || { echo "tigerbeetle toolchain: $1 is not an executable" >&2; exit 2; }

ws=$(mktemp -d "${TMPDIR:-/tmp}/chobo-tbtoolchain.XXXXXX")
cleanup() {
  (cd "$ws/module" && bazel shutdown) >/dev/null 2>&1 || true
  rm -rf "$ws"
}
trap cleanup EXIT
fail() {
  echo "tigerbeetle toolchain: $*" >&2
  exit 1
}

# The archive as the official releases lay it out: the binary at the top.
mkdir -p "$ws/archives" "$ws/module"
(cd "$(dirname "$bin")" && zip -q -j "$ws/archives/tigerbeetle-x86_64-linux.zip" "$(basename "$bin")")
if [ "$(basename "$bin")" != tigerbeetle ]; then
  fail "the binary must be named tigerbeetle, as in a release archive"
fi
zip_sum=$(sha256sum "$ws/archives/tigerbeetle-x86_64-linux.zip" | awk '{print $1}')
pinned=af71f2c0057e3b409bf79940fa94894b738187b0d4f1e711097bca15df5d8cd4
archive_url="file://$ws/archives/tigerbeetle-x86_64-linux.zip"

# module TAGS: writes the module with these tigerbeetle tags.
module() {
  cat >"$ws/module/MODULE.bazel" <<EOF
module(name = "tbtoolchain")

bazel_dep(name = "chobo", version = "0.1.0")
local_path_override(
    module_name = "chobo",
    path = "$root",
)

bazel_dep(name = "rules_go", version = "0.59.0")

go_sdk = use_extension("@rules_go//go:extensions.bzl", "go_sdk")
go_sdk.host()

tigerbeetle = use_extension("@chobo//toolchains/tigerbeetle:extensions.bzl", "tigerbeetle")
$1
use_repo(tigerbeetle, "tigerbeetle_toolchains")
EOF
}
: >"$ws/module/BUILD.bazel"
cd "$ws/module"
arch=$(uname -m)

# The toolchain the module's tags make (its label, as the toolchain
# repository names it), built: that fetches the binary's repository.
toolchain_label() {
  bazel query --output=build @tigerbeetle_toolchains//:all 2>/dev/null |
    sed -n 's/^ *toolchain = "\(.*\)",$/\1/p' | head -n 1
}
fetch() {
  local label
  label=$(toolchain_label)
  [ -n "$label" ] || { echo "no toolchain in @tigerbeetle_toolchains"; return 1; }
  bazel build "$label" 2>&1
}
fetched_binary() {
  local label base
  label=$(toolchain_label)
  base=$(bazel info output_base 2>/dev/null)
  label=${label#@@}
  echo "$base/external/${label%%//*}/bin/tigerbeetle"
}

if [ "$arch" = x86_64 ]; then
  # One line: the version only. The mirror serves an archive that is not
  # the official one, so the pinned sum must refuse it.
  module "tigerbeetle.release(version = \"0.17.9\", mirrors = [\"file://$ws/archives\"])"
  if out=$(fetch); then
    fail "an archive other than the official one was accepted for version 0.17.9"
  fi
  for want in "tigerbeetle-x86_64-linux.zip" "$pinned" "refusing it"; do
    grep -qF "$want" <<<"$out" || fail "the refusal does not say $want:
$out"
  done
  echo "tigerbeetle toolchain: release(version = \"0.17.9\") picks tigerbeetle-x86_64-linux.zip and refuses it unless its sha256 is $pinned"
else
  echo "SKIP: tigerbeetle toolchain: the pinned-archive check needs x86_64 (this is $arch)"
fi

# urls and sha256 given: the local archive is fetched and its binary runs.
module "tigerbeetle.release(version = \"0.17.9\", urls = [\"$archive_url\"], sha256 = \"$zip_sum\")"
out=$(fetch) || fail "a local archive with its own sha256 was refused:
$out"
got=$(fetched_binary)
"$got" version | grep -q "0.17.9" || fail "$got does not run as TigerBeetle 0.17.9"
echo "tigerbeetle toolchain: release(urls, sha256) fetched a local archive; its binary says $("$got" version | tail -n 1)"

# A wrong sha256 is refused, naming the archive.
wrong=0000000000000000000000000000000000000000000000000000000000000000
module "tigerbeetle.release(version = \"0.17.9\", urls = [\"$archive_url\"], sha256 = \"$wrong\")"
if out=$(fetch); then
  fail "an archive with a wrong sha256 was accepted"
fi
for want in "$archive_url" "$zip_sum" "$wrong" "refusing it"; do
  grep -qF "$want" <<<"$out" || fail "the refusal of a wrong sha256 does not say $want:
$out"
done
echo "tigerbeetle toolchain: a wrong sha256 is refused, with the archive named"

# tigerbeetle.local(): the binary CHOBO_TIGERBEETLE names. Named and not
# there, the conformance test fails; once it is there, the same command
# runs on the real replica.
module "tigerbeetle.local()"
cp "$root/examples/workspace/ledger/stock.book" "$ws/module/stock.book"
cat >"$ws/module/BUILD.bazel" <<'EOF2'
load("@chobo//rules:defs.bzl", "chobo_book", "chobo_client", "chobo_conformance_test")

chobo_book(
    name = "stock",
    src = "stock.book",
)

chobo_client(
    name = "stock_tb_client",
    book = ":stock",
    importpath = "example.com/tbtoolchain/stock",
    package = "stock",
    target = "tigerbeetle-go",
)

chobo_conformance_test(
    name = "conformance",
    book = ":stock",
    clients = [":stock_tb_client"],
)
EOF2
later="$ws/later/tigerbeetle"
if out=$(CHOBO_TIGERBEETLE=$later bazel test --test_env=CI --test_output=errors //:conformance 2>&1); then
  fail "the conformance test passed with CHOBO_TIGERBEETLE naming a file that is not there:
$out"
fi
grep -qF "CHOBO_TIGERBEETLE=$later: no such file" <<<"$out" || fail "the failure does not name the missing binary:
$out"
echo "tigerbeetle toolchain: a binary named but not there fails the conformance test"
mkdir -p "$(dirname "$later")"
cp "$bin" "$later"
out=$(CHOBO_TIGERBEETLE=$later bazel test --test_env=CI --test_output=all //:conformance 2>&1) || fail "with the binary there, the conformance test failed:
$out"
grep -q "PASS: stock.book on tigerbeetle-go (real replica)" <<<"$out" || fail "with the binary there, the test did not run on the real replica:
$out"
echo "tigerbeetle toolchain: once the named binary is there, the same command runs the real replica"
bazel shutdown >/dev/null 2>&1 || true
