#!/usr/bin/env bash
# Every x-kubernetes-validations rule of crds/ refuses at `kubectl apply` what a real API server
# refuses, with the server's 422 wording (`<path>: Invalid value: "<type>": <message>`): the
# pool and network name rules, Logical pools take Training only, resources need a count or
# zones and the zones add up, tag keys are 1..128 characters, the network CIDR can be neither
# added, removed nor changed, a NodeOperation's spec is immutable and reset options go with
# type Reset only, and a pool's spec.remediation (N7, N10, N11, N13, N14: a fault isolation
# code, a code or a family, at least one step, `after` at least 30s, a Reset with its os and a
# Replace without, maxUnhealthy within 100%). Also `Bad_Pool`: the name's own error beside the
# rules' in one answer, and a CRD with a malformed rule refused when it is applied. One check
# per rule; the bare API server (no operator) is enough.
# Usage: kubectl_cel_rules.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
start_sandbox --no-simulator
install_api

# refused NAME WANT: the manifest on stdin must be refused with WANT in kubectl's message.
refused() {
  local name=$1 want=$2
  if k apply -f - >"$work/$name.out" 2>&1; then fail "$name: applied, want refused: $(cat "$work/$name.out")"; fi
  grep -qF -- "$want" "$work/$name.out" || fail "$name: want '$want' in: $(cat "$work/$name.out")"
  echo "ok   $name"
}
accepted() {
  local name=$1
  k apply -f - >"$work/$name.out" 2>&1 || fail "$name: refused: $(cat "$work/$name.out")"
}
pool() { # pool NAME SPEC-YAML
  printf 'apiVersion: respool.io/v1alpha1\nkind: ResourcePool\nmetadata: {name: %s}\nspec:\n%s\n' "$1" "$2"
}
network() { # network NAME SPEC-YAML
  printf 'apiVersion: respool.io/v1alpha1\nkind: Network\nmetadata: {name: %s}\nspec: %s\n' "$1" "$2"
}
nodeop() { # nodeop NAME SPEC-YAML
  printf 'apiVersion: respool.io/v1alpha1\nkind: NodeOperation\nmetadata: {name: %s}\nspec: %s\n' "$1" "$2"
}
base='  jobTypes: [Training]
  network: net-a
  resources: [{flavor: cpu-64c, count: 2}]'

echo "--- ResourcePool"
pool ok-pool "$base" | accepted ok-pool
pool 1pool "$base" | refused pool-name \
  '<nil>: Invalid value: "object": metadata.name: must be at most 63 lowercase letters, digits and hyphens, start with a letter and not end with a hyphen (P1)'
pool logical "  type: Logical
  jobTypes: [Training, Inference]
  network: net-a
  resources: [{flavor: cpu-64c, count: 2}]" | refused pool-logical-training-only \
  'spec.jobTypes: Invalid value: "object": spec.jobTypes: a Logical pool accepts only Training (P2)'
pool nocount "  jobTypes: [Training]
  network: net-a
  resources: [{flavor: cpu-64c}]" | refused pool-count-or-zones \
  'spec.resources[0]: Invalid value: "object": spec.resources[]: needs a count or zones (P4)'
pool zonesum "  jobTypes: [Training]
  network: net-a
  resources: [{flavor: gpu-8x-a100, count: 3, zones: [{zone: az-1, count: 1}, {zone: az-2, count: 1}]}]" |
  refused pool-zone-sum \
  "spec.resources[0].count: Invalid value: \"object\": spec.resources[].count: must equal the sum of the zones' counts (P4)"
longkey=$(printf 'k%.0s' $(seq 129))
pool tags "$base
  tags: {$longkey: v}" | refused pool-tag-key \
  'spec.tags: Invalid value: "object": spec.tags: a tag key has 1 to 128 characters (P11)'
pool Bad_Pool "  jobTypes: [Training]
  network: net-a
  resources: [{flavor: cpu-64c}]" | refused pool-bad-name \
  'metadata.name: Invalid value: "Bad_Pool": a lowercase RFC 1123 subdomain must consist of'
grep -qF 'spec.resources[0]: Invalid value: "object": spec.resources[]: needs a count or zones (P4)' \
  "$work/pool-bad-name.out" || fail "Bad_Pool: the rule's error is not beside the name's: $(cat "$work/pool-bad-name.out")"

echo "--- ResourcePool spec.remediation"
remediation() { # remediation NAME REMEDIATION-YAML: a pool whose spec.remediation is the YAML
  pool "$1" "$base
  remediation: $2"
}
remediation ok-remediation '{rules: [{codes: [A050101, A050104], after: 10m, steps: [{action: Reset, os: ubuntu-22.04, timeout: 45m}, {action: Replace}]}, {families: [InfiniBand, Runtime], steps: [{action: Replace}]}], maxUnhealthy: 20%}' |
  accepted ok-remediation
