#include <fmt/format.h>

#include "agent/checks/host_checks.hpp"

namespace respool::agent {

FamilyResult check_infiniband(const IbReadings& readings, const Expectations& expect) {
  FamilyResult out;
  out.family = Family::InfiniBand;
  out.failures = readings.failures;
  if (readings.ports.empty()) {
    if (expect.known && expect.infiniband) {
      out.faults.push_back({"A050147", "", "no InfiniBand device found (the flavor promises one)"});
    } else {
      out.applies = false;
    }
    out.conclusive = readings.failures.empty() || !out.faults.empty();
    return out;
  }
  for (const auto& p : readings.ports) {
    // The sysfs state is "<n>: <NAME>", 4 = ACTIVE (ibstat's "State: Active").
    auto colon = p.state.find(':');
    if (colon == std::string::npos || colon == 0) {
      out.failures.push_back({fmt::format("{} port {} state", p.device, p.port),
                              fmt::format("not a port state: \"{}\"", p.state)});
      continue;
    }
    auto name = p.state.substr(colon + 1);
    while (!name.empty() && name.front() == ' ')
      name.erase(0, 1);
    if (name != "ACTIVE") {
      out.faults.push_back({"A050147", fmt::format("{} port {}", p.device, p.port),
                            fmt::format("port state {} (not ACTIVE)", p.state)});
    }
  }
  return out;
}

}  // namespace respool::agent
