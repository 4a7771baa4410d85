#!/usr/bin/env bash
# An operator that cannot start says exactly why (issue 33). Against the sandbox:
# 1. without the NodeOperation CRD: it exits non-zero within --cache-sync-timeout, and its log
#    and /readyz (while it waits) name nodeoperations.respool.io and `kubectl apply -f crds/`;
# 2. as a ServiceAccount whose ClusterRole lacks `list nodes`: the same, naming the verb, the
#    resource and the account.
# Usage: operator_start_errors.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
command -v curl >/dev/null || { echo "curl is not installed (scripts/install-deps.sh): skipped"; exit 0; }
timeout_s=8

# start_failing NAME KUBECONFIG: the operator with a short sync timeout and a health port of
# its own; waits for /readyz to name the missing cache (kept in NAME.readyz), then for the
# exit, whose code goes to NAME.code and must come within the timeout (plus start-up slack).
start_failing() {
  local name=$1 kubeconfig=$2
  local began=$SECONDS
  "$build/respool-operator" --kubeconfig "$kubeconfig" --catalog "$src/config/catalog.yaml" \
    --metrics-bind-address 0 --health-probe-bind-address 127.0.0.1:0 --log-format json \
    --cache-sync-timeout ${timeout_s}s --audit-log /dev/null >"$work/$name.log" 2>&1 &
  local pid=$!
  track "$pid"
  local port=""
  for _ in $(seq 200); do
    port=$(sed -n 's/.*"healthPort":\([0-9]*\).*/\1/p' "$work/$name.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || fail "$name: the operator logged no health port"
  for _ in $(seq 100); do
    # The last answer is kept (none once the operator has exited).
    curl -s "http://127.0.0.1:$port/readyz" >"$work/$name.readyz.now" &&
      [ -s "$work/$name.readyz.now" ] && mv "$work/$name.readyz.now" "$work/$name.readyz"
    # Every informer's first answer in (one 404 can come a few ms before another's).
    has -E '\((404|403)' "$work/$name.readyz" 2>/dev/null &&
      ! has 'waiting for the first list' "$work/$name.readyz" && break
    sleep 0.1
  done
  local code=0
  wait "$pid" || code=$?
  echo "$code" >"$work/$name.code"
  local took=$((SECONDS - began))
  [ "$code" -ne 0 ] || fail "$name: the operator exited 0"
  [ "$took" -le $((timeout_s + 20)) ] || fail "$name: exited after ${took}s (timeout ${timeout_s}s)"
  echo "--- $name: exit $code after ${took}s; /readyz said:"
  cat "$work/$name.readyz"
}

start_sandbox --no-simulator
k apply -f "$src/crds/networks.yaml" -f "$src/crds/resourcepools.yaml" >/dev/null
k wait --for condition=established --timeout=30s crd --all >/dev/null
k create namespace respool-system >/dev/null

# 1. No NodeOperation CRD.
start_failing no-crd "$KUBECONFIG"
for f in no-crd.log no-crd.readyz; do
  has 'nodeoperations.respool.io: not served by the API server (404' "$work/$f" ||
    fail "$f does not name nodeoperations.respool.io's 404"
  has 'kubectl apply -f crds/' "$work/$f" || fail "$f does not say kubectl apply -f crds/"
done
has '"msg":"waiting for caches to sync"' "$work/no-crd.log" ||
  fail "no progress line while waiting"
has 'caches did not sync within 8s (--cache-sync-timeout)' "$work/no-crd.log" ||
  fail "the log does not give the timeout"

# 2. A ServiceAccount allowed everything the operator watches but nodes.
k apply -f "$src/crds/nodeoperations.yaml" >/dev/null
k wait --for condition=established --timeout=30s crd --all >/dev/null
k -n respool-system create serviceaccount respool >/dev/null
k apply -f - >/dev/null <<'EOF2'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: respool-no-nodes}
rules:
- apiGroups: ["", apps, batch, events.k8s.io, coordination.k8s.io, respool.io]
  resources: [pods, events, daemonsets, jobs, leases, networks, resourcepools, nodeoperations,
              networks/status, resourcepools/status, nodeoperations/status, namespaces]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: respool-no-nodes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: respool-no-nodes}
subjects: [{kind: ServiceAccount, name: respool, namespace: respool-system}]
EOF2
token=$(k -n respool-system create token respool)
sed "s|^\( *token:\).*|\1 $token|" "$KUBECONFIG" >"$work/sa.kubeconfig"
start_failing no-list-nodes "$work/sa.kubeconfig"
want='nodes: forbidden (403): the account system:serviceaccount:respool-system:respool may not list nodes'
for f in no-list-nodes.log no-list-nodes.readyz; do
  has -F "$want" "$work/$f" || fail "$f does not name the verb, resource and account"
done
echo "PASS"
