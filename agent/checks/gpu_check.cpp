#include "agent/checks/gpu_check.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace respool::agent {

namespace {

std::string device_name(const GpuDeviceReading& d) {
  return d.uuid.empty() ? fmt::format("GPU {}", d.index)
                        : fmt::format("GPU {} ({})", d.index, d.uuid);
}

std::string error_text(const GpuReadings& r, nvml::Return rc) {
  for (const auto& [code, text] : r.error_strings) {
    if (code == rc) return fmt::format("{} ({})", text, rc);
  }
  return fmt::format("NVML error {}", rc);
}

// A call that failed for a reason that is neither "not supported here" nor a fault of the GPU
// is the check's own failure: reported, never turned into a code.
template <class T>
void note_failure(const GpuReadings& r, const GpuDeviceReading& d, const char* call,
                  const NvmlReading<T>& reading, FamilyResult& out) {
  if (reading.rc == nvml::kSuccess || reading.rc == nvml::kErrorNotSupported ||
      reading.rc == nvml::kErrorGpuIsLost || reading.rc == nvml::kNotRead) {
    return;
  }
  if (reading.rc == nvml::kSymbolMissing) return;  // listed once, in missing_symbols
  out.failures.push_back({call, fmt::format("{}: {}", device_name(d), error_text(r, reading.rc))});
}

bool lost(const GpuDeviceReading& d) {
  auto is_lost = [](nvml::Return rc) { return rc == nvml::kErrorGpuIsLost; };
  return is_lost(d.handle_rc) || is_lost(d.ecc_volatile_uncorrected.rc) ||
         is_lost(d.retired_pages_single_bit.rc) || is_lost(d.inforom_rc) ||
         is_lost(d.power_milliwatts.rc) || is_lost(d.temperature_celsius.rc);
}

// H1: ECC errors that a job cannot survive.
void check_memory(const GpuDeviceReading& d, FamilyResult& out) {
  const auto name = device_name(d);
  auto fault = [&](std::string message) { out.faults.push_back({"A050101", name, message}); };
  if (d.ecc_volatile_uncorrected.ok() && d.ecc_volatile_uncorrected.value > 0) {
    fault(fmt::format("volatile uncorrectable ECC errors: {}", d.ecc_volatile_uncorrected.value));
  }
  if (d.register_file_volatile_uncorrected.ok() && d.register_file_volatile_uncorrected.value > 0) {
    fault(fmt::format("multi-bit register file errors: {}",
                      d.register_file_volatile_uncorrected.value));
  }
  if (d.sram_aggregate_uncorrected.ok() &&
      d.sram_aggregate_uncorrected.value > kMaxSramUncorrectable) {
    fault(fmt::format("uncorrectable SRAM errors: {} (more than {})",
                      d.sram_aggregate_uncorrected.value, kMaxSramUncorrectable));
  }
  if (d.retirement_pending.ok() && d.retirement_pending.value) {
    fault("page retirement pending (pending page blacklist)");
  }
  if (d.remapped_rows.ok() && d.remapped_rows.value.failed) {
    fault(fmt::format("row remapping failed ({} uncorrectable rows remapped)",
                      d.remapped_rows.value.uncorrectable));
  }
  // H2: retired pages.
  if (d.retired_pages_single_bit.ok() && d.retired_pages_double_bit.ok()) {
    auto total = d.retired_pages_single_bit.value + d.retired_pages_double_bit.value;
    if (total > kMaxRetiredPages) {
      out.faults.push_back(
          {"A050104", name,
           fmt::format("retired pages: {} single bit + {} double bit = {} "
                       "(more than {})",
                       d.retired_pages_single_bit.value, d.retired_pages_double_bit.value, total,
                       kMaxRetiredPages)});
    }
  }
}

// H3: infoROM; H4: readings nvidia-smi would show as ERR! (fan, power).
void check_board(const GpuReadings& r, const GpuDeviceReading& d, FamilyResult& out) {
  const auto name = device_name(d);
  if (d.inforom_rc == nvml::kErrorCorruptedInforom) {
    out.faults.push_back({"A050148", name, "infoROM is corrupted"});
  } else if (d.inforom_rc != nvml::kSuccess && d.inforom_rc != nvml::kErrorNotSupported &&
             d.inforom_rc != nvml::kNotRead && d.inforom_rc != nvml::kSymbolMissing &&
             d.inforom_rc != nvml::kErrorGpuIsLost) {
    out.failures.push_back(
        {"nvmlDeviceValidateInforom", fmt::format("{}: {}", name, error_text(r, d.inforom_rc))});
  }
  auto in_error = [](nvml::Return rc) {
    return rc == nvml::kErrorUnknown || rc == nvml::kErrorCorruptedInforom ||
           rc == 8 /* NVML_ERROR_INSUFFICIENT_POWER */ || rc == 11 /* NVML_ERROR_IRQ_ISSUE */;
  };
  if (in_error(d.fan_speed_percent.rc)) {
    out.faults.push_back(
        {"A050102", name,
         fmt::format("fan speed reading in error: {}", error_text(r, d.fan_speed_percent.rc))});
  }
  if (in_error(d.power_milliwatts.rc)) {
    out.faults.push_back(
        {"A050102", name,
         fmt::format("power reading in error: {}", error_text(r, d.power_milliwatts.rc))});
  }
}

void check_device(const GpuReadings& r, const GpuDeviceReading& d, FamilyResult& out) {
  if (lost(d)) {
    out.faults.push_back({"A050109", device_name(d), "GPU is lost (fallen off the bus)"});
    return;
  }
  if (d.handle_rc != nvml::kSuccess) {
    out.failures.push_back({"nvmlDeviceGetHandleByIndex_v2",
                            fmt::format("{}: {}", device_name(d), error_text(r, d.handle_rc))});
    return;
  }
  check_memory(d, out);
  check_board(r, d, out);
  note_failure(r, d, "nvmlDeviceGetTotalEccErrors", d.ecc_volatile_uncorrected, out);
  note_failure(r, d, "nvmlDeviceGetRetiredPages", d.retired_pages_single_bit, out);
  note_failure(r, d, "nvmlDeviceGetRetiredPagesPendingStatus", d.retirement_pending, out);
  note_failure(r, d, "nvmlDeviceGetRemappedRows", d.remapped_rows, out);
  note_failure(r, d, "nvmlDeviceGetMemoryErrorCounter", d.register_file_volatile_uncorrected, out);
}

void check_xids(const GpuReadings& r, const GpuCheckOptions& options,
                std::chrono::system_clock::time_point now, FamilyResult& out) {
  for (const auto& x : r.xids) {
    if (now - x.at > options.xid_hold) continue;
    auto code = xid_code(x.xid);
    if (code.empty()) continue;
    std::string device = x.uuid.empty() ? fmt::format("GPU {}", x.index)
                                        : fmt::format("GPU {} ({})", x.index, x.uuid);
    out.faults.push_back({std::string(code), device, fmt::format("Xid {} event", x.xid)});
  }
}

// A050103 from the library's state; false when there is nothing more to read.
bool check_library(const GpuReadings& r, const GpuCheckOptions& options, FamilyResult& out) {
  using L = GpuReadings::Library;
  const bool gpu_flavor =
      options.expect.known && options.expect.accelerator == Expectations::Accelerator::Gpu;
  switch (r.library) {
    case L::Loaded:
      return true;
    case L::Missing:
      // No NVML on a node that promises no GPU: nothing to check.
      if (!gpu_flavor) {
        out.applies = false;
      } else {
        out.faults.push_back({"A050103", "", "NVML library not found: " + r.detail});
      }
      return false;
    case L::InitFailed:
      if (!gpu_flavor && r.init_rc == nvml::kErrorDriverNotLoaded) {
        out.applies = false;  // a library without a driver, on a node without GPUs
      } else {
        out.faults.push_back(
            {"A050103", "", fmt::format("nvmlInit_v2 failed: {}", error_text(r, r.init_rc))});
      }
      return false;
    case L::TimedOut:
      out.faults.push_back({"A050103", "", r.detail});
      return false;
    case L::BadLibrary:
      out.failures.push_back({r.detail, "missing from the NVML library"});
      out.conclusive = false;
      return false;
  }
  return false;
}

}  // namespace

