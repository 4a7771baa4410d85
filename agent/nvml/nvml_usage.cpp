#include "agent/nvml/nvml_usage.hpp"

#include <algorithm>
#include <vector>

namespace respool::agent {

namespace {

// NVML's list calls answer INSUFFICIENT_SIZE with the count needed: a process can start between
// the two calls, so the second asks for room to spare, and a third try is not worth a period.
constexpr unsigned int kSpare = 8;

void read_processes(const nvml::Functions& fn, nvml::Device d, GpuDeviceReading& out,
                    BoundedWorker::Progress& p) {
  if (!fn.compute_processes) {
    out.processes.rc = nvml::kSymbolMissing;
    return;
  }
  std::vector<nvml::ProcessInfo> infos(32);
  unsigned int count = static_cast<unsigned int>(infos.size());
  p.call("nvmlDeviceGetComputeRunningProcesses_v3");
  out.processes.rc = fn.compute_processes(d, &count, infos.data());
  if (out.processes.rc == nvml::kErrorInsufficientSize) {
    infos.resize(count + kSpare);
    count = static_cast<unsigned int>(infos.size());
    out.processes.rc = fn.compute_processes(d, &count, infos.data());
  }
  if (!out.processes.ok()) return;
  for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
    auto& process = out.processes.value.emplace_back();
    process.pid = infos[i].pid;
    if (infos[i].usedGpuMemory != nvml::kValueNotAvailable) {
      process.used_memory_bytes = infos[i].usedGpuMemory;
    }
  }
}

// The newest sample of each listed process since `last_sample`.
void read_samples(const nvml::Functions& fn, nvml::Device d, GpuDeviceReading& out,
                  BoundedWorker::Progress& p, unsigned long long& last_sample) {
  if (!fn.process_utilization) {
    out.process_samples_rc = nvml::kSymbolMissing;
    return;
  }
  unsigned int count = 0;
  p.call("nvmlDeviceGetProcessUtilization");
  // A first call without a buffer asks for the count (NVML documents this use).
  auto rc = fn.process_utilization(d, nullptr, &count, last_sample);
  std::vector<nvml::ProcessUtilizationSample> samples;
  if (rc == nvml::kErrorInsufficientSize) {
    samples.resize(count + kSpare);
    count = static_cast<unsigned int>(samples.size());
    rc = fn.process_utilization(d, samples.data(), &count, last_sample);
  }
  // NOT_FOUND: no sample since last_sample, every process was idle.
  out.process_samples_rc = rc == nvml::kErrorNotFound ? nvml::kSuccess : rc;
  if (rc != nvml::kSuccess) return;
  samples.resize(std::min<std::size_t>(count, samples.size()));
  for (const auto& s : samples) {
    last_sample = std::max(last_sample, s.timeStamp);
    for (auto& process : out.processes.value) {
      if (process.pid != s.pid) continue;
      if (!process.sample || process.sample->timeStamp < s.timeStamp) process.sample = s;
    }
  }
}

}  // namespace

void read_usage(const nvml::Functions& fn, nvml::Device d, GpuDeviceReading& out,
                BoundedWorker::Progress& p, unsigned long long& last_sample) {
  if (fn.memory_info) {
    p.call("nvmlDeviceGetMemoryInfo");
    out.memory.rc = fn.memory_info(d, &out.memory.value);
  } else {
    out.memory.rc = nvml::kSymbolMissing;
  }
  read_processes(fn, d, out, p);
  if (out.processes.ok() && !out.processes.value.empty()) {
    read_samples(fn, d, out, p, last_sample);
  }
}

}  // namespace respool::agent
