#!/usr/bin/env bash
# What Python's tests need beyond the shared tools of tests/setup.sh, which
# runs this from the root of the checkout after it has made sure of
# python3 (3.11 or newer, which BuildGrid needs too). Safe to run again:
# the environment is made anew only when its pins changed.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The Python runtime's checks (mypy), psycopg and the tigerbeetle package,
# pinned in its requirements-dev.txt, in a virtual environment beside it, as
# npm ci fills the TypeScript runtime's node_modules.
py_dir=lang/python/runtime
# A checkout made before the runtime lived in lang/python/runtime has its
# environment at runtime/python/.venv, which git no longer ignores; an
# environment cannot be moved (its scripts name their own path), so that
# one goes and the one below is made in its place.
if [ -d runtime/python/.venv ] && [ ! -e runtime/python/pyproject.toml ]; then
  echo "setup: removing runtime/python/.venv (the environment is $py_dir/.venv now)"
  rm -rf runtime/python/.venv
  rmdir runtime/python 2>/dev/null || true
fi
if ! cmp -s "$py_dir/requirements-dev.txt" "$py_dir/.venv/requirements-dev.txt.installed" 2>/dev/null; then
  echo "setup: pip install -r $py_dir/requirements-dev.txt into $py_dir/.venv"
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  rm -rf "$py_dir/.venv"
  python3 -m venv "$py_dir/.venv"
  "$py_dir/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$py_dir/requirements-dev.txt"
  cp "$py_dir/requirements-dev.txt" "$py_dir/.venv/requirements-dev.txt.installed"
fi
echo "setup: $("$py_dir/.venv/bin/mypy" --version)"
