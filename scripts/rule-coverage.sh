#!/usr/bin/env bash
# The per-rule checklist: every rule of docs/RULES.md and the Catch2 test cases that name it
# (a tag such as [rule:P6]), split into unit tests of the pure decisions (test/policy and
# test/agent, injected clock) and tests against the sandbox (every other test directory).
#
#   scripts/rule-coverage.sh [SOURCE_DIR]     prints the checklist; exits 1 when a rule that
#                                             respool implements has no unit test
#
# Rules whose feature is not built yet are listed in `pending` and only reported.
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
pending=" "

rules=$(grep -oE '^- [PNDFWAJHQO][0-9]+ ' "$src/docs/RULES.md" | awk '{print $2}')
[ -n "$rules" ] || { echo "rule-coverage: no rules found in $src/docs/RULES.md" >&2; exit 2; }

# One line per (rule, test case): RULE<TAB>unit|sandbox<TAB>file:line name
cases=$(cd "$src" && find test -name '*_test.cpp' | sort | xargs awk '
  /TEST_CASE\(/ { head = $0; line = FNR; open = 1 }
  open && !/TEST_CASE\(/ { head = head " " $0 }
  open && /\{ *$/ {
    open = 0
    name = head; sub(/.*TEST_CASE\( *"/, "", name); sub(/".*/, "", name)
    kind = (FILENAME ~ /^test\/(policy|agent)\//) ? "unit" : "sandbox"
    rest = head
    while (match(rest, /\[rule:[A-Z][0-9]+\]/)) {
      rule = substr(rest, RSTART + 6, RLENGTH - 7)
      printf "%s\t%s\t%s:%d %s\n", rule, kind, FILENAME, line, name
      rest = substr(rest, RSTART + RLENGTH)
    }
  }')

missing=()
for rule in $rules; do
  unit=$(printf '%s\n' "$cases" | awk -F'\t' -v r="$rule" '$1 == r && $2 == "unit"' | wc -l)
  sandbox=$(printf '%s\n' "$cases" | awk -F'\t' -v r="$rule" '$1 == r && $2 == "sandbox"' | wc -l)
  state="ok"
  if [[ "$pending" == *" $rule "* ]]; then
    state="pending (not built yet)"
  elif [ "$unit" -eq 0 ]; then
    state="MISSING a unit test"
    missing+=("$rule")
  fi
  printf '%-4s %2d unit, %2d against the sandbox: %s\n' "$rule" "$unit" "$sandbox" "$state"
  printf '%s\n' "$cases" | awk -F'\t' -v r="$rule" '$1 == r { printf "       %-7s %s\n", $2, $3 }'
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "rule-coverage: no unit test names ${missing[*]}" >&2
  exit 1
fi
echo "rule-coverage: every implemented rule has a unit test"
