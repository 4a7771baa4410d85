#!/usr/bin/env bash
# What kubectl takes from the sandbox's OpenAPI documents for built-in kinds, and the field
# validation it asks the server for, as on a real server: `kubectl explain` of built-in fields
# (descriptions, enums, required fields, --recursive, a field that does not exist), and
# `kubectl apply`/`create` of a manifest with typos: refused under --validate=strict (kubectl's
# default) with the real server's message, stored without them and warned of under
# --validate=warn, silent under --validate=false.
set -euo pipefail
build=$1
src=$2
source "$src/test/e2e/lib/sandbox.bash"
step() { echo "--- $*"; }
start_sandbox --no-simulator

# expect NAME FILE LINE...: each LINE is a whole line of FILE.
expect() {
  local name=$1 file=$2
  shift 2
  for line in "$@"; do
    grep -qxF -- "$line" "$file" || fail "$name: no line '$line' in: $(cat "$file")"
  done
}

step "explain built-in fields"
k explain deployment.spec.strategy >"$work/strategy.txt" 2>&1 || fail "explain: $(cat "$work/strategy.txt")"
expect "deployment.spec.strategy" "$work/strategy.txt" \
  "GROUP:      apps" "KIND:       Deployment" "VERSION:    v1" \
  "FIELD: strategy <DeploymentStrategy>" \
  "    The deployment strategy to use to replace existing pods with new ones." \
  "  rollingUpdate	<RollingUpdateDeployment>" "  type	<string>" \
  "  enum: Recreate, RollingUpdate" \
  '     - `"Recreate"` Kill all existing pods before creating new ones.'
k explain pods.spec.containers.ports >"$work/ports.txt"
expect "pods.spec.containers.ports" "$work/ports.txt" "KIND:       Pod" \
  "FIELD: ports <[]ContainerPort>" "  containerPort	<integer> -required-" \
  "  protocol	<string>" "  enum: SCTP, TCP, UDP"
k explain clusterroles.rules >"$work/rules.txt"
expect "clusterroles.rules" "$work/rules.txt" "GROUP:      rbac.authorization.k8s.io" \
  "  verbs	<[]string> -required-"
k explain deployments.spec --recursive >"$work/recursive.txt"
expect "deployments.spec --recursive" "$work/recursive.txt" "  replicas	<integer>" \
  "      maxSurge	<IntOrString>" "  selector	<LabelSelector> -required-"
k explain cronjobs.spec --recursive >"$work/recursive.txt"
expect "cronjobs.spec --recursive" "$work/recursive.txt" "  schedule	<string> -required-" \
  "          restartPolicy	<string>" "          enum: Always, Never, OnFailure"
if k explain deployment.spec.strategyy >"$work/missing.txt" 2>&1; then
  fail "explain of a missing field succeeded"
fi
expect "missing field" "$work/missing.txt" 'error: field "strategyy" does not exist'

step "apply with typos: strict (the default), warn, false"
cat >"$work/typo.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicaz: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, portz: [80]}]
YAML
if k apply -f "$work/typo.yaml" >"$work/strict.txt" 2>&1; then fail "strict apply succeeded"; fi
expect "strict" "$work/strict.txt" 'Error from server (BadRequest): error when creating "'"$work/typo.yaml"'": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicaz", unknown field "spec.template.spec.containers[0].portz"'
k get deployment web >/dev/null 2>&1 && fail "strict apply stored the deployment"
k apply --validate=warn -f "$work/typo.yaml" >"$work/warn.txt" 2>&1 || fail "warn apply: $(cat "$work/warn.txt")"
expect "warn" "$work/warn.txt" 'Warning: unknown field "spec.replicaz"' \
  'Warning: unknown field "spec.template.spec.containers[0].portz"' "deployment.apps/web created"
[ "$(k get deployment web -o jsonpath='{.spec.replicas}')" = 1 ] || fail "replicaz set replicas"
sed -i 's/name: web, namespace/name: quiet, namespace/' "$work/typo.yaml"
k create --validate=false -f "$work/typo.yaml" >"$work/false.txt" 2>&1 || fail "create: $(cat "$work/false.txt")"
expect "false" "$work/false.txt" "deployment.apps/quiet created"
if grep -q Warning "$work/false.txt"; then fail "--validate=false warned: $(cat "$work/false.txt")"; fi
echo "explain and field validation behave as on a real server"
