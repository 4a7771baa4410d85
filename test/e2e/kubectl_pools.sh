#!/usr/bin/env bash
# What a platform engineer sees with the stock kubectl once the operator runs: `kubectl get rp`
# and `kubectl get rpnet` with their printer columns, the `respool` category, and
# `kubectl describe rp` with the conditions and the pool's events (P8); the audit records of the
# pool's and the network's creation name kubectl's field manager as their actor (A1).
# Usage: kubectl_pools.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
start_sandbox --nodes "$src/examples/sandbox-nodes.yaml"
install_api
"$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$src/config/catalog.yaml" \
  --metrics-bind-address 0 --health-probe-bind-address 0 --log-format json \
  --audit-log "$work/audit.jsonl" >"$work/operator.log" 2>&1 &
track $!
k apply -f "$src/examples/network.yaml" -f "$src/examples/resourcepool.yaml" >/dev/null
pool=$(k get rp -o jsonpath='{.items[0].metadata.name}')
# Running, with its jobs counted (the jobs controller's status.jobs, Q3).
for _ in $(seq 300); do
  [ "$(k get rp "$pool" -o jsonpath='{.status.phase}/{.status.jobs.running}')" = Running/0 ] && break
  sleep 0.1
done

echo "--- kubectl get rp / rpnet / respool"
k get rp >"$work/get-rp.txt"
cat "$work/get-rp.txt"
head -1 "$work/get-rp.txt" | grep -Eq '^NAME +PHASE +TYPE +AVAILABLE +TOTAL +RUNNING +PENDING +NETWORK +AGE$' ||
  fail "rp columns: $(head -1 "$work/get-rp.txt")"
total=$(k get rp "$pool" -o jsonpath='{.status.nodes.total}')
grep -Eq "^$pool +Running +Physical +$total +$total +0 +0 +net-a +[0-9]+s$" "$work/get-rp.txt" ||
  fail "rp row: $(cat "$work/get-rp.txt")"
k get rpnet >"$work/get-net.txt"
cat "$work/get-net.txt"
head -1 "$work/get-net.txt" | has "CIDR" || fail "rpnet columns"
grep -Eq "^net-a +[0-9./]+ +True " "$work/get-net.txt" || fail "rpnet row: $(cat "$work/get-net.txt")"
k get respool | has "resourcepool.respool.io/$pool" || fail "category respool"

echo "--- kubectl describe rp"
# Events are written a moment after the status they report: describe until the event shows.
for _ in $(seq 100); do
  k describe rp "$pool" >"$work/describe.txt"
  grep -q "Pool status changed, from Creating to Running." "$work/describe.txt" && break
  sleep 0.1
done
grep -q "Conditions:" "$work/describe.txt" || fail "describe: no conditions"
grep -Eq "Type: +Ready" "$work/describe.txt" || fail "describe: no Ready condition"
grep -q "^Events:" "$work/describe.txt" || fail "describe: no events section"
grep -q "PoolStatusChange" "$work/describe.txt" || fail "describe: no PoolStatusChange event: $(sed -n '/^Events:/,$p' "$work/describe.txt")"
grep -q "Pool status changed, from Creating to Running." "$work/describe.txt" ||
  fail "describe: no P8 message"
sed -n '/^Events:/,$p' "$work/describe.txt"

echo "--- kubectl get rp -o wide: the remediation column"
k get rp -o wide | tee "$work/get-rp-wide.txt"
head -1 "$work/get-rp-wide.txt" | grep -Eq ' ABNORMAL +QUEUING +REMEDIATION +NETWORK ' ||
  fail "rp wide columns: $(head -1 "$work/get-rp-wide.txt")"

echo "--- a NodeOperation preview (N18): decided, shown, nothing touched"
node=$(k get nodes -l "respool.io/pool=$pool" -o jsonpath='{.items[0].metadata.name}')
before=$(k get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}')
k apply -f - >/dev/null <<YAML
apiVersion: respool.io/v1alpha1
kind: NodeOperation
metadata: {name: look}
spec: {pool: $pool, type: Replace, nodes: [$node], preview: true}
YAML
for _ in $(seq 200); do
  [ "$(k get nodeop look -o jsonpath='{.status.phase}')" = Previewed ] && break
  sleep 0.1
done
k get nodeop look | tee "$work/get-nodeop.txt"
grep -Eq "^look +Replace +$pool .* Previewed +[A-Za-z]+ " "$work/get-nodeop.txt" ||
  fail "nodeop row: $(cat "$work/get-nodeop.txt")"
verdict=$(k get nodeop look -o jsonpath='{.status.preview.nodes[0].verdict.outcome}')
[ -n "$verdict" ] || fail "preview: no verdict: $(k get nodeop look -o yaml)"
k get nodeop look -o jsonpath='{.status.preview.nodes[0].steps[*].step}' | has "Retired" ||
  fail "preview: no steps"
after=$(k get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}')
[ "$before" = "$after" ] || fail "a preview changed nodes: $before -> $after"
k delete nodeop look >/dev/null

echo "--- audit records of the creations (A1: the actor is the spec's field manager)"
grep -E '"operation":"Create(PoolV2|NetworksV1)"' "$work/audit.jsonl" || fail "no create audited"
for op in CreatePoolV2 CreateNetworksV1; do
  grep "\"operation\":\"$op\"" "$work/audit.jsonl" | has '"actor":"kubectl-client-side-apply"' ||
    fail "$op names no actor kubectl-client-side-apply"
done
echo "kubectl_pools: all checks passed"
