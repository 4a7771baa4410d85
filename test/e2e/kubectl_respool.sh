#!/usr/bin/env bash
# `kubectl respool`, the kubectl plugin, driven by the real kubectl (which finds it on PATH)
# against the sandbox with the operator running (issue 28, item 5):
#   status / nodes / jobs of a one-node GPU pool; three pending Jobs of priorities 10, 100 and
#   1000 show positions 3, 2, 1 in `kubectl respool jobs`, and a higher-priority Job arriving
#   last moves to position 1; a pool that does not exist is kubectl's NotFound, an unknown flag
#   a usage error (exit 1);
#   the kubeconfig from --kubeconfig/--context, KUBECONFIG or ~/.kube/config;
#   top job: an 8-worker Job on a GPU node of its own (a flavor no pool claims, so that the
#   queue's Jobs stay as they are), the node agent with the test NVML library reporting each
#   worker's GPU use, a real Prometheus (Debian's package) scraping the agent
#   every second: `kubectl respool top job llm` prints worker-3's gpu_util as the library
#   reports it. Without prometheus that part is skipped.
# Usage: kubectl_respool.sh BUILD_DIR SOURCE_DIR
#   RESPOOL_KUBECTL_PLUGIN=PATH uses that kubectl-respool binary (default BUILD_DIR's).
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
plugin=${RESPOOL_KUBECTL_PLUGIN:-$build/kubectl-respool}
[ -x "$plugin" ] && [ -x "$build/respool-sandbox" ] && [ -x "$build/respool-operator" ] ||
  { echo "kubectl-respool, respool-sandbox or respool-operator not built: skipped"; exit 0; }
command -v jq >/dev/null || { echo "jq is not installed: skipped"; exit 0; }
source "$src/test/e2e/lib/sandbox.bash"

# kubectl finds a plugin on PATH by its name.
mkdir -p "$work/bin"
ln -s "$(realpath "$plugin")" "$work/bin/kubectl-respool"
export PATH="$work/bin:$PATH"
kubectl plugin list 2>/dev/null | has "$work/bin/kubectl-respool" || fail "kubectl plugin list does not find kubectl-respool"

