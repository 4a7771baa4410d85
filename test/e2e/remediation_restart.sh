#!/usr/bin/env bash
# Crash safety of automatic remediation (N10-N17): six nodes of a 20-node pool with remediation
# turn faulty at once, and the operator is killed with SIGKILL at random moments and restarted
# until at least 20 kills have struck while an automatic operation ran (the free nodes come back
# one at a time, so the replacements wait for them across kills) and every fault is remediated.
# Checked from the cluster, never from the operator's status:
#   no node ever gets two automatic operations (each faulty node exactly one, named for its
#     first attempt: a create and the memory that counts it survive any kill between them);
#   N2  at most 2 nodes marked Replace at once (a watch of every node change; 10% of 20);
#   N1  no more replacements than the day's 10 (50% of 20);
#   every fault ends remediated: each faulty node retired and out of the pool, the pool 20
#     nodes again, nothing left in status.remediation, no node cordoned or marked without a
#     record.
# Usage: remediation_restart.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
kills_wanted=${KILLS:-20}

cat >"$work/nodes.yaml" <<'EOF2'
nodes:
- {flavor: cpu-64c, zone: az-1, count: 30, namePrefix: n-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
EOF2
sed -e 's/replacementsPerDay: 20%/replacementsPerDay: 50%/' \
    -e 's/concurrentReplacements: 5%/concurrentReplacements: 10%/' \
    "$src/config/catalog.yaml" >"$work/catalog.yaml"
grep -q "concurrentReplacements: 10%" "$work/catalog.yaml" || fail "catalog limits not set"

start_sandbox --nodes "$work/nodes.yaml"
install_api
for _ in $(seq 100); do [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -eq 30 ] && break; sleep 0.1; done

kubectl --cache-dir="$work/cache" get nodes -w -o jsonpath='{.metadata.name} pool={.metadata.labels.respool\.io/pool} op={.metadata.annotations.respool\.io/node-operation-type} {"\n"}' \
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
  remediation:
    rules:
    - {codes: [A050101], after: 30s, steps: [{action: Replace}]}
    maxUnhealthy: 50%
EOF2
for _ in $(seq 600); do
  [ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] && break
  sleep 0.1
done
[ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] || fail "pool not Running"
mapfile -t members < <(k get nodes -l respool.io/pool=p -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort)
[ "${#members[@]}" -eq 20 ] || fail "pool has ${#members[@]} nodes"
faulty=("${members[@]:2:6}")
# The free nodes are parked under a flavor no catalog names: the replacements wait for an idle
# node (N3), which comes back one every third kill, so that the operations run across many kills.
mapfile -t spares < <(k get nodes -l '!respool.io/pool' -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort)
[ "${#spares[@]}" -eq 10 ] || fail "want 10 free nodes, have ${#spares[@]}"
k label nodes "${spares[@]}" node.kubernetes.io/instance-type=parked --overwrite >/dev/null
unparked=0
unpark() {
  [ $unparked -lt ${#spares[@]} ] || return 0
  k label node "${spares[$unparked]}" node.kubernetes.io/instance-type=cpu-64c --overwrite >/dev/null
  unparked=$((unparked + 1))
}
k annotate nodes "${faulty[@]}" sandbox.respool.io/fault=Isolate=A050101 >/dev/null

all_remediated() {
  local phases
  phases=$(k get nodeop -l respool.io/remediation=auto -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}')
  [ "$(printf '%s\n' "$phases" | grep -c '^Succeeded$')" -eq ${#faulty[@]} ]
}

# Kills while some automatic operation exists and has not succeeded: the ones that count.
in_flight() {
  local phases
  phases=$(k get nodeop -l respool.io/remediation=auto -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}')
  printf '%s\n' "$phases" | grep -qvE '^(Succeeded|)$'
}
kills=0 during=0
deadline=$((SECONDS + 300))
while [ $SECONDS -lt $deadline ]; do
  sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.3 + (r % 120) / 100 }')"
  struck=false
  in_flight && struck=true && during=$((during + 1))
  kill -9 "$operator" 2>/dev/null || true
  wait "$operator" 2>/dev/null || true
  date -u +%Y-%m-%dT%H:%M:%S >>"$work/kill-times.txt"
  kills=$((kills + 1))
  start_operator "$work/catalog.yaml"
  if $struck && [ $((during % 4)) -eq 0 ]; then unpark; fi
  all_remediated && break
done
echo "--- $kills kills, $during of them with an automatic operation in flight (operator runs: $run); letting the last run finish"
for _ in $(seq 1200); do all_remediated && break; sleep 0.1; done
all_remediated || { k get nodeop; fail "the faults were not all remediated"; }
[ "$kills" -ge "$kills_wanted" ] || fail "only $kills kills"
k get nodeop -l respool.io/remediation=auto -o jsonpath='{range .items[*]}{.metadata.creationTimestamp} {.status.completionTime}{"\n"}{end}' >"$work/spans.txt"
cat "$work/spans.txt"
[ "$during" -ge "$kills_wanted" ] || fail "only $during kills while an automatic operation ran"
sleep 1

# One automatic operation per faulty node, for its first attempt; none for any other node.
k get nodeop -l respool.io/remediation=auto -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodes[0]} {.status.phase}{"\n"}{end}' \
  >"$work/auto.txt"
cat "$work/auto.txt"
[ "$(wc -l <"$work/auto.txt")" -eq ${#faulty[@]} ] || fail "$(wc -l <"$work/auto.txt") automatic operations for ${#faulty[@]} faulty nodes"
for node in "${faulty[@]}"; do
  grep -qx "auto-$node-a050101-1-1 $node Succeeded" "$work/auto.txt" || fail "node $node: not one Succeeded auto-$node-a050101-1-1"
done
[ "$(k get nodeop --no-headers | wc -l)" -eq ${#faulty[@]} ] || fail "operations other than the automatic ones"

# Limits, from every node change the watch saw.
read -r most_replace replaced < <(awk '
  { name = $1; pool = $2; op = $3; sub(/^op=/, "", op)
    if (pool != "pool=p") op = ""
    if (op != state[name]) { count[state[name]]--; count[op]++; state[name] = op }
    if (op == "Replace") seen[name] = 1
    if (count["Replace"] > mr) mr = count["Replace"] }
  END { n = 0; for (s in seen) n++; print mr + 0, n }' "$work/node-watch.txt")
echo "most nodes marked Replace at once: $most_replace (N2 limit 2); nodes ever replaced: $replaced (N1 limit 10)"
[ "$most_replace" -ge 1 ] || fail "the watch saw no replacement"
[ "$most_replace" -le 2 ] || fail "$most_replace nodes replaced at once (N2: 2)"
[ "$replaced" -le 10 ] || fail "$replaced nodes replaced (N1: 10 a day)"

# Every fault remediated: the faulty nodes retired and out, the pool whole, nothing remembered.
for node in "${faulty[@]}"; do
  [ "$(k get node "$node" -o jsonpath='{.metadata.labels.respool\.io/retired}')" = true ] || fail "$node not retired"
  [ -z "$(k get node "$node" -o jsonpath='{.metadata.labels.respool\.io/pool}')" ] || fail "$node still in the pool"
done
[ "$(k get nodes -l respool.io/pool=p --no-headers | wc -l)" -eq 20 ] || fail "pool size changed"
for _ in $(seq 100); do
  [ "$(k get rp p -o jsonpath='{.status.remediation.nodes}')" = "[]" ] && break
  sleep 0.1
done
[ "$(k get rp p -o jsonpath='{.status.remediation.nodes}')" = "[]" ] ||
  fail "status.remediation still holds nodes: $(k get rp p -o jsonpath='{.status.remediation}')"
k get nodes -o json >"$work/nodes.json"
python3 - "$work/nodes.json" <<'PY' || fail "a node is left marked or cordoned without a record"
import json, sys
bad = []
for n in json.load(open(sys.argv[1]))["items"]:
    m = n["metadata"]; a = m.get("annotations", {}); spec = n.get("spec", {})
    if "respool.io/node-operation" in a:
        bad.append(m["name"] + ": still in an operation")
    if spec.get("unschedulable") and not ("respool.io/retired" in a or "respool.io/cordon-reason" in a):
        bad.append(m["name"] + ": cordoned without a record")
for b in bad: print(b)
sys.exit(1 if bad else 0)
PY
echo "remediation_restart: all checks passed ($kills kills)"
