#!/usr/bin/env bash
# `helm install` of respool's chart (RBAC, a Deployment, a Service, a PodDisruptionBudget, the
# CRDs) into the sandbox with its RBAC authorizer on, as into a real cluster: helm keeps its
# release in a Secret written with client-go's typed client (a protobuf body), waits for the
# Deployment, whose pods come up through the simulator; then `helm uninstall` removes it all.
# Usage: helm_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
command -v helm >/dev/null || { echo "helm is not installed (scripts/install-deps.sh): skipped"; exit 0; }
source "$src/test/e2e/lib/sandbox.bash"
start_sandbox --nodes "$src/examples/sandbox-nodes.yaml"

helm install respool "$src/helm/respool" --namespace respool-system --create-namespace \
  --wait --timeout 120s >"$work/install.txt" 2>&1 || fail "helm install: $(cat "$work/install.txt")"
helm list --namespace respool-system >"$work/list.txt"
has -E '^respool\s.*\sdeployed\s' <"$work/list.txt" || fail "helm list: $(cat "$work/list.txt")"
ready=$(k get deployment respool -n respool-system -o jsonpath='{.status.readyReplicas}')
[ "$ready" = 2 ] || fail "the Deployment has $ready ready replicas, want 2"
k get pods -n respool-system -l app.kubernetes.io/instance=respool --no-headers >"$work/pods.txt"
[ "$(grep -c ' Running ' "$work/pods.txt")" = 2 ] || fail "pods: $(cat "$work/pods.txt")"
k get pdb,service,serviceaccount -n respool-system -o name >"$work/objects.txt"
for o in poddisruptionbudget.policy/respool service/respool-metrics serviceaccount/respool; do
  has -x "$o" <"$work/objects.txt" || fail "missing $o: $(tr '\n' ' ' <"$work/objects.txt")"
done
k get clusterrole respool -o name | has clusterrole || fail "no ClusterRole"
k get crd resourcepools.respool.io -o name | has resourcepools || fail "no CRD"
k get secrets -n respool-system -l owner=helm -o name | has 'sh.helm.release.v1.respool.v1' ||
  fail "no release Secret"

helm uninstall respool --namespace respool-system --wait --timeout 60s >/dev/null
k get deployment -n respool-system -o name >"$work/after.txt"
[ ! -s "$work/after.txt" ] || fail "left after uninstall: $(cat "$work/after.txt")"
echo "helm_install: installed (2 replicas Running, RBAC, Service, PDB, CRDs), listed, uninstalled"
