#!/usr/bin/env bash
# Crash safety of node operations (N1-N8): replaces and resets run while the operator is killed
# with SIGKILL at random moments and restarted, at least 20 times. After each restart every
# operation goes on and completes; no limit is ever exceeded; no node is claimed twice; no node
# is left cordoned, tainted or marked by respool without a record saying why.
# Limits are checked from a watch of the nodes (kubectl get -w, every change), never from the
# operator's status:
#   N2  at most 2 nodes marked Replace at once (a 20-node pool, concurrentReplacements: 10%)
#   N7  at most 2 nodes of one reset marked at once (maxUnavailable: 2)
#   N4/N6  never a node marked Replace while another is marked Reset
# The first wave is 6 NodeOperations in one `kubectl apply`.
# Usage: node_operations_restart.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
kills_wanted=${KILLS:-20}

cat >"$work/nodes.yaml" <<'EOF2'
nodes:
- {flavor: cpu-64c, zone: az-1, count: 32, namePrefix: n-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
EOF2
sed -e 's/replacementsPerDay: 20%/replacementsPerDay: 50%/' \
    -e 's/concurrentReplacements: 5%/concurrentReplacements: 10%/' \
    "$src/config/catalog.yaml" >"$work/catalog.yaml"
grep -q "concurrentReplacements: 10%" "$work/catalog.yaml" || fail "catalog limits not set"

start_sandbox --nodes "$work/nodes.yaml"
install_api
for _ in $(seq 100); do [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -eq 32 ] && break; sleep 0.1; done
# Resets take 2 simulated seconds here.
k annotate nodes --all sandbox.respool.io/reset-seconds=2 >/dev/null

kubectl --cache-dir="$work/cache" get nodes -w -o jsonpath='{.metadata.name} pool={.metadata.labels.respool\.io/pool} op={.metadata.annotations.respool\.io/node-operation-type} name={.metadata.annotations.respool\.io/node-operation} {"\n"}' \
  >"$work/node-watch.txt" 2>"$work/node-watch.log" &
track $!


start_operator "$work/catalog.yaml"
k apply -f - >/dev/null <<'EOF2'
apiVersion: respool.io/v1alpha1
kind: Network
metadata: {name: net-a}
spec: {}
---
apiVersion: respool.io/v1alpha1
kind: ResourcePool
metadata: {name: p}
spec:
  network: net-a
  jobTypes: [Training]
  resources: [{flavor: cpu-64c, count: 20}]
EOF2
for _ in $(seq 600); do
  [ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] && break
  sleep 0.1
done
[ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] || fail "pool not Running"
mapfile -t members < <(k get nodes -l respool.io/pool=p -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort)
[ "${#members[@]}" -eq 20 ] || fail "pool has ${#members[@]} nodes"

replace_op() { # replace_op NAME NODE
  printf -- '---\napiVersion: respool.io/v1alpha1\nkind: NodeOperation\nmetadata: {name: %s}\nspec: {pool: p, type: Replace, nodes: [%s]}\n' "$1" "$2"
}
reset_op() { # reset_op NAME NODES...
  local name=$1; shift
  local list; list=$(IFS=,; echo "$*")
  printf -- '---\napiVersion: respool.io/v1alpha1\nkind: NodeOperation\nmetadata: {name: %s}\nspec: {pool: p, type: Reset, nodes: [%s], reset: {os: ubuntu-22.04, maxUnavailable: 2}}\n' "$name" "$list"
}
# Wave 1, in one apply: five replacements and a reset of four nodes.
{
  for i in 0 1 2 3 4; do replace_op "replace-$i" "${members[$i]}"; done
  reset_op reset-1 "${members[10]}" "${members[11]}" "${members[12]}" "${members[13]}"
} >"$work/wave-1.yaml"
k apply -f "$work/wave-1.yaml" >/dev/null
ops=6
wave=1

all_ended() {
  local phases
  phases=$(k get nodeop -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}')
  [ "$(printf '%s\n' "$phases" | grep -cE '^(Succeeded|Failed|Rejected)$')" -eq "$ops" ]
}

kills=0
deadline=$((SECONDS + 300))
while [ $SECONDS -lt $deadline ]; do
  sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.4 + (r % 160) / 100 }')"
  kill -9 "$operator" 2>/dev/null || true
  wait "$operator" 2>/dev/null || true
  kills=$((kills + 1))
  start_operator "$work/catalog.yaml"
  if [ "$kills" -gt 4 ] && all_ended; then
    [ "$kills" -ge "$kills_wanted" ] && break
    # More work for the next kills: resets of nodes that were never touched.
    wave=$((wave + 1))
    base=$((14 + (wave % 3) * 2))
    reset_op "reset-$wave" "${members[$base]}" "${members[$((base + 1))]}" | k apply -f - >/dev/null
    ops=$((ops + 1))
  fi
  if [ "$kills" -eq 4 ]; then
    # While the operator is being killed: three more replacements, in one apply.
    { for i in 5 6 7; do replace_op "replace-$i" "${members[$i]}"; done; } | k apply -f - >/dev/null
    ops=$((ops + 3))
  fi
