// Performance monitoring (O4, O12): once a window, the log rate of each worker that ran the whole
// window, and an Automatic report for each straggler.
#include <algorithm>

#include "reconcilers/diagnosis/automatic_diagnosis_reconciler.hpp"
#include "reconcilers/diagnosis/report_writer.hpp"
#include "reconcilers/diagnosis/worker_activity.hpp"

namespace respool::reconcilers {

using Json = nlohmann::json;
using std::chrono::nanoseconds;

Outcome<std::optional<nanoseconds>> AutomaticDiagnosisReconciler::check_performance(
    const ObservedJob& o) {
  const policy::PerformanceReading& reading = o.performance;
  if (!reading.problem.empty()) {
    std::lock_guard lock(mu_);
    if (warned_.insert(o.key + ": " + reading.problem).second)
      ctx_.events->event(job_reference(*o.job), runtime::EventType::Warning, "InvalidAnnotation",
                         "Monitor", reading.problem + "; performance monitoring is off");
  }
  const policy::TrainingJob& t = o.training;
  if (!reading.monitoring || t.finished) {
    std::lock_guard lock(mu_);
    next_check_.erase(o.key);
    return std::optional<nanoseconds>();
  }
  const auto window = reading.monitoring->window;
  const auto now = ctx_.clock->now();
  {
    std::lock_guard lock(mu_);
    auto [it, first] = next_check_.try_emplace(o.key, now);
    if (now < it->second) return std::optional<nanoseconds>(it->second - now);
  }
  // Only workers that ran the whole window are compared; a restart under way compares none.
  std::vector<const policy::Worker*> compared;
  policy::TimePoint last_start{};
  for (const policy::Worker& w : t.workers) {
    if (!w.running) continue;
    auto started = o.started_at.find(w.index);
    const auto start = started == o.started_at.end() ? now : started->second;
    last_start = std::max(last_start, start);
    if (start <= now - window) compared.push_back(&w);
  }
  const bool restarting = t.suspended || t.ledger.restarting || t.ledger.killing;
  if (restarting || compared.size() < 2 || compared.size() < t.workers.size()) {
    // Again once every worker has run a whole window (or a window from now, at the latest).
    const auto next = std::clamp<policy::TimePoint>(last_start + window,
                                                    now + std::chrono::seconds(1), now + window);
    std::lock_guard lock(mu_);
    next_check_[o.key] = next;
    return std::optional<nanoseconds>(next - now);
  }
  const std::string ns = o.job->meta.namespace_.str();
  policy::Gathered read;
  read.started = now;
  std::vector<policy::WorkerActivity> activities;
  for (const policy::Worker* w : compared) {
    auto lines = logged_lines(*ctx_.client, ns, w->pod, o.container, window);
    ++read.requests;
    if (!lines) {
      if (lost_race(lines.error())) return std::optional<nanoseconds>(std::chrono::seconds(1));
      return failed("performance monitoring: reading the log of pod " + ns + "/" + w->pod,
                    lines.error());
    }
    read.log_bytes += lines->bytes;
    activities.push_back({w->index, w->pod, w->node, lines->lines, lines->at_least});
  }
  for (const auto& s : policy::find_stragglers(activities))
    if (auto r = report_straggler(o, activities[s.index], s.others_median, window, read); !r)
      return std::unexpected(r.error());
  std::lock_guard lock(mu_);
  next_check_[o.key] = now + window;
  return std::optional<nanoseconds>(window);
}

Outcome<void> AutomaticDiagnosisReconciler::report_straggler(const ObservedJob& o,
                                                             const policy::WorkerActivity& worker,
                                                             double others_median,
                                                             std::chrono::seconds window,
                                                             const policy::Gathered& read) {
  const std::string ns = o.job->meta.namespace_.str();
  const std::string name = policy::straggler_name(worker.pod);
  if (reported(ns, name)) return {};
  policy::Gathered g = read;
  g.results.push_back(policy::straggler_result(worker, others_median, window));
  g.job =
      report_job_info(*o.job, *ctx_.catalog->get(), static_cast<int>(o.training.workers.size()));
  g.monitor = policy::Monitor::PerformanceMonitoring;
  g.reason = "Straggler";
  g.creator = "respool";
  g.completed = ctx_.clock->now();
  const Json object_json = policy::automatic_diagnosis(
      name, ns, o.job->meta.name, o.job->meta.uid.str(), policy::Monitor::PerformanceMonitoring,
      "worker " + worker.pod + " is a straggler");
  auto cached = diagnoses_.store().get(ns + "/" + name);
  auto written = write_report(ctx_, object_json, policy::completed_status(std::move(g)),
                              cached.get(), job_reference(*o.job));
  if (!written) return std::unexpected(written.error());
  remember(ns, name);
  std::lock_guard lock(mu_);
  found_[o.key].straggler = true;
  return {};
}

}  // namespace respool::reconcilers
