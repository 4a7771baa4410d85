#!/usr/bin/env bash
# Crash safety of training-job restarts (J3, J4, J7): a 4-worker Indexed Job in a 10-node GPU
# pool; one worker's node after another turns NotReady, and each time the operator is killed
# with SIGKILL at random moments while it restarts the job (suspend, the old run's pods gone,
# startTime cleared, resume), at least once per fault and 12 times in all, then started again. Checked from a watch
# of the Job (every change) and from its annotations at the end:
#   each fault restarts the job exactly once: suspended once per fault, retries used = faults
#   no record lost: one ended record per fault naming its worker, its node and
#       job_reschedule_with_taint, then the open run
#   no worker of a run lands on a node that was NotReady when the run started
#   one fault restart report (Diagnosis) per fault, naming its worker and node, written once
# Usage: training_job_restart.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
kills_wanted=${KILLS:-12}
faults_wanted=${FAULTS:-5}

cat >"$work/nodes.yaml" <<EOF2
nodes:
- {flavor: gpu-8x-a100, zone: az-1, count: 10, namePrefix: g, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
EOF2
# Simulated time runs 10 times faster: a pod's 30 s grace period takes 3.
start_sandbox --nodes "$work/nodes.yaml" --time-scale 10
install_api
for _ in $(seq 100); do [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -eq 10 ] && break; sleep 0.1; done
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
EOF2
for _ in $(seq 600); do
  [ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] && break
  sleep 0.1
done
[ "$(k get rp p -o jsonpath='{.status.phase}')" = Running ] || fail "pool not Running"

k apply -f - >/dev/null <<EOF2
apiVersion: batch/v1
kind: Job
metadata:
  name: llm
  namespace: default
  annotations: {fault-tolerance/job-retry-num: "40"}
spec:
  completionMode: Indexed
  completions: 4
  parallelism: 4
  backoffLimit: 50
  template:
    metadata: {annotations: {sandbox.respool.io/log-interval: "10"}}
    spec:
      restartPolicy: OnFailure
      nodeSelector: {respool.io/pool: p}
      tolerations: [{key: respool.io/pool, operator: Exists}]
      containers:
      - name: train
        image: trainer:1
        resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}
EOF2
kubectl --cache-dir="$work/cache-w" get job llm -w \
  -o jsonpath='suspend={.spec.suspend} ft={.metadata.annotations.respool\.io/fault-tolerance}{"\n"}' \
  >"$work/job-watch.txt" 2>"$work/job-watch.log" &
track $!

ledger() { k get job llm -o jsonpath='{.metadata.annotations.respool\.io/fault-tolerance}'; }
# Pods of run $1 that run, as "index node" lines.
run_pods() {
  k get pods -l "batch.kubernetes.io/job-name=llm,respool.io/run=$1" -o json 2>/dev/null |
    jq -r '.items[] | select(.status.phase == "Running" and .metadata.deletionTimestamp == null)
      | "\(.metadata.labels["batch.kubernetes.io/job-completion-index"]) \(.spec.nodeName)"'
}
first_run_pods() {
  k get pods -l "batch.kubernetes.io/job-name=llm" -o json |
    jq -r '.items[] | select(.status.phase == "Running" and (.metadata.labels["respool.io/run"] == null))
      | "\(.metadata.labels["batch.kubernetes.io/job-completion-index"]) \(.spec.nodeName)"'
}
# The restart of run $1 is over: the ledger says run $1, no restart under way, 4 workers run.
restarted() {
  [ "$(ledger | jq -r '"\(.run) \(.restarting != null)"')" = "$1 false" ] &&
    [ "$(run_pods "$1" | wc -l)" -eq 4 ]
}

for _ in $(seq 300); do [ "$(first_run_pods | wc -l)" -eq 4 ] && break; sleep 0.1; done
[ "$(first_run_pods | wc -l)" -eq 4 ] || fail "the job's 4 workers did not start"
for _ in $(seq 100); do [ -n "$(ledger)" ] && break; sleep 0.1; done

