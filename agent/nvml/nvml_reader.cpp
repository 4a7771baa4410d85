#include "agent/nvml/nvml_reader.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "agent/nvml/nvml_usage.hpp"
#include "agent/nvml/xid_watcher.hpp"

namespace respool::agent {

struct NvmlReader::Session {
  std::string path;
  std::optional<nvml::Library> library;
  bool initialised = false;
  // Per device index: the newest process utilisation sample seen (nvml_usage.hpp).
  std::vector<unsigned long long> last_sample;
};

namespace {

// Calls `fn` through `progress` when the library has it; kSymbolMissing otherwise.
template <class Fn, class... Args>
nvml::Return call(BoundedWorker::Progress& progress, const char* name, Fn fn, Args... args) {
  if (!fn) return nvml::kSymbolMissing;
  progress.call(name);
  return fn(args...);
}

std::string device_string(BoundedWorker::Progress& p, const char* name, nvml::DeviceGetStringFn fn,
                          nvml::Device device) {
  char buffer[96] = {};
  if (call(p, name, fn, device, buffer, static_cast<unsigned int>(sizeof buffer - 1)) !=
      nvml::kSuccess) {
    return "";
  }
  return std::string(buffer, strnlen(buffer, sizeof buffer));
}

// Retired pages of one cause: NVML documents a NULL buffer as an invalid argument, so the call
// gets a buffer (of the most pages a GPU retires in practice); INSUFFICIENT_SIZE still sets the
// count, which is all the check needs.
NvmlReading<unsigned int> retired(BoundedWorker::Progress& p, const nvml::Functions& fn,
                                  nvml::Device device, int cause) {
  NvmlReading<unsigned int> r;
  std::vector<unsigned long long> addresses(512);
  unsigned int count = static_cast<unsigned int>(addresses.size());
  r.rc = call(p, "nvmlDeviceGetRetiredPages", fn.retired_pages, device, cause, &count,
              addresses.data());
  if (r.rc == nvml::kErrorInsufficientSize) r.rc = nvml::kSuccess;
  r.value = count;
  return r;
}

void read_memory(BoundedWorker::Progress& p, const nvml::Functions& fn, nvml::Device d,
                 GpuDeviceReading& out) {
  out.ecc_volatile_uncorrected.rc =
      call(p, "nvmlDeviceGetTotalEccErrors", fn.total_ecc_errors, d, nvml::kMemoryErrorUncorrected,
           nvml::kVolatileEcc, &out.ecc_volatile_uncorrected.value);
  out.ecc_volatile_corrected.rc =
      call(p, "nvmlDeviceGetTotalEccErrors", fn.total_ecc_errors, d, nvml::kMemoryErrorCorrected,
           nvml::kVolatileEcc, &out.ecc_volatile_corrected.value);
  out.register_file_volatile_uncorrected.rc =
      call(p, "nvmlDeviceGetMemoryErrorCounter", fn.memory_error_counter, d,
           nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc, nvml::kLocationRegisterFile,
           &out.register_file_volatile_uncorrected.value);
  out.sram_aggregate_uncorrected.rc =
      call(p, "nvmlDeviceGetMemoryErrorCounter", fn.memory_error_counter, d,
           nvml::kMemoryErrorUncorrected, nvml::kAggregateEcc, nvml::kLocationSram,
           &out.sram_aggregate_uncorrected.value);
  out.retired_pages_single_bit = retired(p, fn, d, nvml::kRetirementMultipleSingleBit);
  out.retired_pages_double_bit = retired(p, fn, d, nvml::kRetirementDoubleBit);
  int pending = 0;
  out.retirement_pending.rc =
      call(p, "nvmlDeviceGetRetiredPagesPendingStatus", fn.retired_pages_pending, d, &pending);
  out.retirement_pending.value = pending != 0;
  unsigned int corr = 0, unc = 0, is_pending = 0, failed = 0;
  out.remapped_rows.rc =
      call(p, "nvmlDeviceGetRemappedRows", fn.remapped_rows, d, &corr, &unc, &is_pending, &failed);
  out.remapped_rows.value = {corr, unc, is_pending != 0, failed != 0};
}

void read_board(BoundedWorker::Progress& p, const nvml::Functions& fn, nvml::Device d,
                GpuDeviceReading& out) {
  out.inforom_rc = call(p, "nvmlDeviceValidateInforom", fn.validate_inforom, d);
  out.fan_speed_percent.rc =
      call(p, "nvmlDeviceGetFanSpeed", fn.fan_speed, d, &out.fan_speed_percent.value);
  out.power_milliwatts.rc =
      call(p, "nvmlDeviceGetPowerUsage", fn.power_usage, d, &out.power_milliwatts.value);
  out.temperature_celsius.rc = call(p, "nvmlDeviceGetTemperature", fn.temperature, d,
                                    nvml::kTemperatureGpu, &out.temperature_celsius.value);
  out.utilization.rc =
      call(p, "nvmlDeviceGetUtilizationRates", fn.utilization, d, &out.utilization.value);
}

void remember_error_strings(const nvml::Functions& fn, GpuReadings& r) {
  if (!fn.error_string) return;
  auto note = [&](nvml::Return rc) {
    if (rc <= 0) return;
    if (std::any_of(r.error_strings.begin(), r.error_strings.end(),
                    [&](const auto& e) { return e.first == rc; })) {
      return;
    }
    const char* text = fn.error_string(rc);
    r.error_strings.emplace_back(rc, text ? text : "");
  };
  note(r.init_rc);
  note(r.device_count.rc);
  for (const auto& d : r.devices) {
    for (auto rc : {d.handle_rc, d.ecc_volatile_uncorrected.rc, d.ecc_volatile_corrected.rc,
                    d.register_file_volatile_uncorrected.rc, d.sram_aggregate_uncorrected.rc,
                    d.retired_pages_single_bit.rc, d.retired_pages_double_bit.rc,
                    d.retirement_pending.rc, d.remapped_rows.rc, d.inforom_rc,
                    d.fan_speed_percent.rc, d.power_milliwatts.rc, d.temperature_celsius.rc,
                    d.utilization.rc, d.memory.rc, d.processes.rc, d.process_samples_rc}) {
      note(rc);
    }
  }
}

// Loads and initialises the library when it is not yet; false when nothing more can be read.
bool ensure_ready(NvmlReader::Session& s, BoundedWorker::Progress& p, GpuReadings& r) {
  if (!s.library) {
    p.call("dlopen");
    auto handle = SharedLibrary::open(s.path);
    if (!handle) {
      r.library = GpuReadings::Library::Missing;
      r.detail = handle.error();
      return false;
    }
    s.library = nvml::bind(std::move(*handle));
  }
  r.missing_symbols = s.library->missing;
  std::string missing;
  if (!nvml::has_required(*s.library, &missing)) {
    r.library = GpuReadings::Library::BadLibrary;
    r.detail = missing;
    return false;
  }
  if (!s.initialised) {
    r.init_rc = call(p, "nvmlInit_v2", s.library->fn.init);
    if (r.init_rc != nvml::kSuccess) {
      r.library = GpuReadings::Library::InitFailed;
      remember_error_strings(s.library->fn, r);
      return false;
    }
    s.initialised = true;
  }
  r.init_rc = nvml::kSuccess;
  r.library = GpuReadings::Library::Loaded;
  return true;
}

void read_all(NvmlReader::Session& s, BoundedWorker::Progress& p, GpuReadings& r) {
  if (!ensure_ready(s, p, r)) return;
  const auto& fn = s.library->fn;
  char version[96] = {};
  if (call(p, "nvmlSystemGetDriverVersion", fn.driver_version, version,
           static_cast<unsigned int>(sizeof version - 1)) == nvml::kSuccess) {
    r.driver_version = version;
  }
  r.device_count.rc = call(p, "nvmlDeviceGetCount_v2", fn.device_count, &r.device_count.value);
  if (r.device_count.ok()) {
    s.last_sample.resize(std::max<std::size_t>(s.last_sample.size(), r.device_count.value));
    for (unsigned int i = 0; i < r.device_count.value; ++i) {
      read_device(fn, i, r.devices.emplace_back(), p, &s.last_sample[i]);
    }
  }
  remember_error_strings(fn, r);
}

}  // namespace

void read_device(const nvml::Functions& fn, unsigned int index, GpuDeviceReading& out,
                 BoundedWorker::Progress& progress, unsigned long long* last_sample) {
  out.index = index;
  nvml::Device device = nullptr;
  out.handle_rc =
      call(progress, "nvmlDeviceGetHandleByIndex_v2", fn.handle_by_index, index, &device);
  if (out.handle_rc != nvml::kSuccess) return;
  out.uuid = device_string(progress, "nvmlDeviceGetUUID", fn.uuid, device);
  out.name = device_string(progress, "nvmlDeviceGetName", fn.name, device);
  read_memory(progress, fn, device, out);
  read_board(progress, fn, device, out);
  unsigned long long from_start = 0;
  read_usage(fn, device, out, progress, last_sample ? *last_sample : from_start);
}

NvmlReader::NvmlReader(std::string library_path, std::chrono::milliseconds timeout,
                       runtime::Clock& clock, bool watch_xids)
    : library_path_(std::move(library_path)),
      timeout_(timeout),
      clock_(clock),
      watch_xids_(watch_xids),
      session_(std::make_shared<Session>()),
      worker_("NVML") {
  session_->path = library_path_;
}

NvmlReader::~NvmlReader() = default;

GpuReadings NvmlReader::read() {
  auto result = std::make_shared<GpuReadings>();
  auto ran = worker_.run(
      [session = session_, result](BoundedWorker::Progress& p) { read_all(*session, p, *result); },
      timeout_);
  if (!ran) {
    GpuReadings timed_out;
    timed_out.library = GpuReadings::Library::TimedOut;
    timed_out.detail = ran.error();
    return timed_out;
  }
  // The task has ended: the session is ours again until the next read.
  if (watch_xids_ && !xids_ && session_->initialised && result->device_count.ok()) {
    xids_ = std::make_unique<XidWatcher>(session_->library->handle, session_->library->fn, clock_);
  }
  return std::move(*result);
}

std::vector<XidEvent> NvmlReader::take_xids() {
  return xids_ ? xids_->take() : std::vector<XidEvent>{};
}

}  // namespace respool::agent
