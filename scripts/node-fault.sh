#!/usr/bin/env bash
# The readings respool-node-agent sees on a simulated node of `./dev run` (scripts/demo.sh):
# each GPU node's agent reads the test NVML library (agent/testlibs), whose answers come from
# DEMO_DIR/agents/NODE/nvml.json, and a made-up host tree DEMO_DIR/agents/NODE/host. Files are
# replaced whole, so the agent never reads half of one.
#   scripts/node-fault.sh DEMO_DIR NODE healthy         eight healthy GPUs, an ACTIVE IB port
#   scripts/node-fault.sh DEMO_DIR NODE ecc [GPU [N]]   N (2) volatile uncorrectable ECC errors on
#                                                       GPU (0): A050101
#   scripts/node-fault.sh DEMO_DIR NODE retired [GPU]   65 retired pages on GPU (0): A050104
#   scripts/node-fault.sh DEMO_DIR NODE ib-down         the InfiniBand port DOWN: A050147
#   scripts/node-fault.sh DEMO_DIR NODE clear           back to healthy
set -euo pipefail
dir=${1:?demo dir}/agents/${2:?node}
what=${3:?healthy, ecc, retired, ib-down or clear}
command -v jq >/dev/null || { echo "node-fault.sh needs jq" >&2; exit 1; }
put() { cat >"$1.tmp" && mv "$1.tmp" "$1"; }
gpus() { # gpus NODE BAD-GPU ECC RETIRED
  jq -n --arg node "$1" --argjson bad "$2" --argjson ecc "$3" --argjson retired "$4" '{
    driverVersion: "535.104.05",
    devices: [range(8) as $i | {uuid: "GPU-\($node)-\($i)", name: "NVIDIA A100-SXM4-80GB",
      eccVolatileUncorrected: (if $i == $bad then $ecc else 0 end), eccVolatileCorrected: 0,
      registerFileVolatileUncorrected: 0, sramAggregateUncorrected: 0,
      retiredPagesSingleBit: (if $i == $bad then $retired else 0 end), retiredPagesDoubleBit: 0,
      retirementPending: false, remappedRows: {correctable: 0, uncorrectable: 0, failed: false},
      powerMilliwatts: 61000, temperatureCelsius: 32, utilization: {gpu: 0, memory: 0}}]}'
}
ib() { mkdir -p "$dir/host/sys/class/infiniband/mlx5_0/ports/1"; echo "$1" | put "$dir/host/sys/class/infiniband/mlx5_0/ports/1/state"; }
node=$2
case $what in
  healthy | clear)
    mkdir -p "$dir/host/proc/1" "$dir/state"
    printf '22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n30 22 8:17 / /var/lib/kubelet rw,relatime - xfs /dev/sdb1 rw\n' \
      >"$dir/host/proc/1/mountinfo"
    ib "4: ACTIVE"
    gpus "$node" -1 0 0 | put "$dir/nvml.json" ;;
  ecc) gpus "$node" "${4:-0}" "${5:-2}" 0 | put "$dir/nvml.json" ;;
  retired) gpus "$node" "${4:-0}" 0 65 | put "$dir/nvml.json" ;;
  ib-down) ib "1: DOWN" ;;
  *) echo "unknown reading: $what (healthy, ecc, retired, ib-down, clear)" >&2; exit 2 ;;
esac
