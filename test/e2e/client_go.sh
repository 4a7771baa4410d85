#!/usr/bin/env bash
# A Go program on client-go's typed clients (Debian's packaged client-go 0.32, GOPATH mode,
# offline), which send built-in objects as protobuf, against a bare respool-sandbox: it creates,
# reads, updates, watches and deletes Namespaces, ConfigMaps, Deployments (and their scale) and
# Pods, and checks every answer (test/clientgo/main.go).
set -euo pipefail
build=$1
src=$2
source "$src/test/e2e/lib/sandbox.bash"

bash "$src/scripts/k8s-api/client-go.sh" build "$build/clientgo/clientgo-check" \
  >"$work/go-build.log" 2>&1 || fail "building test/clientgo: $(cat "$work/go-build.log")"
start_sandbox --no-simulator
"$build/clientgo/clientgo-check" "$KUBECONFIG" >"$work/clientgo.log" 2>&1 ||
  fail "client-go: $(cat "$work/clientgo.log")"
cat "$work/clientgo.log"