done
echo "--- $kills kills (operator runs: $run), $ops operations; letting the last run finish"
for _ in $(seq 1200); do all_ended && break; sleep 0.1; done
all_ended || { k get nodeop; fail "operations did not all end"; }
[ "$kills" -ge "$kills_wanted" ] || fail "only $kills kills"
sleep 1

bad=$(k get nodeop -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {.status.reason}{"\n"}{end}' | grep -v ' Succeeded' || true)
[ -z "$bad" ] || fail "operations not Succeeded: $bad"

# Limits, from every node change the watch saw.
# N7 is a limit of each reset: marks are counted per operation (a node of a reset that ended
# keeps its mark until restored, while the next wave's reset may already mark its own nodes).
read -r most_replace most_reset both < <(awk '
  { name = $1; pool = $2; op = $3; sub(/^op=/, "", op); opname = $4; sub(/^name=/, "", opname)
    if (pool != "pool=p") { op = ""; opname = "" }
    if (op != state[name]) { count[state[name]]--; count[op]++; state[name] = op }
    key = op "/" opname
    if (key != mark[name]) { per[mark[name]]--; per[key]++; mark[name] = key }
    if (count["Replace"] > mr) mr = count["Replace"]
    if (op == "Reset" && per[key] > mx) mx = per[key]
    if (count["Replace"] > 0 && count["Reset"] > 0) both++ }
  END { print mr + 0, mx + 0, both + 0 }' "$work/node-watch.txt")
echo "most nodes marked at once: Replace $most_replace (N2 limit 2), Reset $most_reset of one operation (N7 limit 2); both at once: $both times"
[ "$most_replace" -ge 1 ] || fail "the watch saw no replacement"
# A limit exceeded: every mark the watch saw, in order, and the operations (which run admitted what).
marks() { awk '{print NR": "$0}' "$work/node-watch.txt" | grep -E 'op=[A-Z]' | tail -60; k get nodeop -o wide 2>&1; }
[ "$most_replace" -le 2 ] || fail "$most_replace nodes replaced at once (N2: 2): $(marks)"
[ "$most_reset" -le 2 ] || fail "$most_reset nodes of one reset marked at once (N7: 2): $(marks)"
[ "$both" -eq 0 ] || fail "replacement and reset ran together $both times (N4/N6)"

# The pool: 20 nodes, none marked; 8 retired nodes out of it; no node cordoned, tainted or
# marked by respool without a record.
[ "$(k get nodes -l respool.io/pool=p --no-headers | wc -l)" -eq 20 ] || fail "pool size changed"
retired_nodes=$(k get nodes -l respool.io/retired=true -o jsonpath='{.items[*].metadata.name}')
[ "$(wc -w <<<"$retired_nodes")" -eq 8 ] ||
  fail "want 8 retired nodes, have: $retired_nodes; operations: $(k get nodeop -o jsonpath='{range .items[*]}{.metadata.name}={.status.nodes[*].replacement} {end}')"
k get nodes -o json >"$work/nodes.json"
python3 - "$work/nodes.json" <<'PY' || fail "a node is left marked or cordoned without a record"
import json, sys
bad = []
for n in json.load(open(sys.argv[1]))["items"]:
    m = n["metadata"]; a = m.get("annotations", {}); spec = n.get("spec", {})
    taints = [t["key"] for t in spec.get("taints", [])]
    if "respool.io/node-operation" in a or "respool.io/resetting" in taints:
        bad.append(m["name"] + ": still in an operation")
    if spec.get("unschedulable") and not ("respool.io/retired" in a or "respool.io/cordon-reason" in a):
        bad.append(m["name"] + ": cordoned without a record")
    if "respool.io/retired" in m.get("labels", {}) and "respool.io/pool" in m.get("labels", {}):
        bad.append(m["name"] + ": retired but in the pool")
for b in bad: print(b)
sys.exit(1 if bad else 0)
PY
[ "$(k get rp p -o jsonpath='{.status.nodeOperations.active}')" = "[]" ] || fail "the ledger still holds nodes"

# No node claimed twice: each spare joined once as a replacement (a second line only on recovery).
cat "$work"/audit-*.jsonl | grep '"operation":"addClusterNode"' | grep 'replacement for' >"$work/joins.txt" || true
grep -v 'audited on recovery' "$work/joins.txt" | grep -o '"node":"[^"]*"' | sort >"$work/first-joins.txt" || true
[ "$(uniq -d "$work/first-joins.txt" | wc -l)" -eq 0 ] || fail "a node joined twice: $(uniq -d "$work/first-joins.txt")"
joined=$(grep -o '"node":"[^"]*"' "$work/joins.txt" | sort -u | wc -l)
[ "$joined" -eq 8 ] || fail "$joined replacements audited, want 8"
retired=$(cat "$work"/audit-*.jsonl | grep '"operation":"deleteClusterNode"' | grep -c 'retired' || true)
[ "$retired" -ge 8 ] || fail "$retired retirements audited, want 8"
echo "node_operations_restart: all checks passed ($kills kills)"