# start_prometheus PORT CONFIG: Debian's prometheus in the background, its data under $work,
# ready once /-/ready answers.
start_prometheus() {
  prometheus --config.file="$2" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$1" >"$work/prometheus.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/-/ready" >/dev/null && return 0; sleep 0.2; done
  fail "prometheus is not ready"
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

cat >"$work/nodes.yaml" <<'YAML'
nodes:
- {flavor: gpu-8x-a100, zone: az-1, count: 1, namePrefix: g, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
- {flavor: test-gpu, zone: az-1, count: 1, namePrefix: t, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}, labels: {respool.test/top: "yes"}}
YAML
start_sandbox --nodes "$work/nodes.yaml"
install_api
start_operator "$src/config/catalog.yaml"
k apply -f "$src/examples/network.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: respool.io/v1alpha1
kind: ResourcePool
metadata: {name: q}
spec: {network: net-a, jobTypes: [Training], resources: [{flavor: gpu-8x-a100, count: 1}]}
YAML
for _ in $(seq 300); do
  [ "$(k get rp q -o jsonpath='{.status.phase}/{.status.jobs.running}')" = Running/0 ] && break
  sleep 0.2
done
[ "$(k get rp q -o jsonpath='{.status.phase}')" = Running ] || fail "pool q is not Running: $(k get rp q -o yaml)"
node=$(k get nodes -l respool.io/pool=q -o jsonpath='{.items[0].metadata.name}')

echo "--- kubectl respool status / nodes"
kubectl respool status | tee "$work/status.txt"
head -1 "$work/status.txt" | grep -Eq '^NAME +PHASE +AVAILABLE +TOTAL +ABNORMAL +RUNNING +PENDING +REPLACEMENTS +DRIVER +UPGRADED +AGE$' ||
  fail "status columns: $(head -1 "$work/status.txt")"
grep -Eq '^q +Running +1 +1 +0 +0 +0 ' "$work/status.txt" || fail "status row: $(cat "$work/status.txt")"
kubectl respool status q | tee "$work/status-q.txt"
grep -Eq '^Phase: +Running$' "$work/status-q.txt" || fail "status q: no phase"
grep -Eq '^Nodes: +total 1, available 1, ' "$work/status-q.txt" || fail "status q: nodes"
[ "$(kubectl respool status q -o json | jq -r .metadata.name)" = q ] || fail "status q -o json"
kubectl respool status q -o yaml | has '^kind: ResourcePool$' || fail "status q -o yaml"
kubectl respool nodes q -o wide | tee "$work/nodes.txt"
grep -Eq "^$node +Available +<none> +" "$work/nodes.txt" || fail "nodes row: $(cat "$work/nodes.txt")"
head -1 "$work/nodes.txt" | has 'OPERATION-PHASE' || fail "nodes -o wide columns"

echo "--- the kubeconfig as kubectl finds it: --kubeconfig and --context, else ~/.kube/config"
ctx=$(kubectl config current-context)
mkdir -p "$work/home/.kube"
cp "$KUBECONFIG" "$work/home/.kube/config"
env -u KUBECONFIG HOME="$work/nohome" kubectl respool status --kubeconfig "$KUBECONFIG" --context "$ctx" |
  has '^q ' || fail "--kubeconfig and --context"
env -u KUBECONFIG HOME="$work/home" kubectl respool status | has '^q ' || fail "~/.kube/config"
set +e
kubectl respool status --context nope >/dev/null 2>"$work/err.txt"; rc=$?
set -e
[ $rc = 1 ] && has 'context "nope"' "$work/err.txt" || fail "an unknown context ($rc): $(cat "$work/err.txt")"

echo "--- errors as kubectl words them"
set +e
kubectl respool status nope >"$work/err.out" 2>"$work/err.txt"; rc=$?
set -e
[ $rc = 1 ] || fail "status nope exited $rc"
grep -qx 'Error from server (NotFound): resourcepools.respool.io "nope" not found' "$work/err.txt" ||
  fail "NotFound wording: $(cat "$work/err.txt")"
set +e
kubectl respool jobs q --bogus >/dev/null 2>"$work/err.txt"; rc=$?
set -e
[ $rc = 1 ] && has -x 'error: unknown flag: --bogus' "$work/err.txt" || fail "unknown flag ($rc): $(cat "$work/err.txt")"
kubectl respool jobs --help | has '^  kubectl respool jobs POOL' || fail "jobs --help"

echo "--- pending jobs and their positions"
job() { # job NAME PRIORITY GPUS [COUNT]: an Indexed Job in pool q whose pods run until stopped
  k apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1, namespace: default}
spec:
  completionMode: Indexed
  completions: ${4:-1}
  parallelism: ${4:-1}
  backoffLimit: 0
  template:
    metadata: {annotations: {sandbox.respool.io/log-interval: "60"}}
    spec:
      restartPolicy: Never
      priority: $2
      nodeSelector: {respool.io/pool: q}
      tolerations: [{key: respool.io/pool, operator: Equal, value: q}]
      containers:
      - name: train
        image: trainer:1
        resources: {requests: {nvidia.com/gpu: "$3"}, limits: {nvidia.com/gpu: "$3"}}
YAML
}
positions() { kubectl respool jobs q | awk '$4 == "Pending" { printf "%s=%s ", $2, $5 }'; }
wait_positions() {
  for _ in $(seq 150); do [ "$(positions)" = "$1" ] && return 0; sleep 0.2; done
  fail "positions are '$(positions)', not '$1': $(kubectl respool jobs q -o wide; k get rp q -o jsonpath='{.status.jobs}')"
}
job filler 0 8
for _ in $(seq 150); do [ "$(k get rp q -o jsonpath='{.status.jobs.running}')" = 1 ] && break; sleep 0.2; done
job high 1000 8
wait_positions "high=1 "
job low 10 8
job mid 100 8
wait_positions "high=1 mid=2 low=3 "
kubectl respool jobs q -o wide | tee "$work/jobs.txt"
head -1 "$work/jobs.txt" | grep -Eq '^NAMESPACE +NAME +KIND +STATUS +POSITION +PRIORITY +PODS +AGE +WAITING-FOR$' ||
  fail "jobs columns: $(head -1 "$work/jobs.txt")"
