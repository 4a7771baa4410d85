#!/usr/bin/env bash
# The Helm chart and the kustomize base, without a cluster: `helm lint --strict` with the
# default and with non-default values (test/e2e/fixtures/helm-values.yaml); `helm template` of
# both parsed object by object, with what the chart promises checked on the objects (standard
# labels with the release as instance, least-privilege RBAC without wildcards or Secrets, a
# hardened Deployment, the values reaching the objects); values the schema must refuse;
# `kubectl kustomize deploy/` equal to the chart's defaults. That the objects are kinds the
# sandbox serves, and valid there, is test/e2e/helm_dry_run.sh.
# Usage: helm_chart.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
src=${2:?source dir}
for tool in helm kubectl jq; do
  command -v $tool >/dev/null || { echo "$tool is not installed (scripts/install-deps.sh): skipped"; exit 0; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
chart="$src/helm/respool"
custom="$src/test/e2e/fixtures/helm-values.yaml"

echo "--- helm lint --strict"
helm lint --strict "$chart" >"$work/lint.txt" 2>&1 || fail "helm lint: $(cat "$work/lint.txt")"
helm lint --strict "$chart" -f "$custom" >"$work/lint.txt" 2>&1 ||
  fail "helm lint with $custom: $(cat "$work/lint.txt")"

echo "--- helm template, every object parsed"
# render NAME [helm args...]: the objects as JSON lines in $work/NAME.jsonl.
render() {
  local name=$1; shift
  helm template "$@" "$chart" >"$work/$name.yaml" 2>"$work/$name.err" ||
    fail "helm template $*: $(cat "$work/$name.err")"
  bash "$src/scripts/yaml-to-json.sh" "$work/$name.yaml" >"$work/$name.jsonl" ||
    fail "$name: a rendered document does not parse"
  local bad
  bad=$(jq -r 'select((.apiVersion | type) != "string" or (.kind | type) != "string"
                      or (.metadata.name | type) != "string") | tojson' "$work/$name.jsonl")
  [ -z "$bad" ] || fail "$name: objects without apiVersion, kind or name: $bad"
  echo "  $name: $(jq -r .kind "$work/$name.jsonl" | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}')"
}
render default respool --namespace respool-system --include-crds
render custom gpu --namespace ops -f "$custom"

# check NAME 'jq filter over all objects (slurped) that yields failure lines'
check() {
  local out
  out=$(jq -r -s "$2" "$work/$1.jsonl") || fail "$1: jq: $2"
  [ -z "$out" ] || fail "$1: $out"
}
labels='.metadata.labels // {} | ["app.kubernetes.io/name", "app.kubernetes.io/instance",
  "app.kubernetes.io/version", "app.kubernetes.io/component", "app.kubernetes.io/part-of",
  "app.kubernetes.io/managed-by"] - keys'
