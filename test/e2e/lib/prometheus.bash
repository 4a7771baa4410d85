# A real Prometheus for the e2e scripts (sourced, after lib/sandbox.bash: uses $work, track,
# fail). Debian's `prometheus` package (scripts/install-deps.sh) carries prometheus and promtool;
# without it the script skips.
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "prometheus or promtool is not installed (scripts/install-deps.sh): skipped"
  exit 0
fi

# free_port: a TCP port of 127.0.0.1 nobody listens on now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# render_rules OUT [helm --set flags...]: the chart's recording rules (the PrometheusRule's spec,
# as `helm template --set prometheusRules.enabled=true` renders it) as a Prometheus rule file.
render_rules() {
  local out=$1; shift
  helm template respool "$src/helm/respool" --set prometheusRules.enabled=true "$@" \
    --show-only templates/prometheusrule.yaml >"$out.rendered.yaml" ||
    fail "helm template renders no PrometheusRule"
  # YAML is JSON's superset: the spec as JSON is a rule file.
  bash "$src/scripts/yaml-to-json.sh" "$out.rendered.yaml" | jq '.spec' >"$out"
  promtool check rules "$out" >/dev/null || fail "promtool check rules: $(promtool check rules "$out" 2>&1)"
}

# start_prometheus SCRAPE_CONFIGS_YAML [RULE_FILE...]: Prometheus on a free port of 127.0.0.1,
# scraping and evaluating every second, its storage under $work; killed on exit. The scrape
# configs are the YAML list of scrape_configs (indented for the key). Sets $prom (its URL).
start_prometheus() {
  local scrapes=$1; shift
  local port; port=$(free_port)
  {
    echo "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}"
    echo "rule_files:"
    for r in "$@"; do echo "  - $r"; done
    [ $# -gt 0 ] || echo "  []"
    echo "scrape_configs:"
    echo "$scrapes"
  } >"$work/prometheus.yml"
  promtool check config "$work/prometheus.yml" >/dev/null ||
    fail "promtool check config: $(promtool check config "$work/prometheus.yml" 2>&1)"
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prometheus-data" \
    --web.listen-address="127.0.0.1:$port" --log.level=warn >"$work/prometheus.log" 2>&1 &
  track $!
  prom=http://127.0.0.1:$port
  for _ in $(seq 100); do curl -sf "$prom/-/ready" >/dev/null 2>&1 && return 0; sleep 0.2; done
  fail "prometheus is not ready on $prom"
}

# promql QUERY: the instant query's result vector as JSON ([] when empty).
promql() {
  curl -sf --max-time 5 "$prom/api/v1/query" --data-urlencode "query=$1" | jq -c '.data.result'
}
# promql_value QUERY: the first sample's value of the instant query ('' when none).
promql_value() {
  promql "$1" | jq -r '.[0].value[1] // empty'
}
# wait_promql QUERY [TRIES]: waits (0.5 s a try) until the query returns a sample.
wait_promql() {
  for _ in $(seq "${2:-120}"); do [ -n "$(promql_value "$1")" ] && return 0; sleep 0.5; done
  return 1
}
# targets: each scrape target's job, health and last error, one a line.
targets() {
  curl -sf --max-time 5 "$prom/api/v1/targets" |
    jq -r '.data.activeTargets[] | "\(.labels.job) \(.health) \(.lastError)"'
}
