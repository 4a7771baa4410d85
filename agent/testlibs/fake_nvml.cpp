// A test NVML: libnvidia-ml's functions that respool-node-agent calls, answering from the JSON
// file named by RESPOOL_FAKE_NVML_FILE (see agent/testlibs/README.md). For tests and the demo;
// never installed by the chart or the image.

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "agent/testlibs/readings_file.hpp"

namespace {

using respool::testlibs::forced_return;
using respool::testlibs::maybe_hang;
using respool::testlibs::read_readings;
using Json = nlohmann::json;

constexpr const char* kEnv = "RESPOOL_FAKE_NVML_FILE";
constexpr int kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kInsufficientSize = 7,
              kTimeout = 10, kGpuIsLost = 15, kUnknown = 999;

struct DeviceSlot {
  char unused;
};
DeviceSlot slots[64];

int index_of(void* device) {
  auto* slot = static_cast<DeviceSlot*>(device);
  if (slot < slots || slot >= slots + 64) return -1;
  return static_cast<int>(slot - slots);
}

// The device's JSON for a call, or an error code in `rc`.
Json device_for(void* device, const char* call, int& rc) {
  maybe_hang(kEnv, call);
  auto j = read_readings(kEnv);
  int i = index_of(device);
  if (!j.is_object() || i < 0) {
    rc = j.is_object() ? kInvalidArgument : kUnknown;
    return nullptr;
  }
  auto devices = j.value("devices", Json::array());
  if (i >= static_cast<int>(devices.size())) {
    rc = kInvalidArgument;
    return nullptr;
  }
  auto d = devices[static_cast<std::size_t>(i)];
  if (d.value("lost", false)) {
    rc = kGpuIsLost;
    return nullptr;
  }
  rc = forced_return(d, call);
  return d;
}

template <class T>
int answer(void* device, const char* call, const char* key, T* out) {
  int rc = 0;
  auto d = device_for(device, call, rc);
  if (rc != 0) return rc;
  if (!out) return kInvalidArgument;
  auto v = d.find(key);
  if (v == d.end()) return kNotSupported;  // a reading the file leaves out is not supported
  if constexpr (std::is_arithmetic_v<T>) {
    if (v->is_string()) return kUnknown;  // "ERR!": the reading is in error
  }
  *out = v->get<T>();
  return kSuccess;
}

std::mutex events_mu;
long long delivered = 0;  // the highest Xid event id delivered

}  // namespace

