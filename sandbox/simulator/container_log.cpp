#include "sandbox/simulator/container_log.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <string_view>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/failure_samples.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;
using TimePoint = LogClock::time_point;
using std::chrono::nanoseconds;

constexpr std::size_t kMaxSilences = 16;

struct Silence {
  TimePoint from;
  std::optional<TimePoint> to;  // none: still hanging
};

std::vector<Silence> silences_of(const Json& pod) {
  std::vector<Silence> out;
  const std::string text = annotation(pod, kSilencesAnnotation).value_or("");
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto slash = part.find('/');
    auto from = apimachinery::parse_time(std::string(part.substr(0, slash)));
    if (!from) continue;
    Silence s{*from, std::nullopt};
    if (slash != std::string_view::npos && slash + 1 < part.size())
      s.to = apimachinery::parse_time(std::string(part.substr(slash + 1)));
    out.push_back(s);
  }
  return out;
}

std::string format_silences(const std::vector<Silence>& silences) {
  std::string out;
  const std::size_t first = silences.size() > kMaxSilences ? silences.size() - kMaxSilences : 0;
  for (std::size_t i = first; i < silences.size(); ++i) {
    if (!out.empty()) out += ',';
    out += apimachinery::format_time(silences[i].from) + "/";
    if (silences[i].to) out += apimachinery::format_time(*silences[i].to);
  }
  return out;
}

nanoseconds interval_of(const Json& pod) {
  double seconds = kDefaultLogInterval;
  if (auto text = annotation(pod, kLogIntervalAnnotation)) {
    double v = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec == std::errc() && end == text->data() + text->size() && v > 0) seconds = v;
  }
  seconds = std::max(seconds, 0.01);  // bounds the lines a long run writes
  return nanoseconds(std::llround(seconds * 1e9));
}

const Json* status_of(const Json& pod, const std::string& container) {
  for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
    const Json& statuses = at_path(pod, {"status", list});
    if (!statuses.is_array()) continue;
    for (const auto& s : statuses)
      if (s.is_object() && s.value("name", std::string()) == container) return &s;
  }
  return nullptr;
}

// The first step written at or after t.
long long step_at_or_after(const ContainerRun& run, TimePoint t) {
  if (t <= run.start) return 0;
  const auto d = std::chrono::duration_cast<nanoseconds>(t - run.start).count();
  return (d + run.interval.count() - 1) / run.interval.count();
}

TimePoint step_time(const ContainerRun& run, long long step) {
  return run.start + std::chrono::duration_cast<LogClock::duration>(run.interval * step);
}

std::string line_text(const std::string& container, const ContainerRun& run, long long step) {
  if (step == 0) return container + " started (restart " + std::to_string(run.restart) + ")";
  char loss[32];
  std::snprintf(loss, sizeof loss, "%.4f", 4.0 / std::sqrt(static_cast<double>(step) + 1.0));
  return container + " step " + std::to_string(step) + ": loss=" + loss;
}

}  // namespace

std::string nano_time(TimePoint t) {
  return apimachinery::format_rfc3339(apimachinery::to_instant(t), apimachinery::Fraction::Nanos);
}

std::expected<ContainerRun, std::string> container_run(const Json& pod,
                                                       const std::string& container,
                                                       bool previous) {
  const std::string pod_name = string_at(pod, {"metadata", "name"});
  const Json* status = status_of(pod, container);
  ContainerRun run;
  run.interval = interval_of(pod);
  run.restart = status ? status->value("restartCount", 0) : 0;
  if (previous) {
    const Json& last = status ? at_path(*status, {"lastState", "terminated"}) : Json();
    auto start = apimachinery::parse_time(string_at(last, {"startedAt"}));
    auto end = apimachinery::parse_time(string_at(last, {"finishedAt"}));
    if (!start || !end)
      return std::unexpected("previous terminated container \"" + container + "\" in pod \"" +
                             pod_name + "\" not found");
    run.start = *start;
    run.finished = end;
    run.restart = std::max(0, run.restart - 1);
    return run;
  }
  if (status) {
    if (auto t = apimachinery::parse_time(string_at(*status, {"state", "running", "startedAt"}))) {
      run.start = *t;
      auto pod_start = apimachinery::parse_time(string_at(pod, {"status", "startTime"}));
      auto seconds = annotation(pod, kRunSecondsAnnotation);
      double run_seconds = 0;
      if (pod_start && seconds &&
          std::from_chars(seconds->data(), seconds->data() + seconds->size(), run_seconds).ec ==
              std::errc())
        run.ends_by = *pod_start + std::chrono::duration_cast<LogClock::duration>(
                                       std::chrono::duration<double>(run_seconds));
      return run;
    }
    auto start = apimachinery::parse_time(string_at(*status, {"state", "terminated", "startedAt"}));
    auto end = apimachinery::parse_time(string_at(*status, {"state", "terminated", "finishedAt"}));
    if (start && end) {
      run.start = *start;
      run.finished = end;
      return run;
    }
  }
  std::string reason = status ? string_at(*status, {"state", "waiting", "reason"}) : "";
  if (reason.empty()) reason = "ContainerCreating";
  return std::unexpected("container \"" + container + "\" in pod \"" + pod_name +
                         "\" is waiting to start: " + reason);
}

