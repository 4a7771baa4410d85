#include "agent/print_readings.hpp"

#include "agent/readings_json.hpp"

namespace respool::agent {

void print_period(std::ostream& out, const PeriodResult& period, const Expectations& expect) {
  nlohmann::json readings = nlohmann::json::object();
  const auto& r = period.readings;
  for (const auto& result : period.results) {
    switch (result.family) {
      case Family::Gpu:
        readings["gpu"] = to_json(r.gpu);
        break;
      case Family::Npu:
        readings["npu"] = to_json(r.npu);
        break;
      case Family::InfiniBand:
        readings["infiniband"] = to_json(r.infiniband);
        break;
      case Family::Clock:
        readings["clock"] = to_json(r.clock);
        break;
      case Family::KubeletDirectory:
        readings["kubeletDirectory"] = to_json(r.kubelet);
        break;
    }
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& result : period.results)
    findings.push_back(to_json(result));
  nlohmann::json seconds = nlohmann::json::object();
  for (const auto& [family, s] : period.seconds)
    seconds[std::string(check_name(family))] = s;
  static constexpr const char* kAccelerators[] = {"None", "GPU", "NPU"};
  nlohmann::json expectations = {
      {"known", expect.known},
      {"accelerator", kAccelerators[static_cast<int>(expect.accelerator)]},
      {"count", expect.accelerator_count},
      {"infiniband", expect.infiniband}};
  out << nlohmann::json{{"expectations", expectations},
                        {"readings", readings},
                        {"findings", findings},
                        {"seconds", seconds}}
             .dump(2)
      << std::endl;
}

}  // namespace respool::agent
