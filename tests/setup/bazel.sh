#!/usr/bin/env bash
# tests/setup/bazel.sh: make a modern Bazel (7.x, bzlmod) usable on this kind of machine, where the
# only network is the package registries (Debian apt, the Go module proxy, npm, PyPI).
#
# Debian stable only ships Bazel 4.2.3. Debian sid ships Bazel 7.x, which needs sid's libc, so this
# script:
#   1. installs debootstrap on the host (apt) if missing;
#   2. debootstraps a sid chroot into $CHOBO_BAZEL_CACHE (default /var/cache/chobo-bazel), outside
#      any repository, and installs bazel-bootstrap + build-essential + bazel-rules-shell in it;
#   3. fetches rules_go and gazelle with `go mod download` (Go module proxy) into the cache
#      (gazelle gets `go mod vendor`, which its repository tools need); bazel_skylib, platforms,
#      rules_cc, rules_java, rules_proto, ... come from sid's Debian packages, which the chroot's
#      /etc/bazel/bazelrc already overrides;
#   4. builds gazelle's repository tools (fetch_repo, gazelle) once, and a copy of the host Go SDK
#      with a precompiled standard library (both only make cold builds faster);
#   5. writes four stub modules that bazel_tools asks for (protobuf, zlib, apple_support, buildozer);
#   6. writes $CACHE/offline.bazelrc with every --override_module and offline flag (never in a
#      project's MODULE.bazel: the project must keep working with the Bazel Central Registry);
#   7. installs a `bazel` wrapper (default /usr/local/bin/bazel) that runs Bazel inside the chroot,
#      in a private mount namespace, with the current directory and its workspace (or their top
#      non-system ancestor), the paths the workspace's MODULE.bazel and .bazelrc name (overrides),
#      this chobo checkout, $HOME, /tmp, the Go SDK, the Go caches and the cache itself visible at
#      their host paths. Calls run side by side: only Bazel's own lock, per output base, serialises.
#
# Idempotent: each step is skipped when its result is already there, so a second run takes seconds.
# Must run as root. Knobs (environment variables) are listed in tests/setup/README-bazel.md.
set -euo pipefail

CACHE="${CHOBO_BAZEL_CACHE:-/var/cache/chobo-bazel}"
SUITE="${CHOBO_BAZEL_SUITE:-sid}"
WRAPPER="${CHOBO_BAZEL_WRAPPER:-/usr/local/bin/bazel}"
RULES_GO_VERSION="${CHOBO_RULES_GO_VERSION:-v0.59.0}"
GAZELLE_VERSION="${CHOBO_GAZELLE_VERSION:-v0.36.0}"
MAX_IDLE_SECS="${CHOBO_BAZEL_MAX_IDLE_SECS:-}"
# 1: give Bazel a copy of the host Go SDK with a precompiled standard library (much faster cold builds).
PRECOMPILED_STDLIB="${CHOBO_BAZEL_PRECOMPILED_STDLIB:-1}"
# 1: a disk cache shared by every workspace (fresh clones build from it); its size cap.
DISK_CACHE="${CHOBO_BAZEL_DISK_CACHE:-1}"
DISK_CACHE_MAX="${CHOBO_BAZEL_DISK_CACHE_MAX:-10G}"
# 1: build gazelle's repository tools (fetch_repo, gazelle) once here, instead of once per output base.
PREBUILT_GAZELLE_TOOLS="${CHOBO_BAZEL_PREBUILT_GAZELLE_TOOLS:-1}"
# Extra apt packages for the chroot (space separated), e.g. "git zip".
EXTRA_PKGS="${CHOBO_BAZEL_EXTRA_PKGS:-}"
CHROOT_PKGS="bazel-bootstrap bazel-skylib bazel-rules-shell build-essential${EXTRA_PKGS:+ $EXTRA_PKGS}"

