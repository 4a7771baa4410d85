#!/usr/bin/env bash
# Crash safety of driver upgrades (D1-D4): a 10-node GPU pool upgrades its driver, wave after wave
# (550.54.15, back to 535.104.05, ...), in batches of 20% (2 nodes), while the operator is killed
# with SIGKILL at random moments and restarted, at least 20 times. Checked from a watch of the
# nodes (kubectl get -w, every change), never from the operator's status:
#   D2  at most 2 nodes between cordon and uncordon at once
#   each node goes through the machine exactly once per wave: a finished node is not upgraded
#       again, and none is skipped
#   a node's driver changes only while it is in the batch (cordoned, tainted)
#   the node an administrator cordoned before the first wave is never uncordoned
# At the end every node runs the last target, upgrade-done, uncordoned (but the administrator's),
# without respool's taint or cordon record.
# Usage: driver_upgrade_restart.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
kills_wanted=${KILLS:-20}
old=535.104.05
new=550.54.15

cat >"$work/nodes.yaml" <<EOF2
nodes:
- {flavor: gpu-8x-a100, zone: az-1, count: 10, namePrefix: g, driverVersion: "$old", capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
EOF2
# Simulated time runs 10 times faster: a driver loads in 1 s, a job of 60 s takes 6.
start_sandbox --nodes "$work/nodes.yaml" --time-scale 10
install_api
for _ in $(seq 100); do [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -eq 10 ] && break; sleep 0.1; done

kubectl --cache-dir="$work/cache" get nodes -w -o jsonpath='{.metadata.name} pool={.metadata.labels.respool\.io/pool} st={.metadata.labels.respool\.io/driver-upgrade-state} v={.metadata.labels.respool\.io/driver-version} u={.spec.unschedulable} by={.metadata.annotations.respool\.io/cordoned-by}{"\n"}' \
  >"$work/node-watch.txt" 2>"$work/node-watch.log" &
track $!


start_operator "$src/config/catalog.yaml"
k apply -f - >/dev/null <<EOF2
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
  resources: [{flavor: gpu-8x-a100, count: 10}]
  driver:
    gpuVersion: "$old"
    upgrade: {mode: Secure, maxUnavailable: 20%}
EOF2
for _ in $(seq 600); do
  [ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] && break
  sleep 0.1
done
[ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] || fail "pool not Running"
[ "$(k get nodes -l respool.io/pool=p --no-headers | wc -l)" -eq 10 ] || fail "pool has not 10 nodes"

# An administrator cordons g-4 before the upgrade; two nodes run jobs (Secure waits for them).
admin=g-4
k cordon "$admin" >/dev/null
for n in g-1 g-7; do
  k apply -f - >/dev/null <<EOF2
apiVersion: v1
kind: Pod
metadata: {name: train-$n, namespace: default, annotations: {sandbox.respool.io/run-seconds: "60"}}
spec:
  nodeName: $n
  restartPolicy: Never
  tolerations: [{key: respool.io/pool, operator: Exists}]
  containers: [{name: train, image: trainer:1}]
EOF2
done

waves=0
target=$old
next_wave() {
  waves=$((waves + 1))
  if [ "$target" = "$old" ]; then target=$new; else target=$old; fi
  k patch rp p --type merge -p "{\"spec\":{\"driver\":{\"gpuVersion\":\"$target\"}}}" >/dev/null
}
# Every node at the target, upgrade-done, uncordoned unless it is the administrator's.
wave_done() {
  local rows
  rows=$(k get nodes -l respool.io/pool=p -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.labels.respool\.io/driver-version} {.metadata.labels.respool\.io/driver-upgrade-state} {.spec.unschedulable}{"\n"}{end}')
  [ "$(printf '%s\n' "$rows" | awk -v t="$target" -v a="$admin" '
    $2 == t && $3 == "upgrade-done" && (($1 == a) == ($4 == "true")) { ok++ } END { print ok + 0 }')" -eq 10 ]
}

next_wave
kills=0
deadline=$((SECONDS + 300))
while [ $SECONDS -lt $deadline ]; do
  sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.4 + (r % 160) / 100 }')"
  kill -9 "$operator" 2>/dev/null || true
  wait "$operator" 2>/dev/null || true
  kills=$((kills + 1))
  start_operator "$src/config/catalog.yaml"
  if wave_done; then
    [ "$kills" -ge "$kills_wanted" ] && break
    next_wave
  fi
done
echo "--- $kills kills (operator runs: $run), $waves waves; letting the last run finish"
for _ in $(seq 1200); do wave_done && break; sleep 0.1; done
wave_done || { k get nodes -L respool.io/driver-upgrade-state,respool.io/driver-version; fail "wave $waves did not finish"; }
[ "$kills" -ge "$kills_wanted" ] || fail "only $kills kills"
sleep 1

# From every node change the watch saw.
awk -v admin="$admin" -v waves="$waves" '
  function inflight(s) { return s ~ /^st=(cordon-required|wait-for-jobs-required|pod-deletion-required|driver-restart-required|validation-required|uncordon-required)$/ }
  $2 != "pool=p" { next }
  { name = $1; st = $3; v = $4; u = $5
    now = inflight(st)
    if (now && !was[name]) { entered[name]++; active++ }
    if (!now && was[name]) active--
    if (active > most) most = active
    if (name in version && v != version[name] && !now && !was[name])
      bad = bad sprintf("%s: driver %s -> %s outside the batch; ", name, version[name], v)
    if (name == admin && cordoned_admin && u != "u=true")
      bad = bad sprintf("%s: the administrator'"'"'s cordon was lifted; ", name)
    if (name == admin && u == "u=true") cordoned_admin = 1
    was[name] = now; version[name] = v }
  END {
    for (n in entered) if (entered[n] != waves) bad = bad sprintf("%s went through the machine %d times in %d waves; ", n, entered[n], waves)
    if (length(entered) != 10) bad = bad sprintf("%d nodes upgraded, want 10; ", length(entered))
    printf "most nodes in the batch at once: %d (D2 limit 2)\n", most
    if (most > 2) bad = bad "batch exceeded; "
    if (most < 1) bad = bad "the watch saw no upgrade; "
    if (bad != "") { print "violations: " bad; exit 1 }
  }' "$work/node-watch.txt" || fail "the node watch shows a violation"

k get nodes -o json >"$work/nodes.json"
python3 - "$work/nodes.json" "$admin" <<'PY' || fail "a node is left marked, tainted or cordoned"
import json, sys
admin = sys.argv[2]
bad = []
for n in json.load(open(sys.argv[1]))["items"]:
    m = n["metadata"]; a = m.get("annotations", {}); spec = n.get("spec", {})
    taints = [t["key"] for t in spec.get("taints", [])]
    if "isolation.respool.io/A200001" in taints: bad.append(m["name"] + ": still tainted A200001")
    if "respool.io/cordoned-by" in a: bad.append(m["name"] + ": still carries respool's cordon record")
    if bool(spec.get("unschedulable")) != (m["name"] == admin): bad.append(m["name"] + ": cordon is wrong")
for b in bad: print(b)
sys.exit(1 if bad else 0)
PY
# Each node's upgrade audited as it finished (A1): at least once per node and wave (the line is
# written before the state, so a kill in between repeats it rather than losing it).
done_lines=$(cat "$work"/audit-*.jsonl | grep '"operation":"UpdatePoolV2"' | grep -c 'driver upgraded' || true)
[ "$done_lines" -ge $((10 * waves)) ] || fail "$done_lines upgrades audited, want at least $((10 * waves))"
echo "driver_upgrade_restart: all checks passed ($kills kills, $waves waves)"
