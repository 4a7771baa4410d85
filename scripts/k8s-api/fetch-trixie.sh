#!/usr/bin/env bash
# Fetches Debian trixie packages and unpacks them under a cache folder, without installing
# anything into the system: a scratch apt state (its own sources.list, lists and archives)
# downloads them, `dpkg -x` unpacks them.
#
#   fetch-trixie.sh CACHE_DIR [--deps REGEX] PACKAGE...
#
# --deps REGEX also fetches the packages the named ones depend on, recursively, as apt would
# choose them on an empty machine, whose names match REGEX (for example '^golang-'). Prints the unpacked root
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
  # What apt would install on a machine with nothing installed (one consistent choice among
  # alternatives and conflicting packages), narrowed to the names asked for.
  mapfile -t wanted < <(
    apt-get "${apt_opts[@]}" -s install --no-install-recommends "$@" |
      awk '$1 == "Inst" {print $2}' | grep -E "$deps_regex" | sort -u)
  [ ${#wanted[@]} -gt 0 ] || { echo "fetch-trixie: cannot resolve $*" >&2; exit 1; }
fi

cd "$cache/debs"
# One look-up for every candidate version (each apt-cache call reads the whole index).
declare -A version
while read -r p v; do version[$p]=$v; done < <(
  apt-cache "${apt_opts[@]}" show --no-all-versions "${wanted[@]}" 2>/dev/null |
    awk '/^Package: /{p=$2} /^Version: /{print p, $2}')
missing=()
for p in "${wanted[@]}"; do
  [ -n "${version[$p]:-}" ] || { echo "fetch-trixie: no package $p in trixie" >&2; exit 1; }
  compgen -G "${p}_${version[$p]//:/%3a}_*.deb" >/dev/null || missing+=("$p")
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
