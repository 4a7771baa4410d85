#!/usr/bin/env bash
# Prints each YAML document of FILE (or standard input) as one line of JSON, and fails on a
# document that does not parse. helm is the parser (a one-template chart that runs fromYaml on
# each document), so this needs nothing besides helm, and reads YAML as helm and kubectl do.
# Usage: scripts/yaml-to-json.sh [FILE]
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/templates"
printf 'apiVersion: v2\nname: yaml-to-json\nversion: 0.0.0\n' >"$work/Chart.yaml"
cat >"$work/templates/documents.json" <<'TEMPLATE'
{{- range $doc := regexSplit "(?m)^---[ \t]*$" (.Files.Get "in.yaml") -1 }}
{{- $object := fromYaml $doc }}
{{- if $object }}
{{ toJson $object }}
{{- end }}
{{- end }}
TEMPLATE
cat "${1:--}" >"$work/in.yaml"
helm template yaml-to-json "$work" | sed -n '/^{/p' >"$work/out.jsonl"
# fromYaml answers a document it cannot parse with {"Error": "..."}.
if grep -q '^{"Error":' "$work/out.jsonl"; then
  echo "yaml-to-json: ${1:-stdin}: $(grep -m1 '^{"Error":' "$work/out.jsonl" | jq -r .Error)" >&2
  exit 1
fi
cat "$work/out.jsonl"
