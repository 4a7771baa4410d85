#include "agent/nvml/nvml_library.hpp"

namespace respool::agent::nvml {

namespace {

template <class Fn>
void look_up(Library& lib, Fn& target, const char* name) {
  target = lib.handle->symbol<Fn>(name);
  if (!target) lib.missing.emplace_back(name);
}

}  // namespace

Library bind(std::shared_ptr<SharedLibrary> handle) {
  Library lib;
  lib.handle = std::move(handle);
  auto& f = lib.fn;
  look_up(lib, f.init, "nvmlInit_v2");
  look_up(lib, f.shutdown, "nvmlShutdown");
  look_up(lib, f.error_string, "nvmlErrorString");
  look_up(lib, f.driver_version, "nvmlSystemGetDriverVersion");
  look_up(lib, f.device_count, "nvmlDeviceGetCount_v2");
  look_up(lib, f.handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  look_up(lib, f.uuid, "nvmlDeviceGetUUID");
  look_up(lib, f.name, "nvmlDeviceGetName");
  look_up(lib, f.total_ecc_errors, "nvmlDeviceGetTotalEccErrors");
  look_up(lib, f.memory_error_counter, "nvmlDeviceGetMemoryErrorCounter");
  look_up(lib, f.retired_pages, "nvmlDeviceGetRetiredPages");
  look_up(lib, f.retired_pages_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
  look_up(lib, f.remapped_rows, "nvmlDeviceGetRemappedRows");
  look_up(lib, f.validate_inforom, "nvmlDeviceValidateInforom");
  look_up(lib, f.fan_speed, "nvmlDeviceGetFanSpeed");
  look_up(lib, f.power_usage, "nvmlDeviceGetPowerUsage");
  look_up(lib, f.temperature, "nvmlDeviceGetTemperature");
  look_up(lib, f.utilization, "nvmlDeviceGetUtilizationRates");
  look_up(lib, f.memory_info, "nvmlDeviceGetMemoryInfo");
  look_up(lib, f.compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
  look_up(lib, f.process_utilization, "nvmlDeviceGetProcessUtilization");
  look_up(lib, f.event_set_create, "nvmlEventSetCreate");
  look_up(lib, f.register_events, "nvmlDeviceRegisterEvents");
  look_up(lib, f.event_set_wait, "nvmlEventSetWait_v2");
  look_up(lib, f.event_set_free, "nvmlEventSetFree");
  return lib;
}

bool has_required(const Library& library, std::string* missing_name) {
  const auto& f = library.fn;
  const char* missing = !f.init              ? "nvmlInit_v2"
                        : !f.device_count    ? "nvmlDeviceGetCount_v2"
                        : !f.handle_by_index ? "nvmlDeviceGetHandleByIndex_v2"
                                             : nullptr;
  if (missing && missing_name) *missing_name = missing;
  return missing == nullptr;
}

}  // namespace respool::agent::nvml
