#!/usr/bin/env bash
# Runs every test of the project. CI calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"
  echo "$unformatted"
  exit 1
fi
go vet ./...
go test ./...
