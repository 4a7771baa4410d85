#pragma once
// The part of Ascend DCMI's C API (dcmi_interface_api.h, Huawei's public DCMI API reference)
// that the agent calls, declared here because no Debian package ships it. Function-pointer types
// that dcmi_library.cpp fills with dlsym.

namespace respool::agent::dcmi {

inline constexpr int kOk = 0;
inline constexpr int kNotRead = -100001;        // the agent's own: nothing tried yet
inline constexpr int kSymbolMissing = -100002;  // the agent's own: the library lacks it
// DCMI_ERR_CODE_NOT_SUPPORT (DCMI_ERROR_CODE_BASE - 255) and ..._NOT_SUPPORT_IN_CONTAINER
// (BASE - 13): "not available here", never a fault.
inline constexpr int kNotSupported = -8255;
inline constexpr int kNotSupportedInContainer = -8013;

// dcmi_get_device_health / dcmi_get_driver_health: 0 normal, 1 minor, 2 major, 3 critical.
inline constexpr unsigned int kHealthMajor = 2;
inline constexpr unsigned int kHealthCritical = 3;
// enum dcmi_device_type: HBM.
inline constexpr int kDeviceTypeHbm = 2;
// enum dcmi_rdfx_detect_result: OK; INIT means the probe has no address to try yet.
inline constexpr int kNetworkOk = 0;
inline constexpr int kNetworkInit = 6;

// dcmi_get_device_utilization_rate's input_type: AI Core, and on-chip memory (HBM) in use.
inline constexpr int kUtilizationAiCore = 2;
inline constexpr int kUtilizationHbm = 6;

// dcmi_get_device_resource_info lists at most 32 processes on a device.
inline constexpr int kMaxProcessesPerDevice = 32;

struct EccInfo {  // struct dcmi_ecc_info
  int enable_flag;
  unsigned int single_bit_error_cnt;
  unsigned int double_bit_error_cnt;
  unsigned int total_single_bit_error_cnt;
  unsigned int total_double_bit_error_cnt;
  unsigned int single_bit_isolated_pages_cnt;
  unsigned int double_bit_isolated_pages_cnt;
};

struct HbmInfo {                    // struct dcmi_hbm_info
  unsigned long long memory_size;   // MB
  unsigned int freq;                // MHz
  unsigned long long memory_usage;  // MB
  int temp;
  unsigned int bandwith_util_rate;
};

struct ProcMemInfo {             // struct dcmi_proc_mem_info
  int proc_id;                   // the host's pid
  unsigned long proc_mem_usage;  // bytes: the device OS's and the process's allocations
};

extern "C" {
using InitFn = int (*)();
using GetCardListFn = int (*)(int*, int*, int);
using GetDeviceNumInCardFn = int (*)(int, int*);
using GetDriverHealthFn = int (*)(unsigned int*);
using GetDeviceHealthFn = int (*)(int, int, unsigned int*);
using GetDeviceNetworkHealthFn = int (*)(int, int, int*);
using GetDeviceEccInfoFn = int (*)(int, int, int, EccInfo*);
using GetDeviceUtilizationRateFn = int (*)(int, int, int, unsigned int*);  // percent
using GetDeviceErrorCodeFn = int (*)(int, int, int*, unsigned int*, unsigned int);
using GetDeviceHbmInfoFn = int (*)(int, int, HbmInfo*);
using GetDeviceResourceInfoFn = int (*)(int, int, ProcMemInfo*, int*);  // list, count
}

}  // namespace respool::agent::dcmi
