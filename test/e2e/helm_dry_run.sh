#!/usr/bin/env bash
# The chart against the sandbox with RBAC authorization on: every object `helm template`
# renders (default and non-default values, CRDs included) is a kind the sandbox serves and
# passes its validation (kubectl apply --dry-run=server).
# Usage: helm_dry_run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
command -v helm >/dev/null || { echo "helm is not installed (scripts/install-deps.sh): skipped"; exit 0; }
source "$src/test/e2e/lib/sandbox.bash"
chart="$src/helm/respool"
start_sandbox --no-simulator

echo "--- every rendered kind is served, and valid (dry run on the server)"
# A cluster with the Prometheus Operator has the ServiceMonitor kind; the non-default values
# render one.
k apply -f "$src/test/e2e/fixtures/servicemonitor-crd.yaml" >/dev/null
k wait --for condition=established --timeout=30s crd/servicemonitors.monitoring.coreos.com >/dev/null
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: respool-system}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ops}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}\n' |
  k apply -f - >/dev/null
dry_run() { # dry_run NAME helm-args...
  local name=$1; shift
  helm template "$@" "$chart" >"$work/$name.yaml"
  k apply --dry-run=server -f "$work/$name.yaml" >"$work/$name.dry" 2>"$work/$name.err" ||
    fail "$name: kubectl apply --dry-run=server: $(cat "$work/$name.err")"
  local rendered applied
  rendered=$(grep -c '^kind: ' "$work/$name.yaml")
  applied=$(grep -c '(server dry run)$' "$work/$name.dry")
  [ "$rendered" = "$applied" ] || fail "$name: $rendered objects rendered, $applied accepted"
  echo "  $name: $applied objects accepted: $(sed 's/ .*//; s/\/.*//' "$work/$name.dry" | sort -u | tr '\n' ' ')"
}
dry_run default respool --namespace respool-system --include-crds
dry_run custom gpu --namespace ops -f "$src/test/e2e/fixtures/helm-values.yaml"

# helm install itself, with the simulator bringing the operator's pods up: helm_install.sh.
echo "helm_dry_run: every rendered kind is served and valid"
