#pragma once
// NVML's functions, looked up in a loaded libnvidia-ml.so.1. A function the library lacks is
// nullptr (an old driver, a test library): the reader reports it and reads the rest.

#include <memory>
#include <string>
#include <vector>

#include "agent/nvml/nvml_api.hpp"
#include "agent/shared_library.hpp"

namespace respool::agent::nvml {

struct Functions {
  InitFn init = nullptr;                 // nvmlInit_v2
  ShutdownFn shutdown = nullptr;         // nvmlShutdown
  ErrorStringFn error_string = nullptr;  // nvmlErrorString
  SystemGetDriverVersionFn driver_version = nullptr;
  DeviceGetCountFn device_count = nullptr;             // nvmlDeviceGetCount_v2
  DeviceGetHandleByIndexFn handle_by_index = nullptr;  // nvmlDeviceGetHandleByIndex_v2
  DeviceGetStringFn uuid = nullptr;
  DeviceGetStringFn name = nullptr;
  DeviceGetTotalEccErrorsFn total_ecc_errors = nullptr;
  DeviceGetMemoryErrorCounterFn memory_error_counter = nullptr;
  DeviceGetRetiredPagesFn retired_pages = nullptr;
  DeviceGetRetiredPagesPendingStatusFn retired_pages_pending = nullptr;
  DeviceGetRemappedRowsFn remapped_rows = nullptr;
  DeviceValidateInforomFn validate_inforom = nullptr;
  DeviceGetUintFn fan_speed = nullptr;
  DeviceGetUintFn power_usage = nullptr;
  DeviceGetTemperatureFn temperature = nullptr;
  DeviceGetUtilizationRatesFn utilization = nullptr;
  DeviceGetMemoryInfoFn memory_info = nullptr;
  DeviceGetComputeRunningProcessesFn compute_processes = nullptr;  // ..._v3
  DeviceGetProcessUtilizationFn process_utilization = nullptr;
  EventSetCreateFn event_set_create = nullptr;
  DeviceRegisterEventsFn register_events = nullptr;
  EventSetWaitFn event_set_wait = nullptr;  // nvmlEventSetWait_v2
  EventSetFreeFn event_set_free = nullptr;
};

struct Library {
  std::shared_ptr<SharedLibrary> handle;
  Functions fn;
  // Names of the functions the library lacks.
  std::vector<std::string> missing;
};

// Looks every function up. The ones without which nothing can be read (init, count, handle)
// are `required`: the reader reports a library lacking them as bad.
Library bind(std::shared_ptr<SharedLibrary> handle);
bool has_required(const Library& library, std::string* missing_name);

}  // namespace respool::agent::nvml
