#include "agent/readings_json.hpp"

#include <fmt/format.h>

namespace respool::agent {

using Json = nlohmann::json;

namespace {

Json rc_json(nvml::Return rc) {
  switch (rc) {
    case nvml::kNotRead:
      return "notRead";
    case nvml::kSymbolMissing:
      return "symbolMissing";
    case nvml::kErrorNotSupported:
      return "notSupported";
    default:
      return fmt::format("nvmlError {}", rc);
  }
}

template <class T>
Json reading(const NvmlReading<T>& r) {
  if (!r.ok()) return rc_json(r.rc);
  if constexpr (std::is_same_v<T, RemappedRows>) {
    return {{"correctable", r.value.correctable},
            {"uncorrectable", r.value.uncorrectable},
            {"pending", r.value.pending},
            {"failed", r.value.failed}};
  } else if constexpr (std::is_same_v<T, nvml::Utilization>) {
    return {{"gpu", r.value.gpu}, {"memory", r.value.memory}};
  } else if constexpr (std::is_same_v<T, nvml::Memory>) {
    return {{"totalBytes", r.value.total}, {"usedBytes", r.value.used}};
  } else if constexpr (std::is_same_v<T, std::vector<GpuProcessReading>>) {
    Json out = Json::array();
    for (const auto& p : r.value) {
      Json process{{"pid", p.pid}};
      if (p.used_memory_bytes) process["usedMemoryBytes"] = *p.used_memory_bytes;
      if (p.sample) process["smUtil"] = p.sample->smUtil;
      out.push_back(std::move(process));
    }
    return out;
  } else {
    return r.value;
  }
}

template <class T>
Json reading(const DcmiReading<T>& r) {
  if (r.rc == dcmi::kNotRead) return "notRead";
  if (r.rc == dcmi::kSymbolMissing) return "symbolMissing";
  if (r.rc == dcmi::kNotSupported || r.rc == dcmi::kNotSupportedInContainer) return "notSupported";
  if (!r.ok()) return fmt::format("dcmiError {}", r.rc);
  if constexpr (std::is_same_v<T, dcmi::EccInfo>) {
    return {{"doubleBitErrors", r.value.double_bit_error_cnt},
            {"singleBitErrors", r.value.single_bit_error_cnt},
            {"doubleBitIsolatedPages", r.value.double_bit_isolated_pages_cnt},
            {"singleBitIsolatedPages", r.value.single_bit_isolated_pages_cnt}};
  } else if constexpr (std::is_same_v<T, dcmi::HbmInfo>) {
    return {{"totalMegabytes", r.value.memory_size}, {"usedMegabytes", r.value.memory_usage}};
  } else if constexpr (std::is_same_v<T, std::vector<dcmi::ProcMemInfo>>) {
    Json out = Json::array();
    for (const auto& p : r.value)
      out.push_back({{"pid", p.proc_id}, {"memoryBytes", p.proc_mem_usage}});
    return out;
  } else {
    return r.value;
  }
}

const char* library_state(GpuReadings::Library l) {
  switch (l) {
    case GpuReadings::Library::Loaded:
      return "Loaded";
    case GpuReadings::Library::Missing:
      return "Missing";
    case GpuReadings::Library::InitFailed:
      return "InitFailed";
    case GpuReadings::Library::BadLibrary:
      return "BadLibrary";
    case GpuReadings::Library::TimedOut:
      return "TimedOut";
  }
  return "";
}

Json device_json(const GpuDeviceReading& d) {
  return {{"index", d.index},
          {"uuid", d.uuid},
          {"name", d.name},
          {"handle", d.handle_rc == nvml::kSuccess ? Json("ok") : rc_json(d.handle_rc)},
          {"eccVolatileUncorrected", reading(d.ecc_volatile_uncorrected)},
          {"eccVolatileCorrected", reading(d.ecc_volatile_corrected)},
          {"registerFileVolatileUncorrected", reading(d.register_file_volatile_uncorrected)},
          {"sramAggregateUncorrected", reading(d.sram_aggregate_uncorrected)},
          {"retiredPagesSingleBit", reading(d.retired_pages_single_bit)},
          {"retiredPagesDoubleBit", reading(d.retired_pages_double_bit)},
          {"retirementPending", reading(d.retirement_pending)},
          {"remappedRows", reading(d.remapped_rows)},
          {"inforom", d.inforom_rc == nvml::kSuccess ? Json("valid") : rc_json(d.inforom_rc)},
          {"fanSpeedPercent", reading(d.fan_speed_percent)},
          {"powerMilliwatts", reading(d.power_milliwatts)},
          {"temperatureCelsius", reading(d.temperature_celsius)},
          {"utilization", reading(d.utilization)},
          {"memory", reading(d.memory)},
          {"processes", reading(d.processes)}};
}

}  // namespace

Json to_json(const GpuReadings& r) {
  Json devices = Json::array();
  for (const auto& d : r.devices)
    devices.push_back(device_json(d));
  Json xids = Json::array();
  for (const auto& x : r.xids)
    xids.push_back({{"index", x.index}, {"xid", x.xid}});
  Json errors = Json::object();
  for (const auto& [rc, text] : r.error_strings)
    errors[std::to_string(rc)] = text;
  return {{"library", library_state(r.library)},
          {"detail", r.detail},
          {"initReturn", r.init_rc},
          {"driverVersion", r.driver_version},
          {"deviceCount", reading(r.device_count)},
          {"devices", devices},
          {"xids", xids},
          {"missingSymbols", r.missing_symbols},
          {"errorStrings", errors}};
}

Json to_json(const NpuReadings& r) {
  Json devices = Json::array();
  for (const auto& d : r.devices) {
    Json codes = Json::array();
    for (auto c : d.error_codes.value)
      codes.push_back(c);
    devices.push_back({{"card", d.card},
                       {"device", d.device},
                       {"health", reading(d.health)},
                       {"network", reading(d.network)},
                       {"hbmEcc", reading(d.hbm_ecc)},
                       {"errorCodes", d.error_codes.ok() ? codes : reading(d.error_codes)},
                       {"aiCoreUtil", reading(d.ai_core_util)},
                       {"hbmUtil", reading(d.hbm_util)},
                       {"hbm", reading(d.hbm)},
                       {"processes", reading(d.processes)}});
  }
  static constexpr const char* kStates[] = {"Loaded", "Missing", "InitFailed", "BadLibrary",
                                            "TimedOut"};
  return {{"library", kStates[static_cast<int>(r.library)]},
          {"detail", r.detail},
          {"driverHealth", reading(r.driver_health)},
          {"devices", devices},
          {"missingSymbols", r.missing_symbols}};
}

Json to_json(const IbReadings& r) {
  Json ports = Json::array();
  for (const auto& p : r.ports)
    ports.push_back({{"device", p.device}, {"port", p.port}, {"state", p.state}});
  return {{"present", r.class_present}, {"ports", ports}};
}

Json to_json(const ClockReading& r) {
  if (!r.ok) return {{"error", r.error}};
  return {{"state", r.state},
          {"status", r.status},
          {"estimatedErrorMicroseconds", r.estimated_error_us},
          {"maxErrorMicroseconds", r.max_error_us}};
}

Json to_json(const KubeletDirReading& r) {
  return {{"path", r.path},
          {"mountinfo", r.mountinfo_file},
          {"readable", r.mountinfo.has_value()},
          {"error", r.error}};
}

Json to_json(const FamilyResult& r) {
  Json faults = Json::array();
  for (const auto& f : r.faults)
    faults.push_back({{"code", f.code}, {"device", f.device}, {"message", f.message}});
  Json failures = Json::array();
  for (const auto& f : r.failures)
    failures.push_back({{"what", f.what}, {"detail", f.detail}});
  return {{"condition", condition_type(r.family)},
          {"applies", r.applies},
          {"conclusive", r.conclusive},
          {"faults", faults},
          {"failures", failures}};
}

}  // namespace respool::agent
