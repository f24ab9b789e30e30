#!/usr/bin/env bash
# Runs every test of the project. CI calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# done_at WHAT: prints how far into the run WHAT ended, so that a slow
# step shows in CI's log.
done_at() { echo "run.sh: $1 done at $SECONDS s"; }

unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"
  echo "$unformatted"
  exit 1
fi
# Every Starlark file linted, warnings on (cheap, so before the long steps).
bash tests/buildifier_check.sh

# The real TigerBeetle server the project's own machines keep beside the
# checkout, unless CHOBO_TIGERBEETLE names another: the Go tests find it
# themselves, the Bazel toolchain through the variable.
shared_tb="$PWD/../shared/tools/tigerbeetle/tigerbeetle"
if [ -z "${CHOBO_TIGERBEETLE:-}" ] && [ -x "$shared_tb" ]; then
  CHOBO_TIGERBEETLE="$(readlink -f "$shared_tb")"
  export CHOBO_TIGERBEETLE
fi
if [ -n "${CHOBO_TIGERBEETLE:-}" ]; then
  echo "real TigerBeetle: $CHOBO_TIGERBEETLE ($("$CHOBO_TIGERBEETLE" version 2>/dev/null | tail -n 1))"
  # The Bazel wrapper runs Bazel in a chroot: make the binary visible there.
  export CHOBO_BAZEL_BIND="${CHOBO_BAZEL_BIND:+$CHOBO_BAZEL_BIND:}$(dirname "$CHOBO_TIGERBEETLE")"
else
  echo "SKIP: real TigerBeetle: CHOBO_TIGERBEETLE is not set and ../shared/tools/tigerbeetle/tigerbeetle is not there; TigerBeetle runs on the model only"
fi
# ran_on_replica LOG [BOOK]: the conformance test log LOG shows that BOOK
# (default: any) passed on the real replica (the line is printed), else
# the log is shown and the run fails.
ran_on_replica() {
  if ! grep "^PASS: ${2:-.*} on tigerbeetle-go (real replica)" "$1"; then
    echo "$1: tigerbeetle-go did not run on the real replica, with $CHOBO_TIGERBEETLE there:" >&2
    cat "$1" >&2
    exit 1
  fi
}

# ran_deploys LOG BOOK: the conformance test log LOG shows that the SQL
# functions ran BOOK's scenarios that deploy a new version (the line is
# printed), none of them skipped there; else the log is shown and the run
# fails.
ran_deploys() {
  local line
  line=$(grep "^PASS: $2 on postgres: " "$1") || line=""
  if ! grep -q "deploy steps, each a new version put in place" <<<"$line" || grep -q "deploy a new version not run" <<<"$line"; then
    echo "$1: the SQL functions did not run every scenario of $2 that deploys a new version:" >&2
    cat "$1" >&2
    exit 1
  fi
  echo "$line"
}

