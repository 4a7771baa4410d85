#!/usr/bin/env bash
# Builds respool-operator's container image without a container engine or registry: the image
# the Dockerfile describes, as an OCI archive, from a debootstrapped Debian bookworm root and
# Debian's own tools (debootstrap, umoci, skopeo). Then checks that the respool-operator inside
# starts (--version) as the image's user with only the libraries the image carries (chroot into
# the unpacked archive). Run as root on Debian bookworm: `./dev image [--check]`.
#   --check  also builds the Dockerfile itself with buildah (no daemon; its FROM images are
#            made from the same debootstrapped root, since no registry is reachable) and fails
#            unless both images hold the same files (path, type, mode, owner).
# Slow (debootstrap, apt, a Release build): not part of ./dev test. The base root is cached in
# $RESPOOL_IMAGE_CACHE (default /var/tmp/respool-image).
# Output: out/respool-operator-<version>.oci.tar (tag <version>), and its file list next to it.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
[ "$(id -u)" = 0 ] || { echo "build-image: needs root (debootstrap, chroot)"; exit 2; }
. /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] ||
  { echo "build-image: the build stage runs on this machine, which must be Debian bookworm"; exit 2; }
tools=(debootstrap umoci skopeo)
[ $check = 1 ] && tools+=(buildah)
missing=()
for t in "${tools[@]}"; do command -v "$t" >/dev/null || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-image: apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

