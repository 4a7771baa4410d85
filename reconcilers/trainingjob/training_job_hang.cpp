// Hangs (J5, J6): the workers' last output, read through pods/log; the in-place restart's kills,
// through pods/exec.
#include <algorithm>

#include "reconcilers/trainingjob/training_job_observed.hpp"
#include "reconcilers/trainingjob/training_job_reconciler.hpp"
#include "reconcilers/trainingjob/worker_output.hpp"

namespace respool::reconcilers {

namespace {

// What stops the training process, so that its kubelet restarts the container in place. A Job
// may name its own (a JSON array of strings): PID 1 must exit on SIGTERM for the default.
inline constexpr const char* kHangRestartCommandAnnotation = "respool.io/hang-restart-command";

std::vector<std::string> kill_command(const kube::Unstructured& job) {
  std::vector<std::string> command{"kill", "1"};
  auto text = job.meta.annotations.get(kHangRestartCommandAnnotation);
  if (!text) return command;
  auto parsed = kube::Json::parse(*text, nullptr, false);
  if (!parsed.is_array() || parsed.empty()) return command;
  std::vector<std::string> custom;
  for (const auto& part : parsed) {
    if (!part.is_string()) return command;
    custom.push_back(part.get<std::string>());
  }
  return custom;
}

}  // namespace

Outcome<runtime::ReconcileResult> TrainingJobReconciler::check_hang(const ObservedJob& o,
                                                                    const policy::JobStep& step) {
  const policy::TrainingJob& t = o.training;
  const auto now = ctx_.clock->now();
  const auto window = t.tolerance.hang_timeout;
  std::vector<policy::WorkerLog> logs;
  int silent = -1;
  for (const policy::Worker* w : step.check) {
    auto output =
        last_output(*ctx_.client, {o.job->meta.namespace_.str(), w->pod, o.container, window, now});
    if (!output) {
      return failed("hang check: read the log of pod " + w->pod, output.error());
    }
    policy::WorkerLog log{w->index, {}};
    if (*output) {
      log.last_output = **output;
    } else {
      // Silent for the whole window, or since its container started within it.
      auto started = o.started_at.find(w->index);
      log.last_output = std::max(
          started == o.started_at.end() ? policy::TimePoint{} : started->second, now - window);
      log.silent = true;
      if (silent < 0) silent = w->index;
    }
    logs.push_back(log);
    // One worker that wrote within the window proves the job is not hung; all of them are read
    // only when the count of hang restarts may reset.
    if (*output && t.ledger.hang_restarts == 0) break;
  }
  const auto hang = policy::decide_hang(logs, t.tolerance, t.ledger, t.ledger.last_hang_restart,
                                        t.restart_policy_never, now);
  if (hang.hung) {
    std::lock_guard lock(mu_);
    auto latest = std::max_element(logs.begin(), logs.end(), [](const auto& a, const auto& b) {
                    return a.last_output < b.last_output;
                  })->last_output;
    auto [it, first] = hung_since_.try_emplace(o.key, latest);
    if (first || it->second != latest) {
      it->second = latest;
      ctx_.metrics->count_job_hang(o.pool);
      if (!hang.restart) {
        ctx_.events->event(
            job_reference(*o.job), runtime::EventType::Warning, "Hung", "Restart",
            policy::hang_reason(t.tolerance) + " from any worker; not restarted: " +
                (!t.tolerance.hang_retry ? std::string("fault-tolerance/hang-retry is not true")
                 : t.ledger.hang_restarts >= policy::kMaxConsecutiveHangRestarts
                     ? std::to_string(policy::kMaxConsecutiveHangRestarts) +
                           " consecutive hang restarts (J5)"
                     : std::string("no restarts left (fault-tolerance/job-retry-num)")));
      }
    }
  }
  const policy::JobStep next = policy::after_hang_check(t, hang, silent, now);
  if (next.kind != policy::JobStep::Kind::None) return act(o, next);
  auto wait = hang.next_check ? *hang.next_check - now : std::chrono::nanoseconds(window);
  return runtime::ReconcileResult::after(std::max<std::chrono::nanoseconds>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(wait), std::chrono::seconds(1)));
}

Outcome<runtime::ReconcileResult> TrainingJobReconciler::kill(const ObservedJob& o,
                                                              const policy::JobStep& step) {
  const auto command = kill_command(*o.job);
  std::string failures;
  for (const policy::Worker* w : step.kill) {
    const std::string once =
        o.job->meta.uid.str() + "/" + w->pod + "#" + std::to_string(w->restart_count);
    {
      // The kubelet's restart reaches the cache a moment after the kill: do not kill twice.
      std::lock_guard lock(mu_);
      if (killed_.contains(once)) continue;
    }
    auto r = ctx_.client->exec(o.job->meta.namespace_.view(), w->pod, o.container, command);
    if (!r) {
      failures += "; " + w->pod + ": " + r.error().describe();
      continue;
    }
    if (r->exit_code != 0) {
      failures += "; " + w->pod + ": exit code " + std::to_string(r->exit_code) +
                  (r->err.empty() ? "" : ": " + r->err.substr(0, 200));
      continue;
    }
    std::lock_guard lock(mu_);
    killed_.insert(once);
  }
  // Reported on the Job (ReconcileFailed) and retried with backoff.
  if (!failures.empty())
    return failed("restart in place: stopping the training process failed" + failures);
  // The restarts reach the controller through the pods cache; this is the fallback.
  return runtime::ReconcileResult::after(std::chrono::seconds(30));
}

}  // namespace respool::reconcilers