extern "C" {

int nvmlInit_v2() {
  maybe_hang(kEnv, "nvmlInit_v2");
  auto j = read_readings(kEnv);
  return j.is_object() ? j.value("init", 0) : kSuccess;
}

int nvmlShutdown() {
  return kSuccess;
}

const char* nvmlErrorString(int rc) {
  switch (rc) {
    case kSuccess:
      return "Success";
    case kNotSupported:
      return "Not Supported";
    case 9:
      return "Driver Not Loaded";
    case kGpuIsLost:
      return "GPU is lost";
    case 14:
      return "Corrupted infoROM";
    default:
      return "Unknown Error";
  }
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  auto j = read_readings(kEnv);
  auto text = j.is_object() ? j.value("driverVersion", "0.0") : std::string("0.0");
  if (!version || length <= text.size()) return kInsufficientSize;
  std::strcpy(version, text.c_str());
  return kSuccess;
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
  maybe_hang(kEnv, "nvmlDeviceGetCount_v2");
  auto j = read_readings(kEnv);
  if (!j.is_object()) return kUnknown;  // an unreadable file: the call fails, nothing is seen
  if (int rc = forced_return(j, "nvmlDeviceGetCount_v2")) return rc;
  *count = static_cast<unsigned int>(j.value("devices", Json::array()).size());
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (index >= 64) return kInvalidArgument;
  *device = &slots[index];
  int rc = 0;
  device_for(*device, "nvmlDeviceGetHandleByIndex_v2", rc);
  return rc;
}

int nvmlDeviceGetUUID(void* device, char* out, unsigned int length) {
  std::string uuid;
  int rc = answer(device, "nvmlDeviceGetUUID", "uuid", &uuid);
  if (rc != kSuccess) return rc;
  if (length <= uuid.size()) return kInsufficientSize;
  std::strcpy(out, uuid.c_str());
  return kSuccess;
}

int nvmlDeviceGetName(void* device, char* out, unsigned int length) {
  std::string name;
  int rc = answer(device, "nvmlDeviceGetName", "name", &name);
  if (rc != kSuccess) return rc;
  if (length <= name.size()) return kInsufficientSize;
  std::strcpy(out, name.c_str());
  return kSuccess;
}

int nvmlDeviceGetTotalEccErrors(void* device, int error_type, int counter_type,
                                unsigned long long* count) {
  const char* key = error_type == 1
                        ? (counter_type == 0 ? "eccVolatileUncorrected" : "eccAggregateUncorrected")
                        : (counter_type == 0 ? "eccVolatileCorrected" : "eccAggregateCorrected");
  return answer(device, "nvmlDeviceGetTotalEccErrors", key, count);
}

int nvmlDeviceGetMemoryErrorCounter(void* device, int error_type, int counter_type, int location,
                                    unsigned long long* count) {
  if (error_type != 1) return kNotSupported;
  const char* key = location == 3 && counter_type == 0   ? "registerFileVolatileUncorrected"
                    : location == 7 && counter_type == 1 ? "sramAggregateUncorrected"
                                                         : "";
  if (!*key) return kNotSupported;
  return answer(device, "nvmlDeviceGetMemoryErrorCounter", key, count);
}

int nvmlDeviceGetRetiredPages(void* device, int cause, unsigned int* count,
                              unsigned long long* addresses) {
  unsigned int pages = 0;
  int rc = answer(device, "nvmlDeviceGetRetiredPages",
                  cause == 0 ? "retiredPagesSingleBit" : "retiredPagesDoubleBit", &pages);
  if (rc != kSuccess) return rc;
  const unsigned int room = *count;
  *count = pages;
  if (room < pages) return kInsufficientSize;
  for (unsigned int i = 0; addresses && i < pages; ++i)
    addresses[i] = 0x1000ULL * (i + 1);
  return kSuccess;
}

int nvmlDeviceGetRetiredPagesPendingStatus(void* device, int* pending) {
  bool value = false;
  int rc = answer(device, "nvmlDeviceGetRetiredPagesPendingStatus", "retirementPending", &value);
  if (rc == kSuccess) *pending = value ? 1 : 0;
  return rc;
}

// Left out of the variant built to test a library that lacks a function.
#ifndef RESPOOL_FAKE_NVML_WITHOUT_REMAPPED_ROWS
int nvmlDeviceGetRemappedRows(void* device, unsigned int* corr, unsigned int* unc,
                              unsigned int* pending, unsigned int* failed) {
  Json rows;
  int rc = answer(device, "nvmlDeviceGetRemappedRows", "remappedRows", &rows);
  if (rc != kSuccess) return rc;
  *corr = rows.value("correctable", 0u);
  *unc = rows.value("uncorrectable", 0u);
  *pending = rows.value("pending", false) ? 1 : 0;
  *failed = rows.value("failed", false) ? 1 : 0;
  return kSuccess;
}
#endif

int nvmlDeviceValidateInforom(void* device) {
  int rc = 0;
  auto d = device_for(device, "nvmlDeviceValidateInforom", rc);
  if (rc != 0) return rc;
  return d.value("inforomCorrupted", false) ? 14 : kSuccess;
}

int nvmlDeviceGetFanSpeed(void* device, unsigned int* speed) {
  return answer(device, "nvmlDeviceGetFanSpeed", "fanSpeedPercent", speed);
}

int nvmlDeviceGetPowerUsage(void* device, unsigned int* milliwatts) {
  return answer(device, "nvmlDeviceGetPowerUsage", "powerMilliwatts", milliwatts);
}

int nvmlDeviceGetTemperature(void* device, int sensor, unsigned int* celsius) {
  if (sensor != 0) return kNotSupported;
  return answer(device, "nvmlDeviceGetTemperature", "temperatureCelsius", celsius);
}

struct Utilization {
  unsigned int gpu, memory;
};

int nvmlDeviceGetUtilizationRates(void* device, Utilization* out) {
  Json u;
  int rc = answer(device, "nvmlDeviceGetUtilizationRates", "utilization", &u);
  if (rc != kSuccess) return rc;
  out->gpu = u.value("gpu", 0u);
  out->memory = u.value("memory", 0u);
  return kSuccess;
}

struct Memory {
  unsigned long long total, free, used;
};

// {"memory": {"total": BYTES, "used": BYTES}}
int nvmlDeviceGetMemoryInfo(void* device, Memory* out) {
  Json m;
  int rc = answer(device, "nvmlDeviceGetMemoryInfo", "memory", &m);
  if (rc != kSuccess) return rc;
  out->total = m.value("total", 0ull);
  out->used = m.value("used", 0ull);
  out->free = out->total > out->used ? out->total - out->used : 0;
  return kSuccess;
}

struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
};

