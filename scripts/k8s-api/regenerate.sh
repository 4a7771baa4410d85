#!/usr/bin/env bash
# Regenerates sandbox/protobuf/k8s-api.table from Kubernetes' own sources as Debian ships them
# (trixie's golang-k8s-api-dev and golang-k8s-apimachinery-dev: generated.proto, types.go,
# register.go). Needs protoc and python3-protobuf (bookworm: apt-get install protobuf-compiler
# python3-protobuf); installs nothing else.
#
#   scripts/k8s-api/regenerate.sh [OUTPUT]     (default: sandbox/protobuf/k8s-api.table)
#
# RESPOOL_CACHE (default /var/cache/respool) keeps the fetched packages between runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/sandbox/protobuf/k8s-api.table}
cache=${RESPOOL_CACHE:-/var/cache/respool}/trixie

packages=(golang-k8s-api-dev golang-k8s-apimachinery-dev)
root=$(bash "$here/fetch-trixie.sh" "$cache" "${packages[@]}")
src=$root/usr/share/gocode/src
versions=$(for p in "${packages[@]}"; do
  echo "$p $(dpkg-deb -f "$(ls "$cache"/debs/"${p}"_*.deb | tail -n1)" Version)"
done | paste -sd, | sed 's/,/, /g')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t protos < <(cd "$src" && find k8s.io/api k8s.io/apimachinery -name generated.proto |
  grep -v /testapigroup/ | sort)
(cd "$src" && protoc --include_source_info --include_imports \
  --descriptor_set_out="$work/k8s.pb" -I. "${protos[@]}" 2> >(grep -v 'is unused' >&2))
/usr/bin/python3 "$here/gen_table.py" "$work/k8s.pb" "$src" "Debian trixie $versions" \
  >"$work/k8s-api.table"
mv "$work/k8s-api.table" "$out"
echo "regenerate: wrote $out ($(grep -c '^M' "$out") messages, $(grep -c '^F' "$out") fields)"
