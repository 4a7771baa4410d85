#include "agent/checks/npu_check.hpp"

#include <fmt/format.h>

namespace respool::agent {

namespace {

bool unsupported(int rc) {
  return rc == dcmi::kNotSupported || rc == dcmi::kNotSupportedInContainer;
}

template <class T>
void note_failure(const NpuDeviceReading& d, const char* call, const DcmiReading<T>& r,
                  FamilyResult& out) {
  if (r.ok() || unsupported(r.rc) || r.rc == dcmi::kNotRead || r.rc == dcmi::kSymbolMissing) {
    return;
  }
  out.failures.push_back({call, fmt::format("{}: DCMI error {}", npu_link_name(d), r.rc)});
}

void check_device(const NpuDeviceReading& d, const LinkDownWindow& window,
                  std::chrono::system_clock::time_point now, FamilyResult& out) {
  const auto name = npu_link_name(d);
  bool other = true;  // A050129 for error codes only when nothing more specific was found
  if (d.health.ok() && d.health.value >= dcmi::kHealthMajor) {
    out.faults.push_back(
        {"A050122", name,
         fmt::format("device health {} ({} alarm)", d.health.value,
                     d.health.value >= dcmi::kHealthCritical ? "urgent" : "major")});
    other = false;
  }
  if (d.network.ok() && d.network.value != dcmi::kNetworkOk &&
      d.network.value != dcmi::kNetworkInit) {
    out.faults.push_back(
        {"A050123", name, fmt::format("network health {} (not OK)", d.network.value)});
    other = false;
  }
  if (d.hbm_ecc.ok() &&
      d.hbm_ecc.value.double_bit_isolated_pages_cnt >= kMaxHbmDoubleBitIsolatedPages) {
    out.faults.push_back({"A050951", name,
                          fmt::format("HBM double-bit isolated pages: {} (at least {})",
                                      d.hbm_ecc.value.double_bit_isolated_pages_cnt,
                                      kMaxHbmDoubleBitIsolatedPages)});
    other = false;
  }
  if (int downs = window.downs(name, now); downs > kMaxLinkDownsPerWindow) {
    out.faults.push_back({"A050149", name,
                          fmt::format("hccn link down {} times in 24 hours (more than {})", downs,
                                      kMaxLinkDownsPerWindow)});
  }
  if (other && d.error_codes.ok() && !d.error_codes.value.empty()) {
    std::string codes;
    for (auto c : d.error_codes.value)
      codes += fmt::format("{}{:#x}", codes.empty() ? "" : ", ", c);
    out.faults.push_back({"A050129", name, "DCMI error codes: " + codes});
  }
  note_failure(d, "dcmi_get_device_health", d.health, out);
  note_failure(d, "dcmi_get_device_network_health", d.network, out);
  note_failure(d, "dcmi_get_device_ecc_info", d.hbm_ecc, out);
  note_failure(d, "dcmi_get_device_errorcode_v2", d.error_codes, out);
}

bool check_library(const NpuReadings& r, const Expectations& expect, FamilyResult& out) {
  using L = NpuReadings::Library;
  const bool npu_flavor = expect.known && expect.accelerator == Expectations::Accelerator::Npu;
  switch (r.library) {
    case L::Loaded:
      return true;
    case L::Missing:
    case L::InitFailed:
      if (!npu_flavor) {
        out.applies = false;
      } else {
        out.faults.push_back({"A050121", "",
                              r.library == L::Missing
                                  ? "DCMI library not found: " + r.detail
                                  : fmt::format("dcmi_init failed: {}", r.init_rc)});
      }
      return false;
    case L::TimedOut:
      out.faults.push_back({"A050121", "", r.detail});
      return false;
    case L::BadLibrary:
      out.failures.push_back({r.detail, "missing from the DCMI library"});
      out.conclusive = false;
      return false;
  }
  return false;
}

}  // namespace

std::string npu_link_name(const NpuDeviceReading& d) {
  return fmt::format("NPU {}/{}", d.card, d.device);
}

void observe_links(const NpuReadings& readings, LinkDownWindow& window,
                   std::chrono::system_clock::time_point now) {
  for (const auto& d : readings.devices) {
    if (!d.network.ok()) continue;  // no reading: neither up nor down
    const bool up = d.network.value == dcmi::kNetworkOk || d.network.value == dcmi::kNetworkInit;
    window.observe(npu_link_name(d), up, now);
  }
  window.prune(now);
}

FamilyResult check_npus(const NpuReadings& readings, const LinkDownWindow& window,
                        const Expectations& expect, std::chrono::system_clock::time_point now) {
  FamilyResult out;
  out.family = Family::Npu;
  for (const auto& symbol : readings.missing_symbols) {
    out.failures.push_back({symbol, "missing from the DCMI library"});
  }
  if (!check_library(readings, expect, out)) return out;
  // H7: the driver itself.
  if (readings.driver_health.ok() && readings.driver_health.value != 0) {
    out.faults.push_back(
        {"A050121", "", fmt::format("driver health {}", readings.driver_health.value)});
  } else if (!readings.driver_health.ok() && !unsupported(readings.driver_health.rc) &&
             readings.driver_health.rc != dcmi::kSymbolMissing) {
    out.failures.push_back(
        {"dcmi_get_driver_health", fmt::format("DCMI error {}", readings.driver_health.rc)});
  }
  if (!readings.cards.ok()) {
    out.failures.push_back(
        {"dcmi_get_card_num_list", fmt::format("DCMI error {}", readings.cards.rc)});
    out.conclusive = !out.faults.empty();
    return out;
  }
  for (const auto& d : readings.devices)
    check_device(d, window, now, out);
  const auto count = static_cast<int>(readings.devices.size());
  const bool npu_flavor = expect.known && expect.accelerator == Expectations::Accelerator::Npu;
  if (npu_flavor && count < expect.accelerator_count) {
    out.faults.push_back(
        {"A050203", "", fmt::format("{} of {} NPUs found", count, expect.accelerator_count)});
  }
  if (count == 0 && !npu_flavor) out.applies = !out.faults.empty();
  return out;
}

}  // namespace respool::agent
