#!/usr/bin/env bash
# The node health chain end to end (issue 26; H1, H10, H14, H15, J4): respool-node-agent on each
# of three pool nodes, reading the test NVML library (agent/testlibs) and a made-up host tree,
# writing its conditions through the sandbox's API; the operator turning them into isolation.
#   a GPU's volatile uncorrectable ECC error: GPUHealthy False A050101 on the node within two
#     check periods (generous bounds: a loaded machine is slow, never early), the taint
#     isolation.respool.io/A050101:NoSchedule, the pool Degraded naming the node, and the
#     fault-tolerant Job with a worker there restarted once (job_reschedule_with_taint), its new
#     run away from the node;
#   the error clears: GPUHealthy True, the taint gone (and only respool's: an administrator's
#     isolation taint on another node stays);
#   an InfiniBand port DOWN on another node: InfiniBandHealthy False A050147 and the taint;
#   that node's agent killed with SIGKILL mid-check, again and again, and restarted: the finding
#     is never lost (the condition never turns True, the taint never goes) and no write flaps;
#   NVML hangs in a call: GPUHealthy False A050103 within --nvml-timeout plus one period, while the
#     agent's /healthz answers; NVML answers again: True.
# Usage: node_health_agent.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
agent_bin=$build/agent/respool-node-agent
nvml=$build/agent/testlibs/libnvidia-ml-fake.so
command -v jq >/dev/null || { echo "jq is not installed: skipped"; exit 0; }
[ -x "$agent_bin" ] && [ -f "$nvml" ] || { echo "respool-node-agent or the test NVML not built: skipped"; exit 0; }
source "$src/test/e2e/lib/sandbox.bash"
period=2  # --check-period, seconds

cat >"$work/nodes.yaml" <<EOF2
nodes:
- {flavor: gpu-8x-a100, zone: az-1, count: 3, namePrefix: g, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
EOF2
start_sandbox --nodes "$work/nodes.yaml"
install_api
for _ in $(seq 100); do [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -eq 3 ] && break; sleep 0.1; done
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
  resources: [{flavor: gpu-8x-a100, count: 3}]
EOF2
for _ in $(seq 600); do
  [ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] && break
  sleep 0.1
done
[ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] || fail "pool not Running"
nodes=$(k get nodes -l respool.io/pool=p -o jsonpath='{.items[*].metadata.name}')

# --- Each node's readings: eight healthy GPUs, one ACTIVE InfiniBand port, a writable kubelet
# directory. Files are replaced whole (rename), as a reader beside them must never see half.
put() { cat >"$1.tmp" && mv "$1.tmp" "$1"; }
gpus() { # gpus NODE [INDEX ECC]: eight GPUs, GPU INDEX with ECC volatile uncorrectable errors
  jq -n --arg node "$1" --argjson bad "${2:--1}" --argjson ecc "${3:-0}" '{driverVersion: "550.54.15",
    devices: [range(8) as $i | {uuid: "GPU-\($node)-\($i)", name: "NVIDIA A100-SXM4-80GB",
      eccVolatileUncorrected: (if $i == $bad then $ecc else 0 end), eccVolatileCorrected: 0,
      retiredPagesSingleBit: 0, retiredPagesDoubleBit: 0, retirementPending: false,
      remappedRows: {failed: false}, powerMilliwatts: 65000, temperatureCelsius: 31,
      utilization: {gpu: 0, memory: 0}}]}'
}
ib_state() { echo "$2" | put "$work/host-$1/sys/class/infiniband/mlx5_0/ports/1/state"; }
agent=()
start_agent() { # start_agent NODE: in the background; its pid in agent_pid[NODE]
  RESPOOL_FAKE_NVML_FILE="$work/nvml-$1.json" "$agent_bin" --kubeconfig "$KUBECONFIG" \
    --node-name "$1" --catalog "$src/config/catalog.yaml" --host-root "$work/host-$1" \
    --nvml-library "$nvml" --checks gpu,infiniband,kubelet-directory --check-period ${period}s \
    --heartbeat-period 60s --state-dir "$work/state-$1" --metrics-bind-address 0 \
    --health-probe-bind-address 0 --log-format json >>"$work/agent-$1.log" 2>&1 &
  track $!
  eval "agent_pid_${1//-/_}=$!"
}
agent_pid() { local v="agent_pid_${1//-/_}"; echo "${!v}"; }
for n in $nodes; do
  mkdir -p "$work/host-$n/proc/1" "$work/host-$n/sys/class/infiniband/mlx5_0/ports/1"
  printf '22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n' >"$work/host-$n/proc/1/mountinfo"
  ib_state "$n" "4: ACTIVE"
  gpus "$n" | put "$work/nvml-$n.json"
  start_agent "$n"
done

