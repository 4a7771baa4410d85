#include "agent/dcmi/dcmi_reader.hpp"

#include <algorithm>
#include <optional>

#include "agent/shared_library.hpp"

namespace respool::agent {

// The functions the reader calls (nullptr when the library lacks one).
struct DcmiFunctions {
  dcmi::InitFn init = nullptr;
  dcmi::GetCardListFn card_list = nullptr;
  dcmi::GetDeviceNumInCardFn device_num = nullptr;
  dcmi::GetDriverHealthFn driver_health = nullptr;
  dcmi::GetDeviceHealthFn device_health = nullptr;
  dcmi::GetDeviceNetworkHealthFn network_health = nullptr;
  dcmi::GetDeviceEccInfoFn ecc_info = nullptr;
  dcmi::GetDeviceErrorCodeFn error_codes = nullptr;
  dcmi::GetDeviceUtilizationRateFn utilization = nullptr;
  dcmi::GetDeviceHbmInfoFn hbm_info = nullptr;
  dcmi::GetDeviceResourceInfoFn resource_info = nullptr;
};

namespace {

template <class Fn>
void look_up(const SharedLibrary& lib, Fn& target, const char* name,
             std::vector<std::string>& missing) {
  target = lib.symbol<Fn>(name);
  if (!target) missing.emplace_back(name);
}

template <class Fn, class... Args>
int call(BoundedWorker::Progress& progress, const char* name, Fn fn, Args... args) {
  if (!fn) return dcmi::kSymbolMissing;
  progress.call(name);
  return fn(args...);
}

}  // namespace

struct DcmiReader::Session {
  std::string path;
  std::shared_ptr<SharedLibrary> library;
  DcmiFunctions fn;
  std::vector<std::string> missing;
  bool initialised = false;
};

namespace {

bool ensure_ready(DcmiReader::Session& s, BoundedWorker::Progress& p, NpuReadings& r) {
  if (!s.library) {
    p.call("dlopen");
    auto lib = SharedLibrary::open(s.path);
    if (!lib) {
      r.detail = lib.error();
      return false;  // Missing
    }
    s.library = *lib;
    auto& f = s.fn;
    look_up(*s.library, f.init, "dcmi_init", s.missing);
    look_up(*s.library, f.card_list, "dcmi_get_card_num_list", s.missing);
    look_up(*s.library, f.device_num, "dcmi_get_device_num_in_card", s.missing);
    look_up(*s.library, f.driver_health, "dcmi_get_driver_health", s.missing);
    look_up(*s.library, f.device_health, "dcmi_get_device_health", s.missing);
    look_up(*s.library, f.network_health, "dcmi_get_device_network_health", s.missing);
    look_up(*s.library, f.ecc_info, "dcmi_get_device_ecc_info", s.missing);
    look_up(*s.library, f.error_codes, "dcmi_get_device_errorcode_v2", s.missing);
    look_up(*s.library, f.utilization, "dcmi_get_device_utilization_rate", s.missing);
    look_up(*s.library, f.hbm_info, "dcmi_get_device_hbm_info", s.missing);
    look_up(*s.library, f.resource_info, "dcmi_get_device_resource_info", s.missing);
  }
  r.missing_symbols = s.missing;
  for (auto [present, name] : {std::pair{s.fn.init != nullptr, "dcmi_init"},
                               {s.fn.card_list != nullptr, "dcmi_get_card_num_list"},
                               {s.fn.device_num != nullptr, "dcmi_get_device_num_in_card"}}) {
    if (!present) {
      r.library = NpuReadings::Library::BadLibrary;
      r.detail = name;
      return false;
    }
  }
  if (!s.initialised) {
    r.init_rc = call(p, "dcmi_init", s.fn.init);
    if (r.init_rc != dcmi::kOk) {
      r.library = NpuReadings::Library::InitFailed;
      return false;
    }
    s.initialised = true;
  }
  r.init_rc = dcmi::kOk;
  r.library = NpuReadings::Library::Loaded;
  return true;
}

void read_device(const DcmiFunctions& f, BoundedWorker::Progress& p, NpuDeviceReading& d) {
  d.health.rc =
      call(p, "dcmi_get_device_health", f.device_health, d.card, d.device, &d.health.value);
  d.network.rc = call(p, "dcmi_get_device_network_health", f.network_health, d.card, d.device,
                      &d.network.value);
  d.hbm_ecc.rc = call(p, "dcmi_get_device_ecc_info", f.ecc_info, d.card, d.device,
                      dcmi::kDeviceTypeHbm, &d.hbm_ecc.value);
  d.ai_core_util.rc = call(p, "dcmi_get_device_utilization_rate", f.utilization, d.card, d.device,
                           dcmi::kUtilizationAiCore, &d.ai_core_util.value);
  d.hbm_util.rc = call(p, "dcmi_get_device_utilization_rate", f.utilization, d.card, d.device,
                       dcmi::kUtilizationHbm, &d.hbm_util.value);
  d.hbm.rc = call(p, "dcmi_get_device_hbm_info", f.hbm_info, d.card, d.device, &d.hbm.value);
  dcmi::ProcMemInfo procs[dcmi::kMaxProcessesPerDevice] = {};
  int proc_count = 0;
  d.processes.rc = call(p, "dcmi_get_device_resource_info", f.resource_info, d.card, d.device,
                        procs, &proc_count);
  if (d.processes.ok()) {
    d.processes.value.assign(procs,
                             procs + std::clamp(proc_count, 0, dcmi::kMaxProcessesPerDevice));
  }
  unsigned int codes[128] = {};
  int count = 0;
  d.error_codes.rc =
      call(p, "dcmi_get_device_errorcode_v2", f.error_codes, d.card, d.device, &count, codes, 128u);
  if (d.error_codes.ok()) {
    for (int i = 0; i < count && i < 128; ++i) {
      if (codes[i] != 0) d.error_codes.value.push_back(codes[i]);
    }
  }
}

void read_all(DcmiReader::Session& s, BoundedWorker::Progress& p, NpuReadings& r) {
  if (!ensure_ready(s, p, r)) return;
  const auto& f = s.fn;
  r.driver_health.rc = call(p, "dcmi_get_driver_health", f.driver_health, &r.driver_health.value);
  int cards[64] = {};
  int card_count = 0;
  r.cards.rc = call(p, "dcmi_get_card_num_list", f.card_list, &card_count, cards, 64);
  if (!r.cards.ok()) return;
  for (int c = 0; c < card_count && c < 64; ++c) {
    r.cards.value.push_back(cards[c]);
    int devices = 0;
    if (call(p, "dcmi_get_device_num_in_card", f.device_num, cards[c], &devices) != dcmi::kOk) {
      continue;
    }
    for (int d = 0; d < devices; ++d) {
      auto& device = r.devices.emplace_back();
      device.card = cards[c];
      device.device = d;
      read_device(f, p, device);
    }
  }
}

}  // namespace

DcmiReader::DcmiReader(std::string library_path, std::chrono::milliseconds timeout)
    : session_(std::make_shared<Session>()), timeout_(timeout), worker_("DCMI") {
  session_->path = std::move(library_path);
}

NpuReadings DcmiReader::read() {
  auto result = std::make_shared<NpuReadings>();
  auto ran = worker_.run(
      [session = session_, result](BoundedWorker::Progress& p) { read_all(*session, p, *result); },
      timeout_);
  if (!ran) {
    NpuReadings timed_out;
    timed_out.library = NpuReadings::Library::TimedOut;
    timed_out.detail = ran.error();
    return timed_out;
  }
  return std::move(*result);
}

}  // namespace respool::agent
