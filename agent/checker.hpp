#pragma once
// One period of checks: read everything (NVML and DCMI bounded by their timeouts), update the
// state that outlives the agent (Xid events, link-downs), and decide each family's findings.
// Reading and deciding are separate: the readings come back with the results so that the
// reporter exports them as metrics and `--print-readings` prints them.

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agent/checks/finding.hpp"
#include "agent/checks/thresholds.hpp"
#include "agent/dcmi/dcmi_reader.hpp"
#include "agent/host/host_readers.hpp"
#include "agent/nvml/nvml_reader.hpp"
#include "agent/state_file.hpp"
#include "operator/runtime/clock.hpp"

namespace respool::agent {

struct CheckerOptions {
  std::filesystem::path host_root = "/host";
  std::string kubelet_dir = "/var/lib/kubelet";
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string dcmi_library = "libdcmi.so";
  std::chrono::milliseconds nvml_timeout{5000};
  std::chrono::milliseconds dcmi_timeout{5000};
  std::chrono::seconds xid_hold{3600};
  ClockLimits clock;
  std::set<Family> enabled{std::begin(kFamilies), std::end(kFamilies)};
  std::filesystem::path state_file;  // empty: kept in memory only
  bool watch_xids = true;
};

struct PeriodReadings {
  GpuReadings gpu;
  NpuReadings npu;
  IbReadings infiniband;
  ClockReading clock;
  KubeletDirReading kubelet;
};

struct PeriodResult {
  PeriodReadings readings;
  std::vector<FamilyResult> results;  // one per enabled family, in kFamilies order
  std::map<Family, double> seconds;   // how long each family's reading took
};

class Checker {
 public:
  Checker(CheckerOptions options, runtime::Clock& clock,
          ClockReader clock_reader = read_kernel_clock);
  PeriodResult run(const Expectations& expect);
  const AgentState& state() const { return state_; }

 private:
  void persist(const AgentState& before);

  CheckerOptions options_;
  runtime::Clock& clock_;
  ClockReader clock_reader_;
  std::unique_ptr<NvmlReader> nvml_;
  std::unique_ptr<DcmiReader> dcmi_;
  AgentState state_;
};

}  // namespace respool::agent
