// A test Ascend DCMI: libdcmi's functions that respool-node-agent calls, answering from the JSON
// file named by RESPOOL_FAKE_DCMI_FILE (see agent/testlibs/README.md). For tests and the demo;
// never installed by the chart or the image.

#include "agent/testlibs/readings_file.hpp"

namespace {

using respool::testlibs::forced_return;
using respool::testlibs::maybe_hang;
using respool::testlibs::read_readings;
using Json = nlohmann::json;

constexpr const char* kEnv = "RESPOOL_FAKE_DCMI_FILE";
constexpr int kOk = 0, kInvalidParameter = -8001, kNotSupport = -8255, kFail = -8020;

Json device_for(int card, int device, const char* call, int& rc) {
  maybe_hang(kEnv, call);
  auto j = read_readings(kEnv);
  if (!j.is_object()) {
    rc = kFail;
    return nullptr;
  }
  for (const auto& c : j.value("cards", Json::array())) {
    if (c.value("card", -1) != card) continue;
    auto devices = c.value("devices", Json::array());
    if (device < 0 || device >= static_cast<int>(devices.size())) break;
    auto d = devices[static_cast<std::size_t>(device)];
    rc = forced_return(d, call);
    return d;
  }
  rc = kInvalidParameter;
  return nullptr;
}

}  // namespace

extern "C" {

int dcmi_init() {
  maybe_hang(kEnv, "dcmi_init");
  auto j = read_readings(kEnv);
  return j.is_object() ? j.value("init", kOk) : kOk;
}

int dcmi_get_card_num_list(int* card_num, int* card_list, int list_len) {
  maybe_hang(kEnv, "dcmi_get_card_num_list");
  auto j = read_readings(kEnv);
  if (!j.is_object()) return kFail;  // an unreadable file: the call fails, nothing is seen
  int n = 0;
  for (const auto& c : j.value("cards", Json::array())) {
    if (n < list_len) card_list[n] = c.value("card", 0);
    ++n;
  }
  *card_num = n < list_len ? n : list_len;
  return kOk;
}

int dcmi_get_device_num_in_card(int card, int* device_num) {
  auto j = read_readings(kEnv);
  for (const auto& c : j.is_object() ? j.value("cards", Json::array()) : Json::array()) {
    if (c.value("card", -1) == card) {
      *device_num = static_cast<int>(c.value("devices", Json::array()).size());
      return kOk;
    }
  }
  return kInvalidParameter;
}

int dcmi_get_driver_health(unsigned int* health) {
  maybe_hang(kEnv, "dcmi_get_driver_health");
  auto j = read_readings(kEnv);
  if (!j.is_object()) return kFail;
  *health = j.value("driverHealth", 0u);
  return kOk;
}

int dcmi_get_device_health(int card, int device, unsigned int* health) {
  int rc = 0;
  auto d = device_for(card, device, "dcmi_get_device_health", rc);
  if (rc != kOk) return rc;
  *health = d.value("health", 0u);
  return kOk;
}

int dcmi_get_device_network_health(int card, int device, int* result) {
  int rc = 0;
  auto d = device_for(card, device, "dcmi_get_device_network_health", rc);
  if (rc != kOk) return rc;
  if (!d.contains("network")) return kNotSupport;
  *result = d.value("network", 0);
  return kOk;
}

struct EccInfo {
  int enable_flag;
  unsigned int single_bit_error_cnt, double_bit_error_cnt, total_single_bit_error_cnt,
      total_double_bit_error_cnt, single_bit_isolated_pages_cnt, double_bit_isolated_pages_cnt;
};

int dcmi_get_device_ecc_info(int card, int device, int type, EccInfo* info) {
  int rc = 0;
  auto d = device_for(card, device, "dcmi_get_device_ecc_info", rc);
  if (rc != kOk) return rc;
  if (type != 2) return kNotSupport;  // HBM only
  *info = {1, 0, 0, 0, 0, 0, d.value("hbmDoubleBitIsolatedPages", 0u)};
  return kOk;
}

// {"aiCoreUtil": 71, "hbmUtil": 40} on the device; a type the file leaves out is not supported.
int dcmi_get_device_utilization_rate(int card, int device, int type, unsigned int* rate) {
  int rc = 0;
  auto d = device_for(card, device, "dcmi_get_device_utilization_rate", rc);
  if (rc != kOk) return rc;
  const char* key = type == 2 ? "aiCoreUtil" : type == 6 ? "hbmUtil" : "";
  if (!*key || !d.contains(key)) return kNotSupport;
  *rate = d.value(key, 0u);
  return kOk;
}

// Left out of the variant built to test an older library that lacks them.
#ifndef RESPOOL_FAKE_DCMI_WITHOUT_USAGE
struct HbmInfo {
  unsigned long long memory_size;
  unsigned int freq;
  unsigned long long memory_usage;
  int temp;
  unsigned int bandwith_util_rate;
};

// {"hbm": {"total": MB, "used": MB}} on the device; left out, not supported.
int dcmi_get_device_hbm_info(int card, int device, HbmInfo* info) {
  int rc = 0;
  auto d = device_for(card, device, "dcmi_get_device_hbm_info", rc);
  if (rc != kOk) return rc;
  if (!d.contains("hbm")) return kNotSupport;
  const auto& h = d["hbm"];
  *info = {h.value("total", 0ull), 1600, h.value("used", 0ull), 40, 0};
  return kOk;
}

struct ProcMemInfo {
  int proc_id;
  unsigned long proc_mem_usage;
};

// {"processes": [{"pid": 2000, "memory": BYTES}]} on the device (DCMI lists at most 32); left
// out, not supported.
int dcmi_get_device_resource_info(int card, int device, ProcMemInfo* info, int* count) {
  int rc = 0;
  auto d = device_for(card, device, "dcmi_get_device_resource_info", rc);
  if (rc != kOk) return rc;
  if (!d.contains("processes")) return kNotSupport;
  int n = 0;
  for (const auto& p : d["processes"]) {
    if (n == 32) break;
    info[n++] = {p.value("pid", 0), p.value("memory", 0ul)};
  }
  *count = n;
  return kOk;
}
#endif

int dcmi_get_device_errorcode_v2(int card, int device, int* count, unsigned int* codes,
                                 unsigned int list_len) {
  int rc = 0;
  auto d = device_for(card, device, "dcmi_get_device_errorcode_v2", rc);
  if (rc != kOk) return rc;
  int n = 0;
  for (const auto& c : d.value("errorCodes", Json::array())) {
    if (static_cast<unsigned int>(n) < list_len) codes[n++] = c.get<unsigned int>();
  }
  *count = n;
  return kOk;
}

}  // extern "C"
