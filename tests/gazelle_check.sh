#!/usr/bin/env bash
# Fails when the BUILD files are not what Gazelle would write: run
# `bazel run //:gazelle` and commit the result. CI calls this.
set -euo pipefail
cd "$(dirname "$0")/.."

diff_out=$(mktemp)
trap 'rm -f "$diff_out"' EXIT
# -mode diff prints a unified diff and exits non-zero when a file would change.
if ! bazel run //:gazelle -- -mode diff >"$diff_out" 2>&1 || grep -q '^+++ ' "$diff_out"; then
  sed -n '/^--- /,$p' "$diff_out"
  echo "gazelle: BUILD files are out of date; run: bazel run //:gazelle" >&2
  exit 1
fi
echo "gazelle: BUILD files up to date"
