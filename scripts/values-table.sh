#!/usr/bin/env bash
# Prints the configuration table of the respool chart (markdown) from its values.yaml: every key
# documented with a `# -- text` comment (continued by the `#` lines below it), its default as
# JSON (long ones refer to values.yaml), and the text. helm parses values.yaml
# (scripts/yaml-to-json.sh) and jq reads the defaults, so the table shows what helm sees.
# README.md carries the output between its values-table markers (scripts/sync-packaging.sh).
# Usage: scripts/values-table.sh helm/respool/values.yaml
set -euo pipefail
values=${1:?values.yaml}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$(dirname "$0")/yaml-to-json.sh" "$values" >"$work/values.json"
[ "$(wc -l <"$work/values.json")" = 1 ] || { echo "values-table: $values: not one document" >&2; exit 1; }

# Documented keys: "path<TAB>description", in file order. A key's path comes from the keys above
# it at smaller indentation; list items are not descended into.
awk '
  function flush_doc() { doc = ""; documenting = 0 }
  /^[ ]*# -- / { sub(/^[ ]*# -- /, ""); doc = $0; documenting = 1; next }
  documenting && /^[ ]*#( |$)/ { line = $0; sub(/^[ ]*# ?/, "", line); doc = doc " " line; next }
  /^[ ]*#/ || /^[ ]*$/ { flush_doc(); next }
  /^[ ]*- / { flush_doc(); next }
  /^[ ]*[A-Za-z0-9_.-]+:/ {
    match($0, /^[ ]*/); indent = RLENGTH
    key = substr($0, indent + 1); sub(/:.*/, "", key)
    while (depth > 0 && indents[depth] >= indent) depth--
    depth++; indents[depth] = indent; keys[depth] = key
    if (documenting) {
      path = keys[1]; for (i = 2; i <= depth; i++) path = path "." keys[i]
      print path "\t" doc
    }
    flush_doc(); next
  }
  { flush_doc() }
' "$values" >"$work/keys.tsv"

echo "| key | default | description |"
echo "| --- | --- | --- |"
while IFS=$'\t' read -r path doc; do
  default=$(jq -c --arg p "$path" 'getpath($p | split("."))' "$work/values.json")
  if [ ${#default} -gt 60 ]; then default="see values.yaml"; else default="\`$default\`"; fi
  # A pipe inside a cell would end it.
  echo "| \`$path\` | ${default//|/\\|} | ${doc//|/\\|} |"
done <"$work/keys.tsv"