log() { printf '[bazel.sh] %s\n' "$*" >&2; }
die() { printf '[bazel.sh] ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, mount namespaces and chroot need it)"
case "$CACHE" in /*) ;; *) die "CHOBO_BAZEL_CACHE must be an absolute path: $CACHE" ;; esac

T_START=$EPOCHREALTIME
PHASE=""; T_PHASE=$EPOCHREALTIME
phase() { PHASE="$1"; T_PHASE=$EPOCHREALTIME; }
done_phase() {
  local now=$EPOCHREALTIME
  printf '[bazel.sh] %-26s %7.1fs  %s\n' "$PHASE" "$(awk -v a="$T_PHASE" -v b="$now" 'BEGIN{print b-a}')" "${1:-}" >&2
}

mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd -P)"        # physical path: the chroot sees the cache at the same path
ROOTFS="$CACHE/$SUITE-root"
MODDIR="$CACHE/modules"
STUBDIR="$MODDIR/stubs"
OUTROOT="$CACHE/output"
RC="$CACHE/offline.bazelrc"
STAMPS="$CACHE/stamps"
SDKDIR="$CACHE/go-sdk"
# Where the wrapper pins its mount namespace (on the host's root filesystem, not in the cache).
NSDIR="${CHOBO_BAZEL_NSDIR:-/run/chobo-bazel}"
# The chobo checkout this script is part of: the wrapper always makes it visible, so a module
# anywhere on the machine can take chobo from it with local_path_override.
CHECKOUT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
LOGS="$CACHE/logs"
mkdir -p "$MODDIR" "$STUBDIR" "$OUTROOT" "$STAMPS" "$LOGS"

# One setup at a time; a setup that waits for another says so.
. "$(dirname "${BASH_SOURCE[0]}")/lock.sh"
take_setup_lock "$CACHE/.setup.lock" "$CHECKOUT"

# Refuse to delete anything that has a mount below it (a bind mount of a host directory, say).
safe_rm() {
  local p
  for p in "$@"; do
    [ -e "$p" ] || continue
    if findmnt -rn -o TARGET | awk -v p="$p" 'index($0, p) == 1 { found = 1 } END { exit !found }'; then
      die "something is mounted below $p; unmount it first"
    fi
    rm -rf -- "$p"
  done
}

# write_if_changed PATH [MODE] < content: keeps the mtime when nothing changed (Bazel watches these).
write_if_changed() {
  local path="$1" mode="${2:-}" tmp
  tmp="$(mktemp "$path.XXXXXX")"
  cat > "$tmp"
  if [ -f "$path" ] && cmp -s "$tmp" "$path"; then
    rm -f "$tmp"
  else
    [ -n "$mode" ] && chmod "$mode" "$tmp"
    [ -z "$mode" ] && chmod 644 "$tmp"
    mv -f "$tmp" "$path"
    log "wrote $path"
  fi
}

copy_if_changed() {  # SRC DEST
  if [ -L "$2" ]; then rm -f "$2"; fi
  cmp -s "$1" "$2" 2>/dev/null || { install -m 644 "$1" "$2"; }
}

# The Debian mirror the host's apt already uses (never hard-coded here).
detect_mirror() {
  if [ -n "${CHOBO_BAZEL_MIRROR:-}" ]; then echo "$CHOBO_BAZEL_MIRROR"; return 0; fi
  local suites='^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)(-updates|-backports)?$'
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri="$(awk -v re="$suites" '
      function flush() {
        if (!done && enabled != "no" && types ~ /(^| )deb( |$)/ && uris != "" && comps ~ /(^| )main( |$)/) {
          n = split(suites, s, " ")
          for (i = 1; i <= n; i++) if (s[i] ~ re) { split(uris, u, " "); print u[1]; done = 1; exit }
        }
        types = uris = suites = comps = enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      { key = tolower($1); $1 = ""; sub(/^ +/, "") }
      key == "types:" { types = $0 } key == "uris:" { uris = $0 } key == "suites:" { suites = $0 }
      key == "components:" { comps = $0 } key == "enabled:" { enabled = tolower($0) }
      END { flush() }' "$f")"
    if [ -n "$uri" ]; then echo "${uri%/}"; return 0; fi
  done
  uri="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    sed -E -e 's/#.*//' -e 's/\[[^]]*\]//' |
    awk -v re="$suites" '$1 == "deb" && $3 ~ re && / main( |$)/ { print $2; exit }')"
  if [ -n "$uri" ]; then echo "${uri%/}"; return 0; fi
  return 1
}

# chroot_run CMD...: run CMD in the chroot with /proc, /dev and /sys mounted in a private mount
# namespace, so nothing stays mounted when it returns.
chroot_run() {
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    R="$1"; shift
    mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
    mountpoint -q "$R/dev"  || mount --rbind /dev "$R/dev"
    mountpoint -q "$R/sys"  || mount --rbind /sys "$R/sys"
    exec chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' _ "$ROOTFS" "$@"
}

# ---------------------------------------------------------------------------------------------
phase "host: debootstrap"
command -v go >/dev/null 2>&1 || die "Go must be installed on the host (rules_go uses it via go_sdk.host())"
if command -v debootstrap >/dev/null 2>&1; then
  done_phase "already installed"
