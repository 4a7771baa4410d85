#pragma once
// The part of NVML's C API (nvml.h, NVIDIA's public NVML API reference) that the agent calls,
// declared here because Debian ships no NVML header. Only what the agent calls: the prototypes
// are function-pointer types that nvml_library.cpp fills with dlsym, never linked directly.

namespace respool::agent::nvml {

using Return = int;  // nvmlReturn_t
using Device = struct DeviceOpaque*;
using EventSet = struct EventSetOpaque*;

// nvmlReturn_t values the agent tells apart.
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorCorruptedInforom = 14;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorUnknown = 999;
// The agent's own codes, outside NVML's range: the call was not made.
inline constexpr Return kNotRead = -1;        // nothing tried yet
inline constexpr Return kSymbolMissing = -2;  // the library lacks the function

// nvmlMemoryErrorType_t, nvmlEccCounterType_t, nvmlMemoryLocation_t.
inline constexpr int kMemoryErrorCorrected = 0;
inline constexpr int kMemoryErrorUncorrected = 1;
inline constexpr int kVolatileEcc = 0;
inline constexpr int kAggregateEcc = 1;
inline constexpr int kLocationRegisterFile = 3;
inline constexpr int kLocationSram = 7;
// nvmlPageRetirementCause_t.
inline constexpr int kRetirementMultipleSingleBit = 0;
inline constexpr int kRetirementDoubleBit = 1;
// nvmlTemperatureSensors_t.
inline constexpr int kTemperatureGpu = 0;
// nvmlEventType: Xid critical errors (every Xid the driver reports).
inline constexpr unsigned long long kEventTypeXidCriticalError = 0x8ULL;

struct Utilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};

struct Memory {  // nvmlMemory_t (v1): bytes
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 fills it (the v2 layout, which
// NVML's headers since CUDA 11 name both nvmlProcessInfo_t and nvmlProcessInfo_v2_t).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes; NVML_VALUE_NOT_AVAILABLE (all ones) when unknown
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;

struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t: percents, timestamp in µs
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
};

struct EventData {  // nvmlEventData_t
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

extern "C" {
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemGetDriverVersionFn = Return (*)(char*, unsigned int);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);  // UUID, name
using DeviceGetTotalEccErrorsFn = Return (*)(Device, int, int, unsigned long long*);
using DeviceGetMemoryErrorCounterFn = Return (*)(Device, int, int, int, unsigned long long*);
using DeviceGetRetiredPagesFn = Return (*)(Device, int, unsigned int*, unsigned long long*);
using DeviceGetRetiredPagesPendingStatusFn = Return (*)(Device, int*);
using DeviceGetRemappedRowsFn = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*,
                                           unsigned int*);
using DeviceValidateInforomFn = Return (*)(Device);
using DeviceGetUintFn = Return (*)(Device, unsigned int*);  // fan speed, power usage
using DeviceGetTemperatureFn = Return (*)(Device, int, unsigned int*);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);
using DeviceGetComputeRunningProcessesFn = Return (*)(Device, unsigned int*, ProcessInfo*);
// Samples newer than the last timestamp given (0: every sample NVML still holds).
using DeviceGetProcessUtilizationFn = Return (*)(Device, ProcessUtilizationSample*, unsigned int*,
                                                 unsigned long long);
using EventSetCreateFn = Return (*)(EventSet*);
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);
using EventSetFreeFn = Return (*)(EventSet);
}

}  // namespace respool::agent::nvml
