#pragma once
// What a simulated container writes to its log, derived from the pod alone so that nothing is
// stored and the same request always reads the same lines under the injected clock.
//
// A run of a container (the current one, or the previous one in lastState.terminated) writes
// line 0 when it starts ("<container> started (restart N)") and line k every
// `sandbox.respool.io/log-interval` seconds after (default 10: "<container> step k: loss=..."),
// up to now (running) or its finishedAt, except while the pod hangs (the silences its kubelet
// recorded, keys.hpp).

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

using LogClock = std::chrono::system_clock;

struct ContainerRun {
  LogClock::time_point start;
  std::optional<LogClock::time_point> finished;  // none: still running
  int restart = 0;                               // the restartCount this run started with
  // A running pod with sandbox.respool.io/run-seconds ends then (its kubelet may write the end
  // a moment later): nothing is written after it.
  std::optional<LogClock::time_point> ends_by;
  std::chrono::nanoseconds interval{};
};

// The run `pod`'s container `container` is in (or, `previous`, the one before it); the kubelet's
// error when there is none: `previous terminated container "c" in pod "p" not found`,
// `container "c" in pod "p" is waiting to start: ContainerCreating`.
std::expected<ContainerRun, std::string> container_run(const nlohmann::json& pod,
                                                       const std::string& container, bool previous);

struct LogQuery {
  std::optional<LogClock::time_point> since;  // lines written at or after
  std::optional<long long> tail_lines;
  bool timestamps = false;    // each line prefixed "2006-01-02T15:04:05.000000000Z "
  long long after_step = -1;  // only lines after this one (follow)
};

// The text of the lines the run wrote up to `until`; `last_step` is set to the last line's
// step (unchanged when none).
std::string container_log(const nlohmann::json& pod, const std::string& container,
                          const ContainerRun& run, const LogQuery& query,
                          LogClock::time_point until, long long& last_step);

// RFC 3339 with nine fraction digits, as the kubelet writes log timestamps.
std::string nano_time(LogClock::time_point t);

// The merge patch of metadata.annotations that records a change of the pod's hang
// (kHangAnnotation) in kSilencesAnnotation, or nullopt when nothing changed.
std::optional<nlohmann::json> silences_patch(const nlohmann::json& pod, LogClock::time_point now);

}  // namespace respool::sandbox::sim
