#!/usr/bin/env bash
# What TypeScript's tests need beyond the shared tools of tests/setup.sh,
# which runs this from the root of the checkout after it has installed
# Node and npm where it could. Safe to run again: npm ci runs only when the
# lock file changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The TypeScript runtime's packages, pinned in
# lang/typescript/runtime/package-lock.json (TypeScript, pg,
# tigerbeetle-node and their types): for the runtime's unit tests and the
# TypeScript clients' conformance tests. npm ci installs exactly the lock
# file. Without npm there is nothing to do: tests/setup.sh has said that
# what runs on Node will be skipped.
if ! command -v npm >/dev/null 2>&1; then
  exit 0
fi
ts_dir=lang/typescript/runtime
# A checkout made before the runtime lived in lang/typescript/runtime
# has its packages at runtime/typescript/node_modules, which git no
# longer ignores: they go, and npm ci fills the new place.
if [ -d runtime/typescript/node_modules ] && [ ! -e runtime/typescript/package.json ]; then
  echo "setup: removing runtime/typescript/node_modules (the packages are in $ts_dir/node_modules now)"
  rm -rf runtime/typescript/node_modules runtime/typescript/dist
  rmdir runtime/typescript 2>/dev/null || true
fi
if ! cmp -s "$ts_dir/package-lock.json" "$ts_dir/node_modules/.package-lock.json.installed" 2>/dev/null; then
  echo "setup: npm ci in $ts_dir"
  (cd "$ts_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$ts_dir/package-lock.json" "$ts_dir/node_modules/.package-lock.json.installed"
fi
echo "setup: node $(node --version), TypeScript $("$ts_dir/node_modules/.bin/tsc" --version | awk '{print $2}')"
