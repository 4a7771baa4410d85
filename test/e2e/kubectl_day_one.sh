#!/usr/bin/env bash
# A platform engineer's first day, with the stock kubectl against respool-sandbox and its
# simulator (the controllers kubectl's workflows wait for): create what a team needs, run a
# Deployment through scale / set image / rollout status / history / undo / restart, expose it
# (Endpoints and EndpointSlices follow the pods), run a Job to completion and a CronJob on the
# clock, a StatefulSet in order, a DaemonSet's history and undo, a legacy ServiceAccount token
# Secret, check permissions (auth can-i, whoami), explain, diff, label, annotate, autoscale (no
# metrics API), wait, delete (the garbage collector takes the pods).
# kubectl's generators (`create <kind>`, `run`, `expose`, `create token`, `auth`) send protobuf
# bodies, as typed.
# Usage: kubectl_day_one.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
step() { echo "--- $*"; }
cat >"$work/nodes.yaml" <<'YAML'
nodes:
- {flavor: cpu-16, zone: zone-a, count: 2, namePrefix: a, capacity: {cpu: "16", memory: 64Gi, pods: "110"}}
- {flavor: cpu-16, zone: zone-b, count: 1, namePrefix: b, capacity: {cpu: "16", memory: 64Gi, pods: "110"}}
YAML
# 30x: a Job's pods run 5 simulated seconds, a CronJob's minute is 2 s.
start_sandbox --nodes "$work/nodes.yaml" --time-scale 30
ns=(-n team-a)

gen() { k "$@" >/dev/null || fail "kubectl $*"; }
# until_true SECONDS CMD...: polls CMD (real time).
until_true() {
  local limit=$1
  shift
  for _ in $(seq $((limit * 10))); do "$@" && return 0; sleep 0.1; done
  return 1
}

step "namespace, config, secrets, service account"
gen create namespace team-a
gen create configmap app-config "${ns[@]}" --from-literal=mode=fast
gen create secret generic db-creds "${ns[@]}" --from-literal=user=admin --from-literal=password=s3cret
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" -days 1 \
  -subj /CN=web.example.com >/dev/null 2>&1
gen create secret tls web-tls "${ns[@]}" --cert="$work/tls.crt" --key="$work/tls.key"
gen create secret docker-registry regcred "${ns[@]}" --docker-server=registry.example.com \
  --docker-username=ci --docker-password=pw
gen create serviceaccount ci "${ns[@]}"
[ "$(k get secret web-tls "${ns[@]}" -o jsonpath='{.type}')" = kubernetes.io/tls ] || fail "tls secret"
[ "$(k get secret regcred "${ns[@]}" -o jsonpath='{.type}')" = kubernetes.io/dockerconfigjson ] ||
  fail "docker-registry secret"
# The root-ca publisher's ConfigMap, as in every namespace of a real cluster.
until_true 10 k get configmap kube-root-ca.crt "${ns[@]}" -o name >/dev/null 2>&1 ||
  fail "no kube-root-ca.crt in team-a"

# The API server's own Service, as `kubectl get svc` shows it on a fresh cluster.
k get service kubernetes -n default | has -E '^kubernetes +ClusterIP +10\.96\.0\.1 +<none> +443/TCP ' ||
  fail "kubernetes service: $(k get service kubernetes -n default)"
[ "$(k get endpoints kubernetes -n default -o jsonpath='{.subsets[0].addresses[0].ip}')" = 127.0.0.1 ] ||
  fail "kubernetes endpoints: $(k get endpoints kubernetes -n default -o yaml)"

step "a token for the ServiceAccount"
# A day: the clock runs 30x, so ten minutes would expire within the script on a slow machine.
token=$(k create token ci "${ns[@]}" --duration=24h) || fail "create token"
[ -n "$token" ] || fail "no token"
# A legacy token Secret made by hand: the tokens controller fills it in.
k apply "${ns[@]}" -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Secret
metadata:
  name: ci-token
  annotations: {kubernetes.io/service-account.name: ci}
type: kubernetes.io/service-account-token
YAML
until_true 10 bash -c "kubectl --cache-dir='$work/cache' get secret ci-token -n team-a -o jsonpath='{.data.token}' | grep -q ." ||
  fail "token Secret not filled: $(k get secret ci-token "${ns[@]}" -o yaml)"
legacy_token=$(k get secret ci-token "${ns[@]}" -o jsonpath='{.data.token}' | base64 -d)
k describe secret ci-token "${ns[@]}" >"$work/describe-token.txt" || fail "describe secret"
has -E '^token: +ey' "$work/describe-token.txt" && has -E '^ca.crt: +[0-9]+ bytes' "$work/describe-token.txt" &&
  has 'kubernetes.io/service-account.uid: ' "$work/describe-token.txt" ||
  fail "describe: $(cat "$work/describe-token.txt")"

