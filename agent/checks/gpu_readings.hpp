#pragma once
// One period's NVML readings of a node: what nvml_reader.cpp read, what gpu_check.cpp decides
// from. Every value carries the nvmlReturn_t of the call that read it, so that a check can tell
// a reading (0), "not available on this GPU" (NVML_ERROR_NOT_SUPPORTED: an H100 SXM has no fan)
// and a failed call apart.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "agent/nvml/nvml_api.hpp"

namespace respool::agent {

template <class T>
struct NvmlReading {
  nvml::Return rc = nvml::kNotRead;
  T value{};
  bool ok() const { return rc == nvml::kSuccess; }
};

struct RemappedRows {
  unsigned int correctable = 0;
  unsigned int uncorrectable = 0;
  bool pending = false;
  bool failed = false;
};

// A process using the GPU, with what NVML says it uses (nvml_processes.cpp).
struct GpuProcessReading {
  unsigned int pid = 0;
  std::optional<unsigned long long> used_memory_bytes;  // nullopt: NVML does not know
  // The newest utilisation sample of the process since the last period; nullopt: none (idle).
  std::optional<nvml::ProcessUtilizationSample> sample;
};

struct GpuDeviceReading {
  unsigned int index = 0;
  std::string uuid;
  std::string name;
  nvml::Return handle_rc = nvml::kSuccess;  // nvmlDeviceGetHandleByIndex_v2
  NvmlReading<unsigned long long> ecc_volatile_uncorrected;
  NvmlReading<unsigned long long> ecc_volatile_corrected;
  NvmlReading<unsigned long long> register_file_volatile_uncorrected;
  NvmlReading<unsigned long long> sram_aggregate_uncorrected;
  NvmlReading<unsigned int> retired_pages_single_bit;
  NvmlReading<unsigned int> retired_pages_double_bit;
  NvmlReading<bool> retirement_pending;
  NvmlReading<RemappedRows> remapped_rows;
  nvml::Return inforom_rc = nvml::kNotRead;  // nvmlDeviceValidateInforom
  NvmlReading<unsigned int> fan_speed_percent;
  NvmlReading<unsigned int> power_milliwatts;
  NvmlReading<unsigned int> temperature_celsius;
  NvmlReading<nvml::Utilization> utilization;
  NvmlReading<nvml::Memory> memory;
  // Compute processes on the device (nvmlDeviceGetComputeRunningProcesses_v3); the rc of the
  // utilisation samples is apart: a GPU that samples no process still lists them.
  NvmlReading<std::vector<GpuProcessReading>> processes;
  nvml::Return process_samples_rc = nvml::kNotRead;
};

struct XidEvent {
  unsigned int index = 0;  // the GPU's NVML index
  std::string uuid;
  unsigned long long xid = 0;
  std::chrono::system_clock::time_point at;
};

struct GpuReadings {
  enum class Library {
    Loaded,      // libnvidia-ml loaded and initialised
    Missing,     // dlopen failed
    InitFailed,  // nvmlInit_v2 returned an error (init_rc)
    BadLibrary,  // a function every read needs is missing (detail names it)
    TimedOut,    // a call did not return within --nvml-timeout (detail names it)
  };
  Library library = Library::Missing;
  std::string detail;  // dlerror(), the missing symbol, the call that hung
  nvml::Return init_rc = nvml::kNotRead;
  std::string driver_version;
  NvmlReading<unsigned int> device_count;
  std::vector<GpuDeviceReading> devices;
  // Xid events the event thread saw (persisted across restarts; see agent/state_file.hpp).
  std::vector<XidEvent> xids;
  // Symbols the library lacks that a reading needed (each a check failure, not a fault).
  std::vector<std::string> missing_symbols;
  // nvmlErrorString for codes seen, for messages ("GPU is lost").
  std::vector<std::pair<nvml::Return, std::string>> error_strings;
};

}  // namespace respool::agent