else
  apt-get update -qq >"$LOGS/host-apt.log" 2>&1 || { cat "$LOGS/host-apt.log" >&2; die "apt-get update failed"; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
    >>"$LOGS/host-apt.log" 2>&1 || { tail -20 "$LOGS/host-apt.log" >&2; die "installing debootstrap failed"; }
  done_phase "installed"
fi

# ---------------------------------------------------------------------------------------------
phase "chroot: debootstrap $SUITE"
if [ -f "$ROOTFS/.chobo-debootstrap-ok" ]; then
  done_phase "already there ($ROOTFS)"
else
  MIRROR="$(detect_mirror)" || die "no Debian mirror found in /etc/apt/sources.list*; set CHOBO_BAZEL_MIRROR"
  log "mirror (from the host's apt sources): $MIRROR"
  safe_rm "$ROOTFS.tmp" "$ROOTFS"
  # debootstrap mounts /proc and /sys in the target itself: keep those mounts in a private namespace.
  if ! unshare --mount --propagation private -- debootstrap --variant=minbase --include=ca-certificates \
      "$SUITE" "$ROOTFS.tmp" "$MIRROR" >"$LOGS/debootstrap.log" 2>&1; then
    tail -20 "$LOGS/debootstrap.log" >&2
    die "debootstrap failed (log: $LOGS/debootstrap.log)"
  fi
  touch "$ROOTFS.tmp/.chobo-debootstrap-ok"
  mv "$ROOTFS.tmp" "$ROOTFS"
  rm -f "$STAMPS/chroot-packages"
  done_phase "$(du -sh "$ROOTFS" | cut -f1)"
fi

# ---------------------------------------------------------------------------------------------
phase "chroot: config"
# The mirror serves a fixed snapshot whose Release files can be past Valid-Until (the host's apt
# has the same setting); keep the host's other Acquire:: settings (proxies) too.
{
  echo '// Generated by chobo tests/setup/bazel.sh'
  echo 'Acquire::Check-Valid-Until "false";'
  cat /etc/apt/apt.conf /etc/apt/apt.conf.d/* 2>/dev/null | grep -E '^[[:space:]]*Acquire::' | grep -v 'Check-Valid-Until' || true
} | write_if_changed "$ROOTFS/etc/apt/apt.conf.d/99chobo-host-acquire"
printf '#!/bin/sh\n# chobo: never start services in this chroot\nexit 101\n' | write_if_changed "$ROOTFS/usr/sbin/policy-rc.d" 755
copy_if_changed "$(readlink -f /etc/resolv.conf)" "$ROOTFS/etc/resolv.conf"
copy_if_changed /etc/hosts "$ROOTFS/etc/hosts"
# The host's CA bundle (TLS to the Go module proxy). The wrapper also bind-mounts it on each run.
copy_if_changed /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
done_phase

# ---------------------------------------------------------------------------------------------
phase "chroot: apt packages"
if [ -x "$ROOTFS/usr/bin/bazel" ] && [ "$(cat "$STAMPS/chroot-packages" 2>/dev/null)" = "$CHROOT_PKGS" ]; then
  done_phase "already installed"
else
  # shellcheck disable=SC2086
  if ! chroot_run /bin/sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" && apt-get clean' \
      sh $CHROOT_PKGS >"$LOGS/chroot-apt.log" 2>&1; then
    tail -30 "$LOGS/chroot-apt.log" >&2
    die "apt-get in the chroot failed (log: $LOGS/chroot-apt.log)"
  fi
  echo "$CHROOT_PKGS" > "$STAMPS/chroot-packages"
  done_phase "$CHROOT_PKGS"
fi
BAZEL_VERSION="$(chroot_run /usr/bin/bazel --version 2>/dev/null || true)"
case "$BAZEL_VERSION" in
  "bazel 7."*) log "chroot has $BAZEL_VERSION" ;;
  *) log "WARNING: chroot has '$BAZEL_VERSION', not Bazel 7.x; rules_go $RULES_GO_VERSION was checked with 7.7.1" ;;
esac

# ---------------------------------------------------------------------------------------------
# fetch_go_module MODULE VERSION DEST [post-step]: copy a module from the Go module proxy to DEST.
fetch_go_module() {
  local module="$1" version="$2" dest="$3" post="${4:-}" tmp dir
  if [ -f "$dest/.chobo-ok" ]; then return 0; fi
  tmp="$(mktemp -d)"
  if ! (cd "$tmp" && go mod init chobo.invalid/fetch >/dev/null 2>&1 &&
        GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$module@$version") >"$tmp/dl.json" 2>"$tmp/dl.err"; then
    cat "$tmp/dl.err" "$tmp/dl.json" >&2; rm -rf "$tmp"; die "go mod download $module@$version failed"
  fi
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' "$tmp/dl.json" | head -1)"
  rm -rf "$tmp"
  [ -d "$dir" ] || die "go mod download $module@$version gave no directory"
  safe_rm "$dest.tmp" "$dest"
  cp -r "$dir" "$dest.tmp"
  chmod -R u+w "$dest.tmp"
  find "$dest.tmp" -name '*.sh' -exec chmod +x {} +          # module zips drop exec bits
  if [ -n "$post" ]; then
    (cd "$dest.tmp" && eval "$post") >"$LOGS/$(basename "$dest")-post.log" 2>&1 ||
      { tail -20 "$LOGS/$(basename "$dest")-post.log" >&2; die "post-step for $module failed"; }
  fi
  touch "$dest.tmp/.chobo-ok"
  mv "$dest.tmp" "$dest"
}

RULES_GO_DIR="$MODDIR/rules_go-$RULES_GO_VERSION"
GAZELLE_DIR="$MODDIR/gazelle-$GAZELLE_VERSION"

phase "modules: rules_go"
if [ -f "$RULES_GO_DIR/.chobo-ok" ]; then done_phase "already there"; else
  fetch_go_module github.com/bazelbuild/rules_go "$RULES_GO_VERSION" "$RULES_GO_DIR"
  done_phase "$RULES_GO_DIR"
fi

phase "modules: gazelle"
if [ -f "$GAZELLE_DIR/.chobo-ok" ]; then done_phase "already there"; else
  # gazelle's repository tools build it in GOPATH mode from vendor/, which the module zip lacks.
  fetch_go_module github.com/bazelbuild/bazel-gazelle "$GAZELLE_VERSION" "$GAZELLE_DIR" \
    'GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod vendor'
  done_phase "$GAZELLE_DIR (vendored)"
fi

# ---------------------------------------------------------------------------------------------
# gazelle's go_repository rules run fetch_repo and gazelle, which its repository rule
# @bazel_gazelle_go_repository_tools builds with `go install` in every new output base (about a
# minute on 2 cores, every fresh clone). Build them once here from the same sources instead; the
# offline bazelrc points that repository here with --override_repository.
GAZELLE_TOOLS_DIR="$MODDIR/gazelle-repository-tools-$GAZELLE_VERSION"
phase "gazelle repository tools"
if [ "$PREBUILT_GAZELLE_TOOLS" != 1 ]; then
  done_phase "off (built in each output base)"
elif [ -f "$GAZELLE_TOOLS_DIR/.chobo-ok" ]; then
  done_phase "already there"
else
  safe_rm "$GAZELLE_TOOLS_DIR.tmp" "$GAZELLE_TOOLS_DIR"
  mkdir -p "$GAZELLE_TOOLS_DIR.tmp/bin"
  if ! (cd "$GAZELLE_DIR" && CGO_ENABLED=0 GOFLAGS=-mod=vendor GOTOOLCHAIN=local \
        go build -trimpath -ldflags '-w -s' -o "$GAZELLE_TOOLS_DIR.tmp/bin/" \
        ./cmd/gazelle ./cmd/fetch_repo ./cmd/generate_repo_config) >"$LOGS/gazelle-tools.log" 2>&1; then
    tail -20 "$LOGS/gazelle-tools.log" >&2; die "building gazelle's repository tools failed"
  fi
  : > "$GAZELLE_TOOLS_DIR.tmp/ROOT"
  : > "$GAZELLE_TOOLS_DIR.tmp/REPO.bazel"
  # The same BUILD file that gazelle's go_repository_tools rule writes.
  cat > "$GAZELLE_TOOLS_DIR.tmp/BUILD.bazel" <<'EOF'
# Prebuilt by chobo tests/setup/bazel.sh (same as gazelle's go_repository_tools rule makes).
package(default_visibility = ["//visibility:public"])

filegroup(
    name = "fetch_repo",
    srcs = ["bin/fetch_repo"],
)

filegroup(
    name = "gazelle",
    srcs = ["bin/gazelle"],
)

filegroup(
    name = "generate_repo_config",
    srcs = ["bin/generate_repo_config"],
)

exports_files(["ROOT"])
EOF
  touch "$GAZELLE_TOOLS_DIR.tmp/.chobo-ok"
  mv "$GAZELLE_TOOLS_DIR.tmp" "$GAZELLE_TOOLS_DIR"
  done_phase "$GAZELLE_TOOLS_DIR"
fi

# ---------------------------------------------------------------------------------------------
phase "go sdk: precompiled std"
GOROOT_HOST="$(go env GOROOT)"
GOVERSION_HOST="$(go env GOVERSION)"
if [ "$PRECOMPILED_STDLIB" != 1 ]; then
  done_phase "off (the chroot sees the host SDK $GOROOT_HOST as it is)"
elif [ -f "$SDKDIR/$GOVERSION_HOST/.chobo-ok" ]; then
  done_phase "already there ($SDKDIR/$GOVERSION_HOST)"
else
  # A copy of the host SDK whose pkg/linux_amd64 holds the compiled standard library, built inside
  # the chroot (sid's gcc for the cgo parts) with the copy mounted at the host's GOROOT path. rules_go
  # then uses these .a files instead of building the standard library once per configuration.
  # The wrapper mounts the copy over GOROOT in the chroot when its Go version matches the host's.
  mkdir -p "$SDKDIR"
  for old in "$SDKDIR"/*; do [ -e "$old" ] && [ "$old" != "$SDKDIR/$GOVERSION_HOST" ] && safe_rm "$old"; done
  safe_rm "$SDKDIR/$GOVERSION_HOST"
  cp -a "$GOROOT_HOST" "$SDKDIR/$GOVERSION_HOST.tmp"
  if ! unshare --mount --propagation private -- /bin/bash -c '
      set -e
      R="$1"; SDK="$2"; G="$3"
      mkdir -p "$R$G"; mount --bind "$SDK" "$R$G"
      mount -t proc proc "$R/proc"; mount --rbind /dev "$R/dev"
      chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH="$G/bin:/usr/bin:/bin" GOTOOLCHAIN=local \
        GOCACHE=/var/tmp/chobo-std-gocache GODEBUG=installgoroot=all GOFLAGS= "$G/bin/go" install std
      rm -rf "$R/var/tmp/chobo-std-gocache"' _ "$ROOTFS" "$SDKDIR/$GOVERSION_HOST.tmp" "$GOROOT_HOST" \
      >"$LOGS/go-std.log" 2>&1; then
    tail -20 "$LOGS/go-std.log" >&2; die "building the Go standard library failed (log: $LOGS/go-std.log)"
  fi
  touch "$SDKDIR/$GOVERSION_HOST.tmp/.chobo-ok"
  mv "$SDKDIR/$GOVERSION_HOST.tmp" "$SDKDIR/$GOVERSION_HOST"
  done_phase "$SDKDIR/$GOVERSION_HOST ($(find "$SDKDIR/$GOVERSION_HOST/pkg/linux_amd64" -name '*.a' | wc -l) packages)"
fi

# ---------------------------------------------------------------------------------------------
phase "modules: stubs"
# bazel_tools' own MODULE.bazel asks for these; nothing in a Go build uses them.
for m in protobuf zlib apple_support; do
  mkdir -p "$STUBDIR/$m"
  printf '# Offline stub written by chobo tests/setup/bazel.sh; bazel_tools depends on it.\nmodule(name = "%s")\n' "$m" |
    write_if_changed "$STUBDIR/$m/MODULE.bazel"
  : | write_if_changed "$STUBDIR/$m/BUILD.bazel"
done
mkdir -p "$STUBDIR/buildozer"
# Bazel rejects an --override_module for a module that is not in the module graph ("the root module
# specifies overrides on nonexistent module(s)"), so a workspace without rules_go would fail. The
# buildozer stub, which every graph has (through bazel_tools), therefore pulls in the modules that
# only the offline bazelrc overrides.
cat <<EOF | write_if_changed "$STUBDIR/buildozer/MODULE.bazel"
# Offline stub written by chobo tests/setup/bazel.sh; bazel_tools depends on it.
module(name = "buildozer")

# Keeps these in every module graph, so that their --override_module flags in the offline
# bazelrc always name a module in the graph. The versions do not matter (they are overridden).
bazel_dep(name = "rules_go", version = "${RULES_GO_VERSION#v}")
bazel_dep(name = "gazelle", version = "${GAZELLE_VERSION#v}")
bazel_dep(name = "rules_shell", version = "0.4.0")
EOF
: | write_if_changed "$STUBDIR/buildozer/BUILD.bazel"
write_if_changed "$STUBDIR/buildozer/buildozer_binary.bzl" <<'EOF'
"""Offline stub: bazel_tools uses @buildozer_binary only for `bazel mod tidy`."""

def _buildozer_binary_repo_impl(rctx):
    rctx.file("BUILD.bazel", "# buildozer is not available offline (chobo stub)\n")

_buildozer_binary_repo = repository_rule(implementation = _buildozer_binary_repo_impl)

def _buildozer_binary_impl(_mctx):
    _buildozer_binary_repo(name = "buildozer_binary")

buildozer_binary = module_extension(implementation = _buildozer_binary_impl)
EOF
done_phase

# ---------------------------------------------------------------------------------------------
phase "offline.bazelrc"
{
  cat <<EOF
# Generated by chobo tests/setup/bazel.sh; do not edit (re-run the script instead).
# Offline settings for this machine only. They stay out of every MODULE.bazel and project .bazelrc,
# so a user with the Bazel Central Registry needs none of them. The chroot's /etc/bazel/bazelrc
# (Debian) adds --override_module for platforms, rules_java, rules_cc, bazel_features,
# bazel_skylib, rules_license, rules_python and rules_proto (all from /usr/share/bazel).
startup --output_user_root=$OUTROOT
EOF
  [ -n "$MAX_IDLE_SECS" ] && echo "startup --max_idle_secs=$MAX_IDLE_SECS"
  cat <<EOF
common --override_module=rules_go=$RULES_GO_DIR
common --override_module=gazelle=$GAZELLE_DIR
common --override_module=rules_shell=/usr/share/bazel/rules/shell
common --override_module=protobuf=$STUBDIR/protobuf
common --override_module=zlib=$STUBDIR/zlib
common --override_module=apple_support=$STUBDIR/apple_support
common --override_module=buildozer=$STUBDIR/buildozer
common --noenable_workspace
# The overrides above would leak into MODULE.bazel.lock; keep the project's lockfile untouched.
common --lockfile_mode=off
# go_repository/go_deps use the host's Go module and build caches (mounted at the same paths).
common --repo_env=GO_REPOSITORY_USE_HOST_CACHE=1
# Debian's /etc/bazel/bazelrc turns --sandbox_debug on, which is very noisy.
build --nosandbox_debug
EOF
  if [ "$PREBUILT_GAZELLE_TOOLS" = 1 ]; then
    case "$BAZEL_VERSION" in
      "bazel 7."*) echo "# gazelle's fetch_repo/gazelle, built once by the setup script (canonical name as in Bazel 7)."
                   echo "common --override_repository=gazelle~~non_module_deps~bazel_gazelle_go_repository_tools=$GAZELLE_TOOLS_DIR" ;;
      *) log "WARNING: not overriding gazelle's repository tools: canonical repo names differ outside Bazel 7" ;;
    esac
  fi
  if [ "$DISK_CACHE" = 1 ]; then
    echo "# One action cache for every workspace on this machine, so a fresh clone builds from it."
    echo "build --disk_cache=$CACHE/disk-cache"
    echo "build --experimental_disk_cache_gc_max_size=$DISK_CACHE_MAX"
  fi
} | write_if_changed "$RC"
done_phase "$RC"

# ---------------------------------------------------------------------------------------------
phase "wrapper"
{
  echo '#!/bin/bash'
  echo '# Generated by chobo tests/setup/bazel.sh; do not edit (re-run the script instead).'
  echo '# Runs Debian sid'"'"'s Bazel inside the chroot below.'
  printf 'CHOBO_ROOTFS=%q\nCHOBO_CACHE=%q\nCHOBO_RC=%q\nCHOBO_SDKDIR=%q\nCHOBO_OUTROOT=%q\nCHOBO_NSDIR=%q\nCHOBO_CHECKOUT=%q\n' \
    "$ROOTFS" "$CACHE" "$RC" "$SDKDIR" "$OUTROOT" "$NSDIR" "$CHECKOUT"
  cat <<'EOF'
#
# All mounts live in one private mount namespace, pinned at $CHOBO_NSDIR/mnt, which every call
# enters: Bazel servers outlive their client, and a client only reuses a server whose working
# directory it sees at the same path (so one namespace per call would restart the server each
# time). The host sees only that pin. Once no Bazel server of this cache is left running (after
# `bazel shutdown`, say), the wrapper removes the pin and the namespace goes with its last process.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "bazel (chobo wrapper): must run as root (it uses a mount namespace and chroot)" >&2
  exit 2
fi
if [ ! -x "$CHOBO_ROOTFS/usr/bin/bazel" ]; then
  echo "bazel (chobo wrapper): $CHOBO_ROOTFS has no Bazel; run tests/setup/bazel.sh" >&2
  exit 2
fi
NS="$CHOBO_NSDIR/mnt"
R="$CHOBO_ROOTFS"

ns_ready() { [ "$(findmnt -n -o FSTYPE --mountpoint "$NS" 2>/dev/null)" = nsfs ]; }
servers_alive() {
  local f pid
  for f in "$CHOBO_OUTROOT"/*/server/server.pid.txt; do
    [ -f "$f" ] || continue
    pid="$(cat "$f" 2>/dev/null)" || continue
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
      grep -qaF -- "$CHOBO_OUTROOT" "/proc/$pid/cmdline" 2>/dev/null && return 0
  done
  return 1
}

if [ "${_CHOBO_BAZEL_INNER:-}" != 1 ]; then
  # Outside: make sure the namespace exists, run this script inside it, then clean up.
  # Every call holds $CHOBO_NSDIR.lock shared while it runs, so calls never wait for each other
  # here: two workspaces build at the same time, and the only lock held for the length of a
  # command is Bazel's own, on its output base (one per workspace). The lock is taken exclusive
  # only to make the namespace (when none is there, so no call runs in one) and, without waiting,
  # to remove it when no call and no server is left.
  mkdir -p "$CHOBO_NSDIR"
  exec 8>"$CHOBO_NSDIR.lock"
  flock -s 8
  if ! ns_ready; then
    flock -x 8        # (a conversion: the shared lock is dropped first, so two callers cannot deadlock)
    if ! ns_ready; then
      mountpoint -q "$CHOBO_NSDIR" || mount --bind "$CHOBO_NSDIR" "$CHOBO_NSDIR"
      mount --make-private "$CHOBO_NSDIR"
      : > "$NS"
      unshare --mount="$NS" --propagation private true
    fi
    flock -s 8
  fi
  rc=0
  _CHOBO_BAZEL_INNER=1 nsenter --mount="$NS" --wd="$(pwd -P)" -- /bin/bash "${BASH_SOURCE[0]}" "$@" 8>&- || rc=$?
  flock -u 8
  if flock -n -x 8 && ! servers_alive; then
    ns_ready && umount "$NS"
    mountpoint -q "$CHOBO_NSDIR" && umount "$CHOBO_NSDIR"
  fi
  exit "$rc"
fi
unset _CHOBO_BAZEL_INNER

# Inside the namespace: set up the mounts (idempotent; the mounting itself one call at a time,
# for milliseconds), then chroot.
cwd="$(pwd -P)"

# Paths of the chroot's own system that a host directory must never cover.
is_system() {
  case "$1" in
    /|/bin|/boot|/dev|/etc|/etc/*|/lib|/lib32|/lib64|/libx32|/proc|/proc/*|/run|/sbin|/sys|/sys/*) return 0 ;;
    /usr|/usr/bin|/usr/bin/*|/usr/sbin|/usr/sbin/*|/usr/lib|/usr/lib/*|/usr/lib32|/usr/lib64|/usr/libx32) return 0 ;;
    /usr/libexec|/usr/libexec/*|/usr/share|/usr/share/*|/usr/include|/usr/include/*|/usr/games|/usr/src) return 0 ;;
    /usr/local|/usr/local/bin|/usr/local/sbin|/usr/local/lib|/usr/local/share|/usr/local/include) return 0 ;;
    /var|/var/lib|/var/lib/*|/var/cache|/var/log|/var/spool|/var/mail|/var/backups|/var/run|/var/lock) return 0 ;;
  esac
  return 1
}

# The directory to mount for host path $1: its shallowest ancestor that the chroot lacks (or has
# empty), so sibling and parent paths of a workspace are visible too; else the path itself.
bind_root_for() {
  local p="$1" a="" rest comp
  rest="${p#/}"
  while [ -n "$rest" ]; do
    comp="${rest%%/*}"; [ "$comp" = "$rest" ] && rest="" || rest="${rest#*/}"
    a="$a/$comp"
    is_system "$a" && continue
    if [ ! -e "$R$a" ] || { [ -d "$R$a" ] && [ -z "$(ls -A "$R$a" 2>/dev/null)" ]; }; then
      echo "$a"; return 0
    fi
  done
  is_system "$p" || echo "$p"
}