std::string_view xid_code(unsigned long long xid) {
  switch (xid) {
    case 48:  // double-bit ECC error
    case 95:  // uncontained ECC error
      return "A050101";
    case 62:
    case 64:
    case 74:
    case 79:
    case 92:
    case 94:
    case 119:
    case 120:
    case 140:
      // internal micro-controller halt, page retirement failed, NVLink error, fallen off the
      // bus, high single-bit ECC rate, contained ECC error, GSP errors, unrecovered ECC
      return "A050109";
    default:
      return "";
  }
}

FamilyResult check_gpus(const GpuReadings& readings, const GpuCheckOptions& options,
                        std::chrono::system_clock::time_point now) {
  FamilyResult out;
  out.family = Family::Gpu;
  for (const auto& symbol : readings.missing_symbols) {
    out.failures.push_back({symbol, "missing from the NVML library"});
  }
  check_xids(readings, options, now, out);
  if (!check_library(readings, options, out)) return out;
  if (!readings.device_count.ok()) {
    out.failures.push_back(
        {"nvmlDeviceGetCount_v2", error_text(readings, readings.device_count.rc)});
    out.conclusive = !out.faults.empty();
    return out;
  }
  for (const auto& d : readings.devices)
    check_device(readings, d, out);
  // F5: fewer GPUs than the flavor promises (the operator compares allocatable as well).
  const auto count = static_cast<int>(readings.device_count.value);
  if (options.expect.known && options.expect.accelerator == Expectations::Accelerator::Gpu &&
      count < options.expect.accelerator_count) {
    out.faults.push_back(
        {"A050203", "",
         fmt::format("{} of {} GPUs found", count, options.expect.accelerator_count)});
  }
  if (count == 0 &&
      !(options.expect.known && options.expect.accelerator == Expectations::Accelerator::Gpu)) {
    out.applies = !out.faults.empty();
  }
  return out;
}

}  // namespace respool::agent
