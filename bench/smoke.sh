#!/usr/bin/env bash
# A benchmark's smoke test (ctest label bench-smoke): it runs at its smallest size, must exit 0
# and must end with its closing line "<program>: completed in S s" (bench/harness.hpp). The
# figures are not checked: only that the benchmark still runs to the end. Past LIMIT seconds the
# benchmark's own time limit ends it, naming the phase it hung in.
# Usage: smoke.sh LIMIT BENCHMARK [ARGS...]
set -uo pipefail
limit=${1:?limit in seconds}
shift
name=$(basename "$1")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
RESPOOL_BENCH_TIME_LIMIT=$limit timeout --kill-after=10 $((limit + 30)) "$@" >"$out" 2>/dev/null
code=$?
cat "$out"
if [ $code -ne 0 ]; then
  echo "FAIL: $name exited $code"
  exit 1
fi
last=$(tail -n 1 "$out")
case "$last" in
  "$name: completed in "*) echo "PASS" ;;
  *) echo "FAIL: $name's last line is not its closing line: $last"; exit 1 ;;
esac
