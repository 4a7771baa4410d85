#!/usr/bin/env bash
# docs/ARCHITECTURE.md's "Code layout" is the map of the code: every folder it names exists,
# every folder that holds sources is named in it, and includes point the way its arrows do.
# Usage: check-architecture.sh SOURCE_DIR
set -euo pipefail
src=${1:?source dir}
cd "$src"
doc=docs/ARCHITECTURE.md
failed=0
problem() { echo "check-architecture: $*"; failed=1; }

# The first fenced block after "## Code layout": lines that start (after indentation) with a
# name ending in "/" are folders; their indentation (two spaces a level) nests them.
names=$(awk '/^## Code layout/{on=1} on && /^```/{n++; next} on && n==1' "$doc" |
  awk '{
    match($0, /^ */); depth = RLENGTH / 2; $0 = substr($0, RLENGTH + 1)
    split($0, words, " "); w = words[1]
    if (w !~ /\/$/) next
    path[depth] = w; full = ""
    for (i = 0; i <= depth; i++) full = full path[i]
    print full
  }')
[ -n "$names" ] || problem "no folders found in $doc's Code layout block"
for d in $names; do
  [ -d "$d" ] || problem "$doc names $d, which does not exist"
done

# Every folder holding C/C++ sources (tests, generated and third-party trees aside) is named.
while read -r dir; do
  grep -qx "$dir/" <<<"$names" || problem "$dir/ holds sources but $doc's Code layout does not name it"
done < <(find apimachinery cmd operator reconcilers sandbox agent -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) \
           -printf '%h\n' 2>/dev/null | sort -u)

# The arrows: FOLDER may include only the prefixes listed.
check_includes() { # check_includes FOLDER ALLOWED_REGEX
  local folder=$1 allowed=$2
  [ -d "$folder" ] || return 0
  while IFS=: read -r file line text; do
    problem "$file:$line includes ${text#*#include } against the arrows ($folder may include only $allowed)"
  done < <(grep -rnE '^#include "' "$folder" --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.c' |
             grep -vE "^[^:]+:[0-9]+:#include \"($allowed)")
}
check_includes apimachinery/ 'apimachinery/'
check_includes operator/ 'apimachinery/|operator/'
check_includes reconcilers/policy/ 'apimachinery/|reconcilers/policy/'
check_includes reconcilers/ 'apimachinery/|operator/|reconcilers/'
check_includes cmd/ 'apimachinery/|cmd/|operator/|reconcilers/'
check_includes cmd/kubectl-respool/view/ 'apimachinery/|cmd/kubectl-respool/view/|reconcilers/policy/'
check_includes sandbox/ 'apimachinery/|sandbox/|operator/'
check_includes sandbox/simulator/ 'apimachinery/|operator/|sandbox/simulator/'
check_includes agent/ 'apimachinery/|agent/|operator/|reconcilers/policy/'

[ $failed = 0 ] && echo "check-architecture: $(wc -l <<<"$names") folders named, all present; includes follow the arrows"
exit $failed