step "a Deployment: rollout status, scale, set image, history, undo, restart"
gen create deployment web "${ns[@]}" --image=nginx:1.27 --replicas=3 --port=80
k rollout status deployment/web "${ns[@]}" --timeout=60s >"$work/status.txt" || fail "rollout status"
grep -q 'deployment "web" successfully rolled out' "$work/status.txt" || fail "$(cat "$work/status.txt")"
[ "$(k get deployment web "${ns[@]}" -o jsonpath='{.status.availableReplicas}')" = 3 ] || fail "available"
k get deployment web "${ns[@]}" | has -E '^web +3/3 +3 +3 ' || fail "table: $(k get deployment web "${ns[@]}")"
k get replicasets "${ns[@]}" -l app=web -o name | has -E '^replicaset.apps/web-[a-z0-9]+$' ||
  fail "replicaset name"
k scale deployment/web --replicas=5 "${ns[@]}" >/dev/null || fail "scale"
k rollout status deployment/web "${ns[@]}" --timeout=60s >/dev/null || fail "rollout status after scale"
[ "$(k get deployment web "${ns[@]}" -o jsonpath='{.status.readyReplicas}')" = 5 ] || fail "scaled"
k set image deployment/web nginx=nginx:1.28 "${ns[@]}" >/dev/null || fail "set image"
k annotate deployment/web kubernetes.io/change-cause='nginx 1.28' "${ns[@]}" >/dev/null
k rollout status deployment/web "${ns[@]}" --timeout=60s >/dev/null || fail "rollout status after set image"
k rollout history deployment/web "${ns[@]}" >"$work/history.txt" || fail "rollout history"
grep -Eq '^1 +<none>' "$work/history.txt" || fail "history: $(cat "$work/history.txt")"
grep -Eq '^2 +nginx 1.28' "$work/history.txt" || fail "history: $(cat "$work/history.txt")"
k rollout history deployment/web "${ns[@]}" --revision=2 | has 'nginx:1.28' || fail "history --revision"
k rollout undo deployment/web "${ns[@]}" >/dev/null || fail "rollout undo"
k rollout status deployment/web "${ns[@]}" --timeout=60s >/dev/null || fail "rollout status after undo"
[ "$(k get deployment web "${ns[@]}" -o jsonpath='{.spec.template.spec.containers[0].image}')" = nginx:1.27 ] ||
  fail "undo image"
k rollout history deployment/web "${ns[@]}" | has -E '^3 ' || fail "revision 3 after undo"
images=$(k get pods "${ns[@]}" -l app=web -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}' | sort -u)
[ "$images" = nginx:1.27 ] || fail "pods after undo: $images"
k rollout pause deployment/web "${ns[@]}" >/dev/null || fail "rollout pause"
k set image deployment/web nginx=nginx:1.29 "${ns[@]}" >/dev/null || fail "set image while paused"
until_true 10 bash -c "kubectl --cache-dir='$work/cache' get deployment web -n team-a -o jsonpath='{.status.conditions[?(@.type==\"Progressing\")].reason}' | grep -qx DeploymentPaused" ||
  fail "paused: $(k get deployment web "${ns[@]}" -o jsonpath='{.status.conditions}')"
[ "$(k get replicasets "${ns[@]}" -l app=web -o name | wc -l)" = 2 ] || fail "a paused Deployment rolled out"
k set image deployment/web nginx=nginx:1.27 "${ns[@]}" >/dev/null
k rollout resume deployment/web "${ns[@]}" >/dev/null || fail "rollout resume"
k rollout restart deployment/web "${ns[@]}" >/dev/null || fail "rollout restart"
k rollout status deployment/web "${ns[@]}" --timeout=60s >/dev/null || fail "rollout status after restart"
k get deployment web "${ns[@]}" -o jsonpath='{.spec.template.metadata.annotations}' |
  has 'kubectl.kubernetes.io/restartedAt' || fail "restartedAt"
[ "$(k get deployment web "${ns[@]}" -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}')" = 4 ] ||
  fail "revision after restart"
k get deployment web "${ns[@]}" -o jsonpath='{.status.conditions[?(@.type=="Progressing")].reason}' |
  has -x NewReplicaSetAvailable || fail "Progressing reason"

step "expose: Endpoints and EndpointSlices follow the ready pods"
gen expose deployment web "${ns[@]}" --port=80 --target-port=80
until_true 20 bash -c "[ \"\$(kubectl --cache-dir='$work/cache' get endpoints web -n team-a -o jsonpath='{.subsets[0].addresses[*].ip}' | wc -w)\" = 5 ]" ||
  fail "endpoints: $(k get endpoints web "${ns[@]}" -o yaml)"
