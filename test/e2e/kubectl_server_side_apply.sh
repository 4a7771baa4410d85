#!/usr/bin/env bash
# Server-side apply with the stock kubectl, as on a real API server: `kubectl apply
# --server-side` creates a ResourcePool under field manager "kubectl", a second manager
# (`--field-manager=other`) changing a field kubectl owns is refused with the field and its
# owner named, `--force-conflicts` takes the field over, a field kubectl stops applying goes,
# and `kubectl get -o yaml --show-managed-fields` shows both managers' FieldsV1. Then a Node:
# labels owned one by one, taints (an atomic list in v1.32) as a whole.
# Usage: kubectl_server_side_apply.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
start_sandbox --no-simulator
install_api

pool() { # pool COUNT [EXTRA-SPEC-LINE]
  printf 'apiVersion: respool.io/v1alpha1\nkind: ResourcePool\nmetadata: {name: ssa-pool}\n'
  printf 'spec:\n  jobTypes: [Training]\n  network: net-a\n'
  printf '  resources: [{flavor: cpu-64c, count: %s}]\n' "$1"
  [ -z "${2:-}" ] || printf '  %s\n' "$2"
}

pool 2 "description: first" | k apply --server-side -f - >"$work/create.out" 2>&1 ||
  fail "apply --server-side: $(cat "$work/create.out")"
has 'resourcepool.respool.io/ssa-pool serverside-applied' <"$work/create.out" ||
  fail "create: $(cat "$work/create.out")"
echo "ok   apply --server-side creates the pool"

k get rp ssa-pool -o yaml --show-managed-fields >"$work/fields1.yaml"
has -F 'manager: kubectl' <"$work/fields1.yaml" || fail "no kubectl manager: $(cat "$work/fields1.yaml")"
has -F 'operation: Apply' <"$work/fields1.yaml" || fail "no Apply entry: $(cat "$work/fields1.yaml")"
has -F 'k:{"flavor":"cpu-64c"}:' <"$work/fields1.yaml" || fail "resources not keyed by flavor: $(cat "$work/fields1.yaml")"
has -F 'fieldsType: FieldsV1' <"$work/fields1.yaml" || fail "no FieldsV1"
k get rp ssa-pool -o yaml | has -F 'managedFields' && fail "managedFields shown without --show-managed-fields"
echo "ok   managedFields: kubectl's Apply entry, resources keyed by flavor"

# A second manager changing kubectl's count: refused, the field and its owner named.
if pool 3 | k apply --server-side --field-manager=other -f - >"$work/conflict.out" 2>&1; then
  fail "a conflicting apply was accepted: $(cat "$work/conflict.out")"
fi
has -F 'Apply failed with 1 conflict: conflict with "kubectl": .spec.resources[flavor="cpu-64c"].count' \
  <"$work/conflict.out" || fail "conflict message: $(cat "$work/conflict.out")"
k get rp ssa-pool -o jsonpath='{.spec.resources[0].count}' | has -x 2 || fail "count changed by a refused apply"
echo "ok   a second manager's change is refused with the field named"

pool 3 | k apply --server-side --field-manager=other --force-conflicts -f - >"$work/force.out" 2>&1 ||
  fail "--force-conflicts: $(cat "$work/force.out")"
k get rp ssa-pool -o jsonpath='{.spec.resources[0].count}' | has -x 3 || fail "count not forced"
k get rp ssa-pool -o yaml --show-managed-fields >"$work/fields2.yaml"
has -F 'manager: other' <"$work/fields2.yaml" || fail "no entry for other: $(cat "$work/fields2.yaml")"
echo "ok   --force-conflicts takes the field over"

# kubectl applies without the description: it goes; its count (now other's) stays.
pool 2 | k apply --server-side --force-conflicts -f - >"$work/drop.out" 2>&1 ||
  fail "re-apply: $(cat "$work/drop.out")"
[ -z "$(k get rp ssa-pool -o jsonpath='{.spec.description}')" ] || fail "description kept"
k get rp ssa-pool -o jsonpath='{.spec.resources[0].count}' | has -x 2 || fail "count not re-forced"
echo "ok   a field kubectl no longer applies is removed"

# Nodes: labels are a granular map, taints an atomic list.
node() { # node LABEL-LINE TAINT-LINE
  printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: ssa-node\n  labels: {%s}\n' "$1"
  [ -z "${2:-}" ] || printf 'spec:\n  taints: [%s]\n' "$2"
}
node 'zone: az-1' '{key: gpu, value: "yes", effect: NoSchedule}' |
  k apply --server-side --field-manager=ops -f - >"$work/node.out" 2>&1 || fail "node: $(cat "$work/node.out")"
node 'drain: "yes"' | k apply --server-side --field-manager=drainer -f - >"$work/label.out" 2>&1 ||
  fail "a second manager's label: $(cat "$work/label.out")"
k get node ssa-node -o jsonpath='{.metadata.labels.zone}/{.metadata.labels.drain}' | has -x 'az-1/yes' ||
  fail "labels not merged"
if node 'drain: "yes"' '{key: maint, effect: NoExecute}' |
  k apply --server-side --field-manager=drainer -f - >"$work/taint.out" 2>&1; then
  fail "a conflicting taint list was accepted"
fi
has -F 'conflict with "ops": .spec.taints' <"$work/taint.out" || fail "taint conflict: $(cat "$work/taint.out")"
echo "ok   Node labels merge by key, taints conflict as a whole"
