#!/usr/bin/env bash
# An operator killed with SIGKILL right after its first claim, then restarted, finishes the
# pool without claiming any node twice or more nodes than needed, audits every claim (A1, also
# those the first run made but did not record), and never has more than 30 nodes in admission
# (P6) across the restart. A 40-node pool over 2 zones from 45 free nodes.
# Admission is observed from a node watch (kubectl get -w), every change, not by sampling.
# Usage: operator_restart.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"

cat >"$work/nodes.yaml" <<'EOF'
nodes:
- {flavor: cpu-64c, zone: az-1, count: 23, namePrefix: cpu-a, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
- {flavor: cpu-64c, zone: az-2, count: 22, namePrefix: cpu-b, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
EOF
start_sandbox --nodes "$work/nodes.yaml"
install_api
k apply -f - >/dev/null <<'EOF'
apiVersion: respool.io/v1alpha1
kind: Network
metadata: {name: net-a}
spec: {}
EOF
for _ in $(seq 100); do [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -eq 45 ] && break; sleep 0.1; done

# Every node change, one line each: name, pool label, taint keys.
kubectl --cache-dir="$work/cache" get nodes -w \
  -o jsonpath='{.metadata.name} pool={.metadata.labels.respool\.io/pool} taints={.spec.taints[*].key}{"\n"}' \
  >"$work/node-watch.txt" 2>"$work/node-watch.log" &
track $!

start_operator() { # start_operator N
  "$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$src/config/catalog.yaml" \
    --metrics-bind-address 0 --health-probe-bind-address 0 --log-format json \
    --audit-log "$work/audit-$1.jsonl" >"$work/operator-$1.log" 2>&1 &
  started=$!
  track "$started"
}

start_operator 1
k apply -f - >/dev/null <<'EOF'
apiVersion: respool.io/v1alpha1
kind: ResourcePool
metadata: {name: big}
spec:
  network: net-a
  jobTypes: [Training]
  resources:
  - flavor: cpu-64c
    count: 40
    zones: [{zone: az-1, count: 20}, {zone: az-2, count: 20}]
EOF
# SIGKILL as soon as the first claim shows.
for _ in $(seq 600); do
  grep -q "pool=big" "$work/node-watch.txt" && break
  sleep 0.02
done
grep -q "pool=big" "$work/node-watch.txt" || fail "no claim seen"
kill -9 "$started"
claimed_at_kill=$(k get nodes -l respool.io/pool=big --no-headers | wc -l)
echo "--- killed the operator with $claimed_at_kill nodes claimed; restarting"
start_operator 2

phase=""
for _ in $(seq 600); do
  phase=$(k get rp big -o jsonpath='{.status.phase}')
  [ "$phase" = Running ] && break
  sleep 0.1
done
[ "$phase" = Running ] || fail "pool not Running after the restart (phase $phase)"
sleep 1  # let the watch catch up with the last changes

in_pool=$(k get nodes -l respool.io/pool=big --no-headers | wc -l)
[ "$in_pool" -eq 40 ] || fail "$in_pool nodes in the pool, want 40"
for zone in az-1 az-2; do
  n=$(k get nodes -l "respool.io/pool=big,topology.kubernetes.io/zone=$zone" --no-headers | wc -l)
  [ "$n" -eq 20 ] || fail "$n nodes of $zone in the pool, want 20"
done

# No node claimed twice, and no claim unaudited (A1). Every pool node has an addClusterNode
# line. A node has two only when the second says it was audited on recovery: the first run
# wrote its line and was killed before its status recorded the claim, so the second run cannot
# tell whether the line was written and writes it again (at least once, never lost).
cat "$work"/audit-*.jsonl | grep '"operation":"addClusterNode"' >"$work/claim-lines.txt" || true
grep -o '"node":"[^"]*"' "$work/claim-lines.txt" | sort >"$work/claims.txt" || true
grep -v 'audited on recovery' "$work/claim-lines.txt" | grep -o '"node":"[^"]*"' | sort >"$work/first-claims.txt" || true
claims=$(sort -u "$work/claims.txt" | wc -l)
recovered=$(grep -c 'audited on recovery' "$work/claim-lines.txt" || true)
[ "$(uniq -d "$work/first-claims.txt" | wc -l)" -eq 0 ] ||
  fail "a node was claimed twice: $(uniq -d "$work/first-claims.txt")"
[ "$recovered" -le "$claimed_at_kill" ] ||
  fail "$recovered claims audited on recovery, but the first run made only $claimed_at_kill"
[ "$claims" -eq 40 ] || fail "$claims nodes with an addClusterNode audit line, want all 40"
k get nodes -l respool.io/pool=big -o jsonpath='{range .items[*]}"node":"{.metadata.name}"{"\n"}{end}' |
  sort >"$work/pool-nodes.txt"
sort -u "$work/claims.txt" | cmp -s - "$work/pool-nodes.txt" ||
  fail "audited claims are not the pool's nodes: $(sort -u "$work/claims.txt" | comm -3 - "$work/pool-nodes.txt")"

# Admission never held more than 30 nodes, at any change the watch saw.
most=$(awk '
  { name = $1; admitting = ($2 == "pool=big" && $0 ~ /isolation\.respool\.io\/A200008/) ? 1 : 0
    if (admitting != state[name]) { count += admitting - state[name]; state[name] = admitting }
    if (count > most) most = count }
  END { print most + 0 }' "$work/node-watch.txt")
echo "nodes audited: $claims ($recovered on recovery); most nodes in admission at once: $most"
[ "$most" -ge 1 ] || fail "the watch saw no admission"
[ "$most" -le 30 ] || fail "$most nodes in admission at once"
echo "operator_restart: all checks passed"
