#include <sys/timex.h>

#include <fmt/format.h>

#include "agent/checks/host_checks.hpp"

namespace respool::agent {

FamilyResult check_clock(const ClockReading& reading, const ClockLimits& limits) {
  FamilyResult out;
  out.family = Family::Clock;
  if (!reading.ok) {
    out.failures.push_back({"adjtimex", reading.error});
    out.conclusive = false;
    return out;
  }
  // The kernel calls the clock unsynchronised when no NTP daemon (ntpd, chronyd) disciplines
  // it: STA_UNSYNC set, or adjtimex's state TIME_ERROR. The messages leave out the errors'
  // values, which move every second: a message that changes is a write of the node's status
  // (respool_node_clock_estimated_error_seconds has the value).
  if (reading.state == TIME_ERROR || (reading.status & STA_UNSYNC) != 0) {
    out.faults.push_back({"A050146", "",
                          fmt::format("clock not synchronised (adjtimex state {}{})", reading.state,
                                      (reading.status & STA_UNSYNC) != 0 ? ", STA_UNSYNC" : "")});
    return out;
  }
  if (reading.estimated_error_us > limits.max_estimated_error.count()) {
    out.faults.push_back({"A050146", "",
                          fmt::format("clock estimated error over {} ms",
                                      limits.max_estimated_error.count() / 1000)});
  }
  return out;
}

}  // namespace respool::agent
