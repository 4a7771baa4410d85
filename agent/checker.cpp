#include "agent/checker.hpp"

#include "agent/checks/gpu_check.hpp"
#include "agent/checks/host_checks.hpp"
#include "agent/checks/npu_check.hpp"
#include "operator/runtime/log.hpp"

namespace respool::agent {

namespace {

template <class Read>
auto timed(double& seconds, Read&& read) {
  auto start = std::chrono::steady_clock::now();
  auto out = read();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

Checker::Checker(CheckerOptions options, runtime::Clock& clock, ClockReader clock_reader)
    : options_(std::move(options)), clock_(clock), clock_reader_(std::move(clock_reader)) {
  if (options_.enabled.contains(Family::Gpu)) {
    nvml_ = std::make_unique<NvmlReader>(options_.nvml_library, options_.nvml_timeout, clock_,
                                         options_.watch_xids);
  }
  if (options_.enabled.contains(Family::Npu)) {
    dcmi_ = std::make_unique<DcmiReader>(options_.dcmi_library, options_.dcmi_timeout);
  }
  if (!options_.state_file.empty()) {
    auto loaded = load_state(options_.state_file);
    if (loaded) {
      state_ = std::move(*loaded);
    } else {
      runtime::log::error("agent", "state file damaged: starting without its history",
                          {{"error", loaded.error()}});
    }
  }
}

void Checker::persist(const AgentState& before) {
  if (options_.state_file.empty() || state_ == before) return;
  if (auto saved = save_state(options_.state_file, state_); !saved) {
    runtime::log::error("agent", "cannot write the state file", {{"error", saved.error()}});
  }
}

PeriodResult Checker::run(const Expectations& expect) {
  PeriodResult out;
  auto& r = out.readings;
  const auto before = state_;
  for (auto family : kFamilies) {
    if (!options_.enabled.contains(family)) continue;
    double& seconds = out.seconds[family];
    auto now = clock_.now();
    switch (family) {
      case Family::Gpu: {
        r.gpu = timed(seconds, [&] { return nvml_->read(); });
        for (auto& x : nvml_->take_xids())
          state_.xids.push_back(std::move(x));
        std::erase_if(state_.xids,
                      [&](const XidEvent& x) { return now - x.at > options_.xid_hold; });
        r.gpu.xids = state_.xids;
        out.results.push_back(check_gpus(r.gpu, {expect, options_.xid_hold}, now));
        break;
      }
      case Family::Npu:
        r.npu = timed(seconds, [&] { return dcmi_->read(); });
        observe_links(r.npu, state_.links, now);
        out.results.push_back(check_npus(r.npu, state_.links, expect, now));
        break;
      case Family::InfiniBand:
        r.infiniband = timed(seconds, [&] { return read_infiniband(options_.host_root); });
        out.results.push_back(check_infiniband(r.infiniband, expect));
        break;
      case Family::Clock:
        r.clock = timed(seconds, [&] { return clock_reader_(); });
        out.results.push_back(check_clock(r.clock, options_.clock));
        break;
      case Family::KubeletDirectory:
        r.kubelet = timed(seconds, [&] {
          return read_kubelet_directory(options_.host_root, options_.kubelet_dir);
        });
        out.results.push_back(check_kubelet_directory(r.kubelet));
        break;
    }
  }
  persist(before);
  return out;
}

}  // namespace respool::agent
