#pragma once
// A CronJob's spec.schedule, as the CronJob controller reads it with robfig/cron v3's
// ParseStandard: five fields (minute, hour, day of month, month, day of week) of lists, ranges
// and steps ("*/15", "1-5", "mon,wed", "jan-mar/2", "?"), or a descriptor (@yearly,
// @annually, @monthly, @weekly, @daily, @midnight, @hourly, "@every 1h30m"). When both day
// fields are restricted a day matches either of them, as in cron. Times are UTC.

#include <chrono>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace respool::sandbox::sim {

class CronSchedule {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  // Errors are worded as robfig/cron's ("expected exactly 5 fields, found 4: [...]").
  static std::expected<CronSchedule, std::string> parse(std::string_view spec);

  // The first activation strictly after `t`, or nullopt when there is none within five years
  // (a schedule such as "0 0 30 2 *").
  std::optional<TimePoint> next(TimePoint t) const;

 private:
  std::uint64_t minute_ = 0, hour_ = 0, dom_ = 0, month_ = 0, dow_ = 0;
  bool dom_star_ = false, dow_star_ = false;
  std::chrono::seconds every_{0};  // > 0: "@every"
};

}  // namespace respool::sandbox::sim
