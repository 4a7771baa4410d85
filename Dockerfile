# respool-operator's image: built on Debian bookworm, run on bookworm-slim as a non-root user.
#   docker build -t registry.example/respool/respool-operator:0.1.0 .
# Without a container engine, `./dev image` (scripts/build-image.sh) builds the same image as an
# OCI archive from a debootstrapped bookworm root with Debian's tools; its --check compares the
# two images' files. Keep the two in step: the runtime packages, the user, the paths.

FROM debian:bookworm AS build
# What CMake's configure looks for (libre2-dev serves the sandbox, but configure asks for it).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config libboost-dev libssl-dev nlohmann-json3-dev libyaml-cpp-dev \
      libspdlog-dev libsimdjson-dev libre2-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only what the operator is built from: a change to tests or the sandbox rebuilds nothing here.
COPY CMakeLists.txt ./
COPY apimachinery/ apimachinery/
COPY cmd/ cmd/
COPY operator/ operator/
COPY reconcilers/ reconcilers/
COPY agent/ agent/
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRESPOOL_BUILD_TESTS=OFF \
      -DRESPOOL_BUILD_BENCH=OFF -DRESPOOL_UNITY=ON \
 && cmake --build build --target respool-operator respool-node-agent -j "$(nproc)" \
 && strip build/respool-operator build/agent/respool-node-agent

FROM debian:bookworm-slim
# The shared libraries respool-operator links (ldd), and nothing else: no shell tools are added.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libssl3 libyaml-cpp0.7 libspdlog1.10 libfmt9 libsimdjson14 libstdc++6 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
RUN groupadd --system --gid 65532 respool \
 && useradd --system --uid 65532 --gid 65532 --home-dir /nonexistent --no-create-home \
      --shell /usr/sbin/nologin respool
COPY --from=build /src/build/respool-operator /usr/local/bin/respool-operator
# The node agent, run by the chart's DaemonSet from this same image (nodeAgent.enabled).
COPY --from=build /src/build/agent/respool-node-agent /usr/local/bin/respool-node-agent
COPY config/catalog.yaml /etc/respool/catalog.yaml
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/respool-operator"]
