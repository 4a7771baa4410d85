#pragma once
// Made-up readings for the agent's check tests: a healthy H100 with every reading present, a
// time origin, and the flavor expectations of an 8-GPU, an 8-NPU and a CPU node.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "agent/checks/finding.hpp"
#include "agent/checks/gpu_readings.hpp"
#include "agent/checks/npu_readings.hpp"
#include "agent/checks/thresholds.hpp"

namespace respool::agent::test {

inline const std::chrono::system_clock::time_point kT0{std::chrono::seconds{1'767'225'600}};

template <class T>
NvmlReading<T> value(T v) {
  return {nvml::kSuccess, v};
}
template <class T>
NvmlReading<T> failed(nvml::Return rc) {
  return {rc, T{}};
}

inline GpuDeviceReading healthy_gpu(unsigned int index) {
  GpuDeviceReading d;
  d.index = index;
  d.uuid = "GPU-" + std::to_string(index);
  d.name = "NVIDIA H100 80GB HBM3";
  d.ecc_volatile_uncorrected = value(0ull);
  d.ecc_volatile_corrected = value(3ull);
  d.register_file_volatile_uncorrected = value(0ull);
  d.sram_aggregate_uncorrected = value(0ull);
  // Hopper: row remapping instead of page retirement.
  d.retired_pages_single_bit = failed<unsigned int>(nvml::kErrorNotSupported);
  d.retired_pages_double_bit = failed<unsigned int>(nvml::kErrorNotSupported);
  d.retirement_pending = failed<bool>(nvml::kErrorNotSupported);
  d.remapped_rows = value(RemappedRows{});
  d.inforom_rc = nvml::kSuccess;
  d.fan_speed_percent = failed<unsigned int>(nvml::kErrorNotSupported);  // SXM: no fans
  d.power_milliwatts = value(72'000u);
  d.temperature_celsius = value(33u);
  d.utilization = value(nvml::Utilization{0, 0});
  return d;
}

inline GpuReadings healthy_gpus(unsigned int count) {
  GpuReadings r;
  r.library = GpuReadings::Library::Loaded;
  r.init_rc = nvml::kSuccess;
  r.device_count = value(count);
  for (unsigned int i = 0; i < count; ++i)
    r.devices.push_back(healthy_gpu(i));
  return r;
}

inline Expectations gpu_flavor(int count = 8) {
  return {true, Expectations::Accelerator::Gpu, count, false};
}
inline Expectations npu_flavor(int count = 8) {
  return {true, Expectations::Accelerator::Npu, count, false};
}
inline Expectations cpu_flavor() {
  return {true, Expectations::Accelerator::None, 0, false};
}

inline NpuDeviceReading healthy_npu(int card, int device) {
  NpuDeviceReading d;
  d.card = card;
  d.device = device;
  d.health = {dcmi::kOk, 0u};
  d.network = {dcmi::kOk, dcmi::kNetworkOk};
  d.hbm_ecc = {dcmi::kOk, dcmi::EccInfo{1, 0, 0, 0, 0, 0, 0}};
  d.error_codes = {dcmi::kOk, {}};
  return d;
}

inline NpuReadings healthy_npus(int count) {
  NpuReadings r;
  r.library = NpuReadings::Library::Loaded;
  r.init_rc = dcmi::kOk;
  r.driver_health = {dcmi::kOk, 0u};
  r.cards = {dcmi::kOk, {}};
  for (int i = 0; i < count; ++i) {
    r.cards.value.push_back(i);
    r.devices.push_back(healthy_npu(i, 0));
  }
  return r;
}

inline std::vector<std::string> codes(const FamilyResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.faults)
    out.push_back(f.code);
  return out;
}

// A fresh directory under the system's temporary directory, removed with the object.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& relative, const std::string& text) const {
    auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    // Renamed into place: a reader running beside the test never sees half a file.
    auto temporary = file;
    temporary += ".tmp";
    std::ofstream(temporary) << text;
    std::filesystem::rename(temporary, file);
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path path_;
};

}  // namespace respool::agent::test