k get endpointslices "${ns[@]}" -l kubernetes.io/service-name=web -o jsonpath='{.items[0].endpoints[*].conditions.ready}' |
  has true || fail "endpointslice"
gen create service clusterip internal "${ns[@]}" --tcp=8080:80
gen create service nodeport public "${ns[@]}" --tcp=80:80
[ "$(k get service public "${ns[@]}" -o jsonpath='{.spec.type}')" = NodePort ] || fail "nodeport"

step "a Job to completion, a CronJob on the clock"
gen create job hello "${ns[@]}" --image=busybox:1.36 -- echo hello
k wait --for=condition=complete job/hello "${ns[@]}" --timeout=60s >/dev/null || fail "job complete"
[ "$(k get job hello "${ns[@]}" -o jsonpath='{.status.succeeded}')" = 1 ] || fail "succeeded"
gen create cronjob tick "${ns[@]}" --image=busybox:1.36 --schedule='*/1 * * * *' -- date
until_true 30 bash -c "kubectl --cache-dir='$work/cache' get cronjob tick -n team-a -o jsonpath='{.status.lastScheduleTime}' | grep -q ." ||
  fail "cronjob never scheduled"
k get jobs "${ns[@]}" -o name | has -E '^job.batch/tick-[0-9]+$' || fail "cronjob's job"

step "a StatefulSet in order"
k apply "${ns[@]}" -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "postgres:16"}]}
YAML
k rollout status statefulset/db "${ns[@]}" --timeout=60s >"$work/sts.txt" || fail "sts rollout status"
grep -q 'statefulset rolling update complete 3 pods at revision db-' "$work/sts.txt" ||
  has 'partitioned roll out complete: 3 new pods have been updated' "$work/sts.txt" ||
  fail "sts status: $(cat "$work/sts.txt")"
k get pods "${ns[@]}" -l app=db -o name | sort | tr '\n' ' ' | has 'pod/db-0 pod/db-1 pod/db-2' ||
  fail "sts pod names"

step "a DaemonSet: rollout history and undo through its ControllerRevisions"
k apply "${ns[@]}" -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "agent:1"}]}
YAML
k rollout status daemonset/agent "${ns[@]}" --timeout=60s >/dev/null || fail "ds rollout status"
k set image daemonset/agent agent=agent:2 "${ns[@]}" >/dev/null || fail "ds set image"
k rollout status daemonset/agent "${ns[@]}" --timeout=60s >/dev/null || fail "ds rollout status after set image"
k rollout history daemonset/agent "${ns[@]}" >"$work/ds-history.txt" || fail "ds history"
has -E '^2 +<none>' "$work/ds-history.txt" || fail "ds history: $(cat "$work/ds-history.txt")"
k rollout undo daemonset/agent "${ns[@]}" >/dev/null || fail "ds undo"
k rollout status daemonset/agent "${ns[@]}" --timeout=60s >/dev/null || fail "ds rollout status after undo"
k rollout history daemonset/agent "${ns[@]}" | has -E '^3 ' || fail "ds revision 3 after undo"
images=$(k get pods "${ns[@]}" -l app=agent -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}' | sort -u)
[ "$images" = agent:1 ] || fail "ds pods after undo: $images"

step "a pod to debug with, and the rest of a team's objects"
gen run debug "${ns[@]}" --image=busybox:1.36 --restart=Never -- sleep 3600
k wait --for=condition=Ready pod/debug "${ns[@]}" --timeout=60s >/dev/null || fail "run: pod not ready"
gen create poddisruptionbudget web "${ns[@]}" --selector=app=web --min-available=2
gen create role pod-reader "${ns[@]}" --verb=get,list,watch --resource=pods
gen create rolebinding ci-reads "${ns[@]}" --role=pod-reader --serviceaccount=team-a:ci
gen create clusterrole node-viewer --verb=get,list --resource=nodes
gen create clusterrolebinding ci-views-nodes --clusterrole=node-viewer --serviceaccount=team-a:ci
gen create quota team-quota "${ns[@]}" --hard=pods=50,requests.cpu=20
gen create priorityclass team-high --value=1000 --description="team a"
gen create ingress web "${ns[@]}" --rule='web.example.com/=web:80,tls=web-tls'
until_true 20 bash -c "[ \"\$(kubectl --cache-dir='$work/cache' get pdb web -n team-a -o jsonpath='{.status.currentHealthy}')\" = 5 ]" ||
  fail "pdb status: $(k get pdb web "${ns[@]}" -o yaml)"

