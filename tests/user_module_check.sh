#!/usr/bin/env bash
# A user's module outside this checkout, written from docs/bazel.md only,
# built and tested the way a user would (tests/run.sh runs it):
#
# - it lives in a fresh temporary directory and takes chobo with
#   local_path_override from this checkout, with no CHOBO_BAZEL_BIND: the
#   `bazel` wrapper makes the paths a module names visible to Bazel;
# - its .bazelrc has --incompatible_strict_action_env (PATH
#   /bin:/usr/bin:/usr/local/bin, no /usr/sbin): the conformance test still
#   starts PostgreSQL, also as root;
# - its book holds a secret, and `bazel build` must print W901;
# - a program of its own opens a pgxpool (gazelle's go_deps, use_repo, a
#   go.mod), next to the generated client;
# - a chobo_doc target writes the book's HTML page;
# - a PostgreSQL toolchain pointed at a folder with no server fails the
#   conformance test at analysis, naming the folder and what to write;
# - while a command of this module runs (`bazel run` of a program that
#   waits), a command in another workspace (this checkout) must not wait
#   for it: the wrapper locks per output base, not per machine.
#
# Usage: tests/user_module_check.sh [CHOBO_DIR]   (default: this checkout)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
chobo=${1:-$root}

ws=$(mktemp -d "${TMPDIR:-/tmp}/chobo-user.XXXXXX")
released=$ws.release
cleanup() {
  : >"$released"
  (cd "$ws" && bazel shutdown) >/dev/null 2>&1 || true
  rm -rf "$ws" "$released" "$released.waiting"
}
trap cleanup EXIT

# Versions as in chobo's go.mod, so go_deps needs nothing that is not in
# the Go module cache already (this machine reaches no other registry).
pgx=$(awk '$1 == "github.com/jackc/pgx/v5" { print $2 }' "$root/go.mod")
indirect=$(awk '/\/\/ indirect/ { print "\t" $1 " " $2 " // indirect" }' "$root/go.mod")

cat >"$ws/MODULE.bazel" <<EOF
module(name = "shop")

bazel_dep(name = "chobo", version = "0.1.0")
local_path_override(
    module_name = "chobo",
    path = "$chobo",
)

bazel_dep(name = "rules_go", version = "0.59.0")
bazel_dep(name = "gazelle", version = "0.36.0")

go_sdk = use_extension("@rules_go//go:extensions.bzl", "go_sdk")
go_sdk.host()

go_deps = use_extension("@gazelle//:extensions.bzl", "go_deps")
go_deps.from_file(go_mod = "//:go.mod")
use_repo(go_deps, "com_github_jackc_pgx_v5")
EOF
cat >"$ws/go.mod" <<EOF
module example.com/shop

go 1.25.0

require github.com/jackc/pgx/v5 $pgx

require (
$indirect
)
EOF
# go.sum: chobo's holds every line this go.mod needs (and more, which
# go_deps ignores); a user runs `go mod tidy` instead.
cp "$root/go.sum" "$ws/go.sum"
cat >"$ws/.bazelrc" <<'EOF'
common --incompatible_strict_action_env
# CI=true reaches the test, so a missing PostgreSQL fails it instead of skipping.
build --test_env=CI
EOF
cat >"$ws/BUILD.bazel" <<'EOF'
load("@chobo//rules:defs.bzl", "chobo_book", "chobo_client", "chobo_conformance_test", "chobo_doc")

chobo_book(
    name = "mirror",
    src = "mirror.book",
)

chobo_client(
    name = "mirror_go_client",
    book = ":mirror",
    importpath = "example.com/shop/mirror",
    visibility = ["//visibility:public"],
)

chobo_client(
    name = "mirror_ts_client",
    book = ":mirror",
    target = "postgres-typescript",
    visibility = ["//visibility:public"],
)

chobo_doc(
    name = "mirror_doc",
    book = ":mirror",
    format = "html",
)

chobo_conformance_test(
    name = "conformance",
    size = "medium",
    book = ":mirror",
    clients = [
        ":mirror_go_client",
        ":mirror_ts_client",
    ],
)

sh_binary(
    name = "wait",
    srcs = ["wait.sh"],
)
EOF
# The same book as tests/testdata/secret_in_book, with a line of its own
# so that its check action is new to every cache: W901 must come from a
# check that ran, never from a cache's memory of one.
{
  echo "# user module check $(basename "$ws")"
  cat "$root/tests/testdata/secret_in_book/secret_in_book.book"
} >"$ws/mirror.book"
cat >"$ws/wait.sh" <<'EOF'
#!/bin/sh
# Says it is running, then waits until told to stop.
: >"$1.waiting"
while [ ! -e "$1" ]; do sleep 0.1; done
EOF
chmod +x "$ws/wait.sh"
mkdir -p "$ws/cmd/mirrord"
cat >"$ws/cmd/mirrord/BUILD.bazel" <<'EOF'
load("@rules_go//go:def.bzl", "go_binary")

go_binary(
    name = "mirrord",
    srcs = ["main.go"],
    deps = [
        "//:mirror_go_client",
        "@com_github_jackc_pgx_v5//pgxpool",
    ],
)
EOF
cat >"$ws/cmd/mirrord/main.go" <<'EOF'
// Command mirrord opens its own pool and hands it to the generated client.
package main

