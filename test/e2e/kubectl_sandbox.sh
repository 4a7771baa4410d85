#!/usr/bin/env bash
# The stock kubectl against respool-sandbox --no-simulator: discovery, CRDs and custom
# resources, get -o yaml/json, get -w, label/annotate/taint/cordon, drain through evictions
# blocked and then allowed by a PodDisruptionBudget, patches, scale, explain, delete.
# Usage: kubectl_sandbox.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
step() { echo "--- $*"; }
start_sandbox --no-simulator

step "discovery and namespaces"
k version -o json | has '"gitVersion": "v1.32' || fail "version"
k get namespaces | has kube-system || fail "namespaces"
k api-resources | has poddisruptionbudgets || fail "api-resources"

step "CRD then a custom resource"
cat >"$work/crd.yaml" <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: refwidgets.ref.example.com
spec:
  group: ref.example.com
  scope: Cluster
  names: {plural: refwidgets, singular: refwidget, kind: RefWidget, shortNames: [rw], categories: [refall]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    additionalPrinterColumns:
    - {name: Size, type: string, jsonPath: .spec.size}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: Desired state
            required: [size, color]
            properties:
              size: {type: string, enum: [small, medium, large], description: Widget size}
              color: {type: string, pattern: '^[a-z]+$', description: lower-case colour name}
              replicas: {type: integer, format: int32, minimum: 0, default: 1}
          status:
            type: object
            properties:
              replicas: {type: integer, format: int32}
              selector: {type: string}
EOF
k apply -f "$work/crd.yaml" | has "created" || fail "apply crd"
cat >"$work/cr.yaml" <<'EOF'
apiVersion: ref.example.com/v1
kind: RefWidget
metadata: {name: w1}
spec: {size: small, color: red}
EOF
k apply -f "$work/cr.yaml" | has "refwidget.ref.example.com/w1 created" || fail "apply cr"
sed -i 's/color: red/color: blue/' "$work/cr.yaml"
k apply -f "$work/cr.yaml" | has "configured" || fail "apply cr again"
k get rw w1 -o yaml | has "color: blue" || fail "get -o yaml"
k get rw w1 -o json | has '"replicas": 1' || fail "get -o json (defaulted)"
k get refall | has "w1" || fail "category"
k get rw | grep -E "^w1 +small +1 " >/dev/null || fail "printer columns"
if k apply -f - <<'EOF' 2>"$work/err"; then fail "invalid CR accepted"; fi
apiVersion: ref.example.com/v1
kind: RefWidget
metadata: {name: bad}
spec: {size: huge, color: Red}
EOF
grep -q 'Unsupported value: "huge"' "$work/err" || fail "422 message: $(cat "$work/err")"

step "get -w sees a change"
timeout 15 kubectl --cache-dir="$work/cache" get rw -w >"$work/watch" 2>&1 &
watch_pid=$!
sleep 2
k patch rw w1 --type merge -p '{"spec":{"size":"large"}}' >/dev/null
for _ in $(seq 50); do grep -q large "$work/watch" && break; sleep 0.2; done
kill $watch_pid 2>/dev/null || true
grep -q "large" "$work/watch" || fail "watch did not see the change: $(cat "$work/watch")"

step "patch types, scale, explain"
k patch rw w1 --type json -p '[{"op":"replace","path":"/spec/color","value":"green"}]' >/dev/null
k get rw w1 -o jsonpath='{.spec.color}' | has green || fail "json patch"
k scale rw w1 --replicas=4 | has scaled || fail "scale"
k get rw w1 -o jsonpath='{.spec.replicas}' | has 4 || fail "scaled replicas"
explained=$(k explain refwidgets.spec 2>&1) || true
grep -q "lower-case colour name" <<<"$explained" || fail "explain: $explained"
# Manifests go as JSON (kubectl_create.sh covers the generators' protobuf bodies).
k apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata: {name: c1}
data: {a: "1"}
EOF
k patch configmap c1 --type strategic -p '{"data":{"b":"2"}}' >/dev/null
k get configmap c1 -o jsonpath='{.data.b}' | has 2 || fail "strategic patch"
cat >"$work/cm.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata: {name: applied}
data: {a: "1"}
EOF
k apply -f "$work/cm.yaml" >/dev/null
sed -i 's/a: "1"/a: "2"/' "$work/cm.yaml"
k apply -f "$work/cm.yaml" | has configured || fail "apply configmap again"
k get configmap applied -o jsonpath='{.data.a}' | has 2 || fail "applied value"

step "nodes: label, annotate, taint, cordon"
k create -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {node.kubernetes.io/instance-type: gpu}}
EOF
k label node n1 pool=a | has labeled || fail "label"
k annotate node n1 note=x | has annotated || fail "annotate"
k taint node n1 dedicated=a:NoSchedule | has tainted || fail "taint"
k get node n1 -o jsonpath='{.spec.taints[0].key}' | has dedicated || fail "taint stored"
k cordon n1 | has cordoned || fail "cordon"
k get nodes | has "SchedulingDisabled" || fail "cordoned status"
k uncordon n1 | has uncordoned || fail "uncordon"

