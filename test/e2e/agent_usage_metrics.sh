#!/usr/bin/env bash
# The node agent's container usage metrics end to end (issue 28): an 8-worker Indexed training
# Job on a GPU node of the sandbox; the test NVML library reports each worker's process on its
# own GPU (utilisation, memory) and a host process on GPU 7; a made-up host tree holds each
# process's cgroup as containerd and the systemd driver name it, from the pod's UID and its
# container's ID (the simulator's kubelet gives them). respool-node-agent, listing and watching
# the pods of its node, must then serve on /metrics
#   ma_container_gpu_util{pool="p",node=...,namespace="default",pod=<worker 3's>,container="train",
#     job="llm",task="worker-3",gpu="3",...} equal to what the library reports for worker 3;
#   one series per worker and none for the host process, whose use shows in ma_node_gpu_util;
#   no container series once the Job and its pods are gone.
# Beside it a 2-worker Job "pangu" on the node's Ascend NPUs (the test DCMI library): worker 0
# alone on NPU 0/0 and beside worker 1 on 0/1; ma_container_npu_util{...,npu="0/0"} is the
# device's AI Core use, ma_container_npu_memory_used_megabytes each worker's processes' memory,
# and 0/1, shared, has no utilisation series.
# Usage: agent_usage_metrics.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
agent_bin=$build/agent/respool-node-agent
nvml=$build/agent/testlibs/libnvidia-ml-fake.so
command -v jq >/dev/null || { echo "jq is not installed: skipped"; exit 0; }
[ -x "$agent_bin" ] && [ -f "$nvml" ] && [ -x "$build/respool-sandbox" ] ||
  { echo "respool-node-agent, the test NVML or respool-sandbox not built: skipped"; exit 0; }
source "$src/test/e2e/lib/sandbox.bash"

cat >"$work/nodes.yaml" <<EOF2
nodes:
- {flavor: gpu-8x-h100, zone: az-1, count: 1, namePrefix: g, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
EOF2
start_sandbox --nodes "$work/nodes.yaml"
for _ in $(seq 100); do [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -eq 1 ] && break; sleep 0.1; done
node=$(k get nodes -o jsonpath='{.items[0].metadata.name}')
k label node "$node" respool.io/pool=p >/dev/null

source "$src/test/e2e/lib/gpu_job.bash"
training_job llm "$node"
wait_workers llm
fake_gpu_processes llm
worker3=${worker_pod[3]}

# The NPU Job: its workers ask for no device (the node's 8 GPUs are llm's); the test DCMI says
# which of their processes run on which NPU.
k apply -f - >/dev/null <<EOF2
apiVersion: batch/v1
kind: Job
metadata: {name: pangu, namespace: default}
spec:
  completionMode: Indexed
  completions: 2
  parallelism: 2
  template:
    metadata: {annotations: {sandbox.respool.io/log-interval: "10"}}
    spec:
      restartPolicy: Never
      nodeSelector: {kubernetes.io/hostname: $node}
      tolerations: [{key: respool.io/pool, operator: Exists}]
      containers: [{name: train, image: trainer:1}]
EOF2
for _ in $(seq 300); do [ "$(workers pangu | wc -l)" -eq 2 ] && break; sleep 0.2; done
[ "$(workers pangu | wc -l)" -eq 2 ] || fail "pangu's 2 workers do not run: $(k get pods -o wide)"
npu_pod=()
while read -r index uid id name; do
  echo "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${uid//-/_}.slice/cri-containerd-${id#containerd://}.scope" |
    put "$host/proc/$((2000 + index))/cgroup"
  npu_pod[index]=$name
done < <(workers pangu)
jq -n '{cards: [{card: 0, devices: [
  {aiCoreUtil: 71, hbm: {total: 65536, used: 20480},
   processes: [{pid: 2000, memory: (2 * 1073741824)}]},
  {aiCoreUtil: 90, hbm: {total: 65536, used: 4096},
   processes: [{pid: 2000, memory: 1073741824}, {pid: 2001, memory: (3 * 1073741824)}]}]}]}' |
  put "$work/dcmi.json"
