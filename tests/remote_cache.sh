#!/usr/bin/env bash
# Proves that two checkouts share their build through a remote cache.
#
# Starts a real remote cache server (BuildGrid, installed by tests/setup.sh:
# the REAPI ActionCache, CAS and ByteStream services over gRPC on
# 127.0.0.1, storage in a temporary directory), then builds
#   - the example workspace: `bazel build //ledger:stock_go_client //ledger:stock_tb_client //...`
#     and `bazel test //ledger:conformance`, as tests/run.sh does,
#   - chobo's own root module: `bazel build //...`,
# first from this checkout, then from a copy of it at another path, each in
# a fresh output base with the shared disk cache turned off. The second
# builds must take every action that can be cached (all but Bazel's
# internal ones) from the remote cache, or this script fails. It prints
# the figures, e.g. "e2e: 144/144 remote cache hits (...)".
#
# Takes about 2 minutes on 2 cores: the first builds run every action.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# Where tests/setup.sh puts BuildGrid (keep the two in step).
if [ -n "${CHOBO_BUILDGRID_VENV:-}" ]; then
  venv=$CHOBO_BUILDGRID_VENV
elif [ "$(id -u)" = 0 ]; then
  venv=/var/cache/chobo/buildgrid-venv
else
  venv=${XDG_CACHE_HOME:-$HOME/.cache}/chobo/buildgrid-venv
fi
bgd=$venv/bin/bgd
if [ ! -x "$bgd" ]; then
  echo "remote cache: no BuildGrid at $bgd; run tests/setup.sh (CHOBO_SKIP_REMOTE_CACHE=1 skips this check)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/chobo-remote-cache.XXXXXX")
# Open to others: under root, the conformance test runs PostgreSQL's
# binaries, which are in the output bases here, as an unprivileged user.
chmod 755 "$work"
bases=()
server_pid=
cleanup() {
  local ob
  for ob in "${bases[@]}"; do
    bazel --output_base="$ob" shutdown >/dev/null 2>&1 || true
  done
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The copy: what a fresh clone of this checkout would hold, with its local
# changes (tracked and untracked files, less what .gitignore leaves out).
copy=$work/copy/chobo
mkdir -p "$copy"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do
    # Listed but deleted in the work tree: not in the copy either.
    if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
  done |
  tar -c --null -T - -f - | tar -x -f - -C "$copy"
# What each language's setup.sh installed in its folder is no file of a
# clone (tests/setup.sh makes it in each, the same packages pinned): the
# copy takes this checkout's, by links. A conformance test's inputs hold
# a toolchain's interpreter, not its path, so the copy's tests still come
# from the cache.
git ls-files -z --others --ignored --exclude-standard --directory -- lang |
  while IFS= read -r -d '' d; do
    d=${d%/}
    if [ -d "$d" ] && [ ! -e "$copy/$d" ]; then
      mkdir -p "$(dirname "$copy/$d")"
      ln -s "$root/$d" "$copy/$d"
    fi
  done

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
listening() {
  python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2>/dev/null
}

# Start the server; a port taken between free_port and the server's bind
# makes it exit, and the next try takes another port.
mkdir -p "$work/cas"
for try in 1 2 3; do
  port=$(free_port)
  cat >"$work/bgd.yml" <<EOF
server:
  - !channel
    address: "127.0.0.1:$port"
    insecure-mode: true
authorization:
  method: none
storages:
  - !disk-storage &cas
    path: $work/cas
caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: ""
    services:
      - !action-cache
        cache: *ac
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
EOF
  "$bgd" server start "$work/bgd.yml" >"$work/bgd.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 120); do
    listening "$port" && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
  done
  listening "$port" && break
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
  if [ "$try" = 3 ]; then
    echo "remote cache: BuildGrid did not start:" >&2
    tail -20 "$work/bgd.log" >&2
    exit 1
  fi
done
echo "remote cache: BuildGrid $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("buildgrid"))') on 127.0.0.1:$port"

flags=(
  --disk_cache=
  --remote_cache="grpc://127.0.0.1:$port"
  --remote_upload_local_results
  # Leave the bazel-* links of the normal output base alone.
  --symlink_prefix=/
)

# bazel_in DIR NAME COMMAND ARGS...: runs Bazel in DIR with the output base
# NAME (made fresh on first use) and the remote cache, and leaves the
# summary line "INFO: N processes: ..." in $summary.
summary=
bazel_in() {
  local dir=$1 name=$2 cmd=$3
  shift 3
  local ob=$work/ob-$name log=$work/$name.$cmd.log
  if [ ! -d "$ob" ]; then
    mkdir "$ob"
    bases+=("$ob")
  fi
  if ! (cd "$dir" && bazel --output_base="$ob" "$cmd" "${flags[@]}" "$@") >"$log" 2>&1; then
    echo "remote cache: bazel $cmd $* failed in $dir:" >&2
    tail -40 "$log" >&2
    local t
    for t in $(sed -nE 's/^FAIL: .* \(see (.*test\.log)\)$/\1/p' "$log"); do
      echo "--- $t" >&2
      tail -40 "$t" >&2
    done
    exit 1
  fi
  summary=$(grep -E '^INFO: [0-9]+ process(es)?:' "$log" | tail -n 1)
  if [ -z "$summary" ]; then
    echo "remote cache: no process summary in the output of bazel $cmd $* in $dir:" >&2
    tail -40 "$log" >&2
    exit 1
  fi
}

# counts SUMMARY: prints "HITS CACHEABLE" from a line such as
# "INFO: 83 processes: 4 internal, 79 remote cache hit." (internal actions
# never reach a cache, so they do not count).
counts() {
  local line=$1 total internal hits
  total=$(sed -nE 's/^INFO: ([0-9]+) process.*/\1/p' <<<"$line")
  internal=$(grep -oE '[0-9]+ internal' <<<"$line" | grep -oE '^[0-9]+' || echo 0)
  hits=$(grep -oE '[0-9]+ remote cache hit' <<<"$line" | grep -oE '^[0-9]+' || echo 0)
  echo "$hits $((total - internal))"
}

# execlog count|misses EXECLOG: reads an --execution_log_json_file (a
# stream of JSON objects, one per action run or fetched). count prints
# "HITS TOTAL", the actions that came from the remote cache and all of
# them; misses names those that did not.
execlog() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
mode, text = sys.argv[1], open(sys.argv[2]).read()
dec, i, total, missed = json.JSONDecoder(), 0, 0, []
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    spawn, i = dec.raw_decode(text, i)
    total += 1
    if not (spawn.get("remoteCacheHit") or spawn.get("runner") == "remote cache hit"):
        missed.append(spawn)
if mode == "count":
    print(total - len(missed), total)
    sys.exit(0)
for spawn in missed[:20]:
    outs = [o.get("path", "") for o in spawn.get("actualOutputs", [])][:1]
    print("  not from the cache:", spawn.get("mnemonic", "?"), spawn.get("targetLabel", ""),
          spawn.get("runner", ""), *outs)
if len(missed) > 20:
    print("  ... and", len(missed) - 20, "more")
EOF
}

