#!/usr/bin/env bash
# The Dockerfile's build stage works from what it copies: its COPY lines name every folder the
# operator is built from (each `#include "<dir>/..."` of the copied sources is copied too), and
# CMake configures from those files alone with the stage's own flags. Building the image itself
# is `./dev image --check` (slow, root): this catches, in seconds, a change that would break it
# (the stage once failed because CMake read a sandbox file at configure time).
# Usage: dockerfile_build_stage.sh SOURCE_DIR
set -euo pipefail
src=${1:?source dir}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "dockerfile_build_stage: $*" >&2; exit 1; }

# The build stage: from the first FROM to the next.
awk '/^FROM /{n++} n == 1' "$src/Dockerfile" >"$work/stage"
mapfile -t copied < <(sed -n 's/^COPY \([^ ]*\) .*/\1/p' "$work/stage" | sed 's:/$::')
[ ${#copied[@]} -gt 0 ] || fail "the build stage copies nothing"
mkdir -p "$work/src"
for path in "${copied[@]}"; do
  [ -e "$src/$path" ] || fail "the Dockerfile copies $path, which does not exist"
  cp -r "$src/$path" "$work/src/$path"
done

# Every project folder the copied sources include is copied.
while read -r dir; do
  [ -d "$work/src/$dir" ] || fail "the copied sources include $dir/, which the Dockerfile does not copy"
done < <(grep -rhoE '^#include "[a-z_]+/' "$work/src" | sed 's/#include "//; s:/$::' | sort -u)

# CMake configures with the stage's flags from those files alone.
flags=$(tr -d '\\\n' <"$work/stage" | grep -oE 'cmake -S \. -B build[^&]*' | head -1 |
  sed 's/cmake -S \. -B build//' | tr -s ' ')
[ -n "$flags" ] || fail "no 'cmake -S . -B build' in the build stage"
# shellcheck disable=SC2086
cmake -S "$work/src" -B "$work/build" $flags >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "CMake does not configure from the copied files"; }
echo "dockerfile_build_stage: the build stage's ${#copied[@]} copies configure ($flags)"