cond() { # cond NODE TYPE: "status reason" of the agent condition
  k get node "$1" -o json | jq -r --arg t "$2" '.status.conditions[] | select(.type == $t) | "\(.status) \(.reason)"'
}
tainted() { k get node "$1" -o jsonpath='{.spec.taints[*].key}' | tr ' ' '\n' | has -x "isolation.respool.io/$2"; }
# wait_for SECONDS DESCRIPTION COMMAND...: polls every 0.2 s; prints how long it took.
wait_for() {
  local limit=$1 what=$2 start=$SECONDS
  shift 2
  for _ in $(seq $((limit * 5))); do
    if "$@"; then echo "  $what: $((SECONDS - start)) s"; return 0; fi
    sleep 0.2
  done
  fail "$what: not within $limit s"
}
all_healthy() { for n in $nodes; do [ "$(cond "$n" GPUHealthy)" = "True Healthy" ] || return 1; done; }
wait_for 60 "every node GPUHealthy True" all_healthy

# --- A fault-tolerant training Job with two workers (8 GPUs each: one per node).
k apply -f - >/dev/null <<EOF2
apiVersion: batch/v1
kind: Job
metadata:
  name: llm
  namespace: default
  annotations: {fault-tolerance/job-retry-num: "3"}
spec:
  completionMode: Indexed
  completions: 2
  parallelism: 2
  backoffLimit: 10
  template:
    spec:
      restartPolicy: OnFailure
      nodeSelector: {respool.io/pool: p}
      tolerations: [{key: respool.io/pool, operator: Exists}]
      containers:
      - name: train
        image: trainer:1
        resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}