shutdown_base() {
  bazel --output_base="$work/ob-$1" shutdown >/dev/null 2>&1 || true
}

# The first checkout fills the cache.
e2e_steps=("build //ledger:stock_go_client //ledger:stock_tb_client //..." "test --test_env=CI //ledger:conformance")
root_steps=("build //...")
for ws in e2e root; do
  start=$SECONDS
  hits=0
  cacheable=0
  if [ "$ws" = e2e ]; then
    steps=("${e2e_steps[@]}")
    dir=$root/examples/workspace
  else
    steps=("${root_steps[@]}")
    dir=$root
  fi
  for step in "${steps[@]}"; do
    read -r -a args <<<"$step"
    bazel_in "$dir" "$ws-1" "${args[@]}"
    read -r h c <<<"$(counts "$summary")"
    hits=$((hits + h))
    cacheable=$((cacheable + c))
  done
  shutdown_base "$ws-1"
  echo "remote cache: $ws, first checkout: $cacheable actions, $hits of them already in the cache ($((SECONDS - start)) s)"
done

# The copy, at another path, must find all of it there.
failed=0
for ws in e2e root; do
  start=$SECONDS
  hits=0
  cacheable=0
  detail=
  if [ "$ws" = e2e ]; then
    steps=("${e2e_steps[@]}")
    dir=$copy/examples/workspace
  else
    steps=("${root_steps[@]}")
    dir=$copy
  fi
  for step in "${steps[@]}"; do
    read -r -a args <<<"$step"
    execlog=$work/$ws-2.${args[0]}.exec.json
    bazel_in "$dir" "$ws-2" "${args[0]}" --execution_log_json_file="$execlog" "${args[@]:1}"
    # The copy's figures come from its execution log, one entry per
    # action run or fetched: Bazel's summary line counts a cached test
    # more than once (a test_suite of three tests gave "4 processes: 6
    # remote cache hit"), so it cannot say whether anything ran.
    read -r h c <<<"$(execlog count "$execlog")"
    hits=$((hits + h))
    cacheable=$((cacheable + c))
    detail+="${detail:+, }bazel ${args[0]} $h/$c"
    if [ "$h" != "$c" ]; then
      echo "remote cache: $ws, bazel $step from the copy ran actions the cache should have had:" >&2
      echo "  $summary" >&2
      execlog misses "$execlog" >&2
      failed=1
    fi
  done
  shutdown_base "$ws-2"
  if [ "$cacheable" = 0 ]; then
    echo "remote cache: $ws: the copy's build ran no cacheable action at all" >&2
    failed=1
  fi
  echo "$ws: $hits/$cacheable remote cache hits ($detail; $((SECONDS - start)) s, from a copy at another path)"
done
if [ "$failed" != 0 ]; then
  echo "remote cache: a second checkout did not build entirely from the remote cache" >&2
  exit 1
fi
echo "remote cache: a second checkout at another path built entirely from the remote cache"