same_file() { [ "$(stat -L -c %d:%i -- "$1" 2>/dev/null)" = "$(stat -L -c %d:%i -- "$2" 2>/dev/null)" ]; }

# ensure_bind SRC DEST rbind|bind|ro: mount SRC on DEST unless it already is (a mount whose
# source was replaced since, e.g. a deleted and re-created directory, is replaced too).
ensure_bind() {
  local src="$1" dst="$2" mode="$3"
  if mountpoint -q "$dst"; then
    same_file "$src" "$dst" && return 0
    umount -l "$dst"
  fi
  if [ -d "$src" ]; then
    mkdir -p "$dst"
  else
    mkdir -p "$(dirname "$dst")"
    [ -L "$dst" ] && rm -f "$dst"
    [ -e "$dst" ] || : > "$dst"
  fi
  case "$mode" in
    rbind) mount --rbind "$src" "$dst" ;;
    bind) mount --bind "$src" "$dst" ;;
    ro) mount --bind "$src" "$dst"; mount -o remount,bind,ro "$dst" 2>/dev/null || true ;;
  esac
}

# The workspace: the nearest directory from here up that holds MODULE.bazel, REPO.bazel or WORKSPACE.
workspace=""
d="$cwd"
while [ -z "$workspace" ]; do
  for f in MODULE.bazel REPO.bazel WORKSPACE.bazel WORKSPACE; do
    [ -f "$d/$f" ] && workspace="$d" && break
  done
  [ "$d" = / ] && break
  d="$(dirname "$d")"