for name in default custom; do
  release=$([ $name = default ] && echo respool || echo gpu)
  check $name ".[] | select(.kind != \"CustomResourceDefinition\")
    | select(($labels | length) > 0 or .metadata.labels[\"app.kubernetes.io/instance\"] != \"$release\")
    | \"\(.kind)/\(.metadata.name): standard labels missing: \($labels)\""
  check $name '.[] | select(.kind == "ClusterRole" or .kind == "Role") | .metadata.name as $n
    | .rules[] | select((.verbs + .resources + .apiGroups) | any(. == "*" or . == "secrets"))
    | "\($n): a wildcard or Secrets in \(tojson)"'
  check $name '.[] | select(.kind == "Deployment") | .spec.template.spec as $p
    | $p.containers[0] as $c
    | [($p.securityContext.runAsNonRoot == true) // false,
       $p.securityContext.seccompProfile.type == "RuntimeDefault",
       $c.securityContext.readOnlyRootFilesystem == true,
       $c.securityContext.allowPrivilegeEscalation == false,
       $c.securityContext.capabilities.drop == ["ALL"],
       ($c.livenessProbe.httpGet.path == "/healthz"), ($c.readinessProbe.httpGet.path == "/readyz"),
       ($c.resources.requests.memory != null), ($c.resources.limits.memory != null)]
    | select(all | not) | "Deployment not hardened: \(.)"'
  # Every ServiceAccount a binding names is the one the Deployment (or, for the node agent's
  # bindings, the DaemonSet) runs as.
  check $name '(.[] | select(.kind == "Deployment") | .spec.template.spec.serviceAccountName) as $sa
    | ([.[] | select(.kind == "DaemonSet") | .spec.template.spec.serviceAccountName][0] // "") as $agent
    | .[] | select(.kind == "RoleBinding" or .kind == "ClusterRoleBinding")
    | select(.metadata.labels["app.kubernetes.io/component"] != "metrics-reader")
    | (if .metadata.labels["app.kubernetes.io/component"] == "node-agent" then $agent else $sa end) as $want
    | .subjects[] | select(.name != $want) | "binding subject \(.name), the pods run as \($want)"'
  # The node agent (nodeAgent.enabled, default true): on pool nodes only, tolerating respool's
  # taints, a read-only root, host paths read-only but its state directory, NODE_NAME.
  check $name '.[] | select(.kind == "DaemonSet") | .spec.template.spec as $p | $p.containers[0] as $c
    | [($p.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]
        == {"key": "respool.io/pool", "operator": "Exists"}),
       ([$p.tolerations[].key] | index("respool.io/pool") != null and index("isolation.respool.io/A050101") != null
        and index("isolation.respool.io/A200008") != null),
       $c.securityContext.readOnlyRootFilesystem == true,
       ([$c.volumeMounts[] | select(.readOnly != true) | .mountPath] == ["/var/lib/respool-node-agent"]),
       ([$p.volumes[] | select(.hostPath) | .name] - ["host-sys", "host-proc", "state", "ascend-driver"] == []),
       ($c.env[0] == {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}),
       ($c.livenessProbe.httpGet.path == "/healthz"), ($c.resources.limits.memory != null),
       ($c.command == ["/usr/local/bin/respool-node-agent"])]
    | select(all | not) | "node agent DaemonSet: \(.)"'
  # Its RBAC is exactly: get nodes, patch nodes/status, list and watch pods (its node's, for
  # the container usage metrics), create tokenreviews and subjectaccessreviews (its secure
  # /metrics, metrics.secure by default), create and patch events in default.
  check $name '[.[] | select((.kind == "ClusterRole" or .kind == "Role")
      and .metadata.labels["app.kubernetes.io/component"] == "node-agent")
    | {ns: (.metadata.namespace // ""), rules}]
    | select(. != [{ns: "", rules: [{apiGroups: [""], resources: ["nodes"], verbs: ["get"]},
                                    {apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"]},
                                    {apiGroups: [""], resources: ["pods"], verbs: ["list", "watch"]},
                                    {apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"]},
                                    {apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"]}]},
                   {ns: "default", rules: [{apiGroups: ["events.k8s.io"], resources: ["events"],
                                            verbs: ["create", "patch"]}]}])
    | "node agent RBAC: \(tojson)"'
done
check default 'map(select(.kind == "DaemonSet")) | select(length != 1) | "no node agent DaemonSet by default"'
render no-agent respool --namespace respool-system --set nodeAgent.enabled=false
check no-agent '.[] | select(.metadata.labels["app.kubernetes.io/component"] == "node-agent")
  | "\(.kind)/\(.metadata.name) though nodeAgent.enabled=false"'
render agent-runtime respool --namespace respool-system --set nodeAgent.runtimeClassName=nvidia \
  --set nodeAgent.ascendDriverPath=/usr/local/Ascend/driver --set nodeAgent.privileged=true
check agent-runtime '.[] | select(.kind == "DaemonSet") | .spec.template.spec as $p
  | [$p.runtimeClassName == "nvidia", $p.containers[0].securityContext.privileged == true,
     ($p.containers[0].args | index("--dcmi-library=/host-ascend/lib64/driver/libdcmi.so") != null),
     ([$p.volumes[] | select(.name == "ascend-driver") | .hostPath.path] == ["/usr/local/Ascend/driver"])]
  | select(all | not) | "node agent values not applied: \(.)"'

echo "--- the defaults: 2 replicas with leader election, spread, PDB, no ServiceMonitor"
check default '[.[] | select(.kind == "Deployment")][0] as $d | $d.spec.template.spec.containers[0].args as $a
  | [($d.spec.replicas == 2), ($a | index("--leader-elect=true") != null),
     ($d.spec.template.spec.topologySpreadConstraints | length == 2),
     ($d.spec.template.spec.topologySpreadConstraints[0].labelSelector.matchLabels["app.kubernetes.io/instance"] == "respool")]
  | select(all | not) | "Deployment: \(.)"'
check default 'map(.kind) as $k | ["PodDisruptionBudget", "ServiceAccount", "Service", "ClusterRole",
  "ClusterRoleBinding", "Role", "RoleBinding", "ConfigMap", "Deployment", "CustomResourceDefinition"] - $k
  | select(length > 0) | "missing kinds: \(.)"'
check default 'map(select(.kind == "ServiceMonitor")) | select(length > 0) | "a ServiceMonitor by default"'
check default 'map(select(.kind == "PrometheusRule")) | select(length > 0) | "a PrometheusRule by default"'
# prometheusRules.enabled: the rules of rules/ma.rules.yaml, with the rate window and labels given.
render rules respool --namespace respool-system --set prometheusRules.enabled=true \
  --set prometheusRules.rateWindow=2m --set prometheusRules.labels.release=kube-prometheus-stack
check rules '.[] | select(.kind == "PrometheusRule") | [.spec.groups[].rules[]] as $r
  | [.metadata.labels.release == "kube-prometheus-stack", .metadata.namespace == "respool-system",
     ($r | map(.record) | index("ma_container_cpu_util") != null),
     ($r | map(.record) | index("ma_node_cpu_util") != null),
     ($r | map(.expr) | map(select(test("\\[5m\\]"))) | length == 0),
     ($r | map(.expr) | map(select(test("\\[2m\\]"))) | length > 10)]
  | select(all | not) | "PrometheusRule: \(.)"'
check rules 'map(select(.kind == "PrometheusRule")) | select(length != 1) | "no PrometheusRule"'
check default 'map(select(.kind == "PodMonitor")) | select(length > 0) | "a PodMonitor by default"'
# nodeAgent.podMonitor.enabled: the agents' pods, their metrics port, honorLabels (the job label).
render podmonitor respool --namespace respool-system --set nodeAgent.podMonitor.enabled=true \
  --set nodeAgent.podMonitor.labels.release=kube-prometheus-stack
check podmonitor '[.[] | select(.kind == "DaemonSet")][0] as $d | .[] | select(.kind == "PodMonitor")
  | [.metadata.labels.release == "kube-prometheus-stack",
     .spec.selector.matchLabels == $d.spec.selector.matchLabels,
     .spec.podMetricsEndpoints == [{port: "https-metrics", path: "/metrics", interval: "30s", honorLabels: true,
       scheme: "https", authorization: {type: "Bearer", credentials: {name: "respool-metrics-scraper-token", key: "token"}},
       tlsConfig: {insecureSkipVerify: true}}],
     ([$d.spec.template.spec.containers[0].ports[] | select(.name == "https-metrics")] | length == 1)]
  | select(all | not) | "PodMonitor: \(.)"'
check podmonitor 'map(select(.kind == "PodMonitor")) | select(length != 1) | "no PodMonitor"'
render podmonitor-no-agent respool --namespace respool-system --set nodeAgent.podMonitor.enabled=true \
  --set nodeAgent.enabled=false
check podmonitor-no-agent 'map(select(.kind == "PodMonitor")) | select(length > 0) | "a PodMonitor without agents"'
check default '.[] | select(.kind == "ConfigMap" and (.metadata.name | endswith("-dashboard")))
  | select(.metadata.labels.grafana_dashboard != "1" or (.data["respool.json"] | fromjson | .panels | length) < 10)
  | "dashboard ConfigMap: sidecar label or panels missing"'
crds=$(jq -r 'select(.kind == "CustomResourceDefinition") | .metadata.name' "$work/default.jsonl" | sort | tr '\n' ' ')
[ "$crds" = "diagnoses.respool.io networks.respool.io nodeoperations.respool.io resourcepools.respool.io " ] ||
  fail "CRDs in the chart: $crds"

check default 'map(.kind) | select(index("ValidatingAdmissionPolicy") == null) | "no admission policy by default"'
# The oldest Kubernetes the chart supports has no ValidatingAdmissionPolicy (GA in 1.30): the
# install leaves it out instead of failing with "no matches for kind".
render kube129 respool --namespace respool-system --kube-version 1.29.8
jq -r .kind "$work/kube129.jsonl" | grep -qx ValidatingAdmissionPolicy &&
  fail "Kubernetes 1.29: a ValidatingAdmissionPolicy rendered"
render kube130 respool --namespace respool-system --kube-version v1.30.2-eks-1234
jq -r .kind "$work/kube130.jsonl" | grep -qx ValidatingAdmissionPolicy ||
  fail "Kubernetes 1.30: no ValidatingAdmissionPolicy"

echo "--- non-default values reach the objects"
check custom '[.[] | select(.kind == "Deployment")][0] as $d | $d.spec.template.spec as $p
  | $p.containers[0] as $c
  | {replicas: ($d.spec.replicas == 1), name: ($d.metadata.name == "gpu-pools"),
     image: ($c.image == "registry.internal/platform/respool-operator@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
     pull: ($c.imagePullPolicy == "Always"), secrets: ($p.imagePullSecrets == [{"name": "regcred"}]),
     sa: ($p.serviceAccountName == "respool-sa"),
     args: (["--leader-elect=false", "--leader-election-id=pools-lease", "--workers=4",
             "--log-level=debug", "--log-format=text", "--job-selector=app.kubernetes.io/component=job",
             "--kube-api-qps=0", "--metrics-bind-address=:9090", "--health-probe-bind-address=:9091",
             "--graceful-shutdown-timeout=1m30s", "--namespace=gpu-plugins"] - $c.args == []),
     grace: ($p.terminationGracePeriodSeconds == 100),
     env: ($c.env | map(.name) == ["POD_NAMESPACE", "TZ"]),
     scheduling: ($p.nodeSelector != null and $p.tolerations != null and $p.affinity != null
                  and $p.priorityClassName == "system-cluster-critical" and $p.topologySpreadConstraints == null),
     pod: ($d.spec.template.metadata.annotations["example.com/owner"] == "platform"
           and $d.spec.template.metadata.labels.tier == "control"),
     resources: ($c.resources.limits.memory == "4Gi")}
  | to_entries | map(select(.value | not) | .key) | select(length > 0) | "Deployment: not as set: \(.)"'
check custom 'map(select(.kind == "PodDisruptionBudget")) | select(length > 0) | "a PDB though disabled"'
check custom '.[] | select(.kind == "ServiceMonitor")
  | select(.metadata.labels.release != "kube-prometheus-stack" or .spec.endpoints[0].interval != "15s"
           or .spec.endpoints[0].port != "https-metrics" or (.spec.endpoints[0].metricRelabelings | length) != 1)
  | "ServiceMonitor: \(tojson)"'
check custom 'map(select(.kind == "ServiceMonitor")) | select(length != 1) | "no ServiceMonitor"'
check custom '.[] | select(.kind == "Service") | select(.spec.ports[0].port != 9443
  or .metadata.annotations["prometheus.io/scrape"] != "true") | "Service: \(tojson)"'
check custom '.[] | select(.kind == "ConfigMap" and (.metadata.name | endswith("-dashboard")))
  | select(.metadata.namespace != "monitoring" or .metadata.annotations.grafana_folder != "respool")
  | "dashboard ConfigMap: \(.metadata)"'
check custom '.[] | select(.kind == "ConfigMap" and (.metadata.name | endswith("-catalog")))
  | select(.data["catalog.yaml"] | contains("p5.48xlarge") | not) | "catalog not the given one"'
check custom '.[] | select(.kind == "Role" and (.rules[0].resourceNames // [] | index("pools-lease") | not)
  and (.metadata.name | endswith("leader-election"))) | "Lease Role does not name pools-lease"'
check custom '.[] | select(.metadata.labels.team != "platform") | "\(.kind): commonLabels missing"'
check custom '.[] | select(.kind == "ServiceAccount" and .metadata.labels["app.kubernetes.io/component"] == "operator")
  | select(.metadata.annotations["iam.example/role"] != "respool") | "ServiceAccount annotations"'

echo "--- secure metrics (metrics.secure, the default): HTTPS on 8443, reviews, the reader role"
# The operator and each agent review every scraper (TokenReview, SubjectAccessReview); whoever
# scrapes is bound to <release>-metrics-reader, which grants get on /metrics and nothing else.
review_rules='[{apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"]},
  {apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"]}]'
check default "[.[] | select(.kind == \"Deployment\")][0].spec.template.spec.containers[0] as \$c
  | [.[] | select(.kind == \"Service\" and .metadata.name == \"respool-metrics\")][0] as \$svc
  | [.[] | select(.kind == \"ClusterRole\" and .metadata.name == \"respool\")][0].rules as \$rules
  | [.[] | select(.kind == \"ClusterRole\" and .metadata.name == \"respool-metrics-reader\")][0] as \$reader
  | [(\$c.args | index(\"--metrics-secure=true\") != null), (\$c.args | index(\"--metrics-bind-address=:8443\") != null),
     (\$c.args | index(\"--metrics-auth-cache-ttl=1m\") != null),
     (\$c.ports[0] == {name: \"https-metrics\", containerPort: 8443, protocol: \"TCP\"}),
     (\$svc.spec.ports == [{name: \"https-metrics\", port: 8443, targetPort: \"https-metrics\", protocol: \"TCP\"}]),
     (\$rules[-2:] == $review_rules),
     (\$reader.rules == [{nonResourceURLs: [\"/metrics\"], verbs: [\"get\"]}]),
     (\$reader.metadata.labels[\"app.kubernetes.io/component\"] == \"metrics-reader\")]
  | select(all | not) | \"secure metrics by default: \\(.)\""
check default 'map(select(.kind == "ServiceAccount" or .kind == "Secret" or .kind == "NetworkPolicy"
  or (.kind == "ClusterRoleBinding" and (.metadata.name | test("metrics")))) | "\(.kind)/\(.metadata.name)")
  - ["ServiceAccount/respool", "ServiceAccount/respool-node-agent"] | select(length > 0)
  | "rendered by default though no monitor or subject asks: \(.)"'
render plain respool --namespace respool-system --set metrics.secure=false --set metrics.port=8080 \
  --set metrics.service.port=8080 --set serviceMonitor.enabled=true --set nodeAgent.podMonitor.enabled=true
check plain '[.[] | select(.kind == "Deployment")][0].spec.template.spec.containers[0] as $c
  | [.[] | select(.kind == "DaemonSet")][0].spec.template.spec.containers[0] as $a
  | [.[] | select(.kind == "ServiceMonitor")][0].spec.endpoints[0] as $sm
  | [.[] | select(.kind == "PodMonitor")][0].spec.podMetricsEndpoints[0] as $pm
  | [($c.args | index("--metrics-secure=false") != null), ($a.args | index("--metrics-secure=false") != null),
     ($c.args | map(select(startswith("--metrics-auth") or startswith("--metrics-cert"))) == []),
     ($c.ports[0].name == "http-metrics"), ($sm.port == "http-metrics"), ($sm.scheme == null),
     ($sm.authorization == null), ($pm.port == "http-metrics"), ($pm.scheme == null),
     ([.[] | select(.kind == "ClusterRole") | .rules[] | .resources // [] | .[]
       | select(. == "tokenreviews" or . == "subjectaccessreviews")] == []),
     ([.[] | select(.metadata.labels["app.kubernetes.io/component"] == "metrics-reader")] == [])]
  | select(all | not) | "metrics.secure=false: \(.)"'
# The monitors scrape HTTPS with the scraper ServiceAccount's token; a self-signed certificate is
# not verified, a certSecret's is (its ca.crt, the Service's name).
render monitors respool --namespace respool-system --set serviceMonitor.enabled=true \
  --set nodeAgent.podMonitor.enabled=true --set metrics.certSecret=respool-metrics-tls \
  --set nodeAgent.metricsCertSecret=respool-agent-tls \
  --set 'metrics.reader.subjects[0].kind=ServiceAccount' --set 'metrics.reader.subjects[0].name=prometheus-k8s' \
  --set 'metrics.reader.subjects[0].namespace=monitoring'
check monitors '[.[] | select(.kind == "ServiceMonitor")][0].spec.endpoints[0] as $sm
  | [.[] | select(.kind == "PodMonitor")][0].spec.podMetricsEndpoints[0] as $pm
  | [.[] | select(.kind == "Deployment")][0].spec.template.spec as $d
  | [.[] | select(.kind == "DaemonSet")][0].spec.template.spec as $a
  | {token: {type: "Bearer", credentials: {name: "respool-metrics-scraper-token", key: "token"}}} as $want
  | [($sm.scheme == "https"), ($sm.authorization == $want.token),
     ($sm.tlsConfig == {ca: {secret: {name: "respool-metrics-tls", key: "ca.crt"}},
                        serverName: "respool-metrics.respool-system.svc"}),
     ($pm.scheme == "https"), ($pm.authorization == $want.token),
     ($pm.tlsConfig == {ca: {secret: {name: "respool-agent-tls", key: "ca.crt"}}}),
     ($d.containers[0].args | index("--metrics-cert-dir=/etc/respool-metrics-cert") != null),
     ($d.volumes | map(select(.name == "metrics-cert")) == [{name: "metrics-cert", secret: {secretName: "respool-metrics-tls"}}]),
     ($a.containers[0].args | index("--metrics-cert-dir=/etc/respool-metrics-cert") != null),
     ($a.volumes | map(select(.name == "metrics-cert")) == [{name: "metrics-cert", secret: {secretName: "respool-agent-tls"}}]),
     ([.[] | select(.kind == "Secret")][0] | .type == "kubernetes.io/service-account-token"
        and .metadata.annotations["kubernetes.io/service-account.name"] == "respool-metrics-scraper"),
     ([.[] | select(.kind == "ClusterRoleBinding" and .metadata.name == "respool-metrics-scraper")][0]
        | .roleRef.name == "respool-metrics-reader"
          and .subjects == [{kind: "ServiceAccount", name: "respool-metrics-scraper", namespace: "respool-system"}]),
     ([.[] | select(.kind == "ClusterRoleBinding" and .metadata.name == "respool-metrics-reader")][0]
        | .subjects == [{kind: "ServiceAccount", name: "prometheus-k8s", namespace: "monitoring"}])]
  | select(all | not) | "secure monitors: \(.)"'
render self-signed respool --namespace respool-system --set serviceMonitor.enabled=true
check self-signed '[.[] | select(.kind == "ServiceMonitor")][0].spec.endpoints[0].tlsConfig
  | select(. != {insecureSkipVerify: true}) | "self-signed ServiceMonitor tlsConfig: \(tojson)"'
render netpol respool --namespace respool-system --set networkPolicy.enabled=true
check netpol '[.[] | select(.kind == "NetworkPolicy") | {name: .metadata.name, port: .spec.ingress[0].ports[0].port,
    from: .spec.ingress[0].from, types: .spec.policyTypes}]
  | select(. != [{name: "respool-metrics", port: 8443, from: [{namespaceSelector: {matchLabels: {metrics: "enabled"}}}], types: ["Ingress"]},
                 {name: "respool-node-agent-metrics", port: 9464, from: [{namespaceSelector: {matchLabels: {metrics: "enabled"}}}], types: ["Ingress"]}])
  | "NetworkPolicies: \(tojson)"'

echo "--- values the schema refuses"
refuse() { # refuse WHY helm-args...
  local why=$1; shift
  if helm template x "$chart" "$@" >/dev/null 2>"$work/refused.txt"; then fail "accepted: $why ($*)"; fi
  grep -q "$why" "$work/refused.txt" || fail "refused $* without \"$why\": $(cat "$work/refused.txt")"
}
refuse 'Additional property replicas is not allowed' --set replicas=3
refuse 'logLevel must be one of' --set operator.logLevel=verbose
refuse 'workers: Must be greater than or equal to 1' --set operator.workers=0
refuse 'leaseDuration: Does not match pattern' --set-string leaderElection.leaseDuration=15
refuse 'nodeAgent.checks.1 must be one of' --set 'nodeAgent.checks={gpu,nvlink}'
refuse 'nodeAgent.checkPeriod: Does not match pattern' --set-string nodeAgent.checkPeriod=30
refuse 'prometheusRules.rateWindow: Does not match pattern' --set-string prometheusRules.rateWindow=5
refuse 'metrics.authCacheTTL: Does not match pattern' --set-string metrics.authCacheTTL=60
refuse 'they need metrics.reader.create' --set serviceMonitor.enabled=true --set metrics.reader.create=false
refuse 'serviceMonitor.enabled needs metrics.service.enabled' \
  --set serviceMonitor.enabled=true --set metrics.service.enabled=false

echo "--- kubectl kustomize deploy/ is the chart with its defaults"
# Both through kustomize (one YAML formatting, one object order), without the labels that say
# which tool manages them; helm leaves the Namespace to --create-namespace, deploy/ has it.
kubectl kustomize "$src/deploy" >"$work/deploy.yaml" || fail "kubectl kustomize deploy/"
bash "$src/scripts/yaml-to-json.sh" "$work/deploy.yaml" |
  jq -r 'select(.kind == "Namespace") | .metadata.name' >"$work/namespaces.txt"
[ "$(cat "$work/namespaces.txt")" = respool-system ] || fail "deploy/: the Namespace respool-system"
mkdir -p "$work/from-helm"
cp "$work/default.yaml" "$work/from-helm/chart.yaml"
cp "$src/deploy/namespace.yaml" "$work/from-helm/"
printf 'resources:\n  - namespace.yaml\n  - chart.yaml\n' >"$work/from-helm/kustomization.yaml"
normalize() { sed -e '/^ *helm\.sh\/chart: /d' -e '/^ *app\.kubernetes\.io\/managed-by: /d'; }
kubectl kustomize "$work/from-helm" | normalize >"$work/helm-objects.yaml"
normalize <"$work/deploy.yaml" >"$work/deploy-objects.yaml"
diff -u "$work/helm-objects.yaml" "$work/deploy-objects.yaml" >"$work/kustomize.diff" ||
  fail "kubectl kustomize deploy/ differs from the chart's defaults (bash scripts/sync-packaging.sh):
$(head -40 "$work/kustomize.diff")"
echo "  $(grep -c '^kind:' "$work/deploy-objects.yaml") objects equal"
echo "helm_chart: all checks passed"