step "drain through evictions and a PodDisruptionBudget"
for p in db-1 db-2; do
  k create -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $p, labels: {app: db}}
spec:
  nodeName: n1
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: "busybox:1"}]
EOF
  k patch pod $p --subresource=status --type merge \
    -p '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
done
k create -f - >/dev/null <<'EOF'
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: db}}
EOF
k get pdb db -o jsonpath='{.status.disruptionsAllowed}' | has 0 || fail "pdb status"
if k drain n1 --ignore-daemonsets --delete-emptydir-data --force --timeout=7s >"$work/drain1" 2>&1; then
  fail "drain went through a blocking budget"
fi
grep -q "disruption budget" "$work/drain1" || fail "drain did not retry on the budget: $(cat "$work/drain1")"
k get pods | has db-1 || fail "pod evicted despite the budget"
k patch pdb db --type merge -p '{"spec":{"minAvailable":0}}' >/dev/null
k drain n1 --ignore-daemonsets --delete-emptydir-data --force --timeout=30s >"$work/drain2" 2>&1 ||
  fail "drain: $(cat "$work/drain2")"
grep -q "drained" "$work/drain2" || fail "drained"
[ -z "$(k get pods -o name)" ] || fail "pods left after drain"

step "built-in kinds refused as a real server refuses them"
# refused WHAT EXPECTED: `kubectl create -f -` of stdin must fail with exactly EXPECTED.
refused() {
  if k create -f - 2>"$work/err" >/dev/null; then fail "$1 accepted"; fi
  [ "$(cat "$work/err")" = "$2" ] || fail "$1: got: $(cat "$work/err")"
}
refused "a ConfigMap key with a space" \
  "The ConfigMap \"bad-keys\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata: {name: bad-keys, namespace: default}
data: {"bad key": v}
EOF
refused "a taint without effect" \
  'The Node "bad-taint" is invalid: metadata.taints[0].effect: Required value' <<'EOF'
apiVersion: v1
kind: Node
metadata: {name: bad-taint}
spec: {taints: [{key: respool.io/drain, value: "true"}]}
EOF
refused "two containers of one name, one without image" "$(printf '%s\n' \
  'The Pod "twins" is invalid: ' '* spec.containers[1].image: Required value' \
  '* spec.containers[1].name: Duplicate value: "c"')" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: twins, namespace: default}
spec: {containers: [{name: c, image: busybox:1.36}, {name: c}]}
EOF
refused "a DaemonSet that restarts on failure" \
  'The DaemonSet "agent" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"' <<'EOF'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {restartPolicy: OnFailure, containers: [{name: a, image: busybox:1.36}]}
EOF
refused "a Deployment without selector" "$(printf '%s\n' \
  'The Deployment "web" is invalid: ' '* spec.selector: Required value' \
  '* spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`')" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
EOF
refused "a Service with two unnamed ports" "$(printf '%s\n' \
  'The Service "web" is invalid: ' '* spec.ports[0].name: Required value' \
  '* spec.ports[1].name: Required value')" <<'EOF'
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, ports: [{port: 80}, {port: 443}]}
EOF
q='resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}'
refused "half a GPU (requests default from limits)" "$(printf '%s\n' \
  'The Pod "half-gpu" is invalid: ' \
  "* spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: $q: must be an integer" \
  "* spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: $q: must be an integer")" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: half-gpu, namespace: default}
spec:
  containers:
  - {name: train, image: trainer:1, resources: {limits: {nvidia.com/gpu: 0.5}}}
EOF
refused "a mount of a volume the pod does not have" \
  'The Pod "lost-mount" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"' <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: lost-mount, namespace: default}
spec:
  containers:
  - {name: c, image: busybox:1.36, volumeMounts: [{name: data, mountPath: /data}]}
EOF

step "delete"
k delete rw w1 | has deleted || fail "delete cr"
k delete crd refwidgets.ref.example.com | has deleted || fail "delete crd"
if k get rw 2>/dev/null; then fail "CR type still served"; fi
echo "kubectl_sandbox: all checks passed"