done

# The host paths a workspace names, which Bazel (in the chroot) reads: every `path = "..."` of its
# MODULE.bazel (local_path_override, local_repository, a toolchain's directory such as chobo's
# postgres.local(path = ...)), and every --override_module / --override_repository of its
# .bazelrc and of this command line. Relative paths are the workspace's.
named_paths() {
  local ws="$1" p
  shift
  {
    [ -n "$ws" ] && [ -f "$ws/MODULE.bazel" ] &&
      grep -oE '(^|[^A-Za-z0-9_])path[[:space:]]*=[[:space:]]*"[^"]+"' "$ws/MODULE.bazel" 2>/dev/null |
      sed -E 's/^.*"([^"]+)"$/\1/'
    [ -n "$ws" ] && [ -f "$ws/.bazelrc" ] &&
      grep -oE -- '--override_(module|repository)=[^=[:space:]]+=[^[:space:]]+' "$ws/.bazelrc" 2>/dev/null |
      sed -E 's/^[^=]*=[^=]*=//; s/^"//; s/"$//'
    for p in "$@"; do
      case "$p" in --override_module=*=*|--override_repository=*=*) p="${p#*=}"; echo "${p#*=}" ;; esac
    done
  } | while IFS= read -r p; do
    p="${p//%workspace%/$ws}"
    case "$p" in /*) ;; *) [ -n "$ws" ] || continue; p="$ws/$p" ;; esac
    [ -e "$p" ] && echo "$p"
  done
  return 0
}

wanted=("$CHOBO_CACHE" "$cwd" /tmp)
[ -n "$workspace" ] && wanted+=("$workspace")
# The chobo checkout this wrapper was made from: a user's module that takes chobo with
# local_path_override finds it wherever the module is.
[ -n "${CHOBO_CHECKOUT:-}" ] && [ -d "$CHOBO_CHECKOUT" ] && wanted+=("$CHOBO_CHECKOUT")
while IFS= read -r p; do wanted+=("$p"); done < <(named_paths "$workspace" "$@")
[ -n "${HOME:-}" ] && [ -d "$HOME" ] && wanted+=("$HOME")
[ -n "${TMPDIR:-}" ] && [ -d "$TMPDIR" ] && wanted+=("$TMPDIR")
GOROOT_HOST=""; GOVERSION_HOST=""; GOMODCACHE_HOST=""; GOCACHE_HOST=""; SDK_COPY=""
if command -v go >/dev/null 2>&1; then
  { read -r GOROOT_HOST; read -r GOVERSION_HOST; read -r GOMODCACHE_HOST; read -r GOCACHE_HOST; } \
    < <(go env GOROOT GOVERSION GOMODCACHE GOCACHE 2>/dev/null) || true
  # The SDK copy with a precompiled standard library (tests/setup/bazel.sh), if it matches.
  if [ "${CHOBO_BAZEL_PRECOMPILED_STDLIB:-1}" != 0 ] && [ -n "$GOVERSION_HOST" ] &&
     [ -f "$CHOBO_SDKDIR/$GOVERSION_HOST/.chobo-ok" ]; then
    SDK_COPY="$CHOBO_SDKDIR/$GOVERSION_HOST"
  elif [ -n "$GOROOT_HOST" ] && [ -d "$GOROOT_HOST" ]; then
    wanted+=("$GOROOT_HOST")
  fi
  for d in "$GOMODCACHE_HOST" "$GOCACHE_HOST"; do
    [ -n "$d" ] && [ "$d" != off ] && mkdir -p "$d" && wanted+=("$d")
  done
fi
if [ -n "${CHOBO_BAZEL_BIND:-}" ]; then
  IFS=: read -r -a extra <<< "$CHOBO_BAZEL_BIND"
  for p in "${extra[@]}"; do [ -n "$p" ] && [ -e "$p" ] && wanted+=("$p"); done
fi

# Resolve to mount roots; drop duplicates and roots inside another root; roots that contain the
# chroot itself go first and are not recursive (no chroot mount gets copied into them).
roots=()
for p in "${wanted[@]}"; do
  p="$(readlink -f -- "$p" 2>/dev/null)" || continue
  r="$(bind_root_for "$p")"; [ -n "$r" ] && roots+=("$r")
done
mapfile -t roots < <(printf '%s\n' "${roots[@]}" | sort -u)
kept=()
for r in "${roots[@]}"; do
  [ -n "$r" ] || continue
  inside=0
  for o in "${roots[@]}"; do
    [ -n "$o" ] && [ "$o" != "$r" ] && case "$r/" in "$o"/*) inside=1 ;; esac
  done
  [ "$inside" = 0 ] && kept+=("$r")
done
if [ "${CHOBO_BAZEL_SHOW_BINDS:-}" = 1 ]; then
  printf 'bazel (chobo wrapper): visible in the chroot: %s\n' "${kept[@]}" >&2
fi
exec 7>"$CHOBO_NSDIR.mountlock"
flock -x 7
for r in "${kept[@]}"; do case "$R/" in "$r"/*) ensure_bind "$r" "$R$r" bind ;; esac; done
for r in "${kept[@]}"; do case "$R/" in "$r"/*) ;; *) ensure_bind "$r" "$R$r" rbind ;; esac; done
if [ -n "$SDK_COPY" ]; then
  ensure_bind "$SDK_COPY" "$R$GOROOT_HOST" bind
fi
# The host's CA bundle (TLS to the Go module proxy) and DNS settings.
for f in /etc/ssl/certs/ca-certificates.crt /etc/resolv.conf; do
  src="$(readlink -f "$f")" && [ -f "$src" ] && ensure_bind "$src" "$R$f" ro
done
mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
mountpoint -q "$R/dev"  || mount --rbind /dev "$R/dev"
mountpoint -q "$R/sys"  || mount --rbind /sys "$R/sys"
exec 7>&-

if [ ! -d "$R$cwd" ]; then
  echo "bazel (chobo wrapper): $cwd is not visible in the chroot (set CHOBO_BAZEL_BIND)" >&2
  exit 2
fi
path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
[ -n "$GOROOT_HOST" ] && path="$GOROOT_HOST/bin:$path"
exec chroot "$R" /usr/bin/env -u LD_LIBRARY_PATH -u LD_PRELOAD -u JAVA_HOME -u OLDPWD \
  PATH="$path" PWD="$cwd" \
  /bin/sh -c 'cd -- "$1" && shift && exec /usr/bin/bazel "$@"' sh "$cwd" --bazelrc="$CHOBO_RC" "$@"
EOF
} | write_if_changed "$WRAPPER" 755
done_phase "$WRAPPER"

# ---------------------------------------------------------------------------------------------
phase "smoke test"
V="$(cd / && "$WRAPPER" --version 9>&-)" || die "the wrapper does not run"
done_phase "$V"

printf '[bazel.sh] %-26s %7.1fs\n' "total" "$(awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" >&2
