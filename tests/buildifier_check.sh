#!/usr/bin/env bash
# Lints every Starlark file of the repository (BUILD, BUILD.bazel, *.bzl,
# MODULE.bazel, WORKSPACE) with buildifier, warnings on: fails on any lint
# warning and on any file buildifier would reformat. CI calls this from
# tests/run.sh; fix what it lists with `buildifier -lint=fix <file>` (or by
# hand for what it cannot fix).
#
#   tests/buildifier_check.sh            the check
#   tests/buildifier_check.sh --install  installs the pinned buildifier
#                                        (tests/setup.sh calls this)
#
# buildifier is built from its Go module at the pinned version below (Debian
# has no package of it) into a cache outside the repository, versioned, so
# the check always runs the pinned one. CHOBO_BUILDIFIER names another
# binary instead.
#
# Which files: everything under the top directory except .git, Bazel's
# output symlinks (bazel-*) and the directories in .bazelignore, with one
# exception: a .bazelignore'd directory that holds a MODULE.bazel is a Bazel
# module of its own (examples/workspace), hidden from this module's //...
# but a user-facing one, and it is linted like the rest.
set -euo pipefail
cd "$(dirname "$0")/.."

# github.com/bazelbuild/buildtools has no Go-importable release tags (its v8
# tags lack a /v8 module path), so the pin is a pseudo-version: a commit of
# 2025-09-30, after release 8.2.1.
BUILDIFIER_VERSION=v0.0.0-20250930140053-2eb4fccefb52

if [ -n "${CHOBO_BUILDIFIER_CACHE:-}" ]; then
  cache=$CHOBO_BUILDIFIER_CACHE
elif [ "$(id -u)" = 0 ]; then
  cache=/var/cache/chobo/buildifier
else
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/chobo/buildifier
fi
pinned=$cache/$BUILDIFIER_VERSION/buildifier

if [ "${1:-}" = --install ]; then
  if [ -x "$pinned" ]; then
    exit 0
  fi
  echo "setup: installing buildifier $BUILDIFIER_VERSION (go install) into $(dirname "$pinned")"
  mkdir -p "$(dirname "$pinned")"
  # From outside the repository, so chobo's go.mod plays no part.
  (cd / && GOBIN="$(dirname "$pinned")" GOFLAGS=-buildvcs=false \
    go install "github.com/bazelbuild/buildtools/buildifier@$BUILDIFIER_VERSION")
  "$pinned" --version >/dev/null
  exit 0
fi

buildifier=${CHOBO_BUILDIFIER:-$pinned}
if [ ! -x "$buildifier" ]; then
  echo "buildifier: $buildifier is missing; run tests/setup.sh (or tests/buildifier_check.sh --install)" >&2
  exit 1
fi

# find's arguments that leave out the .bazelignore'd directories (see above).
prune=(-name .git -o -name 'bazel-*')
if [ -f .bazelignore ]; then
  while IFS= read -r dir || [ -n "$dir" ]; do
    dir=${dir%%#*}
    dir=$(printf '%s' "$dir" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//; s:/*$::')
    [ -n "$dir" ] || continue
    [ -f "$dir/MODULE.bazel" ] && continue
    prune+=(-o -path "./$dir")
  done <.bazelignore
fi

files=()
while IFS= read -r -d '' f; do
  files+=("$f")
done < <(find . \( "${prune[@]}" \) -prune -o -type f \( \
  -name BUILD -o -name BUILD.bazel -o -name '*.bzl' -o -name MODULE.bazel \
  -o -name WORKSPACE -o -name WORKSPACE.bazel -o -name '*.BUILD' \) -print0 | sort -z)
if [ "${#files[@]}" -eq 0 ]; then
  echo "buildifier: no Starlark files found" >&2
  exit 1
fi

# -mode=check lists the files it would reformat ("<file> # reformat");
# -lint=warn lists every lint warning of buildifier's default set.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if "$buildifier" -mode=check -lint=warn "${files[@]#./}" >"$out" 2>&1; then
  echo "buildifier: ${#files[@]} Starlark files clean"
  exit 0
fi
cat "$out"
# One finding a line "<file>:<line>: <category>: ..." (its explanation may
# run on), or "<file> # reformat".
n=$(grep -cE '^[^ ]+:[0-9]+: [a-z-]+: |^[^ ]+ # reformat$' "$out" || true)
echo "buildifier: $n findings in ${#files[@]} Starlark files; fix them (buildifier -lint=fix <file> fixes many)" >&2
exit 1
