#!/usr/bin/env bash
# GitOps health: the Argo CD health checks of helm/respool/argocd/ (Lua, run with Debian's Lua
# 5.1 as Argo CD's gopher-lua runs them, without the string library) give Healthy, Progressing
# and Degraded for live objects the operator reports on, and the statuses follow kstatus:
# status.observedGeneration and each condition's observedGeneration reach metadata.generation,
# and a spec change is Progressing until the operator has observed it. (That the snippet users
# paste, helm/respool/argocd/argocd-cm.yaml, holds exactly these scripts is packaging:sync.)
# NodeOperation samples are the statuses API.md gives, until its controller lands.
# Usage: argocd_health.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
if ! command -v lua5.1 >/dev/null || ! lua5.1 -e 'require("dkjson")' 2>/dev/null; then
  echo "lua5.1 and lua-dkjson are not installed (scripts/install-deps.sh): skipped"
  exit 0
fi
source "$src/test/e2e/lib/sandbox.bash"
scripts="$src/helm/respool/argocd"

checked=0
# expect KIND NAME STATUS [MESSAGE-PATTERN]: the health script of KIND on the live object.
expect() {
  local kind=$1 name=$2 want=$3 pattern=${4:-}
  k get "$kind.respool.io" "$name" -o json >"$work/$kind-$name.json"
  health "$kind" "$work/$kind-$name.json" "$want" "$pattern" "$name"
}
# health KIND FILE STATUS [MESSAGE-PATTERN] [LABEL]
health() {
  local kind=$1 file=$2 want=$3 pattern=${4:-} label=${5:-$2}
  local got
  got=$(lua5.1 "$src/test/e2e/argocd/health.lua" "$scripts/$kind.lua" "$file") ||
    fail "$kind $label: the health script failed"
  echo "  $kind $label: $got"
  [ "${got%%$'\t'*}" = "$want" ] || fail "$kind $label: want $want, got: $got"
  [ -z "$pattern" ] || grep -Eq "$pattern" <<<"$got" || fail "$kind $label: message: $got"
  checked=$((checked + 1))
}
# settled KIND NAME: kstatus' "Current" precondition: every generation observed.
settled() {
  local kind=$1 name=$2 gen obs
  for _ in $(seq 200); do
    gen=$(k get "$kind.respool.io" "$name" -o jsonpath='{.metadata.generation}')
    obs=$(k get "$kind.respool.io" "$name" \
      -o jsonpath='{.status.observedGeneration}{range .status.conditions[*]} {.observedGeneration}{end}')
    [ -n "$obs" ] && [ -z "$(tr ' ' '\n' <<<"$obs" | grep -vx "$gen")" ] && return 0
    sleep 0.1
  done
  fail "$kind $name: generation $gen, observed: $obs"
}
# until_phase KIND NAME JSONPATH VALUE
until_value() {
  for _ in $(seq 300); do
    [ "$(k get "$1.respool.io" "$2" -o jsonpath="$3")" = "$4" ] && return 0
    sleep 0.1
  done
  fail "$1 $2: $3 never became $4 (is $(k get "$1.respool.io" "$2" -o jsonpath="$3"))"
}

echo "--- a status written before the operator runs: Progressing"
start_sandbox --nodes "$src/examples/sandbox-nodes.yaml"
install_api
k apply -f "$src/examples/network.yaml" -f "$src/examples/resourcepool.yaml" >/dev/null
expect network net-a Progressing "Waiting for the operator"
expect resourcepool gpu-a Progressing "Waiting for the operator"

"$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$src/config/catalog.yaml" \
  --metrics-bind-address 0 --health-probe-bind-address 0 --log-format json \
  --audit-log "$work/audit.jsonl" >"$work/operator.log" 2>&1 &
track $!

echo "--- Healthy"
until_value resourcepool gpu-a '{.status.phase}' Running
settled network net-a
settled resourcepool gpu-a
expect network net-a Healthy "^Healthy	CIDR [0-9./]+$"
expect resourcepool gpu-a Healthy "Available: 6 of 6 nodes available"

echo "--- Progressing: a pool waiting for free nodes, a spec not yet observed, a network in use"
k apply -f - >/dev/null <<'YAML'
apiVersion: respool.io/v1alpha1
kind: ResourcePool
metadata: {name: waiting}
spec:
  network: net-a
  jobTypes: [Training]
  resources: [{flavor: gpu-8x-h100, count: 5}]
YAML
until_value resourcepool waiting '{.status.conditions[?(@.type=="Ready")].reason}' \
  InsufficientFreeNodes