// {"processes": [{"pid": 4242, "usedGpuMemory": BYTES, "smUtil": 73, ...}]}: a process without
// usedGpuMemory reports NVML_VALUE_NOT_AVAILABLE.
int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned int* count, ProcessInfo* out) {
  Json list;
  int rc = answer(device, "nvmlDeviceGetComputeRunningProcesses_v3", "processes", &list);
  if (rc != kSuccess) return rc;
  const unsigned int room = *count;
  *count = static_cast<unsigned int>(list.size());
  if (room < list.size() || (!out && !list.empty())) return kInsufficientSize;
  for (std::size_t i = 0; i < list.size(); ++i) {
    out[i] = {list[i].value("pid", 0u), list[i].value("usedGpuMemory", ~0ull), 0xFFFFFFFFu,
              0xFFFFFFFFu};
  }
  return kSuccess;
}

struct ProcessUtilizationSample {
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil, memUtil, encUtil, decUtil;
};

// One sample per process that names smUtil, stamped with the time of the call (µs), so that
// every period sees a fresh one; NOT_FOUND when none is newer than last_seen.
int nvmlDeviceGetProcessUtilization(void* device, ProcessUtilizationSample* out,
                                    unsigned int* count, unsigned long long last_seen) {
  Json list;
  int rc = answer(device, "nvmlDeviceGetProcessUtilization", "processes", &list);
  if (rc != kSuccess) return rc;
  static std::atomic<unsigned long long> clock{0};
  const auto now = std::max<unsigned long long>(
      ++clock,
      static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count()));
  clock = now;
  std::vector<ProcessUtilizationSample> samples;
  for (const auto& p : list) {
    if (!p.contains("smUtil") || now <= last_seen) continue;
    samples.push_back({p.value("pid", 0u), now, p.value("smUtil", 0u), p.value("memUtil", 0u),
                       p.value("encUtil", 0u), p.value("decUtil", 0u)});
  }
  if (samples.empty()) return 6;  // NVML_ERROR_NOT_FOUND
  const unsigned int room = *count;
  *count = static_cast<unsigned int>(samples.size());
  if (!out || room < samples.size()) return kInsufficientSize;
  std::copy(samples.begin(), samples.end(), out);
  return kSuccess;
}

int nvmlEventSetCreate(void** set) {
  static char the_set;
  *set = &the_set;
  return kSuccess;
}

int nvmlDeviceRegisterEvents(void* device, unsigned long long, void*) {
  return index_of(device) < 0 ? kInvalidArgument : kSuccess;
}

struct EventData {
  void* device;
  unsigned long long eventType, eventData;
  unsigned int gpuInstanceId, computeInstanceId;
};

// Delivers each {"xids": [{"id": 1, "index": 0, "xid": 95}]} entry once, in id order.
int nvmlEventSetWait_v2(void*, EventData* data, unsigned int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  do {
    auto j = read_readings(kEnv);
    std::lock_guard lock(events_mu);
    for (const auto& x : j.is_object() ? j.value("xids", Json::array()) : Json::array()) {
      long long id = x.value("id", 0ll);
      if (id <= delivered) continue;
      delivered = id;
      *data = {&slots[x.value("index", 0u) % 64], 0x8ULL, x.value("xid", 0ull), 0, 0};
      return kSuccess;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return kTimeout;
}

int nvmlEventSetFree(void*) {
  return kSuccess;
}

}  // extern "C"
