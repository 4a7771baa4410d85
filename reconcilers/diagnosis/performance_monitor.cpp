// Performance monitoring (O4, O12): once a window, each worker's accelerator use (Prometheus) or
// else log rate over the window, and an Automatic report for each straggler.
#include "operator/runtime/log.hpp"
#include "reconcilers/diagnosis/automatic_diagnosis_reconciler.hpp"
#include "reconcilers/diagnosis/worker_activity.hpp"

namespace respool::reconcilers {

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
  const bool restarting = t.suspended || t.ledger.restarting || t.ledger.killing;
  const auto plan = policy::plan_comparison(t.workers, o.started_at, restarting, now, window);
  if (plan.wait_until) {
    std::lock_guard lock(mu_);
    next_check_[o.key] = *plan.wait_until;
    return std::optional<nanoseconds>(*plan.wait_until - now);
  }
  std::vector<const policy::Worker*> compared;
  for (std::size_t i : plan.compared)
    compared.push_back(&t.workers[i]);
  policy::Gathered read;
  read.started = now;
  std::vector<policy::WorkerActivity> activities;
  auto measure = read_activity(o, compared, window, activities, read);
  if (!measure) return std::unexpected(measure.error());
  if (!*measure) return std::optional<nanoseconds>(std::chrono::seconds(1));
  for (const auto& s : policy::find_stragglers(activities, **measure))
    if (auto r = report_straggler(o, activities[s.index], s, window, **measure, read); !r)
      return std::unexpected(r.error());
  std::lock_guard lock(mu_);
  next_check_[o.key] = now + window;
  return std::optional<nanoseconds>(window);
}

Outcome<std::optional<policy::Measure>> AutomaticDiagnosisReconciler::read_activity(
    const ObservedJob& o, const std::vector<const policy::Worker*>& compared,
    std::chrono::seconds window, std::vector<policy::WorkerActivity>& activities,
    policy::Gathered& read) {
  const std::string ns = o.job->meta.namespace_.str();
  if (accelerator_use_) {
    auto use = accelerator_use_->of_job(ns, o.job->meta.name, window);
    ++read.requests;
    if (!use) {
      // Monitoring goes on with the log rates; the log says why.
      runtime::log::warn(
          "diagnosis", "Prometheus did not answer; comparing log rates instead",
          {{"job", o.key}, {"prometheus", accelerator_use_->url().host}, {"error", use.error()}});
    } else {
      for (const policy::Worker* w : compared)
        if (auto it = use->find(w->pod); it != use->end())
          activities.push_back({w->index, w->pod, w->node, it->second, false});
      if (activities.size() >= 2) return std::optional(policy::Measure::AcceleratorUse);
      activities.clear();  // no series of this Job (no node agent on its nodes): log rates
    }
  }
  for (const policy::Worker* w : compared) {
    auto lines = logged_lines(*ctx_.client, ns, w->pod, o.container, window);
    ++read.requests;
    if (!lines) {
      if (lost_race(lines.error())) return std::optional<policy::Measure>();
      return failed("performance monitoring: reading the log of pod " + ns + "/" + w->pod,
                    lines.error());
    }
    read.log_bytes += lines->bytes;
    activities.push_back({w->index, w->pod, w->node, lines->lines, lines->at_least});
  }
  return std::optional(policy::Measure::LogLines);
}

Outcome<void> AutomaticDiagnosisReconciler::report_straggler(
    const ObservedJob& o, const policy::WorkerActivity& worker, const policy::Straggler& straggler,
    std::chrono::seconds window, policy::Measure measure, const policy::Gathered& read) {
  const std::string ns = o.job->meta.namespace_.str();
  const std::string name = policy::straggler_name(worker.pod);
  if (reported(ns, name)) return {};
  policy::Gathered g = read;
  g.results.push_back(policy::straggler_result(worker, straggler.others_median, window, measure));
  if (auto r = write_automatic(o, name, policy::Monitor::PerformanceMonitoring, "Straggler",
                               "worker " + worker.pod + " is a straggler", std::move(g));
      !r)
    return r;
  std::lock_guard lock(mu_);
  found_[o.key].straggler = true;
  return {};
}

}  // namespace respool::reconcilers
