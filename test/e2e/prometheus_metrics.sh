#!/usr/bin/env bash
# A real Prometheus (Debian's prometheus package) against the sandbox (issue 28 item 6): it
# scrapes the operator, a node agent, and a stand-in for cAdvisor, kube-state-metrics and
# node-exporter (lib/cluster_exporter.py: the sandbox has none), and evaluates the chart's recording rules
# as `helm template --set prometheusRules.enabled=true` renders them. The example pool gpu-a
# comes up; an 8-worker Indexed training Job runs on one of its GPU nodes, whose test NVML
# library reports each worker's process (lib/gpu_job.bash). Then, in Prometheus:
#   ma_container_gpu_util{job="llm",task="worker-3"} is what the library reports for worker 3
#     (the agent's job label survives the scrape: honor_labels);
#   ma_container_cpu_util{job="llm",task="worker-3"} is the stand-in's known rate over the
#     container's CPU limit, and the memory series its known working set;
#   `kubectl respool top job llm` (the plugin, found by the real kubectl on PATH) prints worker
#     3's GPU use, cpu and memory as Prometheus has them, one row per task and series;
#   every series the Grafana dashboard queries exists.
# Prometheus scrapes the operator's and the agent's secure /metrics as the chart serves them
# (metrics.secure): HTTPS, verified with the CA of the certificate in --metrics-cert-dir, with the
# token of a ServiceAccount bound to the chart's metrics-reader ClusterRole.
# Skips (exit 0) without prometheus and promtool.
# Usage: prometheus_metrics.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
for tool in helm jq curl python3; do
  command -v $tool >/dev/null || { echo "$tool is not installed (scripts/install-deps.sh): skipped"; exit 0; }
done
[ -x "$build/agent/respool-node-agent" ] && [ -f "$build/agent/testlibs/libnvidia-ml-fake.so" ] &&
  [ -x "$build/respool-sandbox" ] && [ -x "$build/respool-operator" ] && [ -x "$build/kubectl-respool" ] ||
  { echo "respool-node-agent, the test NVML, respool-operator, respool-sandbox or kubectl-respool not built: skipped"; exit 0; }
source "$src/test/e2e/lib/sandbox.bash"
source "$src/test/e2e/lib/prometheus.bash"
source "$src/test/e2e/lib/gpu_job.bash"
chart="$src/helm/respool"

# The chart's catalog, arguments, dashboard and rules (a short rate window: 1 s scrapes).
helm template respool "$chart" --namespace respool-system >"$work/chart.yaml"
bash "$src/scripts/yaml-to-json.sh" "$work/chart.yaml" >"$work/chart.jsonl"
jq -r 'select(.kind == "ConfigMap" and (.metadata.name | endswith("-catalog"))) | .data["catalog.yaml"]' \
  "$work/chart.jsonl" >"$work/catalog.yaml"
jq -r 'select(.kind == "ConfigMap" and (.metadata.name | endswith("-dashboard"))) | .data["respool.json"]' \
  "$work/chart.jsonl" >"$work/dashboard.json"
jq -r 'select(.kind == "Deployment") | .spec.template.spec.containers[0].args[]' "$work/chart.jsonl" |
  grep -v -e '^--catalog=' -e '^--metrics-bind-address=' -e '^--health-probe-bind-address=' >"$work/args.txt"
render_rules "$work/rules.yaml" --set prometheusRules.rateWindow=10s

jq -c 'select(.kind == "ClusterRole" and .metadata.labels["app.kubernetes.io/component"] == "metrics-reader")' \
  "$work/chart.jsonl" >"$work/reader.json"
grep -qx -e '--metrics-secure=true' "$work/args.txt" || fail "the chart's operator is not --metrics-secure=true"
# The serving certificate, as cert-manager would mount it: self-signed, so it is its own CA.
mkdir -p "$work/metrics-cert"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj /CN=respool-metrics -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/metrics-cert/tls.key" -out "$work/metrics-cert/tls.crt" 2>/dev/null ||
  fail "openssl cannot make the metrics certificate"

echo "--- the example pool comes up; the training Job runs on one of its GPU nodes"
start_sandbox --nodes "$src/examples/sandbox-nodes.yaml"
install_api
# Prometheus' identity: a ServiceAccount bound to the chart's metrics reader, its token a file.
k create namespace monitoring >/dev/null
k create serviceaccount prometheus -n monitoring >/dev/null
k apply -f "$work/reader.json" >/dev/null
k create clusterrolebinding prometheus-metrics --clusterrole "$(jq -r .metadata.name "$work/reader.json")" \
  --serviceaccount monitoring:prometheus >/dev/null