settled resourcepool waiting
expect resourcepool waiting Progressing "InsufficientFreeNodes: waiting for free nodes"
# A spec change the operator has not observed yet: the same object with a newer generation.
k get resourcepool.respool.io gpu-a -o json >"$work/gpu-a.json"
gen=$(k get resourcepool.respool.io gpu-a -o jsonpath='{.metadata.generation}')
sed "s/\"generation\": $gen,/\"generation\": $((gen + 1)),/" "$work/gpu-a.json" >"$work/gpu-a-next.json"
grep -q "\"generation\": $((gen + 1))," "$work/gpu-a-next.json" || fail "cannot bump the generation"
health resourcepool "$work/gpu-a-next.json" Progressing "observe generation $((gen + 1))" gpu-a+1
# The live object after a real spec change: Healthy again once observed.
k patch resourcepool.respool.io gpu-a --type merge -p '{"spec":{"description":"vision team"}}' \
  >/dev/null
settled resourcepool gpu-a
expect resourcepool gpu-a Healthy
# Deleting a network that a pool names waits (InUse): Progressing, not Degraded.
k apply -f - >/dev/null <<'YAML'
apiVersion: respool.io/v1alpha1
kind: Network
metadata: {name: net-b}
spec: {cidr: 10.100.0.0/16}
---
apiVersion: respool.io/v1alpha1
kind: ResourcePool
metadata: {name: on-b}
spec:
  network: net-b
  jobTypes: [Inference]
  resources: [{flavor: npu-8x-910b, count: 1}]
  driver: {npuVersion: "23.0.6"}
YAML
until_value resourcepool on-b '{.status.phase}' Running
k delete network.respool.io net-b --wait=false >/dev/null
until_value network net-b '{.status.conditions[?(@.type=="Ready")].reason}' InUse
expect network net-b Progressing "^Progressing	InUse"

echo "--- Degraded: a CIDR conflict, an invalid pool, a pool with an abnormal node"
net_a_cidr=$(k get network.respool.io net-a -o jsonpath='{.status.cidr}')
k apply -f - >/dev/null <<YAML
apiVersion: respool.io/v1alpha1
kind: Network
metadata: {name: net-clash}
spec: {cidr: "$net_a_cidr"}
---
apiVersion: respool.io/v1alpha1
kind: ResourcePool
metadata: {name: invalid}
spec:
  network: net-a
  jobTypes: [Training]
  resources: [{flavor: no-such-flavor, count: 1}]
YAML
until_value network net-clash '{.status.conditions[?(@.type=="Ready")].reason}' CIDRConflict
settled network net-clash
expect network net-clash Degraded "^Degraded	CIDRConflict"
until_value resourcepool invalid '{.status.phase}' Failed
settled resourcepool invalid
expect resourcepool invalid Degraded "InvalidSpec: .*no-such-flavor"
node=$(k get nodes -l respool.io/pool=gpu-a -o jsonpath='{.items[0].metadata.name}')
k annotate node "$node" sandbox.respool.io/fault=NotReady >/dev/null
until_value resourcepool gpu-a '{.status.conditions[?(@.type=="Degraded")].status}' True
expect resourcepool gpu-a Degraded "AbnormalNodes: 1 of 6 nodes are abnormal: $node"

echo "--- NodeOperation (the statuses of docs/API.md)"
nodeop() { # nodeop PHASE REASON
  printf '{"apiVersion":"respool.io/v1alpha1","kind":"NodeOperation","metadata":{"name":"op","generation":1},"spec":{"pool":"gpu-a","type":"Replace","nodes":["n-3"]},"status":{"phase":"%s","reason":"%s","message":"m"}}\n' \
    "$1" "$2" >"$work/nodeop.json"
}
printf '{"apiVersion":"respool.io/v1alpha1","kind":"NodeOperation","metadata":{"name":"op"},"spec":{}}\n' \
  >"$work/nodeop.json"
health nodeoperation "$work/nodeop.json" Progressing "admit" new
nodeop Pending WaitingForBudget
health nodeoperation "$work/nodeop.json" Progressing "Pending \(WaitingForBudget\): m" Pending
nodeop Running ""
health nodeoperation "$work/nodeop.json" Progressing "^Progressing	Running: m" Running
nodeop Succeeded ""
health nodeoperation "$work/nodeop.json" Healthy "" Succeeded
nodeop Failed NodeNotAvailable
health nodeoperation "$work/nodeop.json" Degraded "NodeNotAvailable" Failed
nodeop Rejected ReplaceLimitPerDay
health nodeoperation "$work/nodeop.json" Degraded "ReplaceLimitPerDay" Rejected
nodeop Previewed ReplaceLimitPerDay
health nodeoperation "$work/nodeop.json" Healthy "Previewed \(ReplaceLimitPerDay\): m" Previewed

echo "argocd_health: $checked health checks passed"
