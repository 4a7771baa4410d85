#!/usr/bin/env bash
# `kubectl respool`, the kubectl plugin, driven by the real kubectl (which finds it on PATH)
# against the sandbox with the operator running (issue 28, item 5):
#   status / nodes / jobs of a one-node GPU pool; three pending Jobs of priorities 10, 100 and
#   1000 show positions 3, 2, 1 in `kubectl respool jobs`, and a higher-priority Job arriving
#   last moves to position 1; a pool that does not exist is kubectl's NotFound, an unknown flag
#   a usage error (exit 1);
#   the kubeconfig from --kubeconfig/--context, KUBECONFIG or ~/.kube/config.
# `kubectl respool top job` reads Prometheus: prometheus_metrics.sh drives it, where a real
# Prometheus has the agent's series and the recording rules'.
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

cat >"$work/nodes.yaml" <<'YAML'
nodes:
- {flavor: gpu-8x-a100, zone: az-1, count: 1, namePrefix: g, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
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

echo "kubectl_respool: all checks passed"
