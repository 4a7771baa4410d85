#!/usr/bin/env bash
# Least privilege, proven against the sandbox's RBAC authorizer. respool-operator runs with a
# token of exactly the chart's ServiceAccount (a TokenRequest, as `kubectl create token` sends),
# bound by exactly the chart's rendered RBAC (helm template, default values), with the chart's
# arguments, and every scenario passes without a single 403: leader election; a network; a pool
# with plug-ins and its events; a scale-in that evicts a running job; a job-type change; a
# catalog change; node operations (a preview, a Replace, a Reset, an expired record removed) once the
# NodeOperation controller exists; a node fault that makes the pool Degraded, its automatic
# Reset (remediation), and its repair; a
# network deletion that waits, with its repeated event counted; the pool's deletion; training
# jobs restarted upon a node fault and upon a hang, the report of that fault restart and of a
# worker's Python traceback (Diagnoses), and a Standard diagnosis asked for.
# Then every permission the chart grants, one verb on one resource of one rule, is taken away
# in turn, each in a sandbox of its own: some scenario must fail within bounds (never a silent
# hang), and the operator must say why: its log names the refused request (verb and resource),
# and when the request is a write made while reconciling a Network, ResourcePool,
# NodeOperation or training Job, a Warning event on that object names it too (what
# `kubectl describe` shows).
# respool-node-agent (nodeAgent.enabled, the default) is proven the same way with its own
# ServiceAccount and RBAC: it writes its conditions on its node, records a fault's event and
# counts the fault's repeat in that event's series, without a 403; each of its permissions taken
# away makes one of those steps fail, and its log names the refused request.
# Both serve /metrics as the chart has them (metrics.secure): a scraper bound to the chart's
# metrics-reader ClusterRole reads them, which proves the reviews (create tokenreviews and
# subjectaccessreviews) needed.
# Rounds run RBAC_TEST_JOBS at a time (default 3): they mostly wait on the operator.
# RBAC_TEST_ONLY=REGEX takes away only the permissions whose description matches.
# Usage: rbac_least_privilege.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
for tool in helm jq curl; do
  command -v $tool >/dev/null || { echo "$tool is not installed (scripts/install-deps.sh): skipped"; exit 0; }
done
source "$src/test/e2e/lib/sandbox.bash"
kill_rounds() { # kill_rounds PIDS-FILE...: each round's processes, as identity wrote them
  local ids
  mapfile -t ids < <(cat "$@" 2>/dev/null)
  kill_identified "${ids[@]}"
}
trap 'kill_rounds "$work"/*/pids; cleanup' EXIT
jobs=${RBAC_TEST_JOBS:-3}
chart="$src/helm/respool"
ns=respool-system
began=$SECONDS

# --- What the chart installs, as helm renders it with the default values.
helm template respool "$chart" --namespace $ns >"$work/chart.yaml"
bash "$src/scripts/yaml-to-json.sh" "$work/chart.yaml" >"$work/chart.jsonl"
jq -c 'select(.kind | test("^(ServiceAccount|ClusterRole|ClusterRoleBinding|Role|RoleBinding)$"))' \
  "$work/chart.jsonl" >"$work/rbac-chart.jsonl"
# The operator's objects, and the node agent's (component node-agent), each proven on its own;
# the metrics reader's ClusterRole is the scraper's, created in every round.
jq -c 'select(.metadata.labels["app.kubernetes.io/component"] as $c | $c != "node-agent" and $c != "metrics-reader")' \
  "$work/rbac-chart.jsonl" >"$work/rbac.jsonl"
jq -c 'select(.metadata.labels["app.kubernetes.io/component"] == "metrics-reader" and .kind == "ClusterRole")' \
  "$work/rbac-chart.jsonl" >"$work/reader.jsonl"
reader_role=$(jq -r .metadata.name "$work/reader.jsonl")
[ -n "$reader_role" ] || fail "the chart renders no metrics reader ClusterRole"
jq -c 'select(.metadata.labels["app.kubernetes.io/component"] == "node-agent")' \
  "$work/rbac-chart.jsonl" >"$work/agent-rbac.jsonl"
agent_sa=$(jq -r 'select(.kind == "DaemonSet") | .spec.template.spec.serviceAccountName' "$work/chart.jsonl")
sa=$(jq -r 'select(.kind == "Deployment") | .spec.template.spec.serviceAccountName' "$work/chart.jsonl")
# The chart's arguments, but the catalog, the endpoints (the test's own) and a faster retry
# period, so that a round needs no 2 s per leader-election step.
jq -r 'select(.kind == "Deployment") | .spec.template.spec.containers[0].args[]' "$work/chart.jsonl" |
  grep -v -e '^--catalog=' -e '^--metrics-bind-address=' -e '^--health-probe-bind-address=' \
    -e '^--leader-election-retry-period=' >"$work/args.txt"
