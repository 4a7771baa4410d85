#!/usr/bin/env bash
# Shows that the soak catches a broken operator (issue 30): builds respool-operator from this
# checkout with N2 off by one (a pool may replace one node more at once than RULES.md allows),
# runs the 3-minute soak against it, and succeeds only when the soak fails with an N2 breach.
# Not in CI (a second build of the operator and a soak: ~15 minutes on 2 cores).
# Usage: scripts/soak-mutant.sh BUILD_DIR [SEED]   (BUILD_DIR holds test/respool-soak)
# Not every seed asks for two replacements in one pool at once within 3 minutes (seed 7 does not).
set -euo pipefail
build=$(realpath "${1:?build dir with test/respool-soak}")
seed=${2:-8}  # seed 8 asks for a two-node Replace in a 6-node pool within the first minute
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/soak-mutant.XXXXXX)
trap 'git -C "$src" worktree remove --force "$work/src" >/dev/null 2>&1 || true' EXIT

git -C "$src" worktree add --detach "$work/src" HEAD >/dev/null
ledger="$work/src/reconcilers/policy/node_operation_ledger.hpp"
correct='return replacing >= concurrent_replacement_limit;'
grep -qF "$correct" "$ledger" || { echo "soak-mutant: N2's check moved; update this script"; exit 2; }
sed -i "s/$correct/return replacing > concurrent_replacement_limit;/" "$ledger"
git -C "$work/src" diff --stat

cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRESPOOL_BUILD_TESTS=OFF -DRESPOOL_BUILD_BENCH=OFF >/dev/null
cmake --build "$work/build" --target respool-operator -j"$(nproc)" >"$work/build.log" 2>&1 ||
  { tail -20 "$work/build.log"; exit 2; }

set +e
"$build/test/respool-soak" --duration 3m --seed "$seed" --work "$work/soak" \
  --operator "$work/build/respool-operator" >"$work/soak.log" 2>&1
rc=$?
set -e
grep -E 'BREACH|respool-soak:' "$work/soak.log" | head -20
if [ "$rc" -ne 0 ] && grep -q 'BREACH \[N2\]' "$work/soak.log"; then
  echo "soak-mutant: caught: the soak failed on N2 against the broken build (log: $work/soak.log)"
  exit 0
fi
echo "soak-mutant: NOT caught (soak exit $rc; log: $work/soak.log)"
exit 1