version=$(sed -n 's/^project(respool VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
cache=${RESPOOL_IMAGE_CACHE:-/var/tmp/respool-image}
out=$PWD/out
work=$(mktemp -d /var/tmp/respool-image-build.XXXXXX)
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$cache" "$out"
# What the Dockerfile's runtime stage installs; keep the two lists equal.
runtime_packages=(libssl3 libyaml-cpp0.7 libspdlog1.10 libfmt9 libsimdjson14 libstdc++6)
step() { echo "build-image: $*"; }

# 1. The build stage: the operator as the Dockerfile builds it.
step "building respool-operator (Release) in build-image/"
cmake -S . -B build-image -DCMAKE_BUILD_TYPE=Release -DRESPOOL_BUILD_TESTS=OFF \
  -DRESPOOL_BUILD_BENCH=OFF -DRESPOOL_UNITY=ON >/dev/null
cmake --build build-image --target respool-operator -j "$(nproc)" >/dev/null
strip -o "$work/respool-operator" build-image/respool-operator

# 2. The base, as Debian's bookworm-slim images are made: debootstrap's minimal base, then
#    documentation, man pages and translations left out by dpkg path excludes (debuerreotype's
#    slimify), so packages installed later leave them out too.
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
if [ ! -x "$cache/bookworm/bin/bash" ]; then
  step "debootstrap --variant=minbase bookworm (once; cached in $cache)"
  rm -rf "$cache/bookworm.part"
  debootstrap --variant=minbase bookworm "$cache/bookworm.part" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { echo "build-image: debootstrap failed, see $cache/debootstrap.log"; exit 1; }
  chroot "$cache/bookworm.part" apt-get clean
  rm -rf "$cache/bookworm.part"/var/lib/apt/lists/*
  mv "$cache/bookworm.part" "$cache/bookworm"
fi
if [ ! -x "$cache/bookworm-slim/bin/bash" ]; then
  step "slimming the base"
  rm -rf "$cache/bookworm-slim.part"
  cp -a "$cache/bookworm" "$cache/bookworm-slim.part"
  cat >"$cache/bookworm-slim.part/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
# As Debian's -slim images: no documentation, man pages or translations (copyrights stay).
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
  (cd "$cache/bookworm-slim.part" &&
    find usr/share/doc -mindepth 2 ! -name copyright ! -type d -delete &&
    find usr/share/doc -mindepth 1 -type d -empty -delete &&
    rm -rf usr/share/groff/* usr/share/info/* usr/share/linda/* usr/share/lintian/overrides/* \
      usr/share/locale/* usr/share/man/*)
  mv "$cache/bookworm-slim.part" "$cache/bookworm-slim"
fi

# 3. The runtime stage, step by step as the Dockerfile's.
root=$work/rootfs
cp -a "$cache/bookworm-slim" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
step "installing ${runtime_packages[*]}"
# In the chroot, as the Dockerfile's RUN lines; their chatter goes to a log shown on failure.
in_root() { chroot "$root" sh -c "$1" >>"$work/chroot.log" 2>&1 || { cat "$work/chroot.log"; exit 1; }; }
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends ${runtime_packages[*]} && rm -rf /var/lib/apt/lists/* \
  /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log"
in_root 'groupadd --system --gid 65532 respool && useradd --system --uid 65532 \
  --gid 65532 --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin respool'
umount -l "$root/proc" && mounted=()
: >"$root/etc/resolv.conf"
install -D -m 0755 "$work/respool-operator" "$root/usr/local/bin/respool-operator"
install -D -m 0644 config/catalog.yaml "$root/etc/respool/catalog.yaml"

# 4. The OCI image: one layer holding the root, the Dockerfile's USER and ENTRYPOINT.
step "packing the OCI image"
umoci init --layout "$work/oci"
umoci new --image "$work/oci:$version"
umoci unpack --image "$work/oci:$version" "$work/bundle" >/dev/null
rm -rf "$work/bundle/rootfs"
mv "$root" "$work/bundle/rootfs"
umoci repack --image "$work/oci:$version" "$work/bundle" >/dev/null
umoci config --image "$work/oci:$version" --config.user 65532:65532 \
  --config.entrypoint /usr/local/bin/respool-operator --config.workingdir / \
  --config.label org.opencontainers.image.title=respool-operator \
  --config.label "org.opencontainers.image.version=$version" \
  --os linux --architecture "$(dpkg --print-architecture)"
umoci gc --layout "$work/oci"
archive="$out/respool-operator-$version.oci.tar"
rm -f "$archive"
skopeo copy --quiet "oci:$work/oci:$version" "oci-archive:$archive:$version"

# 5. The archive's respool-operator starts, as the image's user, with the image's libraries only.
step "checking the archive"
mkdir -p "$work/check"
skopeo copy --quiet "oci-archive:$archive:$version" "oci:$work/check/oci:$version"
umoci unpack --image "$work/check/oci:$version" "$work/check/bundle" >/dev/null
user=$(jq -r '.process.user | "\(.uid):\(.gid)"' "$work/check/bundle/config.json")
[ "$user" = 65532:65532 ] || { echo "build-image: the image runs as $user, not 65532:65532"; exit 1; }
started=$(chroot --userspec=65532:65532 "$work/check/bundle/rootfs" \
  /usr/local/bin/respool-operator --version)
[ "$started" = "respool-operator $version" ] ||
  { echo "build-image: respool-operator --version said: $started"; exit 1; }
step "$started starts in the image as 65532:65532"
# The file list (path, type, mode, owner) of the image.
list_files() { (cd "$1" && find . -printf '%p %y %m %U:%G\n' | LC_ALL=C sort); }
list_files "$work/check/bundle/rootfs" >"$out/respool-operator-$version.files"
step "wrote $archive ($(du -h "$archive" | cut -f1), $(wc -l <"$out/respool-operator-$version.files") files)"

[ $check = 1 ] || exit 0

# 6. The Dockerfile, built by buildah, holds the same files. Its FROM images are the same
#    debootstrapped roots, imported under the names the Dockerfile uses.
step "building the Dockerfile with buildah (its build stage compiles respool again)"
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
import_base() { # import_base DIR NAME
  local c
  c=$(buildah from --quiet scratch)
  local m
  m=$(buildah mount "$c")
  cp -a "$1/." "$m/"
  buildah umount "$c" >/dev/null
  buildah commit --quiet --rm "$c" "$2" >/dev/null
}
import_base "$cache/bookworm" docker.io/library/debian:bookworm
import_base "$cache/bookworm-slim" docker.io/library/debian:bookworm-slim
buildah bud --quiet --pull-never --layers=false -t localhost/respool-operator:check \
  -f Dockerfile . >"$work/buildah.log" 2>&1 ||
  { tail -30 "$work/buildah.log"; echo "build-image: buildah bud failed"; exit 1; }
c=$(buildah from --quiet localhost/respool-operator:check)
m=$(buildah mount "$c")
# Not image content: the mount point itself (vfs mounts the root 0555), and the bind-mount
# targets a builder leaves behind.
not_content='^\.( |/etc/hosts |/etc/hostname |/run/\.containerenv )'
list_files "$m" | grep -vE "$not_content" >"$work/dockerfile.files"
grep -vE "$not_content" "$out/respool-operator-$version.files" >"$work/script.files"
buildah umount "$c" >/dev/null
buildah rm "$c" >/dev/null
# The images made here are only for this comparison.
buildah rmi localhost/respool-operator:check docker.io/library/debian:bookworm \
  docker.io/library/debian:bookworm-slim >/dev/null
if ! diff -u "$work/dockerfile.files" "$work/script.files" >"$work/files.diff"; then
  cat "$work/files.diff"
  echo "build-image: the Dockerfile's image (-) and this script's (+) hold different files"
  exit 1
fi
step "the Dockerfile's image and this script's hold the same $(wc -l <"$work/script.files") files"