grep -Eq '^default +filler +Job +Running +<none> +0 +1 ' "$work/jobs.txt" || fail "the running job's row"
grep -Eq '^default +high +Job +Pending +1 +1000 +1 +[0-9a-z]+ +8 nvidia.com/gpu, largest free 0$' "$work/jobs.txt" ||
  fail "high's row: $(cat "$work/jobs.txt")"
job urgent 5000 8
wait_positions "urgent=1 high=2 mid=3 low=4 "
kubectl respool jobs q
[ "$(kubectl respool jobs q -o json | jq -r '.jobs.queue[0].name')" = urgent ] || fail "jobs -o json"
kubectl respool status | grep -Eq '^q +Running +1 +1 +0 +1 +4 ' || fail "status counts: $(kubectl respool status)"

if ! command -v prometheus >/dev/null; then
  echo "prometheus is not installed: top job skipped"
  echo "kubectl_respool: all checks passed (top job skipped)"
  exit 0
fi
echo "--- top job: the node agent's series through a real Prometheus"
k apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: llm, namespace: default}
spec:
  completionMode: Indexed
  completions: 8
  parallelism: 8
  template:
    metadata: {annotations: {sandbox.respool.io/log-interval: "60"}}
    spec:
      restartPolicy: Never
      nodeSelector: {respool.test/top: "yes"}
      containers:
      - name: train
        image: trainer:1
        resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
YAML
agent_bin=$build/agent/respool-node-agent
nvml=$build/agent/testlibs/libnvidia-ml-fake.so
[ -x "$agent_bin" ] && [ -f "$nvml" ] || fail "respool-node-agent or the test NVML library not built in $build"
workers() { # "index uid containerID" of the Job's running pods
  k get pods -l batch.kubernetes.io/job-name=llm -o json | jq -r '.items[]
    | select(.status.phase == "Running")
    | "\(.metadata.annotations["batch.kubernetes.io/job-completion-index"]) \(.metadata.uid) \(.status.containerStatuses[0].containerID)"'
}
# The sandbox's scheduler may count a just-bound pod twice for a moment, turn a worker away, and
# not look at it again until the pod changes: a real scheduler retries unschedulable pods
# periodically, so the script nudges the waiting ones (an annotation) now and then.
for i in $(seq 300); do
  [ "$(workers | wc -l)" -eq 8 ] && break
  if [ $((i % 10)) = 0 ]; then
    k get pods -l batch.kubernetes.io/job-name=llm --field-selector status.phase=Pending -o name |
      xargs -r -I{} kubectl annotate --overwrite {} "respool.test/nudge=$i" >/dev/null 2>&1 || true
  fi
  sleep 0.2
done
[ "$(workers | wc -l)" -eq 8 ] || fail "the Job's 8 workers do not run: $(k get pods -o wide)"
# Worker i: pid 1000+i on GPU i at 10*i+3 percent, (i+1) GiB, in its container's cgroup.
put() { mkdir -p "$(dirname "$1")" && cat >"$1.tmp" && mv "$1.tmp" "$1"; }
host=$work/host
while read -r index uid id; do
  slice="kubepods-besteffort-pod${uid//-/_}.slice"
  echo "0::/kubepods.slice/kubepods-besteffort.slice/$slice/cri-containerd-${id#containerd://}.scope" |
    put "$host/proc/$((1000 + index))/cgroup"