k create token prometheus -n monitoring --duration 1h >"$work/prometheus.token"
mapfile -t args <"$work/args.txt"
operator_port=$(free_port)
"$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$work/catalog.yaml" "${args[@]}" \
  --metrics-cert-dir "$work/metrics-cert" \
  --leader-election-namespace respool-system --metrics-bind-address "127.0.0.1:$operator_port" \
  --health-probe-bind-address 0 --audit-log "$work/audit.jsonl" >"$work/operator.log" 2>&1 &
track $!
k apply -f "$src/examples/network.yaml" -f "$src/examples/resourcepool.yaml" >/dev/null
wait_pool_running gpu-a
node=$(k get nodes -l respool.io/pool=gpu-a,node.kubernetes.io/instance-type=gpu-8x-a100 \
  -o jsonpath='{.items[0].metadata.name}')
[ -n "$node" ] || fail "gpu-a has no GPU node: $(k get nodes --show-labels)"
training_job llm "$node" 4 8Gi
wait_workers llm
fake_gpu_processes llm
agent_args=(--metrics-secure --metrics-cert-dir "$work/metrics-cert")
start_agent "$node"

echo "--- Prometheus scrapes the operator, the agent and the stand-in cAdvisor, kube-state-metrics and node-exporter"
exporter_port=$(free_port)
python3 "$src/test/e2e/lib/cluster_exporter.py" "$exporter_port" >"$work/exporter.log" 2>&1 &
track $!
secure="scheme: https, authorization: {credentials_file: $work/prometheus.token}, tls_config: {ca_file: $work/metrics-cert/tls.crt}"
start_prometheus "  - {job_name: respool, $secure, static_configs: [{targets: ['127.0.0.1:$operator_port']}]}
  # the agent's series carry their own job label (a training Job's name): honor_labels keeps it
  - {job_name: respool-node-agent, honor_labels: true, $secure, static_configs: [{targets: ['127.0.0.1:$agent_port']}]}
  - {job_name: kubelet, metrics_path: /metrics/cadvisor, static_configs: [{targets: ['127.0.0.1:$exporter_port']}]}
  - {job_name: kube-state-metrics, metrics_path: /metrics/kube-state-metrics, static_configs: [{targets: ['127.0.0.1:$exporter_port']}]}
  # every node's node-exporter in one target: each series names its node's instance
  - {job_name: node-exporter, honor_labels: true, metrics_path: /metrics/node-exporter, static_configs: [{targets: ['127.0.0.1:$exporter_port']}]}" \
  "$work/rules.yaml"

for job in respool respool-node-agent; do
  wait_promql "up{job=\"$job\"} == 1" 60 || fail "Prometheus cannot scrape $job's secure /metrics: $(targets)"
done
echo "  the operator's and the agent's secure /metrics scraped (HTTPS, verified, the reader's token)"
w3='job="llm",task="worker-3"'
wait_promql "ma_container_gpu_util{$w3}" || fail "no ma_container_gpu_util{$w3} in Prometheus: $(promql '{__name__=~"ma_.*"}' | head -c 2000)"
got=$(promql_value "ma_container_gpu_util{$w3}")
[ "$got" = 33 ] || fail "ma_container_gpu_util{$w3} is '$got', the library reports 33"
labels=$(promql "ma_container_gpu_util{$w3}" | jq -c '.[0].metric')
jq -e --arg pod "${worker_pod[3]}" --arg node "$node" '.pool == "gpu-a" and .node == $node and .pod == $pod
  and .container == "train" and .gpu == "3"' <<<"$labels" >/dev/null ||
  fail "ma_container_gpu_util{$w3}'s labels: $labels"
