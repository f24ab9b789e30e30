#!/usr/bin/env bash
# Installs what chobo's build and tests need on a fresh Debian machine.
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
echo "setup: done"