mapfile -t args <"$work/args.txt"
lease=$(sed -n 's/^--leader-election-id=//p' "$work/args.txt")
[ -n "$lease" ] && [ "$sa" != null ] || fail "the chart names no ServiceAccount or Lease"
for f in "$src"/crds/*.yaml; do echo "---"; cat "$f"; done | bash "$src/scripts/yaml-to-json.sh" >"$work/crds.jsonl"
bash "$src/scripts/yaml-to-json.sh" "$src/examples/network.yaml" >"$work/network.json"
bash "$src/scripts/yaml-to-json.sh" "$src/examples/resourcepool.yaml" >"$work/pool.json"

# The NodeOperation controller is on its way (reconcilers/nodeoperation/): until it is there,
# the chart's NodeOperation permissions (nodeoperations, their status, the reset Jobs, the
# ledger's patch of the pool's status) are granted ahead of it and cannot be proven needed;
# once it is, they are, with its scenarios.
nodeops=false
[ -d "$src/reconcilers/nodeoperation" ] && nodeops=true
ahead_of_nodeops='^([a-z]+ (nodeoperations|nodeoperations/status|jobs)|patch resourcepools/status)$'
# Kubernetes 1.35 also authorizes a pods/exec WebSocket as create
# (AuthorizePodWebsocketUpgradeCreatePermission); 1.32, which the sandbox is, as get only.
beyond_sandbox='^create pods/exec$'

# Every permission: "object rule resource verb" for each verb of each resource of each rule of
# each Role and ClusterRole.
jq -r -s 'to_entries[] | .key as $o | .value | select(.kind == "Role" or .kind == "ClusterRole")
  | .rules | to_entries[] | .key as $r | .value | .verbs[] as $v | .resources[] | "\($o) \($r) \(.) \($v)"' \
  "$work/rbac.jsonl" >"$work/permissions.txt"
[ "$(wc -l <"$work/permissions.txt")" -ge 20 ] || fail "the chart grants $(wc -l <"$work/permissions.txt") permissions"
jq -r -s 'to_entries[] | .key as $o | .value | select(.kind == "Role" or .kind == "ClusterRole")
  | .rules | to_entries[] | .key as $r | .value | .verbs[] as $v | .resources[] | "\($o) \($r) \(.) \($v)"' \
  "$work/agent-rbac.jsonl" >"$work/agent-permissions.txt"
describe() { # describe OBJECT RULE RESOURCE VERB [RBAC-JSONL]
  jq -r -s --argjson o "$1" '.[$o] | "\(.kind)/\(.metadata.name)"' "${5:-$work/rbac.jsonl}" | tr -d '\n'
  echo ": $4 $3"
}
# without OBJECT RULE RESOURCE VERB: the chart's RBAC with that one permission taken away (the
# rule split so that its other resources and verbs stay granted).
without() {
  jq -c -s --argjson o "$1" --argjson r "$2" --arg res "$3" --arg v "$4" '
    to_entries[] | if .key != $o then .value else .value | .rules[$r] as $rule
      | .rules = .rules[:$r]
          + [($rule | .resources -= [$res]) | select(.resources | length > 0)]
          + [($rule | .resources = [$res] | .verbs -= [$v]) | select(.verbs | length > 0)]
          + .rules[$r + 1:]
    end' "${5:-$work/rbac.jsonl}"
}

# --- The API, through curl: a poll costs a few milliseconds where kubectl costs a hundred.
api() { # api METHOD PATH [BODY-FILE|-] [CONTENT-TYPE]: the answer's body; fails on an error
  curl -sS --fail-with-body --max-time 10 --cacert "$ca" -H "Authorization: Bearer $admin" -X "$1" \
    ${3:+-H "Content-Type: ${4:-application/json}" --data-binary "@$3"} "$server$2"
}
get() { api GET "$1"; }
merge() { echo "$2" | api PATCH "$1" - application/merge-patch+json >/dev/null; }
jsonpatch() { echo "$2" | api PATCH "$1" - application/json-patch+json >/dev/null; }
gone() { ! api GET "$1" >/dev/null 2>&1; }
exists() { api GET "$1" >/dev/null 2>&1; }
is() { [ "$(get "$1" 2>/dev/null | jq -r "$2")" = "$3" ]; } # is PATH FILTER VALUE
path_of() { # path_of OBJECT-JSON: the collection it is created in
  local kind ns_
  kind=$(jq -r .kind <<<"$1")
  ns_=$(jq -r '.metadata.namespace // ""' <<<"$1")
  case $kind in
    ServiceAccount) echo "/api/v1/namespaces/$ns_/serviceaccounts" ;;
    ClusterRole | ClusterRoleBinding) echo "/apis/rbac.authorization.k8s.io/v1/${kind,,}s" ;;
    Role | RoleBinding) echo "/apis/rbac.authorization.k8s.io/v1/namespaces/$ns_/${kind,,}s" ;;
    CustomResourceDefinition) echo "/apis/apiextensions.k8s.io/v1/customresourcedefinitions" ;;
    *) fail "no path for $kind" ;;
  esac
}
create_all() { # create_all JSONL-FILE (in a round: $dir is its folder)
  local line
  while read -r line; do
    api POST "$(path_of "$line")" - <<<"$line" >"$dir/created" ||
      { echo "cannot create $(jq -c '[.kind, .metadata.name]' <<<"$line"): $(cat "$dir/created")"; return 1; }
  done <"$1"
}
rp=/apis/respool.io/v1alpha1
pool=$rp/resourcepools/gpu-a
net=$rp/networks/net-a

# scraped PORT PATTERN: the secure /metrics on PORT, read with the scraper's token, has a line
# matching PATTERN.
scraped() {
  curl -sk --fail --max-time 2 -H "Authorization: Bearer $scraper_token" "https://127.0.0.1:$1/metrics" |
    grep -Eq "$2"
}
# scraper_begin: the metrics reader ClusterRole, a ServiceAccount bound to it, its token in
# $scraper_token (in a round: $dir is its folder).
scraper_begin() {
  create_all "$work/reader.jsonl"
  api POST "/api/v1/namespaces/$ns/serviceaccounts" - >/dev/null <<<'{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"scraper"}}'
  api POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings - >/dev/null <<JSON
{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "scraper"},
 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "$reader_role"},
 "subjects": [{"kind": "ServiceAccount", "name": "scraper", "namespace": "$ns"}]}
JSON
  scraper_token=$(api POST "/api/v1/namespaces/$ns/serviceaccounts/scraper/token" - <<<'{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
    jq -r .status.token)
}
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- One round: a sandbox, the operator with the given RBAC, the scenarios.
limit=30    # seconds a scenario step may take
refused=''  # the 403 a round expects in the operator's log (an extended regex)
# wait_for WHAT COMMAND...: true once COMMAND succeeds; false after the step's limit, or $grace
# seconds (default 3; a step that waits on something slower says so) after the operator logged
# the 403 the round expects: it cannot do something, it said so, and the step does not move.
wait_for() {
  local what=$1; shift
  local deadline=$((SECONDS + limit)) after_403=""
  until "$@" >/dev/null 2>&1; do
    if [ -z "$after_403" ] && [ -n "$refused" ] && grep -Eq "$refused" "$log"; then
      after_403=$((SECONDS + ${grace:-3}))
    fi
    if [ $SECONDS -ge $deadline ] || { [ -n "$after_403" ] && [ $SECONDS -ge "$after_403" ]; }; then
      failed_step=$what
      return 1
    fi
    sleep 0.3
  done
}
lease_renewed() { # the Lease is held and renewed since $1
  local l
  l=$(get "/apis/coordination.k8s.io/v1/namespaces/$ns/leases/$lease") || return 1
  [ -n "$(jq -r '.spec.holderIdentity // ""' <<<"$l")" ] &&
    [ "$(jq -r '.spec.renewTime // ""' <<<"$l")" != "$1" ]
}
event_seen() { # event_seen REASON NOTE-PATTERN [MIN-COUNT]
  get /apis/events.k8s.io/v1/namespaces/default/events |
    jq -e --arg r "$1" --arg n "$2" --argjson c "${3:-1}" \
      '[.items[] | select(.reason == $r and (.note | test($n)) and ((.series.count // 1) >= $c))]
       | length > 0' >/dev/null
}
job_pod() { # job_pod NAME NODE: a running job pinned to a pool node
  api POST /api/v1/namespaces/default/pods - >/dev/null <<JSON
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "$1", "namespace": "default"},
 "spec": {"nodeName": "$2",
          "tolerations": [{"key": "respool.io/pool", "operator": "Exists", "effect": "NoSchedule"}],
          "containers": [{"name": "job", "image": "registry.example/job:1"}]}}
JSON
}
pool_nodes() { # pool_nodes [MORE-SELECTOR]: names of gpu-a's nodes
  get "/api/v1/nodes?labelSelector=respool.io%2Fpool%3Dgpu-a${1:+,$1}" | jq -r '.items[].metadata.name'
}
one_job_left() { [ "$(get /api/v1/namespaces/default/pods | jq '[.items[] | select(.metadata.name | startswith("job-"))] | length')" = 1 ]; }
plugin_image() { get "/apis/apps/v1/namespaces/$ns/daemonsets/gpu-a-training-agent" | jq -r '.spec.template.spec.containers[0].image'; }
no_pool_nodes() { [ -z "$(get '/api/v1/nodes?labelSelector=respool.io%2Fpool' | jq -r '.items[].metadata.name')" ]; }
nodeop() { # nodeop NAME TYPE NODE [EXTRA-SPEC-JSON]
  api POST $rp/nodeoperations - >/dev/null <<JSON
{"apiVersion": "respool.io/v1alpha1", "kind": "NodeOperation", "metadata": {"name": "$1"},
 "spec": {"pool": "gpu-a", "type": "$2", "nodes": ["$3"] ${4:+, $4}}}
JSON
}

# scenarios: every step in order; stops at the first that fails (failed_step says which).
scenarios() {
  failed_step=""
  wait_for "leader election: the Lease acquired" lease_renewed "" || return 1
  local first_renew
  first_renew=$(get "/apis/coordination.k8s.io/v1/namespaces/$ns/leases/$lease" | jq -r .spec.renewTime)
  wait_for "leader election: the Lease renewed" lease_renewed "$first_renew" || return 1
  wait_for "metrics: a reader's scrape answered (TokenReview, SubjectAccessReview)" \
    scraped "$metrics_port" '^rest_client_requests_total' || return 1
  api POST $rp/networks "$work/network.json" >/dev/null
  api POST $rp/resourcepools "$work/pool.json" >/dev/null
  training_pool_begin
  wait_for "network: net-a Ready" is $net '.status.conditions[]? | select(.type == "Ready") | .status' True ||
    return 1
  wait_for "pool: gpu-a Running" is $pool .status.phase Running || return 1
  wait_for "pool: its plug-ins installed" \
    is "/apis/apps/v1/namespaces/$ns/daemonsets?labelSelector=respool.io%2Fpool%3Dgpu-a,respool.io%2Fjob-type" \
    '.items | length' 2 || return 1
  wait_for "pool: its GPU driver DaemonSet installed" \
    is "/apis/apps/v1/namespaces/$ns/daemonsets/gpu-a-gpu-driver" .spec.updateStrategy.type OnDelete || return 1
  wait_for "events: the pool's status change recorded" event_seen PoolStatusChange "from Creating to Running" ||
    return 1
  training_hang_begin || return 1

  # A second pool, with remediation: its node's fault (remediation_fault) lasts 30 s over the
  # next steps, then remediation_end waits for the automatic Reset.
  remediation_begin

  # Scale-in of a flavor whose every node runs a job: one job is evicted.
  local cpu_nodes
  mapfile -t cpu_nodes < <(pool_nodes node.kubernetes.io%2Finstance-type%3Dcpu-64c)
  [ ${#cpu_nodes[@]} = 2 ] || { failed_step="pool: two cpu-64c nodes"; return 1; }
  job_pod job-1 "${cpu_nodes[0]}"
  job_pod job-2 "${cpu_nodes[1]}"
  wait_for "jobs: running" is /api/v1/namespaces/default/pods/job-2 .status.phase Running || return 1
  jsonpatch $pool '[{"op":"replace","path":"/spec/resources/1/count","value":1}]'
  wait_for "scale-in: a job evicted" one_job_left || return 1
  wait_for "scale-in: back to Running with 5 nodes" is $pool '"\(.status.phase)/\(.status.nodes.total)"' \
    Running/5 || return 1
  remediation_fault || return 1

  merge $pool '{"spec":{"jobTypes":["Training"]}}'
  wait_for "job types: the Inference plug-in removed" \
    gone "/apis/apps/v1/namespaces/$ns/daemonsets/gpu-a-inference-gateway" || return 1

  sed -i 's|training-agent:1.4.2|training-agent:1.4.3|' "$catalog"
  # The operator reads its catalog file every 10 s.
  grace=12 wait_for "catalog: the plug-in updated to the new image" \
    eval '[ "$(plugin_image)" = registry.example/respool/training-agent:1.4.3 ]' || return 1

  # The remediation's 30 s and the hang's minute run while these go on.
  if $nodeops; then nodeop_scenarios || return 1; fi
  driver_scenarios || return 1
  remediation_end || return 1
  training_scenarios || return 1

  # A node fault makes the pool Degraded; the repaired node clears it.
  local faulty
  faulty=$(pool_nodes node.kubernetes.io%2Finstance-type%3Dgpu-8x-a100 | sed -n 1p)
  merge "/api/v1/nodes/$faulty" '{"metadata":{"annotations":{"sandbox.respool.io/fault":"NotReady"}}}'
  wait_for "node fault: the pool Degraded" \
    is $pool '.status.conditions[]? | select(.type == "Degraded") | "\(.status) \(.reason)"' "True AbnormalNodes" ||
    return 1
  merge "/api/v1/nodes/$faulty" '{"metadata":{"annotations":{"sandbox.respool.io/fault":null}}}'
  wait_for "node repaired: the pool no longer Degraded" \
    is $pool '.status.conditions[]? | select(.type == "Degraded") | .status' False || return 1

  # Deleting the network waits for the pool (W5); every pool change repeats the InUse event,
  # which then counts its repeats.
  api DELETE $net >/dev/null
  wait_for "network deletion: InUse" is $net '.status.conditions[]? | select(.type == "Ready") | .reason' InUse ||
    return 1
  merge $pool '{"spec":{"tags":{"round":"1"}}}'
  merge $pool '{"spec":{"tags":{"round":"2"}}}'
  wait_for "events: the repeated InUse event counted" event_seen InUse "used by pool gpu-a" 2 || return 1

  api DELETE $pool >/dev/null
  wait_for "pool deletion: gpu-a gone" gone $pool || return 1
  wait_for "pool deletion: its nodes free" no_pool_nodes || return 1
  wait_for "network deletion: net-a gone once no pool uses it" gone $net || return 1
}

# Remediation, in a pool of its own (one cpu-64c node), so that its events leave gpu-a's within
# client-go's spam filter (25 per object): a fault isolation code that lasts 30 s gets an
# automatic Reset (N17: the Abnormal node it repairs), which ends with the simulated fault still
# there; once healed, nothing is remembered of the node; the pool goes.
remediation_begin() {
  api POST $rp/resourcepools - >/dev/null <<'JSON'
{"apiVersion": "respool.io/v1alpha1", "kind": "ResourcePool", "metadata": {"name": "rem"},
 "spec": {"network": "net-a", "jobTypes": ["Training"], "resources": [{"flavor": "cpu-64c", "count": 1}],
          "remediation": {"rules": [{"codes": ["A050101"], "after": "30s",
                                     "steps": [{"action": "Reset", "os": "ubuntu-22.04"}]}],
                          "maxUnhealthy": "100%"}}}
JSON
}
remediation_fault() {
  wait_for "remediation: pool rem Running" is $rp/resourcepools/rem .status.phase Running || return 1
  remediation_node=$(get '/api/v1/nodes?labelSelector=respool.io%2Fpool%3Drem' | jq -r '.items[0].metadata.name')
  merge "/api/v1/nodes/$remediation_node" '{"metadata":{"annotations":{"sandbox.respool.io/fault":"Isolate=A050101",
    "sandbox.respool.io/reset-seconds":"1"}}}'
}
remediation_end() {
  local node=$remediation_node
  local auto="auto-$node-a050101-1-1"
  limit=45 wait_for "remediation: the fault lasted 30 s, $auto created" exists $rp/nodeoperations/$auto || return 1
  wait_for "remediation: $auto ended, the node still abnormal" \
    is $rp/nodeoperations/$auto '"\(.status.phase) \(.status.reason)"' "Failed AbnormalAfterReset" || return 1
  merge "/api/v1/nodes/$node" '{"metadata":{"annotations":{"sandbox.respool.io/fault":null}}}'
  wait_for "remediation: the node repaired, nothing remembered of it" \
    is $rp/resourcepools/rem '.status.remediation.nodes | length' 0 || return 1
  api DELETE $rp/resourcepools/rem >/dev/null
  wait_for "remediation: pool rem gone" gone $rp/resourcepools/rem || return 1
}

# Node operations on the pool's GPU nodes: a Replace (cordon, drain, a free node of the zone
# claimed, the old one retired), then a Reset (a Job in the operator's namespace, deleted when
# done), then an ended operation past its retention removed (P9).
nodeop_scenarios() {
  local a100
  mapfile -t a100 < <(pool_nodes node.kubernetes.io%2Finstance-type%3Dgpu-8x-a100)
  # A preview (N18) of a node with a job: the PodDisruptionBudgets its drain would meet are read.
  job_pod look-job "${a100[0]}"
  nodeop look Replace "${a100[0]}" '"preview": true'
  wait_for "node operation: the preview names the job it would stop" \
    is $rp/nodeoperations/look '.status.preview.nodes[0].stoppedJobs[0]' default/look-job || return 1
  api DELETE $rp/nodeoperations/look >/dev/null
  api DELETE /api/v1/namespaces/default/pods/look-job >/dev/null
  nodeop replace Replace "${a100[0]}"
  wait_for "node operation: the Replace Succeeded" is $rp/nodeoperations/replace .status.phase Succeeded ||
    return 1
  merge "/api/v1/nodes/${a100[1]}" '{"metadata":{"annotations":{"sandbox.respool.io/reset-seconds":"1"}}}'
  nodeop reset Reset "${a100[1]}" '"reset": {"os": "ubuntu-22.04"}'
  wait_for "node operation: the reset Job created" \
    is "/apis/batch/v1/namespaces/$ns/jobs" '.items | length' 1 || return 1
  wait_for "node operation: the Reset Succeeded" is $rp/nodeoperations/reset .status.phase Succeeded ||
    return 1
  wait_for "node operation: the reset Job deleted" \
    is "/apis/batch/v1/namespaces/$ns/jobs" '.items | length' 0 || return 1
  # An operation that ended long ago: a Delete of a node not in the pool, refused at once, its
  # completion then moved back past the retention.
  nodeop expired Delete no-such-node
  wait_for "node operation: a refused one ended" \
    eval 'get $rp/nodeoperations/expired | jq -e ".status.completionTime != null"' || return 1
  merge $rp/nodeoperations/expired/status '{"status":{"completionTime":"2000-01-01T00:00:00Z"}}'
  wait_for "node operation: the expired record removed (P9)" gone $rp/nodeoperations/expired || return 1
}

# A forced driver upgrade of every GPU node at once: the job on one of them deleted, each
# node's driver pod deleted so that its OnDelete DaemonSet brings the new version (about
# 10 s: the simulated driver runs that long before the node's label shows it).
driver_scenarios() {
  local gpu
  gpu=$(pool_nodes node.kubernetes.io%2Finstance-type%3Dgpu-8x-a100 | sed -n 1p)
  job_pod job-gpu "$gpu"
  wait_for "driver upgrade: a job running on $gpu" is /api/v1/namespaces/default/pods/job-gpu .status.phase Running ||
    return 1
  merge $pool '{"spec":{"driver":{"gpuVersion":"550.54.15","upgrade":{"mode":"Force","maxUnavailable":"100%"}}}}'
  wait_for "driver upgrade: the job stopped (Force)" gone /api/v1/namespaces/default/pods/job-gpu || return 1
  # Four nodes upgraded in turn: under ASan, with three rounds at a time, more than 30 s.
  grace=15 limit=60 wait_for "driver upgrade: every GPU node at 550.54.15" is $pool \
    '"\(.status.driver.gpuVersion)/\(.status.driver.nodes.upgraded)/\(.status.phase)"' 550.54.15/4/Running ||
    return 1
}

# Training jobs (fault-tolerance/* annotations): one whose worker's node turns NotReady is
# restarted as a whole (suspended, startTime cleared, resumed); one that hangs is restarted in
# place (its log read through pods/log, its process stopped through pods/exec) once its 1-minute
# window has passed. The hanging one runs in a pool of its own (ft, one cpu-64c node) from the
# start, so that its minute passes while the other scenarios go on, and so that the NotReady
# node of the other, in gpu-a, is never its own.
training_job() { # training_job NAME POOL ANNOTATIONS-JSON TEMPLATE-ANNOTATIONS-JSON [RESTART-POLICY]
  api POST /apis/batch/v1/namespaces/default/jobs - >/dev/null <<JSON
{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "$1", "namespace": "default",
  "annotations": $3},
 "spec": {"completionMode": "Indexed", "completions": 1, "parallelism": 1, "backoffLimit": 10,
  "template": {"metadata": {"annotations": $4},
   "spec": {"restartPolicy": "${5:-OnFailure}", "nodeSelector": {"respool.io/pool": "$2"},
    "tolerations": [{"key": "respool.io/pool", "operator": "Exists"}],
    "containers": [{"name": "train", "image": "registry.example/trainer:1"}]}}}}
JSON
}
training_pool_begin() {
  api POST $rp/resourcepools - >/dev/null <<'JSON'
{"apiVersion": "respool.io/v1alpha1", "kind": "ResourcePool", "metadata": {"name": "ft"},
 "spec": {"network": "net-a", "jobTypes": ["Training"], "resources": [{"flavor": "cpu-64c", "count": 1}]}}
JSON
}
training_hang_begin() {
  wait_for "training job: pool ft Running" is $rp/resourcepools/ft .status.phase Running || return 1
  training_job ft-hang ft '{"fault-tolerance/hang-retry": "true", "respool.io/hang-timeout": "1m"}' \
    '{"sandbox.respool.io/log-interval": "10", "sandbox.respool.io/hang": "true"}'
}
training_scenarios() {
  training_job ft-fault gpu-a '{"fault-tolerance/job-retry-num": "1"}' '{"sandbox.respool.io/log-interval": "10"}'
  local pods=/api/v1/namespaces/default/pods jobs=/apis/batch/v1/namespaces/default/jobs node
  wait_for "training job: its worker running" \
    eval 'get "$pods?labelSelector=batch.kubernetes.io%2Fjob-name%3Dft-fault" | jq -e ".items[0].status.phase == \"Running\""' ||
    return 1
  node=$(get "$pods?labelSelector=batch.kubernetes.io%2Fjob-name%3Dft-fault" | jq -r '.items[0].spec.nodeName')
  merge "/api/v1/nodes/$node" '{"metadata":{"annotations":{"sandbox.respool.io/fault":"NotReady"}}}'
  wait_for "training job: restarted as a whole off the NotReady node" \
    is $jobs/ft-fault '.metadata.annotations["respool.io/fault-tolerance"] | fromjson | "\(.run) \(.restarting != null)"' \
    "1 false" || return 1
  merge "/api/v1/nodes/$node" '{"metadata":{"annotations":{"sandbox.respool.io/fault":null}}}'
  # The fault restart's report names the node (a GET of it), and a worker that fails with a
  # Python traceback gets its own (a GET of its pod and of its log's end); each is created and
  # its report written to its status.
  local diag=/apis/respool.io/v1alpha1/namespaces/default/diagnoses pod
  wait_for "diagnosis: the fault restart's report" is $diag/ft-fault-restart-1 .status.phase Completed ||
    return 1
  training_job ft-code gpu-a '{"fault-tolerance/job-retry-num": "1"}' \
    '{"sandbox.respool.io/log-interval": "10", "sandbox.respool.io/run-seconds": "5", "sandbox.respool.io/failure": "traceback"}' Never
  wait_for "diagnosis: the code job's worker failed" \
    eval 'get "$pods?labelSelector=batch.kubernetes.io%2Fjob-name%3Dft-code" | jq -e "any(.items[]; .status.phase == \"Failed\")"' ||
    return 1
  pod=$(get "$pods?labelSelector=batch.kubernetes.io%2Fjob-name%3Dft-code" |
    jq -r 'first(.items[] | select(.status.phase == "Failed")) | .metadata.name')
  wait_for "diagnosis: the code error's report" is "$diag/$pod-code" .status.phase Completed ||
    return 1
  api POST $diag - >/dev/null <<<'{"apiVersion": "respool.io/v1alpha1", "kind": "Diagnosis",
    "metadata": {"name": "ask", "namespace": "default"}, "spec": {"job": "ft-code"}}'
  wait_for "diagnosis: a Standard one asked for" is $diag/ask .status.phase Completed || return 1
  grace=10 limit=100 wait_for "training job: a hang restarted in place" \
    eval 'get "$pods?labelSelector=batch.kubernetes.io%2Fjob-name%3Dft-hang" | jq -e ".items[0].status.containerStatuses[0].restartCount >= 1"' ||
    return 1
  # Gone before the network's deletion, whose InUse event then names gpu-a alone.
  api DELETE $rp/resourcepools/ft >/dev/null
  wait_for "training job: pool ft gone" gone $rp/resourcepools/ft || return 1
}

# round NAME RBAC-JSONL VERB RESOURCE WRITE: one sandbox, the operator bound by RBAC-JSONL, the
# scenarios; writes "$work/NAME/result": the outcome, the step that failed, whether the log
# and (for a write) a Warning event on a respool object name the 403 of VERB on RESOURCE.
round() {
  local name=$1 rbac=$2 verb=${3:-} resource=${4:-} write=${5:-false}
  local dir="$work/$name" started=$SECONDS
  mkdir -p "$dir"
  "$build/respool-sandbox" --state-dir "$dir/sandbox" --nodes "$src/examples/sandbox-nodes.yaml" \
    >"$dir/sandbox.out" 2>"$dir/sandbox.log" &
  identity $! >>"$dir/pids"
  for _ in $(seq 100); do [ -s "$dir/sandbox.out" ] && break; sleep 0.1; done
  local kubeconfig
  kubeconfig=$(head -1 "$dir/sandbox.out")
  server=$(sed -n 's/^ *server: //p' "$kubeconfig")
  admin=$(sed -n 's/^ *token: //p' "$kubeconfig")
  ca="$dir/sandbox/ca.crt"
  create_all "$work/crds.jsonl"
  api POST /api/v1/namespaces - <<<'{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'$ns'"}}' >/dev/null
  create_all "$rbac"
  scraper_begin
  local token
  token=$(api POST "/api/v1/namespaces/$ns/serviceaccounts/$sa/token" - <<<'{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
    jq -r .status.token)
  [ -n "$token" ] && [ "$token" != null ]
  sed "s|^\( *token:\).*|\1 $token|" "$kubeconfig" >"$dir/operator.kubeconfig"
  cp "$src/config/catalog.yaml" "$dir/catalog.yaml"
  catalog="$dir/catalog.yaml"
  log="$dir/operator.log"
  metrics_port=$(free_port)
  "$build/respool-operator" --kubeconfig "$dir/operator.kubeconfig" --catalog "$catalog" \
    "${args[@]}" --leader-election-retry-period=500ms --metrics-bind-address "127.0.0.1:$metrics_port" \
    --health-probe-bind-address 0 --audit-log "$dir/audit.jsonl" >"$log" 2>&1 &
  identity $! >>"$dir/pids"

  # The refused request, as the API server words it: 'cannot VERB resource "RESOURCE"' (the
  # log escapes its quotes).
  local said="Forbidden \\(403\\).*cannot $verb resource \"$resource\""
  refused=${verb:+${said//\"/\\\\?\"}}
  local outcome=passed logged=no evented=no
  scenarios || outcome=failed
  if [ -n "$verb" ]; then
    grep -Eq "$refused" "$log" && logged=yes
    if $write; then
      for _ in $(seq 15); do # events are written a moment after the reconcile
        get /apis/events.k8s.io/v1/namespaces/default/events |
          jq -e --arg said "$said" '[.items[] | select(.type == "Warning"
            and ((.regarding.apiVersion | startswith("respool.io/")) or .regarding.kind == "Job")
            and (.note | test($said)))]
            | length > 0' >/dev/null && { evented=yes; break; }
        sleep 0.2
      done
    fi
  fi
  printf "%s|%s|%s|%s|%s\n" "$outcome" "$failed_step" "$logged" "$evented" $((SECONDS - started)) \
    >"$dir/result"
  kill_rounds "$dir/pids"
  wait  # both gone before the folder is removed
}


# --- The node agent's round: a sandbox, respool-node-agent on one node with the test NVML
# library, bound by RBAC-JSONL; writes "$work/NAME/result" as round does.
agent_gpus() { # agent_gpus ECC [PID]: eight GPUs, GPU 0 with ECC volatile uncorrectable errors
  # (and process PID at 42 percent)
  jq -n --argjson ecc "$1" --argjson pid "${2:-0}" '{devices: [range(8) as $i | {uuid: "GPU-\($i)",
    name: "NVIDIA H100", eccVolatileUncorrected: (if $i == 0 then $ecc else 0 end),
    powerMilliwatts: 70000,
    processes: (if $i == 0 and $pid > 0 then [{pid: $pid, smUtil: 42}] else [] end)}]}' \
    >"$dir/nvml.json.tmp"
  mv "$dir/nvml.json.tmp" "$dir/nvml.json"
}
agent_condition() { # "status reason" of GPUHealthy on the agent's node
  get "/api/v1/nodes/$agent_node" | jq -r '.status.conditions[] | select(.type == "GPUHealthy") | "\(.status) \(.reason)"'
}
agent_is() { [ "$(agent_condition)" = "$1" ]; }
agent_scenarios() {
  failed_step=""
  wait_for "agent: a reader's scrape answered (TokenReview, SubjectAccessReview)" \
    scraped "$agent_port" '^respool_node_agent_' || return 1
  wait_for "agent: GPUHealthy True on its node" agent_is "True Healthy" || return 1
  agent_gpus 2
  wait_for "agent: GPUHealthy False A050101" agent_is "False A050101" || return 1
  wait_for "agent: the fault's event on the node" event_seen NodeHealthFault "A050101" || return 1
  agent_gpus 0
  wait_for "agent: GPUHealthy True again" agent_is "True Healthy" || return 1
  agent_gpus 2
  wait_for "agent: the repeated fault counted in the event's series" \
    event_seen NodeHealthFault "A050101" 2 || return 1
  # A pod started after the agent (seen only through its watch of the node's pods) uses GPU 0.
  job_pod gpu-user "$agent_node"
  wait_for "agent: a pod on its node runs" agent_pod_cgroup || return 1
  agent_gpus 0 4242
  wait_for "agent: the pod's GPU use on /metrics (its node's pods listed and watched)" \
    agent_container_metric || return 1
}
agent_pod_cgroup() { # the pod's container's cgroup, for pid 4242, once the pod runs
  local pod uid id
  pod=$(get /api/v1/namespaces/default/pods/gpu-user) || return 1
  uid=$(jq -r .metadata.uid <<<"$pod")
  id=$(jq -r '.status.containerStatuses[0].containerID // ""' <<<"$pod")
  [ -n "$id" ] || return 1
  mkdir -p "$dir/host/proc/4242"
  echo "0::/kubepods/besteffort/pod$uid/${id#*://}" >"$dir/host/proc/4242/cgroup"
}
agent_container_metric() {
  curl -sk --max-time 2 -H "Authorization: Bearer $scraper_token" "https://127.0.0.1:$agent_port/metrics" |
    grep '^ma_container_gpu_util{' | grep 'pod="gpu-user"' | has ' 42$'
}
agent_round() { # agent_round NAME RBAC-JSONL [VERB RESOURCE]
  local name=$1 rbac=$2 verb=${3:-} resource=${4:-}
  local dir="$work/$name" started=$SECONDS
  mkdir -p "$dir/host/proc/1"
  "$build/respool-sandbox" --state-dir "$dir/sandbox" --nodes "$src/examples/sandbox-nodes.yaml" \
    >"$dir/sandbox.out" 2>"$dir/sandbox.log" &
  identity $! >>"$dir/pids"
  for _ in $(seq 100); do [ -s "$dir/sandbox.out" ] && break; sleep 0.1; done
  local kubeconfig token
  kubeconfig=$(head -1 "$dir/sandbox.out")
  server=$(sed -n 's/^ *server: //p' "$kubeconfig")
  admin=$(sed -n 's/^ *token: //p' "$kubeconfig")
  ca="$dir/sandbox/ca.crt"
  api POST /api/v1/namespaces - <<<'{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'$ns'"}}' >/dev/null
  create_all "$rbac"
  scraper_begin
  token=$(api POST "/api/v1/namespaces/$ns/serviceaccounts/$agent_sa/token" - <<<'{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
    jq -r .status.token)
  [ -n "$token" ] && [ "$token" != null ]
  sed "s|^\( *token:\).*|\1 $token|" "$kubeconfig" >"$dir/agent.kubeconfig"
  for _ in $(seq 100); do
    agent_node=$(get /api/v1/nodes | jq -r '.items[0].metadata.name // ""')
    [ -n "$agent_node" ] && break
    sleep 0.1
  done
  printf '22 1 8:1 / / rw - ext4 /dev/sda1 rw\n' >"$dir/host/proc/1/mountinfo"
  agent_gpus 0
  agent_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  log="$dir/agent.log"
  RESPOOL_FAKE_NVML_FILE="$dir/nvml.json" "$build/agent/respool-node-agent" \
    --kubeconfig "$dir/agent.kubeconfig" --node-name "$agent_node" \
    --nvml-library "$build/agent/testlibs/libnvidia-ml-fake.so" --host-root "$dir/host" \
    --checks gpu,kubelet-directory --check-period 500ms --state-dir "$dir/state" \
    --metrics-bind-address "127.0.0.1:$agent_port" --metrics-secure --health-probe-bind-address 0 \
    --log-format json >"$log" 2>&1 &
  identity $! >>"$dir/pids"
  local said="Forbidden \\(403\\).*cannot $verb resource \"$resource\""
  refused=${verb:+${said//\"/\\\\?\"}}
  local outcome=passed logged=no
  agent_scenarios || outcome=failed
  [ -n "$verb" ] && grep -Eq "$refused" "$log" && logged=yes
  printf "%s|%s|%s|%s|%s\n" "$outcome" "$failed_step" "$logged" no $((SECONDS - started)) \
    >"$dir/result"
  kill_rounds "$dir/pids"
  wait
}

# --- The rounds, a few at a time: first the chart's RBAC whole, then each permission taken away.
echo "all" >"$work/rounds.txt"
n=0
while read -r o r resource verb; do
  if ! $nodeops && [[ "$verb $resource" =~ $ahead_of_nodeops ]]; then
    echo "  granted ahead of the NodeOperation controller, not proven yet: $(describe $o $r $resource $verb)"
    continue
  fi
  if [[ "$verb $resource" =~ $beyond_sandbox ]]; then
    echo "  granted for Kubernetes 1.35 and later, not provable on the 1.32 sandbox: $(describe $o $r $resource $verb)"
    continue
  fi
  [[ $(describe $o $r $resource $verb) =~ ${RBAC_TEST_ONLY:-.} ]] || continue  # a developer's subset
  n=$((n + 1))
  without "$o" "$r" "$resource" "$verb" >"$work/rbac-$n.jsonl"
  write=false
  # A write made while reconciling; the metrics reviews are made while serving a scrape.
  [[ $verb =~ ^(create|update|patch|delete)$ ]] &&
    ! [[ $resource =~ ^(events|leases|tokenreviews|subjectaccessreviews)$ ]] && write=true
  printf 'without-%s\t%s\t%s\t%s\t%s\n' $n "$verb" "$resource" $write "$(describe $o $r $resource $verb)" \
    >>"$work/rounds.txt"
done <"$work/permissions.txt"
agent=false
[ -s "$work/agent-rbac.jsonl" ] && [ -x "$build/agent/respool-node-agent" ] && agent=true
if $agent; then
  echo "agent-all" >>"$work/rounds.txt"
  while read -r o r resource verb; do
    [[ $(describe $o $r $resource $verb "$work/agent-rbac.jsonl") =~ ${RBAC_TEST_ONLY:-.} ]] || continue
    n=$((n + 1))
    without "$o" "$r" "$resource" "$verb" "$work/agent-rbac.jsonl" >"$work/rbac-$n.jsonl"
    printf 'agent-without-%s\t%s\t%s\t%s\t%s\n' $n "$verb" "$resource" false \
      "$(describe $o $r $resource $verb "$work/agent-rbac.jsonl")" >>"$work/rounds.txt"
  done <"$work/agent-permissions.txt"
fi

running=0
while IFS=$'\t' read -r name verb resource write description; do
  if [ "$name" = all ]; then
    (round all "$work/rbac.jsonl") >"$work/all.out" 2>&1 &
  elif [ "$name" = agent-all ]; then
    (agent_round agent-all "$work/agent-rbac.jsonl") >"$work/agent-all.out" 2>&1 &
  elif [[ $name == agent-without-* ]]; then
    (limit=15; agent_round "$name" "$work/rbac-${name#agent-without-}.jsonl" "$verb" "$resource") \
      >"$work/$name.out" 2>&1 &
  else
    (limit=15; round "$name" "$work/rbac-${name#without-}.jsonl" "$verb" "$resource" "$write") \
      >"$work/$name.out" 2>&1 &
  fi
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done <"$work/rounds.txt"
wait

# --- The verdicts.
show() { # show NAME: what a failed round left
  echo "== $1: $(cat "$work/$1.out" 2>/dev/null | tail -5)"
  grep -hE '"level":"(warn|error)"' "$work/$1/operator.log" "$work/$1/agent.log" 2>/dev/null | head -5 || true
  tail -3 "$work/$1/sandbox.log" 2>/dev/null || true
}
failures=0
IFS='|' read -r outcome step _ _ seconds <"$work/all/result" 2>/dev/null || outcome="no result"
if [ "$outcome" != passed ]; then
  echo "FAIL: with the chart's RBAC: $outcome${step:+ at \"$step\"}"; show all; failures=$((failures + 1))
elif grep -q 'Forbidden (403)' "$work/all/operator.log"; then
  echo "FAIL: a 403 with the chart's RBAC: $(grep -m1 'Forbidden (403)' "$work/all/operator.log")"
  failures=$((failures + 1))
else
  echo "with the chart's RBAC: every scenario passes, no 403 ($seconds s)"
fi
if $agent; then
  IFS='|' read -r outcome step _ _ seconds <"$work/agent-all/result" 2>/dev/null || outcome="no result"
  if [ "$outcome" != passed ]; then
    echo "FAIL: the node agent with the chart's RBAC: $outcome${step:+ at \"$step\"}"; show agent-all
    failures=$((failures + 1))
  elif grep -q 'Forbidden (403)' "$work/agent-all/agent.log"; then
    echo "FAIL: a 403 to the node agent with the chart's RBAC: $(grep -m1 'Forbidden (403)' "$work/agent-all/agent.log")"
    failures=$((failures + 1))
  else
    echo "the node agent with the chart's RBAC: every step passes, no 403 ($seconds s)"
  fi
fi
while IFS=$'\t' read -r name verb resource write description; do
  [ "$name" = all ] || [ "$name" = agent-all ] && continue
  if ! IFS='|' read -r outcome step logged evented seconds <"$work/$name/result" 2>/dev/null; then
    echo "FAIL: without $description: the round did not finish"; show "$name"; failures=$((failures + 1))
  elif [ "$outcome" = passed ]; then
    echo "FAIL: without $description every scenario passes: the chart grants more than needed"
    failures=$((failures + 1))
  elif [ "$logged" != yes ]; then
    echo "FAIL: without $description, \"$step\" fails but the log names no 403 for it"
    show "$name"; failures=$((failures + 1))
  elif $write && [ "$evented" != yes ]; then
    echo "FAIL: without $description, \"$step\" fails, the log says why, but no Warning event on the object"
    show "$name"; failures=$((failures + 1))
  else
    echo "  without $description: \"$step\" fails; $($write && echo "the log and an event name" || echo "the log names") the 403 ($seconds s)"
  fi
done <"$work/rounds.txt"
[ $failures = 0 ] || { echo "FAIL: $failures of $(wc -l <"$work/rounds.txt") rounds"; exit 1; }
echo "rbac_least_privilege: $n permissions, each needed and each missing one reported;" \
  "$((SECONDS - began)) s with $jobs rounds at a time"
