#!/usr/bin/env bash
# The chart's recording rules (helm/respool/rules/ma.rules.yaml) as `helm template --set
# prometheusRules.enabled=true` renders them: `promtool check rules`, and `promtool test rules`
# with test/rules/ma.rules.test.yaml (made-up cAdvisor, kube-state-metrics and node-exporter
# series and the ma_* series they give, the pool, job and task join included). Skips without
# promtool (Debian's prometheus package; scripts/install-deps.sh).
# Usage: promtool_rules.sh SOURCE_DIR
set -euo pipefail
src=${1:?source dir}
command -v promtool >/dev/null || { echo "promtool is not installed: skipped"; exit 0; }
command -v helm >/dev/null && command -v jq >/dev/null || { echo "helm or jq is not installed: skipped"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$src/test/e2e/lib/prometheus.bash"
render_rules "$work/rules.yaml"
promtool check rules "$work/rules.yaml"
cp "$src/test/rules/ma.rules.test.yaml" "$work/"
promtool test rules "$work/ma.rules.test.yaml"
# The source file is a rule file as it is.
promtool check rules "$src/helm/respool/rules/ma.rules.yaml" >/dev/null
echo "promtool_rules: all checks passed"
