#include "reconcilers/policy/performance.hpp"

#include <algorithm>
#include <cmath>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string count_text(double lines) {
  const double rounded = std::round(lines * 10) / 10;
  std::string text = std::to_string(rounded);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

PerformanceReading read_performance_monitoring(
    const std::map<std::string, std::string>& annotations) {
  PerformanceReading out;
  auto on = annotations.find(kPerformanceMonitoringAnnotation);
  if (on == annotations.end() || on->second == "false") return out;
  if (on->second != "true") {
    out.problem = "O12: " + std::string(kPerformanceMonitoringAnnotation) +
                  " must be \"true\" or \"false\", not \"" + on->second + "\"";
    return out;
  }
  PerformanceMonitoring monitoring;
  if (auto w = annotations.find(kPerformanceWindowAnnotation); w != annotations.end()) {
    auto window = parse_duration(w->second);
    if (!window || *window < kMinPerformanceWindow) {
      out.problem = "O12: " + std::string(kPerformanceWindowAnnotation) +
                    " must be a duration of at least 1m (such as 10m or 1h), not \"" + w->second +
                    "\"";
      return out;
    }
    monitoring.window = *window;
  }
  out.monitoring = monitoring;
  return out;
}

std::vector<Straggler> find_stragglers(const std::vector<WorkerActivity>& activities,
                                       Measure measure) {
  std::vector<Straggler> out;
  if (activities.size() < 2) return out;
  const double minimum = measure == Measure::LogLines ? kMinComparableLines : kMinComparableUse;
  for (std::size_t i = 0; i < activities.size(); ++i) {
    if (activities[i].at_least) continue;
    std::vector<double> others;
    for (std::size_t j = 0; j < activities.size(); ++j)
      if (j != i) others.push_back(activities[j].amount);
    const double m = median(std::move(others));
    if (m >= minimum && activities[i].amount < kStragglerShare * m) out.push_back({i, m});
  }
  return out;
}

Comparison plan_comparison(const std::vector<Worker>& workers,
                           const std::map<int, TimePoint>& started_at, bool restarting,
                           TimePoint now, std::chrono::seconds window) {
  Comparison out;
  std::size_t running = 0;
  TimePoint last_start{};
  for (std::size_t i = 0; i < workers.size(); ++i) {
    // A failed or finished pod (restartPolicy Never keeps them beside their replacements) is
    // not compared, nor waited for.
    if (!workers[i].running) continue;
    ++running;
    auto started = started_at.find(workers[i].index);
    const TimePoint start = started == started_at.end() ? now : started->second;
    last_start = std::max(last_start, start);
    if (start <= now - window) out.compared.push_back(i);
  }
  if (restarting || running < 2 || out.compared.size() < running) {
    out.compared.clear();
    out.wait_until =
        std::clamp<TimePoint>(last_start + window, now + std::chrono::seconds(1), now + window);
  }
  return out;
}

DiagnosisResult straggler_result(const WorkerActivity& worker, double others_median,
                                 std::chrono::seconds window, Measure measure) {
  DiagnosisResult r;
  const std::string who =
      worker.worker >= 0 ? "worker " + std::to_string(worker.worker) : "pod " + worker.pod;
  const std::string over =
      go_duration(std::chrono::duration_cast<std::chrono::milliseconds>(window));
  r.symptom = "a straggler: " + who + " progresses far slower than the job's other workers";
  r.fault = who + " (pod " + worker.pod + " on node " + worker.node + ") " +
            (measure == Measure::LogLines
                 ? "logged " + count_text(worker.amount) + " lines in " + over +
                       ", the job's other workers a median of " + count_text(others_median)
                 : "used its accelerators " + count_text(worker.amount) + "% over " + over +
                       ", the job's other workers a median of " + count_text(others_median) + "%") +
            " (O4: less than half)";
  r.category = FailureCategory::Environment;
  r.component = "Training performance";
  r.module = measure == Measure::LogLines ? "Worker log rate" : "Accelerator use";
  r.risk = Risk::Medium;
  r.solution =
      "Compare the worker's node with the others' (kubectl respool top job, kubectl describe "
      "node): a node that runs slower (a throttled or degraded accelerator, a slow link, CPU "
      "contention) can be replaced with a NodeOperation, after which the job restarts there; a "
      "worker given more data or work than the others needs the job's input rebalanced.";
  r.device.node = worker.node;
  r.device.pod = worker.pod;
  if (worker.worker >= 0) r.device.worker = worker.worker;
  return r;
}

}  // namespace respool::policy