done < <(workers)
jq -n '{driverVersion: "550.54.15", devices: [range(8) as $i | {uuid: "GPU-\($i)",
  name: "NVIDIA A100-SXM4-80GB", utilization: {gpu: (60 + $i), memory: 10},
  memory: {total: (80 * 1073741824), used: (20 * 1073741824)},
  processes: [{pid: (1000 + $i), usedGpuMemory: (($i + 1) * 1073741824), smUtil: (10 * $i + 3),
    memUtil: $i}]}]}' | put "$work/nvml.json"
agent_port=$(free_port)
RESPOOL_FAKE_NVML_FILE="$work/nvml.json" "$agent_bin" --kubeconfig "$KUBECONFIG" \
  --node-name t-1 --host-root "$host" --nvml-library "$nvml" --checks gpu \
  --check-period 1s --state-dir "$work/agent-state" --metrics-bind-address "127.0.0.1:$agent_port" \
  --health-probe-bind-address 0 --log-format json >"$work/agent.log" 2>&1 &
pids+=($!)

# honor_labels: the agent's own `job` label (the Job's name) wins over the scrape job's.
prom_port=$(free_port)
cat >"$work/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
- job_name: respool-node-agent
  honor_labels: true
  static_configs: [{targets: ["127.0.0.1:$agent_port"]}]
YAML
start_prometheus "$prom_port" "$work/prometheus.yml"
export RESPOOL_PROMETHEUS_URL="http://127.0.0.1:$prom_port"
in_prometheus() {
  curl -sf "$RESPOOL_PROMETHEUS_URL/api/v1/query" \
    --data-urlencode 'query=ma_container_gpu_util{job="llm",task="worker-3"}' | jq -r '.data.result[0].value[1] // empty'
}
for _ in $(seq 150); do [ -n "$(in_prometheus)" ] && break; sleep 0.2; done
[ "$(in_prometheus)" = 33 ] ||
  fail "Prometheus has ma_container_gpu_util of worker-3 '$(in_prometheus)', the library reports 33: $(tail -5 "$work/agent.log")"
kubectl respool top job llm -n default | tee "$work/top.txt"
head -1 "$work/top.txt" | grep -Eq '^TASK +SERIES +LATEST +MIN +MAX +LAST-HOUR$' || fail "top columns"
grep -Eq '^worker-3 +gpu_util +33 +33 +33 +▁+$' "$work/top.txt" || fail "worker-3's gpu_util row"
grep -Eq '^worker-3 +gpu_memory_used_megabytes +4096 ' "$work/top.txt" || fail "worker-3's GPU memory row"
[ "$(grep -Ec '^worker-[0-7] +gpu_util ' "$work/top.txt")" = 8 ] || fail "not one gpu_util row per task"
grep -Eq '^<none> +npu_util +no data' "$work/top.txt" || fail "npu_util is not 'no data'"
[ "$(kubectl respool top job llm -o json | jq '[.metrics[] | select(.metric == "ma_container_gpu_util") | .series[]] | length')" = 8 ] ||
  fail "top -o json"
set +e
kubectl respool top job nope >/dev/null 2>"$work/err.txt"; rc=$?
kubectl respool top job llm --prometheus-url "http://127.0.0.1:$(free_port)" >/dev/null 2>"$work/err2.txt"; rc2=$?
set -e
[ $rc = 1 ] && has -x 'Error from server (NotFound): jobs.batch "nope" not found' "$work/err.txt" ||
  fail "top job nope ($rc): $(cat "$work/err.txt")"
[ $rc2 = 1 ] && has '^error: Prometheus at ' "$work/err2.txt" || fail "Prometheus down ($rc2): $(cat "$work/err2.txt")"
echo "kubectl_respool: all checks passed"
