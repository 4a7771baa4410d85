#!/usr/bin/env bash
# Fetches Debian trixie packages and unpacks them under a cache folder, without installing
# anything into the system: a scratch apt state (its own sources.list, lists and archives)
# downloads them, `dpkg -x` unpacks them.
#
#   fetch-trixie.sh CACHE_DIR [--deps REGEX] PACKAGE...
#
# --deps REGEX also fetches every package the named ones depend on, recursively, whose name
# matches REGEX (for example '^golang-' for Go sources). Prints the unpacked root
# (CACHE_DIR/root). Packages already fetched are not fetched again; the package lists are
# refreshed when older than a day, and a failed refresh keeps the old ones.
set -euo pipefail

cache=$1
shift
deps_regex=
if [ "${1:-}" = --deps ]; then
  deps_regex=$2
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: fetch-trixie.sh CACHE_DIR [--deps REGEX] PACKAGE..." >&2; exit 2; }

mkdir -p "$cache"/apt/lists/partial "$cache"/apt/archives/partial "$cache"/debs "$cache"/root
cache=$(cd "$cache" && pwd)
cat >"$cache/apt/sources.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
EOF
apt_opts=(
  -o "Dir::State=$cache/apt" -o "Dir::State::status=$cache/apt/status"
  -o "Dir::Etc::SourceList=$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::Cache=$cache/apt" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
  -o Acquire::Retries=3 -o Acquire::http::Timeout=60
)
touch "$cache/apt/status"

lists_fresh() {
  local f
  f=$(find "$cache/apt/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 | head -n1)
  [ -n "$f" ]
}
have_lists() { compgen -G "$cache/apt/lists/*_Packages*" >/dev/null; }

if ! lists_fresh; then
  if ! apt-get "${apt_opts[@]}" -qq update >&2; then
    have_lists || { echo "fetch-trixie: cannot read trixie's package lists" >&2; exit 1; }
    echo "fetch-trixie: keeping the package lists fetched before" >&2
  fi
fi

wanted=("$@")
if [ -n "$deps_regex" ]; then
  mapfile -t wanted < <(
    apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "$@" |
      sed -n 's/^\([a-z0-9][a-z0-9.+-]*\)$/\1/p' | grep -E "$deps_regex|$(IFS='|'; echo "^($*)\$")" |
      sort -u)
fi

cd "$cache/debs"
missing=()
for p in "${wanted[@]}"; do
  version=$(apt-cache "${apt_opts[@]}" show --no-all-versions "$p" 2>/dev/null |
    sed -n 's/^Version: //p' | head -n1)
  [ -n "$version" ] || { echo "fetch-trixie: no package $p in trixie" >&2; exit 1; }
  compgen -G "${p}_${version//:/%3a}_*.deb" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fetch-trixie: downloading ${#missing[@]} package(s): ${missing[*]}" >&2
  apt-get "${apt_opts[@]}" -qq download "${missing[@]}" >&2
fi
for p in "${wanted[@]}"; do
  for deb in "${p}"_*.deb; do
    stamp="$cache/root/.unpacked-$deb"
    [ -e "$stamp" ] && continue
    dpkg -x "$deb" "$cache/root"
    touch "$stamp"
  done
done
echo "$cache/root"
