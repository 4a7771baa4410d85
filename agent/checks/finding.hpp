#pragma once
// What a check concludes from one period's readings: the faults it saw (each an isolation code
// of RULES.md's table, the device and the reading) and its own failures (a reading it could not
// take). A failure is never a fault: a check that could not read says so in a metric and a log
// line, and the condition keeps what it last showed.

#include <string>
#include <string_view>
#include <vector>

namespace respool::agent {

// One condition on the Node per family (API.md, "Node conditions written by respool-node-agent").
enum class Family { Gpu, Npu, InfiniBand, Clock, KubeletDirectory };
inline constexpr Family kFamilies[] = {Family::Gpu, Family::Npu, Family::InfiniBand, Family::Clock,
                                       Family::KubeletDirectory};

// "GPUHealthy", "NPUHealthy", "InfiniBandHealthy", "ClockSynchronized", "KubeletDirectoryWritable".
std::string_view condition_type(Family family);
// "gpu", "npu", "infiniband", "clock", "kubelet-directory": the `check` label of metrics.
std::string_view check_name(Family family);

struct Finding {
  std::string code;     // "A050101"
  std::string device;   // "GPU 3 (GPU-8f0c...)", "mlx5_0 port 1", "" for the node
  std::string message;  // the reading: "volatile uncorrectable ECC errors: 2"
  bool operator==(const Finding&) const = default;
};

struct CheckFailure {
  std::string what;    // the file or symbol: "nvmlDeviceGetRemappedRows", "/host/sys/.../state"
  std::string detail;  // why: "symbol missing", "unreadable: Permission denied"
  bool operator==(const CheckFailure&) const = default;
};

struct FamilyResult {
  Family family = Family::Gpu;
  // False when nothing on this node is for the check to look at (no GPU, no NVML and a flavor
  // that promises none): no condition is written for it.
  bool applies = true;
  std::vector<Finding> faults;
  std::vector<CheckFailure> failures;
  // Whether the readings were complete enough to call the family healthy when `faults` is
  // empty. False when every reading failed: the condition then keeps its last status.
  bool conclusive = true;
};

}  // namespace respool::agent
