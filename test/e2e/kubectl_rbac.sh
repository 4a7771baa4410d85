#!/usr/bin/env bash
# The stock kubectl against respool-sandbox --no-simulator for what a platform engineer types
# about kinds and permissions: api-resources as a real server lists them, roles and bindings
# applied, `kubectl create token`, `auth whoami`, `auth can-i` as the admin and --as a
# ServiceAccount, the real 403 for what its Role does not grant, escalation refused.
# Usage: kubectl_rbac.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
step() { echo "--- $*"; }
start_sandbox --no-simulator

step "api-resources: 58 kinds, as a real v1.32 server lists them"
k api-resources --no-headers >"$work/resources.txt"
[ "$(wc -l <"$work/resources.txt")" -eq 58 ] || fail "api-resources: $(wc -l <"$work/resources.txt") rows"
grep -Eq '^clusterroles +rbac.authorization.k8s.io/v1 +false +ClusterRole$' "$work/resources.txt" ||
  fail "clusterroles row"
grep -Eq '^horizontalpodautoscalers +hpa +autoscaling/v2 +true +HorizontalPodAutoscaler$' "$work/resources.txt" ||
  fail "hpa row"
grep -Eq '^cronjobs +cj +batch/v1 +true +CronJob$' "$work/resources.txt" || fail "cronjob row"
k api-resources --verbs=list --namespaced -o name | has -x "roles.rbac.authorization.k8s.io" ||
  fail "api-resources -o name"

step "a ServiceAccount bound to a narrow Role"
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: app, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: team}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list, watch]}
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: app-reads-pods, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects:
- {kind: ServiceAccount, name: app, namespace: team}
YAML
k get roles -n team | has pod-reader || fail "get roles"
k get rolebinding -n team -o wide | has "Role/pod-reader" || fail "rolebinding table"
k get clusterroles | has "^cluster-admin " || fail "bootstrap clusterroles"

# kubectl's typed clients (auth can-i, auth whoami, create token) send protobuf bodies: those
# steps run once the sandbox decodes them; until then the same requests go as JSON.
typed=no
if k create namespace typed-probe >/dev/null 2>&1; then typed=yes; fi

step "a token for the ServiceAccount (TokenRequest)"
if [ $typed = yes ]; then
  token=$(k create token app -n team)
else
  echo "(kubectl create token needs protobuf bodies: TokenRequest sent as JSON)"
  echo '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}' >"$work/tr.json"
  token=$(k create --raw /api/v1/namespaces/team/serviceaccounts/app/token -f "$work/tr.json" |
    sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
fi
[ -n "$token" ] || fail "no token"
sa() { k --token "$token" "$@"; }

step "what the ServiceAccount may do, and the 403 for the rest"
sa get pods -n team >/dev/null || fail "sa get pods"
if sa get configmaps -n team 2>"$work/forbidden.txt"; then fail "sa got configmaps"; fi
grep -q 'configmaps is forbidden: User "system:serviceaccount:team:app" cannot list resource "configmaps" in API group "" in the namespace "team"' \
  "$work/forbidden.txt" || fail "403 message: $(cat "$work/forbidden.txt")"
if k get pods -n team --as system:serviceaccount:team:app -o name >/dev/null; then :; else fail "--as get pods"; fi
if k get secrets -n team --as system:serviceaccount:team:app 2>"$work/as.txt"; then fail "--as got secrets"; fi
grep -q 'secrets is forbidden: User "system:serviceaccount:team:app"' "$work/as.txt" || fail "--as 403"

step "auth can-i / whoami as the admin and as the ServiceAccount"
if [ $typed = yes ]; then
  [ "$(k auth can-i create pods -n team)" = yes ] || fail "admin can-i"
  [ "$(k auth can-i list pods -n team --as system:serviceaccount:team:app)" = yes ] || fail "sa can list"
  if k auth can-i create pods -n team --as system:serviceaccount:team:app >"$work/canI.txt"; then
    fail "sa can create pods"
  fi
  grep -qx no "$work/canI.txt" || fail "can-i answer: $(cat "$work/canI.txt")"
  k auth can-i --list -n team --as system:serviceaccount:team:app >"$work/list.txt"
  grep -Eq '^pods +\[\] +\[\] +\[get list watch\]' "$work/list.txt" || fail "can-i --list: $(cat "$work/list.txt")"
  sa auth whoami -o jsonpath='{.status.userInfo.username}' | has -x "system:serviceaccount:team:app" ||
    fail "whoami"
else
  echo "(auth can-i / whoami need protobuf bodies: the same reviews sent as JSON)"
  review() { # review VERB -> allowed true/false for pods in team, as the ServiceAccount
    cat >"$work/ssar.yaml" <<YAML
apiVersion: authorization.k8s.io/v1
kind: SelfSubjectAccessReview
spec: {resourceAttributes: {namespace: team, verb: $1, resource: pods}}
YAML
    sa create -f "$work/ssar.yaml" -o jsonpath='{.status.allowed}'
  }
  [ "$(review list)" = true ] || fail "ssar list"
  [ "$(review create)" = false ] || fail "ssar create"
  echo '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' >"$work/ssr.json"
  sa create -f "$work/ssr.json" -o jsonpath='{.status.userInfo.username}' |
    grep -qx "system:serviceaccount:team:app" || fail "selfsubjectreview"
fi

step "escalation is refused"
cat >"$work/deleter.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: deleter, namespace: team}
rules:
- {apiGroups: [""], resources: [pods], verbs: [delete]}
YAML
if sa create -f "$work/deleter.yaml" 2>"$work/escalate.txt"; then fail "escalation allowed"; fi
grep -q 'is attempting to grant RBAC permissions not currently held' "$work/escalate.txt" ||
  fail "escalation message: $(cat "$work/escalate.txt")"
k create -f "$work/deleter.yaml" >/dev/null || fail "the admin may create it"
echo "PASS"