echo "  ma_container_gpu_util{$w3} = $got"
[ "$(promql_value "count(ma_container_gpu_util{job=\"llm\"})")" = 8 ] || fail "not one GPU series per worker"

echo "--- the recording rules give worker 3's cpu and memory"
# The stand-in: worker 3 uses 1 core of its 4 (25%), 1024 of its 8192 MB (12.5%).
near() { # near VALUE WANT: within 2% (a scrape's timestamp is not the instant the counter was read)
  python3 -c 'import sys; v, w = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(v - w) > 0.02 * abs(w))' "$1" "$2"
}
# The rate window (10 s) fills before the rate is the stand-in's.
for _ in $(seq 60); do
  got=$(promql_value "ma_container_cpu_util{$w3}")
  [ -n "$got" ] && near "$got" 25 && break
  sleep 0.5
done
near "${got:-0}" 25 || fail "ma_container_cpu_util{$w3} is '$got', the stand-in's 1 core of 4 is 25: $(promql "{__name__=~\"ma_container_.*|respool:pod:info\",$w3}"); $(promql "container_cpu_usage_seconds_total{pod=\"${worker_pod[3]}\"}"); targets: $(targets); cadvisor: $(curl -s "http://127.0.0.1:$exporter_port/metrics/cadvisor" | head -3)"
echo "  ma_container_cpu_util{$w3} = $got"
labels=$(promql "ma_container_cpu_util{$w3}" | jq -c '.[0].metric')
jq -e --arg pod "${worker_pod[3]}" --arg node "$node" '.pool == "gpu-a" and .node == $node and .pod == $pod
  and .container == "train" and .namespace == "default"' <<<"$labels" >/dev/null ||
  fail "ma_container_cpu_util{$w3}'s labels: $labels"
near "$(promql_value "ma_container_cpu_used_core{$w3}")" 1 || fail "ma_container_cpu_used_core{$w3}"
[ "$(promql_value "ma_container_cpu_limit_core{$w3}")" = 4 ] || fail "ma_container_cpu_limit_core{$w3}"
[ "$(promql_value "ma_container_memory_used_megabytes{$w3}")" = 1024 ] || fail "ma_container_memory_used_megabytes{$w3}"
[ "$(promql_value "ma_container_memory_util{$w3}")" = 12.5 ] || fail "ma_container_memory_util{$w3}"
near "$(promql_value "ma_container_network_receive_bytes{$w3}")" 1000 || fail "ma_container_network_receive_bytes{$w3}"
[ "$(promql_value "count(ma_container_cpu_util{job=\"llm\"})")" = 8 ] || fail "not one cpu series per worker"
# The node rules: the stand-in node-exporter's two CPUs are busy half the time, 4 of 16 GiB free.
n="node=\"$node\",pool=\"gpu-a\""
for _ in $(seq 40); do near "$(promql_value "ma_node_cpu_util{$n}")" 50 2>/dev/null && break; sleep 0.5; done
near "$(promql_value "ma_node_cpu_util{$n}")" 50 || fail "ma_node_cpu_util{$n} is '$(promql_value "ma_node_cpu_util{$n}")', not 50"
[ "$(promql_value "ma_node_cpu_limit_core{$n}")" = 2 ] || fail "ma_node_cpu_limit_core{$n}"
[ "$(promql_value "ma_node_memory_util{$n}")" = 75 ] || fail "ma_node_memory_util{$n}"
echo "  ma_node_cpu_util{$n} = $(promql_value "ma_node_cpu_util{$n}")"
# The per-minute series of 004 (docs/metrics.md) are one query each.
for q in "avg by (job, task) (avg_over_time(ma_container_cpu_util{$w3}[1m]))" \
         "avg by (job, task) (avg_over_time(ma_container_memory_util{$w3}[1m]))" \
         "avg by (job, task) (avg_over_time(ma_container_gpu_util{$w3}[1m]))" \
         "100 * sum by (job, task) (avg_over_time(ma_container_gpu_memory_used_megabytes{$w3}[1m])) / sum by (job, task) (avg_over_time(ma_container_gpu_memory_total_megabytes{$w3}[1m]))"; do
  [ -n "$(promql_value "$q")" ] || fail "004's query returns nothing: $q"
done

echo "--- kubectl respool top job: the same series, per task, over the last hour"
mkdir -p "$work/bin"
ln -s "$(realpath "$build/kubectl-respool")" "$work/bin/kubectl-respool"
export PATH="$work/bin:$PATH"
kubectl respool top job llm -n default --prometheus-url "$prom" | tee "$work/top.txt"
head -1 "$work/top.txt" | grep -Eq '^TASK +SERIES +LATEST +MIN +MAX +LAST-HOUR$' || fail "top columns"
grep -Eq '^worker-3 +gpu_util +33 +33 +33 +▁+$' "$work/top.txt" || fail "worker-3's gpu_util row"
grep -Eq '^worker-3 +gpu_memory_used_megabytes +4096 ' "$work/top.txt" || fail "worker-3's GPU memory row"
row=$(grep -E '^worker-3 +cpu_util ' "$work/top.txt") || fail "no cpu_util row of worker-3"
near "$(awk '{print $3}' <<<"$row")" 25 || fail "worker-3's cpu_util row: $row"
grep -Eq '^worker-3 +memory_used_megabytes +1024 +1024 +1024 ' "$work/top.txt" || fail "worker-3's memory row"
for series in gpu_util cpu_util; do
  [ "$(grep -Ec "^worker-[0-7] +$series " "$work/top.txt")" = 8 ] || fail "not one $series row per task"
done
grep -Eq '^<none> +npu_util +no data' "$work/top.txt" || fail "npu_util is not 'no data'"
RESPOOL_PROMETHEUS_URL=$prom kubectl respool top job llm -o json >"$work/top.json"
[ "$(jq '[.metrics[] | select(.metric == "ma_container_gpu_util") | .series[]] | length' "$work/top.json")" = 8 ] ||
  fail "top -o json (RESPOOL_PROMETHEUS_URL)"
set +e
kubectl respool top job nope --prometheus-url "$prom" >/dev/null 2>"$work/err.txt"; rc=$?
kubectl respool top job llm --prometheus-url "http://127.0.0.1:$(free_port)" >/dev/null 2>"$work/err2.txt"; rc2=$?
set -e
[ $rc = 1 ] && has -x 'Error from server (NotFound): jobs.batch "nope" not found' "$work/err.txt" ||
  fail "top job nope ($rc): $(cat "$work/err.txt")"
[ $rc2 = 1 ] && has '^error: Prometheus at ' "$work/err2.txt" || fail "Prometheus down ($rc2): $(cat "$work/err2.txt")"

echo "--- every series the dashboard queries exists in Prometheus, with the labels it groups by"
# Every counter the dashboard reads exists from the pool's first status on (at 0), so every name
# must have a series here, but for what this run has no hardware for: the agent here reads GPUs
# only (no NPU through the test DCMI, no InfiniBand port in its made-up host tree; the agent's
# own tests cover those).
no_hardware='ma_node_npu_util|ma_node_infiniband_port_received_data_bytes_total|ma_node_infiniband_port_transmitted_data_bytes_total'
jq -r '.. | objects | select(has("expr")) | .expr' "$work/dashboard.json" >"$work/exprs.txt"
jq -r '.templating.list[] | select(.type == "query") | .query | if type == "object" then .query else . end' \
  "$work/dashboard.json" >>"$work/exprs.txt"
checked=0
missing=()
while read -r expr; do
  # the labels it groups by (or a picker reads), each on some series of every name
  groups=$(grep -oE '(by \([^)]*\)|, *[a-z_]+\)$)' <<<"$expr" | sed 's/^by (//; s/^, *//; s/)$//' |
    tr ',' '\n' | tr -d ' ' | grep -vxE 'le|' | sort -u || true)
  for m in $(python3 "$src/test/e2e/lib/promql_names.py" <<<"$expr" | sort -u); do
    checked=$((checked + 1))
    grep -qxE "$no_hardware" <<<"$m" && continue
    if [ -z "$(promql_value "count({__name__=\"$m\"})")" ]; then missing+=("$m (in: $expr)"); continue; fi
    for label in $groups; do
      [ -n "$(promql_value "count({__name__=\"$m\", $label!=\"\"})")" ] ||
        missing+=("$m with a $label label (in: $expr)")
    done
  done
done <"$work/exprs.txt"
# The pickers: pool gpu-a offers the training job llm, and llm its 8 tasks.
vars() { jq -r --arg n "$1" '.templating.list[] | select(.name == $n) | .query.query' "$work/dashboard.json"; }
[ "$(vars trainingjob)" = 'label_values(ma_container_gpu_util{pool=~"$pool"}, job)' ] &&
  [ "$(vars task)" = 'label_values(ma_container_gpu_util{pool=~"$pool", job=~"$trainingjob"}, task)' ] ||
  fail "the dashboard's job and task pickers are not the ones checked here: $(vars trainingjob) $(vars task)"
[ "$(promql_value 'count(count by (job) (ma_container_gpu_util{pool=~"gpu-a"}))')" = 1 ] ||
  fail "the job picker of gpu-a does not offer llm alone"
[ "$(promql_value 'count(count by (task) (ma_container_gpu_util{pool=~"gpu-a", job=~"llm"}))')" = 8 ] ||
  fail "the task picker of llm does not offer its 8 tasks"
[ "$checked" -ge 20 ] || fail "only $checked series names in the dashboard's queries"
[ ${#missing[@]} -eq 0 ] || fail "the dashboard queries series Prometheus does not have: ${missing[*]}"
echo "  $checked series names of $(wc -l <"$work/exprs.txt") queries exist, with the labels they group by (no NPU and InfiniBand series here)"
echo "prometheus_metrics: all checks passed"