k get rp ok-remediation -o jsonpath='{.spec.remediation.rules[1].after} {.spec.remediation.rules[1].steps[0].timeout}' >"$work/defaults.out"
[ "$(cat "$work/defaults.out")" = "10m 45m" ] || fail "remediation defaults: want '10m 45m', got '$(cat "$work/defaults.out")'"
remediation unknown-code '{rules: [{codes: [A999999], steps: [{action: Replace}]}]}' |
  refused remediation-unknown-code \
  'spec.remediation.rules[0].codes[0]: Invalid value: "string": spec.remediation.rules[].codes: A999999 is not a fault isolation code (N10)'
remediation operational-code '{rules: [{codes: [A200008], steps: [{action: Replace}]}]}' |
  refused remediation-operational-code \
  'spec.remediation.rules[0].codes[0]: Invalid value: "string": spec.remediation.rules[].codes: A200008 is not a fault isolation code (N10)'
remediation no-match '{rules: [{after: 1m, steps: [{action: Replace}]}]}' |
  refused remediation-code-or-family \
  'spec.remediation.rules[0]: Invalid value: "object": spec.remediation.rules[]: names at least one code or family (N10)'
remediation empty-steps '{rules: [{codes: [A050101], steps: []}]}' | refused remediation-empty-steps \
  'spec.remediation.rules[0].steps: Invalid value: 0: spec.remediation.rules[0].steps in body should have at least 1 items'
remediation after-10s '{rules: [{codes: [A050101], after: 10s, steps: [{action: Replace}]}]}' |
  refused remediation-after-10s \
  'spec.remediation.rules[0].after: Invalid value: "object": spec.remediation.rules[].after: at least 30s, one check period of the node agent (N11)'
remediation reset-no-os '{rules: [{families: [GPU], steps: [{action: Reset}]}]}' |
  refused remediation-reset-needs-os \
  'spec.remediation.rules[0].steps[0].os: Invalid value: "object": spec.remediation.rules[].steps[].os: a Reset names the operating system to install (N7)'
remediation replace-os '{rules: [{families: [GPU], steps: [{action: Replace, os: ubuntu-22.04}]}]}' |
  refused remediation-replace-takes-no-os \
  'spec.remediation.rules[0].steps[0].os: Invalid value: "object": spec.remediation.rules[].steps[].os: only a Reset installs an operating system; a Replace takes none (N13)'
remediation max-120 '{rules: [{families: [GPU], steps: [{action: Replace}]}], maxUnhealthy: 120%}' |
  refused remediation-max-unhealthy \
  'spec.remediation.maxUnhealthy: Invalid value: "object": spec.remediation.maxUnhealthy: a number of nodes (1 to 1000000) or a percentage from 1% to 100% (N14)'

echo "--- Network"
network 1net '{}' | refused network-name \
  '<nil>: Invalid value: "object": metadata.name: must be at most 63 lowercase letters, digits and hyphens, start with a letter and not end with a hyphen'
network net-a '{}' | accepted net-a
network net-a '{cidr: 10.1.0.0/16}' | refused network-cidr-added \
  'spec: Invalid value: "object": spec.cidr: cannot be added or removed after creation (W1)'
network net-b '{cidr: 10.1.0.0/16}' | accepted net-b
network net-b '{cidr: 10.2.0.0/16}' | refused network-cidr-immutable \
  'spec.cidr: Invalid value: "string": spec.cidr: is immutable (W1)'
network net-b '{}' | refused network-cidr-removed \
  'spec: Invalid value: "object": spec.cidr: cannot be added or removed after creation (W1)'

echo "--- NodeOperation"
nodeop op-1 '{pool: ok-pool, type: Replace, nodes: [n1]}' | accepted op-1
nodeop op-1 '{pool: ok-pool, type: Replace, nodes: [n2]}' | refused nodeop-immutable \
  'spec: Invalid value: "object": spec: is immutable; create another NodeOperation'
nodeop op-2 '{pool: ok-pool, type: Replace, nodes: [n1], reset: {os: ubuntu}}' |
  refused nodeop-reset-only-for-reset 'spec.reset: Invalid value: "object": spec.reset: only for type Reset'
nodeop op-3 '{pool: ok-pool, type: Reset, nodes: [n1]}' | refused nodeop-reset-needs-os \
  'spec.reset: Invalid value: "object": spec.reset: type Reset needs reset.os (N7)'

echo "--- a CRD with a malformed rule"
cat >"$work/bad-crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.cel.example.com}
spec:
  group: cel.example.com
  scope: Cluster
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.size >"
            properties:
              size: {type: integer}
YAML
refused crd-malformed-rule \
  'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value:' <"$work/bad-crd.yaml"
grep -qF "compilation failed: ERROR: <input>:1:12: Syntax error: mismatched input '<EOF>'" \
  "$work/crd-malformed-rule.out" || fail "malformed rule message: $(cat "$work/crd-malformed-rule.out")"

echo "kubectl_cel_rules: all checks passed"
