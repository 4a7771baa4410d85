#!/usr/bin/env bash
# The stock kubectl's logs and exec against respool-sandbox's simulated training workers: an
# Indexed Job's pods write lines on the simulated clock; `kubectl logs` with --tail, --since,
# --timestamps, -f and --previous; `kubectl exec` over a WebSocket (v5.channel.k8s.io):
# output, a missing command's exit code, and `kill 1` restarting the container; suspend and
# resume of the Job.
# Usage: kubectl_logs_exec.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
step() { echo "--- $*"; }
cat >"$work/nodes.yaml" <<'EOF2'
nodes:
- flavor: gpu-8x-a100
  count: 2
  namePrefix: n
  capacity: {cpu: "96", nvidia.com/gpu: "8"}
EOF2
start_sandbox --nodes "$work/nodes.yaml" --time-scale 10

step "an Indexed training Job runs its two workers"
k apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: default}
spec:
  completionMode: Indexed
  completions: 2
  parallelism: 2
  template:
    metadata:
      annotations: {sandbox.respool.io/log-interval: "1"}
    spec:
      restartPolicy: OnFailure
      containers:
      - {name: worker, image: trainer:1, command: [python, train.py]}
YAML
k wait --for=jsonpath='{.status.ready}'=2 job/train --timeout=60s >/dev/null || fail "workers not ready"
pod=""
for _ in $(seq 50); do
  pod=$(k get pods -l batch.kubernetes.io/job-completion-index=0,job-name=train \
    -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
  [ -n "$pod" ] && break
  sleep 0.2
done
[ -n "$pod" ] || fail "no pod of index 0"
pod="pod/$pod"
k get "$pod" -o jsonpath='{.metadata.name}' | has '^train-0-' || fail "pod name"
sleep 2  # 20 simulated seconds of output

step "kubectl logs"
k logs "$pod" >"$work/all.txt"
head -1 "$work/all.txt" | has '^worker started (restart 0)$' || fail "first line: $(head -1 "$work/all.txt")"
has 'worker step 5: loss=' "$work/all.txt" || fail "step lines"
[ "$(k logs "$pod" --tail=3 | wc -l)" = 3 ] || fail "--tail=3"
since=$(k logs "$pod" --since=5s | wc -l)
[ "$since" -ge 3 ] && [ "$since" -le 8 ] || fail "--since=5s gave $since lines"
k logs "$pod" --tail=1 --timestamps | has '^20[0-9-]*T[0-9:]*\.000000000Z worker step' || fail "--timestamps"
k logs job/train --tail=1 | has 'worker step' || fail "logs job/train"
k logs "$pod" --previous >"$work/previous.txt" 2>&1 && fail "--previous before a restart succeeded"
has 'previous terminated container "worker" in pod' "$work/previous.txt" || fail "--previous before a restart"
# -f streams as the simulated clock moves: more lines after a while than at the start.
timeout 3 kubectl logs -f "$pod" --tail=1 >"$work/follow.txt" 2>&1 || true
[ "$(wc -l <"$work/follow.txt")" -ge 5 ] || fail "logs -f gave $(wc -l <"$work/follow.txt") lines"

step "kubectl exec"
k exec "$pod" -- echo hello | has '^hello$' || fail "exec echo"
k exec "$pod" -- hostname | has '^train-0$' || fail "exec hostname"
set +e
k exec "$pod" -- nvidia-smi >"$work/missing.txt" 2>&1
code=$?
set -e
[ "$code" = 127 ] || fail "a missing command exits $code"
has 'executable file not found' "$work/missing.txt" || fail "missing command message"
has 'command terminated with exit code 127' "$work/missing.txt" || fail "kubectl's exit message"
k exec "$pod" -- kill 1 || fail "exec kill 1"
k get "$pod" -o jsonpath='{.status.containerStatuses[0].restartCount}' | has '^1$' || fail "restartCount"
k get "$pod" -o jsonpath='{.status.containerStatuses[0].lastState.terminated.exitCode}' | has '^143$' ||
  fail "lastState"
k logs "$pod" --previous >"$work/previous.txt"
head -1 "$work/previous.txt" | has '^worker started (restart 0)$' || fail "--previous"
k logs "$pod" >"$work/current.txt"
head -1 "$work/current.txt" | has '^worker started (restart 1)$' || fail "logs after the restart"
k exec "$pod" -- sh -c 'pkill -f train.py' || fail "exec pkill"
k get "$pod" -o jsonpath='{.status.containerStatuses[0].restartCount}' | has '^2$' || fail "restartCount 2"

step "hang on demand"
k annotate "$pod" sandbox.respool.io/hang=true >/dev/null
for _ in $(seq 100); do
  k get "$pod" -o jsonpath='{.metadata.annotations}' | has 'silences' && break
  sleep 0.2
done
k get "$pod" -o jsonpath='{.metadata.annotations}' | has 'silences' || fail "no silence recorded"
sleep 1
[ -z "$(k logs "$pod" --since=5s)" ] || fail "a hung pod still logs"

step "suspend and resume"
k patch job train --type=merge -p '{"spec":{"suspend":true}}' >/dev/null
k wait --for=condition=Suspended job/train --timeout=30s >/dev/null || fail "not Suspended"
for _ in $(seq 100); do
  [ -z "$(k get pods -l job-name=train -o name)" ] && break
  sleep 0.2
done
[ -z "$(k get pods -l job-name=train -o name)" ] || fail "workers not removed"
[ -z "$(k get job train -o jsonpath='{.status.failed}')" ] || fail "suspend counted failures"
k patch job train --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
k wait --for=jsonpath='{.status.ready}'=2 job/train --timeout=60s >/dev/null || fail "not resumed"
echo "OK"