kills=0
faults=0
: >"$work/faults.txt"
deadline=$((SECONDS + 300))
while [ $SECONDS -lt $deadline ] && { [ $faults -lt "$faults_wanted" ] || [ $kills -lt "$kills_wanted" ]; }; do
  # The next fault: worker (faults mod 4) of the current run.
  if [ $faults = 0 ]; then pods=$(first_run_pods); else pods=$(run_pods $faults); fi
  worker=$((faults % 4))
  node=$(awk -v w=$worker '$1 == w { print $2 }' <<<"$pods")
  [ -n "$node" ] || fail "no worker $worker in run $faults"
  faults=$((faults + 1))
  echo "$faults $worker $node" >>"$work/faults.txt"
  k annotate node "$node" sandbox.respool.io/fault=NotReady --overwrite >/dev/null
  # Kill the operator at a random moment after the fault (a fast restart may be over by then:
  # the kill then lands after it), and again at random moments while the restart is not over.
  sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", (r % 60) / 100 }')"
  while :; do
    kill -9 "$operator" 2>/dev/null || true
    wait "$operator" 2>/dev/null || true
    kills=$((kills + 1))
    start_operator "$src/config/catalog.yaml"
    sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.2 + (r % 100) / 100 }')"
    restarted $faults && break
    [ $SECONDS -lt $deadline ] || fail "restart $faults did not finish ($kills kills)"
  done
  k annotate node "$node" sandbox.respool.io/fault- >/dev/null
done
echo "--- $faults faults, $kills kills (operator runs: $run)"
[ $kills -ge "$kills_wanted" ] || fail "only $kills kills"
sleep 2

# Exactly one restart per fault.
l=$(ledger)
[ "$(jq -r .retriesUsed <<<"$l")" = $faults ] || fail "retries used $(jq -r .retriesUsed <<<"$l"), want $faults"
[ "$(jq -r .run <<<"$l")" = $faults ] || fail "run $(jq -r .run <<<"$l"), want $faults"
suspends=$(awk '{ s = ($1 == "suspend=true") } s && !was { n++ } { was = s } END { print n + 0 }' "$work/job-watch.txt")
[ "$suspends" = $faults ] || fail "the job was suspended $suspends times for $faults faults"
# One ended record per fault, in order, naming the worker and the node; then the open run.
records=$(k get job llm -o jsonpath='{.metadata.annotations.respool\.io/running-records}')
[ "$(jq length <<<"$records")" = $((faults + 1)) ] || fail "$(jq length <<<"$records") records for $faults faults: $records"
while read -r i worker node; do
  r=$(jq -c ".[$((i - 1))]" <<<"$records")
  [ "$(jq -r .endRelatedTask <<<"$r")" = "worker-$worker" ] || fail "record $i: $r, want worker-$worker"
  [ "$(jq -r .endRecover <<<"$r")" = job_reschedule_with_taint ] || fail "record $i: $r"
  has -F "node $node " <<<"$(jq -r .endReason <<<"$r")" || fail "record $i names no node $node: $r"
done <"$work/faults.txt"
[ "$(jq -r ".[$faults].endAt // \"open\"" <<<"$records")" = open ] || fail "the last run is not open: $records"
# O9: one fault restart report per fault, Completed, naming its worker and node, though the
# operator was killed while it wrote them; none written twice (one Diagnosed event at most).
completed_reports() {
  k get diag -l respool.io/monitor=FaultMonitoring -o json |
    jq '[.items[] | select(.status.phase == "Completed")] | length'
}
for _ in $(seq 100); do [ "$(completed_reports)" = $faults ] && break; sleep 0.2; done
diags=$(k get diag -l respool.io/job=llm -o json)
[ "$(jq '[.items[] | select(.metadata.labels["respool.io/monitor"] == "FaultMonitoring")] | length' <<<"$diags")" = $faults ] ||
  fail "$(jq -r '[.items[].metadata.name] | join(" ")' <<<"$diags"): want $faults fault restart reports"
events=$(k get events --field-selector involvedObject.name=llm,reason=Diagnosed -o json)
while read -r i worker node; do
  d=$(jq -c --arg n "llm-restart-$i" '.items[] | select(.metadata.name == $n)' <<<"$diags")
  [ "$(jq -r .status.phase <<<"$d")" = Completed ] || fail "diagnosis llm-restart-$i: $d"
  [ "$(jq -r '.status.results[0].device | "\(.node) \(.worker)"' <<<"$d")" = "$node $worker" ] ||
    fail "diagnosis llm-restart-$i names $(jq -c .status.results[0].device <<<"$d"), want $node, worker $worker"
  said=$(jq --arg n "diagnosis llm-restart-$i:" '[.items[] | select(.message | startswith($n)) | .count // 1] | add // 0' <<<"$events")
  [ "$said" -le 1 ] || fail "diagnosis llm-restart-$i said $said times"
done <"$work/faults.txt"
echo "training_job_restart: all checks passed ($faults faults, $kills kills)"