std::string container_log(const Json& pod, const std::string& container, const ContainerRun& run,
                          const LogQuery& query, TimePoint until, long long& last_step) {
  if (run.finished && *run.finished < until) until = *run.finished;
  if (run.ends_by && *run.ends_by < until) until = *run.ends_by;
  if (until < run.start) return {};
  // A run that ended with a failure sample printed its lines last, when it ended (a restarted
  // container's earlier runs too: each ended the same way). Only once its end is written, so
  // that a follow prints them once.
  std::vector<std::string_view> last_words;
  const std::optional<TimePoint> end = run.finished;
  if (auto failure = annotation(pod, kFailureAnnotation);
      failure && end && until >= *end && (!query.since || *query.since <= *end)) {
    if (const FailureSample* sample = find_failure_sample(*failure))
      last_words.assign(sample->lines.begin(), sample->lines.end());
  }
  // The steps written, as ranges [first, last], without those a hang silenced.
  long long first = std::max(query.after_step + 1, 0LL);
  if (query.since) first = std::max(first, step_at_or_after(run, *query.since));
  const long long last =
      std::chrono::duration_cast<nanoseconds>(until - run.start).count() / run.interval.count();
  std::vector<std::pair<long long, long long>> ranges;
  if (first <= last) ranges.emplace_back(first, last);
  for (const Silence& s : silences_of(pod)) {
    const long long quiet_from = step_at_or_after(run, s.from);
    const long long quiet_to =
        s.to ? step_at_or_after(run, *s.to) - 1 : std::numeric_limits<long long>::max();
    std::vector<std::pair<long long, long long>> next;
    for (auto [a, b] : ranges) {
      if (quiet_to < a || quiet_from > b || quiet_to < quiet_from) {
        next.emplace_back(a, b);
        continue;
      }
      if (a < quiet_from) next.emplace_back(a, quiet_from - 1);
      if (b > quiet_to) next.emplace_back(quiet_to + 1, b);
    }
    ranges = std::move(next);
  }
  if (query.tail_lines) {
    const auto words = static_cast<long long>(last_words.size());
    if (*query.tail_lines < words)
      last_words.erase(last_words.begin(), last_words.end() - *query.tail_lines);
    long long keep = std::max(0LL, *query.tail_lines - words);
    std::vector<std::pair<long long, long long>> tail;
    for (auto it = ranges.rbegin(); it != ranges.rend() && keep > 0; ++it) {
      const long long n = std::min(keep, it->second - it->first + 1);
      tail.emplace_back(it->second - n + 1, it->second);
      keep -= n;
    }
    ranges.assign(tail.rbegin(), tail.rend());
  }
  std::string out;
  for (auto [a, b] : ranges) {
    for (long long step = a; step <= b; ++step) {
      if (query.timestamps) out += nano_time(step_time(run, step)) + ' ';
      out += line_text(container, run, step);
      out += '\n';
      last_step = step;
    }
  }
  for (std::string_view line : last_words) {
    if (query.timestamps) out += nano_time(*end) + ' ';
    out.append(line);
    out += '\n';
  }
  return out;
}

std::optional<Json> silences_patch(const Json& pod, TimePoint now) {
  const bool hang = annotation(pod, kHangAnnotation).value_or("") == "true";
  std::vector<Silence> silences = silences_of(pod);
  const bool open = !silences.empty() && !silences.back().to;
  if (hang == open) return std::nullopt;
  if (hang) {
    silences.push_back({now, std::nullopt});
  } else {
    silences.back().to = now;
  }
  return Json{{"metadata", {{"annotations", {{kSilencesAnnotation, format_silences(silences)}}}}}};
}

}  // namespace respool::sandbox::sim