step "auth can-i and whoami, as the admin and as the ServiceAccount"
[ "$(k auth can-i create deployments "${ns[@]}")" = yes ] || fail "admin can-i"
[ "$(k auth can-i list pods "${ns[@]}" --as=system:serviceaccount:team-a:ci)" = yes ] || fail "sa can list"
[ "$(k auth can-i delete pods "${ns[@]}" --as=system:serviceaccount:team-a:ci || true)" = no ] ||
  fail "sa can delete"
[ "$(k --token="$token" auth whoami -o jsonpath='{.status.userInfo.username}')" = \
  system:serviceaccount:team-a:ci ] || fail "whoami"
k --token="$token" get pods "${ns[@]}" >/dev/null || fail "the ServiceAccount lists pods"
k --token="$legacy_token" get pods "${ns[@]}" >/dev/null || fail "the legacy token lists pods"
if k --token="$token" delete pod debug "${ns[@]}" 2>"$work/forbidden.txt"; then fail "sa deleted"; fi
grep -q 'pods "debug" is forbidden: User "system:serviceaccount:team-a:ci" cannot delete resource "pods"' \
  "$work/forbidden.txt" || fail "403: $(cat "$work/forbidden.txt")"

step "api-resources, explain, diff, label, annotate"
[ "$(k api-resources --no-headers | wc -l)" -eq 58 ] || fail "api-resources"
k explain deployment.spec.strategy >"$work/explain.txt" 2>&1 || fail "explain: $(cat "$work/explain.txt")"
has rollingUpdate "$work/explain.txt" || fail "explain: $(cat "$work/explain.txt")"
cat >"$work/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27", ports: [{containerPort: 80}]}]}
YAML
set +e
k diff -f "$work/web.yaml" >"$work/diff.txt" 2>&1
rc=$?
set -e
[ $rc = 1 ] || fail "diff exit $rc: $(cat "$work/diff.txt")"
grep -Eq '^[-]  replicas: 5' "$work/diff.txt" && grep -Eq '^[+]  replicas: 4' "$work/diff.txt" ||
  fail "diff: $(cat "$work/diff.txt")"
k label deployment web tier=frontend "${ns[@]}" >/dev/null || fail "label"
k annotate deployment web owner=team-a "${ns[@]}" >/dev/null || fail "annotate"
k get deployments -l tier=frontend "${ns[@]}" -o name | has -x deployment.apps/web || fail "by label"
k get all "${ns[@]}" >"$work/all.txt" || fail "get all"
for kind in pod/web- service/web deployment.apps/web replicaset.apps/web- statefulset.apps/db \
  job.batch/hello cronjob.batch/tick; do
  grep -q "$kind" "$work/all.txt" || fail "get all lacks $kind: $(cat "$work/all.txt")"
done

step "autoscale: the HPA holds the Deployment at its minimum and reports the missing metrics"
k autoscale deployment web "${ns[@]}" --min=6 --max=8 --cpu-percent=70 >/dev/null || fail "autoscale"
until_true 20 bash -c "[ \"\$(kubectl --cache-dir='$work/cache' get deployment web -n team-a -o jsonpath='{.spec.replicas}')\" = 6 ]" ||
  fail "hpa did not scale: $(k get hpa web "${ns[@]}" -o yaml)"
until_true 20 bash -c "kubectl --cache-dir='$work/cache' describe hpa web -n team-a | grep -q FailedComputeMetricsReplicas" ||
  fail "hpa events: $(k describe hpa web "${ns[@]}")"
k get hpa web "${ns[@]}" | has -E '^web +Deployment/web +cpu: <unknown>/70% +6 +8 +6 ' ||
  fail "hpa table: $(k get hpa web "${ns[@]}")"
k describe hpa web "${ns[@]}" >"$work/hpa.txt"
has -E 'ScalingActive +False +FailedGetResourceMetric' "$work/hpa.txt" &&
  has 'New size: 6; reason: Current number of replicas below Spec.MinReplicas' "$work/hpa.txt" ||
  fail "describe hpa: $(cat "$work/hpa.txt")"

step "delete: the garbage collector takes what the Deployment made"
k delete deployment web "${ns[@]}" >/dev/null || fail "delete"
# (kubectl wait finds no pod to wait for once they are all gone already)
k wait --for=delete pod -l app=web "${ns[@]}" --timeout=60s >/dev/null 2>&1 ||
  [ -z "$(k get pods "${ns[@]}" -l app=web -o name)" ] || fail "pods left"
[ -z "$(k get replicasets "${ns[@]}" -l app=web -o name)" ] || fail "replicasets left"
until_true 20 bash -c "[ -z \"\$(kubectl --cache-dir='$work/cache' get endpoints web -n team-a -o jsonpath='{.subsets}')\" ]" ||
  fail "endpoints still list pods"
k delete namespace team-a --wait=true --timeout=60s >/dev/null || fail "delete namespace"

echo "PASS"
