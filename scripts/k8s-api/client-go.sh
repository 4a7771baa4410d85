#!/usr/bin/env bash
# Debian trixie's Go toolchain and client-go (with the Go packages they need), fetched into a
# cache without installing anything into the system, and test/clientgo built with them in GOPATH
# mode, offline (no module proxy, no network).
#
#   client-go.sh fetch        fetch and unpack (scripts/install-deps.sh runs it)
#   client-go.sh build OUT    build test/clientgo into OUT
#
# RESPOOL_CACHE (default /var/cache/respool) is where the packages are kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${RESPOOL_CACHE:-/var/cache/respool}/trixie
root=$cache/root

case "${1:-}" in
  fetch)
    # Fetched once: the stamp names what was asked for.
    want="golang-go golang-k8s-client-go-dev"
    [ "$(cat "$root/.client-go" 2>/dev/null)" = "$want" ] && exit 0
    # shellcheck disable=SC2086
    bash "$here/fetch-trixie.sh" "$cache" --deps '^golang-' $want >/dev/null
    echo "$want" >"$root/.client-go"
    ;;
  build)
    out=$(realpath -m "$2")
    goroot=$(ls -d "$root"/usr/lib/go-1.* 2>/dev/null | sort -V | tail -n1)
    if [ -z "$goroot" ] || [ ! -d "$root/usr/share/gocode/src/k8s.io/client-go" ]; then
      echo "client-go.sh: no Go toolchain or client-go under $root: run scripts/install-deps.sh" >&2
      exit 1
    fi
    # Go's build cache beside the packages (kept across clones: the first build compiles
    # client-go and k8s.io/api, minutes), else beside OUT.
    gocache=$cache/go-build
    mkdir -p "$gocache" 2>/dev/null && [ -w "$gocache" ] || gocache=$(dirname "$out")/go-cache
    cd "$repo/test/clientgo"
    env GOROOT="$goroot" GOPATH="$root/usr/share/gocode" GO111MODULE=off GOFLAGS= \
      GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off CGO_ENABLED=0 GOCACHE="$gocache" \
      "$goroot/bin/go" build -o "$out" .
    ;;
  *)
    sed -n '2,10p' "$0"
    exit 2
    ;;
esac
