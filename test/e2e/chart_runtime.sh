#!/usr/bin/env bash
# What the chart hands the operator works with the operator: the catalog of the chart's
# defaults and that of the non-default values (test/e2e/fixtures/helm-values.yaml) are accepted;
# run with the chart's default arguments and catalog, the operator brings the example pool up;
# and every metric the Grafana dashboard queries, with every label it groups by, is one the
# operator exports (Prometheus' own target labels aside).
# Usage: chart_runtime.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
for tool in helm jq curl; do
  command -v $tool >/dev/null || { echo "$tool is not installed (scripts/install-deps.sh): skipped"; exit 0; }
done
source "$src/test/e2e/lib/sandbox.bash"
chart="$src/helm/respool"

# chart_object NAME KIND SUFFIX [helm args...]: one rendered object as JSON.
chart_object() {
  local name=$1 kind=$2 suffix=$3; shift 3
  helm template respool "$chart" --namespace respool-system "$@" >"$work/$name.rendered.yaml"
  bash "$src/scripts/yaml-to-json.sh" "$work/$name.rendered.yaml" |
    jq -c --arg k "$kind" --arg s "$suffix" 'select(.kind == $k and (.metadata.name | endswith($s)))'
}
chart_object default-catalog ConfigMap -catalog | jq -r '.data["catalog.yaml"]' >"$work/catalog.yaml"
chart_object custom-catalog ConfigMap -catalog -f "$src/test/e2e/fixtures/helm-values.yaml" |
  jq -r '.data["catalog.yaml"]' >"$work/custom-catalog.yaml"
chart_object deployment Deployment respool | jq -r '.spec.template.spec.containers[0].args[]' \
  >"$work/args.txt"
chart_object dashboard ConfigMap -dashboard | jq -r '.data["respool.json"]' >"$work/dashboard.json"

start_sandbox --nodes "$src/examples/sandbox-nodes.yaml"
install_api

echo "--- the custom values' catalog is accepted"
"$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$work/custom-catalog.yaml" \
  --metrics-bind-address 0 --health-probe-bind-address 0 --log-format json \
  --audit-log "$work/audit-custom.jsonl" >"$work/custom.log" 2>&1 &
custom=$!
track "$custom"
for _ in $(seq 100); do grep -q '"controllers registered"' "$work/custom.log" && break; sleep 0.1; done
grep -q '"controllers registered"' "$work/custom.log" || fail "the custom catalog was refused"
kill "$custom"
wait "$custom" || true

echo "--- the chart's arguments and default catalog run the example pool"
# The chart's arguments, with the catalog's path and the ports of this machine.
mapfile -t args < <(grep -v -e '^--catalog=' -e '^--metrics-bind-address=' \
  -e '^--health-probe-bind-address=' "$work/args.txt")
"$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$work/catalog.yaml" \
  "${args[@]}" --leader-election-namespace respool-system \
  --metrics-bind-address 127.0.0.1:0 --health-probe-bind-address 127.0.0.1:0 \
  --audit-log "$work/audit.jsonl" >"$work/operator.log" 2>&1 &
track $!
k apply -f "$src/examples/network.yaml" -f "$src/examples/resourcepool.yaml" >/dev/null
wait_pool_running gpu-a
port=$(grep -m1 '"starting"' "$work/operator.log" | grep -o '"metricsPort":[0-9]*' | cut -d: -f2)
health=$(grep -m1 '"starting"' "$work/operator.log" | grep -o '"healthPort":[0-9]*' | cut -d: -f2)
curl -sf "http://127.0.0.1:$health/readyz" >/dev/null || fail "/readyz is not ok"
curl -sf "http://127.0.0.1:$health/healthz" >/dev/null || fail "/healthz is not ok"

echo "--- every metric and label of the dashboard is exported"
# The chart's /metrics is secure (metrics.secure): HTTPS, read with the cluster admin's token
# (system:masters may get /metrics). The inventory gauge is recounted at most once a second:
# scrape until it shows.
grep -qx -e '--metrics-secure=true' "$work/args.txt" || fail "the chart's operator is not --metrics-secure=true"
admin_token=$(sed -n 's/^ *token: //p' "$KUBECONFIG" | head -1)
code=$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/metrics")
[ "$code" = 401 ] || fail "/metrics without a token answered $code, not 401"
for _ in $(seq 50); do
  curl -sfk -H "Authorization: Bearer $admin_token" "https://127.0.0.1:$port/metrics" >"$work/metrics.txt"
  grep -q '^respool_free_nodes{' "$work/metrics.txt" && break
  sleep 0.2
done
jq -r '.panels[].targets[]?.expr' "$work/dashboard.json" >"$work/exprs.txt"
[ "$(wc -l <"$work/exprs.txt")" -ge 10 ] || fail "the dashboard has $(wc -l <"$work/exprs.txt") queries"
checked=0
while read -r expr; do
  # The accelerator and task panels read the node agents' and the recording rules' ma_* series:
  # prometheus_metrics.sh checks those in a real Prometheus.
  if grep -qE '\bma_[a-z_]+' <<<"$expr"; then continue; fi
  metrics=$(grep -oE '\b(respool|controller_runtime|workqueue|rest_client|leader_election)_[a-z_]+' <<<"$expr" | sort -u)
  [ -n "$metrics" ] || fail "no respool metric in: $expr"
  groups=$(grep -oE 'by \([^)]*\)' <<<"$expr" | sed 's/by (//; s/)//' | tr ',' '\n' | tr -d ' ' | sort -u |
    grep -vxE 'le|instance|job|pod|namespace' || true)
  for m in $metrics; do
    grep -qE "^$m(\{| )" "$work/metrics.txt" || fail "the dashboard queries $m, which the operator does not export: $expr"
    for label in $groups; do
      grep -qE "^$m\{(.*,)?$label=\"" "$work/metrics.txt" ||
        fail "the dashboard groups $m by $label, which it does not carry: $expr"
    done
    checked=$((checked + 1))
  done
done <"$work/exprs.txt"
echo "chart_runtime: all checks passed ($checked dashboard metrics)"