import (
	"context"
	"fmt"
	"os"

	"example.com/shop/mirror"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mirrord DATABASE_URL")
		os.Exit(2)
	}
	pool, err := pgxpool.New(context.Background(), os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer pool.Close()
	b := mirror.Postgres(pool, "shop-1")
	fmt.Printf("%T\n", b)
}
EOF

cd "$ws"
fail() {
  echo "user module ($ws): $*" >&2
  exit 1
}

# The wrapper names the override's path among those it makes visible.
binds=$(CHOBO_BAZEL_SHOW_BINDS=1 bazel info workspace 2>&1 >/dev/null) || fail "bazel info failed: $binds"
real=$(readlink -f "$chobo")
seen=0
for r in $(sed -n 's/^bazel (chobo wrapper): visible in the chroot: //p' <<<"$binds"); do
  case "$real/" in "$r"/*) seen=1 ;; esac
done
[ "$seen" = 1 ] || fail "the wrapper does not make $chobo (local_path_override) visible: $binds"

# Book warnings in the build output; the program with its own pgxpool builds.
out=$(bazel build //... 2>&1) || {
  echo "$out" >&2
  fail "bazel build //... failed"
}
grep -q 'warning\[W901\]' <<<"$out" || {
  echo "$out" >&2
  fail "bazel build did not print the book's W901 warning"
}
echo "user module: bazel build prints W901, and //cmd/mirrord (own pgxpool) builds"
ts="$(bazel info bazel-bin)/mirror_ts_client_srcs/mirror.ts"
grep -q '^export function postgres(' "$ts" || fail "//:mirror_ts_client did not write $ts with a postgres constructor"
echo "user module: //:mirror_ts_client builds one TypeScript file, $(wc -c <"$ts") bytes"
page="$(bazel info bazel-bin)/mirror_doc/mirror.html"
grep -q '^<!DOCTYPE html>' "$page" || fail "//:mirror_doc did not write the HTML page $page"
grep -q 'id="chobo-data"' "$page" || fail "the page $page carries no scenario data"
echo "user module: //:mirror_doc writes one HTML page, $(wc -c <"$page") bytes"

# The conformance test under --incompatible_strict_action_env (the .bazelrc), as whoever runs this.
# Its clients are PostgreSQL ones: its one part is <name>_postgres, and
# no part on TigerBeetle is there to be reported, run or skipped.
log="$(bazel info bazel-testlogs)/conformance_postgres/test.log"
out=$(bazel test --nocache_test_results //:conformance 2>&1) || {
  echo "$out" >&2
  fail "the conformance test failed"
}
grep -q '^PASS: mirror.book on postgres-typescript:' "$log" || {
  cat "$log" >&2
  fail "the conformance test did not pass the TypeScript client"
}
# The book has a bound: the SQL functions ran the bound changes chobo
# derives from it, each deploying a new version, rather than skip them.
grep '^PASS: mirror.book on postgres: .*deploy steps, each a new version put in place' "$log" &&
  ! grep -q '^PASS: mirror.book on postgres: .*deploy a new version not run' "$log" || {
  cat "$log" >&2
  fail "the SQL functions did not run the scenarios that deploy a new version"
}
grep -q '^//:conformance_postgres .* PASSED' <<<"$out" && ! grep -q 'conformance_tigerbeetle' <<<"$out" || {
  echo "$out" >&2
  fail "bazel test //:conformance did not report exactly its PostgreSQL part"
}
echo "user module: conformance test passes with --incompatible_strict_action_env (user $(id -un)), the TypeScript client too, in its one part"

# A command of another workspace does not wait for a running one.
bazel build //:wait >/dev/null 2>&1 || fail "bazel build //:wait failed"
bazel run //:wait -- "$released" >/dev/null 2>&1 &
waiter=$!
for _ in $(seq 1 600); do
  [ -e "$released.waiting" ] && break
  kill -0 "$waiter" 2>/dev/null || fail "bazel run //:wait ended early"
  sleep 0.1
done
[ -e "$released.waiting" ] || fail "bazel run //:wait did not start its program in 60 s"
start=$EPOCHREALTIME
if ! (cd "$root" && timeout 120 bazel info output_base >/dev/null 2>&1); then
  : >"$released"
  fail "bazel info in $root did not finish while a command of $ws ran (a lock for the whole machine?)"
fi
took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
kill -0 "$waiter" 2>/dev/null || fail "bazel run //:wait ended before it was released"
: >"$released"
wait "$waiter" || fail "bazel run //:wait failed"
echo "user module: bazel info in $root took ${took}s while a command of $ws was running"

# A PostgreSQL toolchain pointed at a folder with no server: the
# conformance test fails at analysis, and the message names the folder and
# what to write instead.
cat >>MODULE.bazel <<'EOF2'
postgres = use_extension("@chobo//toolchains/postgres:extensions.bzl", "postgres")
postgres.local(path = "/nonexistent/postgresql/bin")
EOF2
if out=$(bazel build //:conformance_postgres 2>&1); then
  fail "bazel build //:conformance_postgres passed with postgres.local(path) naming a folder with no server"
fi
grep -q 'no PostgreSQL server (initdb, pg_ctl, postgres) in /nonexistent/postgresql/bin; name the bin folder of an installed server' <<<"$out" || {
  echo "$out" >&2
  fail "a PostgreSQL toolchain with no server did not say which folder and what to write"
}
echo "user module: postgres.local(path) naming a folder with no server fails the conformance test at analysis, naming the folder"