EOF2
running() { # running [RUN]: "index node" of the Job's running pods (of run RUN, or the first)
  k get pods -l batch.kubernetes.io/job-name=llm -o json | jq -r --arg run "${1:-}" '.items[]
    | select(.status.phase == "Running" and .metadata.deletionTimestamp == null)
    | select((.metadata.labels["respool.io/run"] // "") == $run)
    | "\(.metadata.labels["batch.kubernetes.io/job-completion-index"]) \(.spec.nodeName)"'
}
two_running() { [ "$(running "${1:-}" | wc -l)" -eq 2 ]; }
wait_for 60 "the Job's two workers run" two_running
bad=$(running | awk '$1 == 0 { print $2 }')
echo "--- worker 0 runs on $bad: its GPU 3 gets a volatile uncorrectable ECC error"

gpus "$bad" 3 2 | put "$work/nvml-$bad.json"
gpu_faulty() { [ "$(cond "$bad" GPUHealthy)" = "False A050101" ]; }
wait_for $((2 * period + 8)) "GPUHealthy False A050101 on $bad (two periods: $((2 * period)) s)" gpu_faulty
wait_for 30 "taint isolation.respool.io/A050101 on $bad" tainted "$bad" A050101
k describe node "$bad" >"$work/describe-node.txt"
has -E "GPUHealthy +False .* A050101 +GPU 3 \(GPU-$bad-3\): volatile uncorrectable ECC errors: 2" "$work/describe-node.txt" ||
  fail "describe node shows no GPUHealthy False A050101: $(grep -A8 Conditions "$work/describe-node.txt")"
has -E "isolation.respool.io/A050101:NoSchedule" "$work/describe-node.txt" || fail "describe node shows no taint"
degraded() {
  k describe rp p >"$work/describe-rp.log"
  # describe prints a custom resource's condition as lines: Message, ..., Status, Type.
  awk -v want="Message: +1 of 3 nodes are abnormal: $bad \\(A050101\\)" '
    $0 ~ want { seen = NR } seen && NR <= seen + 5 && /Status: +True/ { status = 1 }
    seen && NR <= seen + 5 && /Type: +Degraded/ && status { found = 1 } END { exit !found }' \
    "$work/describe-rp.log"
}
wait_for 30 "the pool Degraded naming $bad" degraded
ledger() { k get job llm -o jsonpath='{.metadata.annotations.respool\.io/fault-tolerance}'; }
restarted() { [ "$(ledger | jq -r '"\(.run) \(.restarting != null)"')" = "1 false" ] && two_running 1; }
wait_for 60 "the Job restarted (run 1, two workers)" restarted
! running 1 | has -w "$bad" || fail "a worker of the new run is on $bad: $(running 1)"
records=$(k get job llm -o jsonpath='{.metadata.annotations.respool\.io/running-records}')
[ "$(jq -r '.[0].endRecover' <<<"$records")" = job_reschedule_with_taint ] || fail "record: $records"
[ "$(ledger | jq -r .retriesUsed)" = 1 ] || fail "retries used: $(ledger)"
k get events -A --field-selector involvedObject.name="$bad" | has NodeIsolated || fail "no NodeIsolated event on $bad"

# --- An administrator's own A050101 taint on another node, which respool must leave alone.
other=$(for n in $nodes; do [ "$n" != "$bad" ] && echo "$n"; done | head -1)
k taint node "$other" isolation.respool.io/A050101=:NoSchedule >/dev/null

echo "--- the error clears on $bad"
gpus "$bad" | put "$work/nvml-$bad.json"
gpu_healthy() { [ "$(cond "$bad" GPUHealthy)" = "True Healthy" ]; }
wait_for $((2 * period + 8)) "GPUHealthy True on $bad" gpu_healthy
untainted() { ! tainted "$bad" A050101; }
wait_for 30 "the taint gone from $bad" untainted
tainted "$other" A050101 || fail "the administrator's taint on $other was removed"
k taint node "$other" isolation.respool.io/A050101- >/dev/null

ib=$(for n in $nodes; do [ "$n" != "$bad" ] && echo "$n"; done | tail -1)
echo "--- an InfiniBand port goes DOWN on $ib"
ib_state "$ib" "1: DOWN"
ib_faulty() { [ "$(cond "$ib" InfiniBandHealthy)" = "False A050147" ]; }
wait_for $((2 * period + 8)) "InfiniBandHealthy False A050147 on $ib" ib_faulty
wait_for 30 "taint isolation.respool.io/A050147 on $ib" tainted "$ib" A050147

echo "--- the agent on $ib killed with SIGKILL mid-check, and restarted, 8 times"
# Every write of the node's InfiniBandHealthy, from a watch: it must stay False throughout.
kubectl --cache-dir="$work/cache-w" get node "$ib" -w -o \
  jsonpath='{range .status.conditions[?(@.type=="InfiniBandHealthy")]}{.status} {.reason} {.lastTransitionTime}{"\n"}{end}' \
  >"$work/ib-watch.txt" 2>"$work/ib-watch.log" &
track $!
for i in $(seq 8); do
  sleep "$(awk -v r=$RANDOM -v p=$period 'BEGIN { printf "%.2f", (r % 100) / 100 * p }')"
  victim=$(agent_pid "$ib")
  kill -9 "$victim" 2>/dev/null || true
  wait "$victim" 2>/dev/null || true
  start_agent "$ib"
done
sleep $((3 * period))
ib_faulty || fail "InfiniBandHealthy on $ib is $(cond "$ib" InfiniBandHealthy) after the kills"
tainted "$ib" A050147 || fail "the A050147 taint left $ib during the kills"
! has -v "^False A050147 " "$work/ib-watch.txt" || fail "InfiniBandHealthy flapped: $(sort | uniq -c <"$work/ib-watch.txt")"
[ "$(awk '{ print $3 }' "$work/ib-watch.txt" | sort -u | wc -l)" -le 1 ] ||
  fail "InfiniBandHealthy's lastTransitionTime moved: $(cat "$work/ib-watch.txt")"
echo "--- NVML hangs on $bad: A050103 within --nvml-timeout plus a period; /healthz still answers"
victim=$(agent_pid "$bad")
kill -9 "$victim" 2>/dev/null || true
wait "$victim" 2>/dev/null || true
health=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
RESPOOL_FAKE_NVML_FILE="$work/nvml-$bad.json" "$agent_bin" --kubeconfig "$KUBECONFIG" \
  --node-name "$bad" --catalog "$src/config/catalog.yaml" --host-root "$work/host-$bad" \
  --nvml-library "$nvml" --checks gpu,infiniband,kubelet-directory --check-period ${period}s \
  --nvml-timeout 1s --heartbeat-period 60s --state-dir "$work/state-$bad" \
  --metrics-bind-address 0 --health-probe-bind-address "127.0.0.1:$health" --log-format json \
  >>"$work/agent-$bad.log" 2>&1 &
track $!
healthz() { [ "$(curl -s --max-time 2 "http://127.0.0.1:$health/healthz")" = ok ]; }
wait_for 30 "the restarted agent's /healthz" healthz
gpus "$bad" | jq '.hang = "nvmlDeviceGetTotalEccErrors"' | put "$work/nvml-$bad.json"
hung() { [ "$(cond "$bad" GPUHealthy)" = "False A050103" ]; }
wait_for $((1 + period + 8)) "GPUHealthy False A050103 on $bad (timeout plus a period: $((1 + period)) s)" hung
healthz || fail "/healthz does not answer while NVML hangs"
k get node "$bad" -o json | jq -r '.status.conditions[] | select(.type == "GPUHealthy") | .message' |
  has "nvmlDeviceGetTotalEccErrors" || fail "the A050103 message names no NVML call"
gpus "$bad" | put "$work/nvml-$bad.json"
wait_for $((2 * period + 8)) "GPUHealthy True once NVML answers again" gpu_healthy
echo "node_health_agent: all checks passed"
