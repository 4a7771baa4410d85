# A training Job whose workers "use" GPUs, for the e2e scripts of the node agent's usage metrics
# (sourced, after lib/sandbox.bash: uses $work, track, $build, k and fail).
#   training_job NAME NODE [CPU_LIMIT MEMORY_LIMIT]  an 8-worker Indexed Job on NODE, 1 GPU each
#   workers NAME            "index uid containerID name" of the Job's running pods
#   wait_workers NAME       waits until its 8 workers run
#   fake_gpu_processes NAME writes the made-up host tree and test NVML file of its workers:
#                           worker i is pid 1000+i on GPU i at 10*i+3 percent SM, (i+1) GiB; the
#                           host's pid 4242 (no pod) on GPU 7; worker_pod[i] is worker i's pod
#   start_agent NODE        respool-node-agent of NODE on the test NVML, metrics on 127.0.0.1:$agent_port;
#                           with a $work/dcmi.json, on the test DCMI too (checks gpu,npu)
agent_bin=$build/agent/respool-node-agent
nvml=$build/agent/testlibs/libnvidia-ml-fake.so
host=$work/host

training_job() {
  local name=$1 node=$2 limits='{nvidia.com/gpu: "1"}'
  [ $# -ge 4 ] && limits="{nvidia.com/gpu: \"1\", cpu: \"$3\", memory: $4}"
  k apply -f - >/dev/null <<EOF2
apiVersion: batch/v1
kind: Job
metadata: {name: $name, namespace: default}
spec:
  completionMode: Indexed
  completions: 8
  parallelism: 8
  template:
    metadata:
      # the sandbox's simulated trainer runs until stopped (a line every 10 seconds)
      annotations: {sandbox.respool.io/log-interval: "10"}
    spec:
      restartPolicy: Never
      nodeSelector: {kubernetes.io/hostname: $node}
      tolerations: [{key: respool.io/pool, operator: Exists}]
      containers:
      - name: train
        image: trainer:1
        resources: {requests: $limits, limits: $limits}
EOF2
}
workers() {
  k get pods -l "batch.kubernetes.io/job-name=$1" -o json | jq -r '.items[]
    | select(.status.phase == "Running")
    | "\(.metadata.annotations["batch.kubernetes.io/job-completion-index"]) \(.metadata.uid) \(.status.containerStatuses[0].containerID) \(.metadata.name)"'
}
# The sandbox's scheduler now and then leaves a pod of a burst pending on a node with room, with
# no Unschedulable condition (seen with the example pool's operator running; the sandbox is
# frozen): every 5 s, a pending worker is annotated, an update that has the scheduler look at it
# again.
wait_workers() {
  local i
  for i in $(seq 300); do
    [ "$(workers "$1" | wc -l)" -eq 8 ] && return 0
    if [ $((i % 25)) = 0 ]; then
      k annotate pods -l "batch.kubernetes.io/job-name=$1" --field-selector=status.phase=Pending \
        --overwrite "test.respool.io/nudge=$i" >/dev/null 2>&1 || true
    fi
    sleep 0.2
  done
  fail "the Job's 8 workers do not run: $(k get pods -o wide)
$(k get events --field-selector reason=FailedScheduling 2>&1 | tail -3)
$(k describe node "$(k get pods -l "batch.kubernetes.io/job-name=$1" -o jsonpath='{.items[0].spec.nodeName}')" 2>&1 | sed -n '/Allocated resources/,/Events/p')"
}
put() { mkdir -p "$(dirname "$1")" && cat >"$1.tmp" && mv "$1.tmp" "$1"; }
worker_pod=()
fake_gpu_processes() {
  local index uid id name slice
  while read -r index uid id name; do
    slice="kubepods-besteffort-pod${uid//-/_}.slice"
    echo "0::/kubepods.slice/kubepods-besteffort.slice/$slice/cri-containerd-${id#containerd://}.scope" |
      put "$host/proc/$((1000 + index))/cgroup"
    worker_pod[index]=$name
  done < <(workers "$1")
  echo "0::/system.slice/burn-in.service" | put "$host/proc/4242/cgroup"
  jq -n '{driverVersion: "550.54.15", devices: [range(8) as $i | {uuid: "GPU-\($i)",
    name: "NVIDIA H100 80GB HBM3", utilization: {gpu: (60 + $i), memory: 10},
    memory: {total: (80 * 1073741824), used: (20 * 1073741824)},
    processes: ([{pid: (1000 + $i), usedGpuMemory: (($i + 1) * 1073741824), smUtil: (10 * $i + 3),
      memUtil: $i}] + (if $i == 7 then [{pid: 4242, usedGpuMemory: 1073741824, smUtil: 50}]
      else [] end))}]}' | put "$work/nvml.json"
}
# start_agent NODE: the agent on NODE; more of its flags in the array agent_args.
start_agent() {
  local checks=gpu npu=()
  [ -n "${agent_args+set}" ] || agent_args=()
  if [ -f "$work/dcmi.json" ]; then
    checks=gpu,npu
    npu=(--dcmi-library "$build/agent/testlibs/libdcmi-fake.so")
  fi
  agent_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  RESPOOL_FAKE_NVML_FILE="$work/nvml.json" RESPOOL_FAKE_DCMI_FILE="$work/dcmi.json" "$agent_bin" \
    --kubeconfig "$KUBECONFIG" --node-name "$1" --host-root "$host" --nvml-library "$nvml" \
    "${npu[@]}" --checks "$checks" \
    --check-period 1s --state-dir "$work/state" --metrics-bind-address "127.0.0.1:$agent_port" \
    --health-probe-bind-address 0 --log-format json "${agent_args[@]}" >"$work/agent.log" 2>&1 &
  track $!
}
