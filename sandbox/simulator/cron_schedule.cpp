#include "sandbox/simulator/cron_schedule.hpp"

#include <array>
#include <cctype>
#include <map>
#include <vector>

#include "apimachinery/duration.hpp"

namespace respool::sandbox::sim {
namespace {

constexpr std::uint64_t kStarBit = std::uint64_t{1} << 63;

struct Bounds {
  unsigned min, max;
  const std::map<std::string, unsigned>* names;
};

const std::map<std::string, unsigned> kMonths = {{"jan", 1}, {"feb", 2},  {"mar", 3},  {"apr", 4},
                                                 {"may", 5}, {"jun", 6},  {"jul", 7},  {"aug", 8},
                                                 {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
const std::map<std::string, unsigned> kDays = {{"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
                                               {"thu", 4}, {"fri", 5}, {"sat", 6}};

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = text.find(sep, start);
    out.emplace_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// strconv.Atoi, worded as Go's errors.
std::expected<unsigned, std::string> parse_uint(const std::string& text) {
  long long v = 0;
  bool digits = !text.empty();
  std::size_t i = (text.size() > 1 && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  for (std::size_t k = i; k < text.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(text[k])) || v > 1'000'000'000) digits = false;
    if (digits) v = v * 10 + (text[k] - '0');
  }
  if (!digits)
    return std::unexpected("failed to parse int from " + text + ": strconv.Atoi: parsing \"" +
                           text + "\": invalid syntax");
  if (!text.empty() && text[0] == '-' && v != 0)
    return std::unexpected("negative number (-" + std::to_string(v) + ") not allowed: " + text);
  return static_cast<unsigned>(v);
}

std::expected<unsigned, std::string> parse_int_or_name(const std::string& text, const Bounds& b) {
  if (b.names) {
    std::string lower;
    for (char c : text)
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (auto it = b.names->find(lower); it != b.names->end()) return it->second;
  }
  return parse_uint(text);
}

std::expected<std::uint64_t, std::string> parse_range(const std::string& expr, const Bounds& b) {
  const auto range_and_step = split(expr, '/');
  const auto low_and_high = split(range_and_step[0], '-');
  unsigned start = 0, end = 0, step = 1;
  std::uint64_t extra = 0;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = b.min;
    end = b.max;
    extra = kStarBit;
  } else {
    auto s = parse_int_or_name(low_and_high[0], b);
    if (!s) return std::unexpected(s.error());
    start = end = *s;
    if (low_and_high.size() == 2) {
      auto e = parse_int_or_name(low_and_high[1], b);
      if (!e) return std::unexpected(e.error());
      end = *e;
    } else if (low_and_high.size() > 2) {
      return std::unexpected("too many hyphens: " + expr);
    }
  }
  if (range_and_step.size() == 2) {
    auto s = parse_uint(range_and_step[1]);
    if (!s) return std::unexpected(s.error());
    step = *s;
    if (low_and_high.size() == 1) end = b.max;  // "N/step" means "N-max/step"
    if (step > 1) extra = 0;
  } else if (range_and_step.size() > 2) {
    return std::unexpected("too many slashes: " + expr);
  }
  if (start < b.min)
    return std::unexpected("beginning of range (" + std::to_string(start) + ") below minimum (" +
                           std::to_string(b.min) + "): " + expr);
  if (end > b.max)
    return std::unexpected("end of range (" + std::to_string(end) + ") above maximum (" +
                           std::to_string(b.max) + "): " + expr);
  if (start > end)
    return std::unexpected("beginning of range (" + std::to_string(start) +
                           ") beyond end of range (" + std::to_string(end) + "): " + expr);
  if (step == 0) return std::unexpected("step of range should be a positive number: " + expr);
  std::uint64_t bits = 0;
  for (unsigned v = start; v <= end; v += step)
    bits |= std::uint64_t{1} << v;
  return bits | extra;
}

std::expected<std::uint64_t, std::string> parse_field(const std::string& field, const Bounds& b) {
  std::uint64_t bits = 0;
  for (const auto& expr : split(field, ',')) {
    auto r = parse_range(expr, b);
    if (!r) return std::unexpected(r.error());
    bits |= *r;
  }
  return bits;
}

}  // namespace

std::expected<CronSchedule, std::string> CronSchedule::parse(std::string_view spec) {
  std::vector<std::string> fields;
  std::string current;
  for (char c : spec) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!current.empty()) fields.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) fields.push_back(std::move(current));
  if (fields.empty()) return std::unexpected("empty spec string");
  CronSchedule s;
  if (fields[0].starts_with("@")) {
    std::string descriptor;
    for (const auto& f : fields)
      descriptor += (descriptor.empty() ? "" : " ") + f;
    static const std::map<std::string, std::string> macros = {
        {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
        {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
        {"@hourly", "0 * * * *"}};
    if (auto it = macros.find(descriptor); it != macros.end()) return parse(it->second);
    if (descriptor.starts_with("@every ")) {
      auto d = apimachinery::parse_duration(descriptor.substr(7));
      if (!d) return std::unexpected("failed to parse duration " + descriptor + ": " + d.error());
      const auto whole = std::chrono::duration_cast<std::chrono::seconds>(*d);
      s.every_ = std::max(whole, std::chrono::seconds(1));
      return s;
    }
    return std::unexpected("unrecognized descriptor: " + descriptor);
  }
  if (fields.size() != 5) {
    std::string listed;
    for (const auto& f : fields)
      listed += (listed.empty() ? "" : " ") + f;
    return std::unexpected("expected exactly 5 fields, found " + std::to_string(fields.size()) +
                           ": [" + listed + "]");
  }
  const std::array<Bounds, 5> bounds = {Bounds{0, 59, nullptr}, Bounds{0, 23, nullptr},
                                        Bounds{1, 31, nullptr}, Bounds{1, 12, &kMonths},
                                        Bounds{0, 6, &kDays}};
  std::array<std::uint64_t, 5> bits{};
  for (std::size_t i = 0; i < 5; ++i) {
    auto f = parse_field(fields[i], bounds[i]);
    if (!f) return std::unexpected(f.error());
    bits[i] = *f;
  }
  s.minute_ = bits[0];
  s.hour_ = bits[1];
  s.dom_ = bits[2];
  s.month_ = bits[3];
  s.dow_ = bits[4];
  s.dom_star_ = (s.dom_ & kStarBit) != 0;
  s.dow_star_ = (s.dow_ & kStarBit) != 0;
  return s;
}

std::optional<CronSchedule::TimePoint> CronSchedule::next(TimePoint t) const {
  using namespace std::chrono;
  if (every_ > std::chrono::seconds(0)) return floor<std::chrono::seconds>(t) + every_;
  auto minute_bit = [](std::uint64_t set, unsigned v) {
    return (set & (std::uint64_t{1} << v)) != 0;
  };
  sys_time<minutes> at = floor<minutes>(t) + minutes(1);
  const int year_limit = static_cast<int>(year_month_day(floor<days>(t)).year()) + 5;
  for (;;) {
    const sys_days day = floor<days>(at);
    const year_month_day ymd(day);
    if (static_cast<int>(ymd.year()) > year_limit) return std::nullopt;
    const unsigned month = static_cast<unsigned>(ymd.month());
    if (!minute_bit(month_, month)) {  // the first day of the next month
      at = sys_days(year_month_day(ymd.year() / ymd.month() / 1) + months(1));
      continue;
    }
    const bool dom = minute_bit(dom_, static_cast<unsigned>(ymd.day()));
    const bool dow = minute_bit(dow_, weekday(day).c_encoding());
    const bool day_ok = (dom_star_ || dow_star_) ? (dom && dow) : (dom || dow);
    if (!day_ok) {
      at = day + days(1);
      continue;
    }
    const auto since_midnight = duration_cast<minutes>(at - day);
    const unsigned hour = static_cast<unsigned>(since_midnight.count() / 60);
    const unsigned minute = static_cast<unsigned>(since_midnight.count() % 60);
    if (!minute_bit(hour_, hour)) {
      at = day + hours(hour + 1);
      continue;
    }
    if (!minute_bit(minute_, minute)) {
      at += minutes(1);
      continue;
    }
    return time_point_cast<system_clock::duration>(at);
  }
}

}  // namespace respool::sandbox::sim