start_agent "$node"
port=$agent_port
metrics() { curl -s --max-time 2 "http://127.0.0.1:$port/metrics"; }
# awk reads to the end (no `exit`): a reader that stops early fails curl with SIGPIPE now and
# then, and under pipefail the assignment `got=$(value ...)` would end the script silently.
value() { # value METRIC LABEL=\"V\"...: the first matching sample's value
  local name=$1; shift
  metrics | awk -v name="$name" -v want="$*" '
    !found && index($0, name "{") == 1 { ok = 1; n = split(want, w, " ")
      for (i = 1; i <= n; i++) if (index($0, w[i]) == 0) ok = 0
      if (ok) { print $NF; found = 1 } }'
}
w3=("pool=\"p\"" "node=\"$node\"" "namespace=\"default\"" "pod=\"$worker3\"" "container=\"train\""
  "job=\"llm\"" "task=\"worker-3\"" "gpu=\"3\"")
for _ in $(seq 100); do [ -n "$(value ma_container_gpu_util "${w3[@]}")" ] && break; sleep 0.2; done
got=$(value ma_container_gpu_util "${w3[@]}")
[ "$got" = 33 ] || fail "ma_container_gpu_util of worker-3 is '$got', the library reports 33: $(metrics | grep ma_container_gpu_util)"
echo "  ma_container_gpu_util{job=\"llm\",task=\"worker-3\",pod=\"$worker3\"} = $got"
[ "$(value ma_container_gpu_memory_used_megabytes "${w3[@]}")" = 4096 ] || fail "worker-3's GPU memory"
[ "$(metrics | grep -c '^ma_container_gpu_util{')" -eq 8 ] ||
  fail "not one series per worker: $(metrics | grep '^ma_container_gpu_util{')"
[ "$(value ma_node_gpu_util 'gpu="7"' 'pool="p"')" = 67 ] || fail "GPU 7's node utilisation"

echo "--- pangu's workers on the NPUs"
n0=("pool=\"p\"" "node=\"$node\"" "namespace=\"default\"" "pod=\"${npu_pod[0]}\"" "container=\"train\""
  "job=\"pangu\"" "task=\"worker-0\"")
n1=("pool=\"p\"" "node=\"$node\"" "namespace=\"default\"" "pod=\"${npu_pod[1]}\"" "container=\"train\""
  "job=\"pangu\"" "task=\"worker-1\"")
for _ in $(seq 100); do [ -n "$(value ma_container_npu_util "${n0[@]}" 'npu="0/0"')" ] && break; sleep 0.2; done
got=$(value ma_container_npu_util "${n0[@]}" 'npu="0/0"')
[ "$got" = 71 ] || fail "ma_container_npu_util of worker-0 on 0/0 is '$got', DCMI reports 71: $(metrics | grep ma_container_npu)"
echo "  ma_container_npu_util{job=\"pangu\",task=\"worker-0\",npu=\"0/0\"} = $got"
[ "$(value ma_container_npu_memory_used_megabytes "${n0[@]}" 'npu="0/0"')" = 2048 ] || fail "worker-0's memory on 0/0"
[ "$(value ma_container_npu_memory_total_megabytes "${n0[@]}" 'npu="0/0"')" = 65536 ] || fail "0/0's HBM total"
[ "$(value ma_container_npu_memory_used_megabytes "${n0[@]}" 'npu="0/1"')" = 1024 ] || fail "worker-0's memory on 0/1"
[ "$(value ma_container_npu_memory_used_megabytes "${n1[@]}" 'npu="0/1"')" = 3072 ] || fail "worker-1's memory on 0/1"
[ "$(metrics | grep -c '^ma_container_npu_util{')" -eq 1 ] ||
  fail "0/1 is shared, yet has a container utilisation: $(metrics | grep '^ma_container_npu_util{')"
[ "$(value ma_node_npu_mem_used_megabytes 'npu="0/1"' 'pool="p"')" = 4096 ] || fail "0/1's node HBM use"

echo "--- the Jobs are deleted: their workers' series go"
k delete job llm pangu --cascade=foreground --wait=false >/dev/null
k delete pods -l 'batch.kubernetes.io/job-name in (llm, pangu)' --grace-period=0 --force >/dev/null 2>&1 || true
for _ in $(seq 100); do metrics | has -E '^ma_container_(gpu_util|npu_memory_used_megabytes)[{]' || break; sleep 0.2; done
! metrics | has -E '^ma_container_(gpu_util|npu_memory_used_megabytes)[{]' ||
  fail "container series remain: $(metrics | grep -E '^ma_container_(gpu_util|npu_memory_used_megabytes)[{]')"
echo "agent_usage_metrics: all checks passed"