# ran_languages LOGS BOOK SUMMARY: the conformance test whose parts' logs
# are LOGS_postgres/test.log and LOGS_tigerbeetle/test.log shows that
# BOOK passed through the PostgreSQL client of every language of lang/
# and, with a binary, through its TigerBeetle client on the real replica;
# without one, Bazel's summary SUMMARY reports the part on a real replica
# SKIPPED, not passed over in silence (the lines are printed).
ran_languages() {
  local want=() dir lang
  for dir in lang/*/; do
    lang=$(basename "$dir")
    want+=("$1_postgres/test.log" "^PASS: $2 on postgres-$lang:")
    if [ -n "${CHOBO_TIGERBEETLE:-}" ]; then
      want+=("$1_tigerbeetle/test.log" "^PASS: $2 on tigerbeetle-$lang (real replica):")
    fi
  done
  if [ -z "${CHOBO_TIGERBEETLE:-}" ]; then
    want+=("$3" "^//.*:$(basename "$1")_tigerbeetle  *SKIPPED\$")
  fi
  local i
  for ((i = 0; i < ${#want[@]}; i += 2)); do
    if ! grep "${want[i + 1]}" "${want[i]}"; then
      echo "${want[i]}: no line matching ${want[i + 1]}:" >&2
      cat "${want[i]}" >&2
      exit 1
    fi
  done
}

go vet ./...
# The tests package runs every scenario on every pair, the real
# TigerBeetle and the client languages included: near 30 minutes in one
# process on a quiet machine of 2 cores. Most of it is spent waiting on
# servers, compilers, drivers and browsers, so its longest tests run in a
# second go test beside the rest (they share no server, port or file);
# that one's output follows the first's. Within each, the languages of a
# conformance test run side by side (t.Parallel), two at a time (one per
# core, go test's default): they wait more than they compute, but more at
# once made holds of a few seconds lapse on a busy machine.
apart='^(TestTigerBeetleConformance|TestPostgresSendsWhatShowPrints|TestTargetsWholePrograms|TestTigerBeetleThreeReplicas|TestInstallOncePublished|TestInstallFromCheckoutWithGoInstall)$'
# Six production replicas take about 14 GiB: that test runs alone, after.
alone='^TestTigerBeetleProductionCluster$'
apart_log=$(mktemp)
go test -timeout 60m -run "$apart" ./tests >"$apart_log" 2>&1 &
apart_pid=$!
trap 'kill "$apart_pid" 2>/dev/null || true; rm -f "$apart_log"' EXIT
rest=0
go test -timeout 60m -skip "$apart|$alone" ./... || rest=$?
apart_rc=0
wait "$apart_pid" || apart_rc=$?
echo "--- the tests package's longest tests (go test -run '$apart' ./tests):"
cat "$apart_log"
rm -f "$apart_log"
trap - EXIT
if [ "$rest" != 0 ] || [ "$apart_rc" != 0 ]; then
  exit 1
fi
alone_log=$(mktemp)
alone_rc=0
go test -timeout 20m -run "$alone" -v ./tests 2>&1 | grep -v '^warning(message_bus)' | tee "$alone_log" || alone_rc=$?
ran=$(grep -c '^production cluster: ' "$alone_log" || true)
rm -f "$alone_log"
if [ "$alone_rc" != 0 ]; then
  exit 1
fi
# With a binary the cluster must have run, not been skipped.
if [ -n "${CHOBO_TIGERBEETLE:-}" ] && [ "$ran" = 0 ]; then
  echo "TestTigerBeetleProductionCluster did not run its cluster, with $CHOBO_TIGERBEETLE there" >&2
  exit 1
fi
done_at "go test"
# The pages' screenshots that tests/browser_test.go took in this run.
shots="${CHOBO_SCREENSHOTS:-tests/browser/screenshots}"
if compgen -G "$shots/*.png" >/dev/null; then
  echo "browser screenshots in $shots:"
  (cd "$shots" && ls -l -- *.png | awk '{print "  " $NF " (" $5 " bytes)"}')
fi

# The Bazel ruleset: chobo's own targets and tests, BUILD files in step with
# Gazelle, the example workspace built and tested the way a user would, and
# the same bytes from two clean builds. Bazel comes from tests/setup.sh.
if ! command -v bazel >/dev/null 2>&1; then
  echo "SKIP: bazel not installed (tests/setup.sh installs it); Bazel tests not run"
  exit 0
fi
root=$PWD
e2e=$root/examples/workspace
# Stop both Bazel servers however this ends, so CI leaves nothing running.
trap '(cd "$e2e" && bazel shutdown) || true; (cd "$root" && bazel shutdown) || true' EXIT
# CI=true reaches the tests, so a missing PostgreSQL fails them instead of skipping.
# Exit status 1 is a build that did not complete (3 is a failed test, never
# run again): it is tried once more, so that a fault of the machine's
# shared caches does not stop the run, while a real build error fails twice.
# Bazel's summary is kept, for the parts it reports SKIPPED.
summary=$(mktemp)
trap 'rm -f "$summary"; (cd "$e2e" && bazel shutdown) || true; (cd "$root" && bazel shutdown) || true' EXIT
rc=0
bazel test --test_env=CI //... 2>&1 | tee "$summary" || rc=$?
if [ "$rc" = 1 ]; then
  echo "bazel test //... did not complete the build (exit status 1); trying once more"
  bazel test --test_env=CI //... 2>&1 | tee "$summary"
elif [ "$rc" != 0 ]; then
  exit "$rc"
fi
# Every conformance test that ran a tigerbeetle-go client on the model ran
# it on the real replica too, when there is a binary.
if [ -n "${CHOBO_TIGERBEETLE:-}" ]; then
  for log in "$(bazel info bazel-testlogs)"/examples/*conformance_tigerbeetle_model/test.log; do
    if grep -q "on tigerbeetle-go (model)" "$log"; then
      ran_on_replica "${log%_model/test.log}/test.log"
    fi
  done
fi
ran_languages "$(bazel info bazel-testlogs)/examples/inventory_conformance" inventory.book "$summary"
done_at "bazel test //..."
bash tests/gazelle_check.sh
# chobo's Gazelle language on a copy of examples/workspace: its BUILD files
# are what Gazelle writes, and deleted, Gazelle writes them again so that
# the workspace builds and its conformance test passes.
bash tests/gazelle_e2e.sh
done_at "Gazelle's checks"
# The conformance test always runs here, never from a cached result, so a
# server is really started and every scenario really sent to it.
# stockpy's test imports its client the way a user's program does.
(cd "$e2e" && bazel build //ledger:stock_go_client //ledger:stock_tb_client //... &&
  bazel test --test_env=CI --nocache_test_results //ledger:conformance //stockpy:reserve_test) 2>&1 | tee "$summary"
e2e_logs="$(cd "$e2e" && bazel info bazel-testlogs)/ledger/conformance"
# Every language's clients ran, each on its toolchain.
ran_languages "$e2e_logs" stock.book "$summary"
# The SQL functions deployed stock.v2.book (versions) and the bound
# changes derived from the book, on a database of their own.
ran_deploys "${e2e_logs}_postgres/test.log" stock.book
# On the model, chobo's Go runtime in the runner ran them too, migrating
# the bounds at each deploy (a hold a deploy lays out otherwise is a SKIP
# line there).
if ! grep "^PASS: stock.book on tigerbeetle-go in the runner (model), the scenarios that deploy: .*deploy steps, each a new version put in place" "${e2e_logs}_tigerbeetle_model/test.log"; then
  echo "${e2e_logs}_tigerbeetle_model/test.log: the scenarios that deploy did not run in the runner on the model:" >&2
  cat "${e2e_logs}_tigerbeetle_model/test.log" >&2
  exit 1
fi
# With a binary, the log must show that the real replica ran, not a skip.
if [ -n "${CHOBO_TIGERBEETLE:-}" ]; then
  ran_on_replica "${e2e_logs}_tigerbeetle/test.log" stock.book
  # The toolchain kinds in a module outside the checkout: a release by
  # version, a local archive by its sha256, a named binary.
  bash tests/tigerbeetle_toolchain_check.sh "$CHOBO_TIGERBEETLE"
fi
# A book held against a deployed version it would break must not build.
if out=$(cd "$e2e" && bazel build //ledger:stock_breaking_change 2>&1); then
  echo "//ledger:stock_breaking_change built, but its baseline should stop it with E050" >&2
  exit 1
elif ! grep -q 'error\[E050\]' <<<"$out"; then
  echo "//ledger:stock_breaking_change failed without E050:" >&2
  echo "$out" >&2
  exit 1
fi
echo "baseline: //ledger:stock_breaking_change stopped by E050, as it should be"
done_at "the example workspace"
# A user's module outside the checkout, as docs/bazel.md describes it: chobo
# by local_path_override with no CHOBO_BAZEL_BIND, its own pgxpool, book
# warnings in the build output, the conformance test under
# --incompatible_strict_action_env, and no wait behind another workspace.
bash tests/user_module_check.sh
done_at "the user module"
if [ "${CHOBO_SKIP_DETERMINISM:-}" = 1 ]; then
  echo "SKIP: determinism check (CHOBO_SKIP_DETERMINISM=1)"
else
  bash tests/bazel_determinism.sh
  done_at "the determinism check"
fi
# A real remote cache server (BuildGrid, from tests/setup.sh): a second
# checkout at another path builds entirely from what the first one put there.
if [ "${CHOBO_SKIP_REMOTE_CACHE:-}" = 1 ]; then
  echo "SKIP: remote cache check (CHOBO_SKIP_REMOTE_CACHE=1)"
else
  bash tests/remote_cache.sh
  done_at "the remote cache check"
fi
