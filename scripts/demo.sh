#!/usr/bin/env bash
# The embedded default of `./dev run`: the sandbox cluster with simulated free nodes, the
# respool CRDs, the operator against it, and the examples applied; then the pools are watched
# until Ctrl-C, which stops everything.
# Usage: scripts/demo.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
work=${RESPOOL_DEMO_DIR:-$(mktemp -d /tmp/respool-demo.XXXXXX)}
mkdir -p "$work"

pids=()
cleanup() {
  trap - EXIT INT TERM
  echo
  echo "stopping (logs stay in $work)"
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# 1. The sandbox: API server on 127.0.0.1 (HTTPS, token) and the simulator playing the nodes
#    of examples/sandbox-nodes.yaml. It prints the path of the kubeconfig it wrote.
"$build/respool-sandbox" --state-dir "$work/sandbox" --nodes examples/sandbox-nodes.yaml \
  >"$work/sandbox.out" 2>"$work/sandbox.log" &
pids+=($!)
for _ in $(seq 100); do
  [ -s "$work/sandbox.out" ] && break
  kill -0 "${pids[0]}" 2>/dev/null || { cat "$work/sandbox.log"; exit 1; }
  sleep 0.1
done
export KUBECONFIG
KUBECONFIG=$(head -1 "$work/sandbox.out")
k() { kubectl --request-timeout=20s --cache-dir="$work/kubectl-cache" "$@"; }

echo "sandbox up; in another terminal: export KUBECONFIG=$KUBECONFIG"
for _ in $(seq 50); do
  [ "$(k get nodes --no-headers 2>/dev/null | wc -l)" -gt 0 ] && break
  sleep 0.2
done
k get nodes -L node.kubernetes.io/instance-type,topology.kubernetes.io/zone

# 2. The API and the namespace the operator's plug-ins go to.
k apply -f crds/
k wait --for condition=established --timeout=30s crd --all >/dev/null
k apply -f - <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: respool-system}
EOF

# 3. The operator, as it would run in a cluster (here outside it, with the sandbox kubeconfig).
"$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog config/catalog.yaml \
  --namespace respool-system --metrics-bind-address 127.0.0.1:0 \
  --health-probe-bind-address 127.0.0.1:0 --log-format json \
  --audit-log "$work/audit.log" >"$work/operator.log" 2>&1 &
pids+=($!)

# 4. The examples: a Network, then a ResourcePool that uses it.
k apply -f examples/network.yaml -f examples/resourcepool.yaml

# 5. respool-node-agent on each GPU node of the pool, as the chart's DaemonSet would run it, but
#    reading the test NVML library (agent/testlibs) and a made-up host tree under
#    $work/agents/NODE: scripts/node-fault.sh changes what it reads (README, "Node health").
agent=$build/agent/respool-node-agent
nvml=$build/agent/testlibs/libnvidia-ml-fake.so
if [ -x "$agent" ] && [ -f "$nvml" ] && command -v jq >/dev/null; then
  gpu_nodes=()
  for _ in $(seq 150); do
    mapfile -t gpu_nodes < <(k get nodes -l 'respool.io/pool=gpu-a,node.kubernetes.io/instance-type=gpu-8x-a100' \
      -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' 2>/dev/null)
    [ ${#gpu_nodes[@]} -ge 4 ] && break
    sleep 0.2
  done
  for node in "${gpu_nodes[@]}"; do
    bash scripts/node-fault.sh "$work" "$node" healthy
    RESPOOL_FAKE_NVML_FILE="$work/agents/$node/nvml.json" "$agent" --kubeconfig "$KUBECONFIG" \
      --node-name "$node" --catalog config/catalog.yaml --host-root "$work/agents/$node/host" \
      --nvml-library "$nvml" --checks gpu,infiniband,kubelet-directory --check-period 5s \
      --state-dir "$work/agents/$node/state" --metrics-bind-address 127.0.0.1:0 \
      --health-probe-bind-address 127.0.0.1:0 --log-format json >"$work/agent-$node.log" 2>&1 &
    pids+=($!)
  done
  echo "node agents on ${gpu_nodes[*]} (logs: $work/agent-NODE.log);"
  echo "  an ECC error: bash scripts/node-fault.sh $work ${gpu_nodes[0]:-NODE} ecc"
else
  echo "no node agents (build respool-node-agent and its test NVML library, and install jq)"
fi
echo
echo "operator log: $work/operator.log   audit: $work/audit.log"
echo "watching the pools (Ctrl-C stops the demo):"
k get networks
# A watch ends when the server closes it (as a real one does every few minutes): start again.
(while true; do kubectl --cache-dir="$work/kubectl-cache" get resourcepools --watch-only=false -w || sleep 1; done) &
pids+=($!)
wait "${pids[-1]}" || true
