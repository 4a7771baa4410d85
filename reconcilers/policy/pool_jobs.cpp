#include "reconcilers/policy/pool_jobs.hpp"

#include <algorithm>
#include <tuple>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

// A job's identity while grouping: its owner's uid, or the bare pod's own.
std::string job_uid(const JobPod& pod) {
  return pod.owner_uid.empty() ? pod.uid : pod.owner_uid;
}

struct JobGroup {
  QueuedJob job;
  bool on_node = false;
  std::optional<TimePoint> oldest_waiting;
};

void add_pod(JobGroup& group, const JobPod& pod) {
  if (!pod.waiting) {
    group.on_node = true;
    return;
  }
  group.job.pods += 1;
  group.job.request += pod.request;
  // Q1: a job counts once, by its oldest waiting pod (its priority and creation).
  if (!group.oldest_waiting || pod.created < *group.oldest_waiting) {
    group.oldest_waiting = pod.created;
    group.job.since = pod.created;
    group.job.priority = pod.priority;
  }
}

QueuedJob job_of(const JobPod& pod) {
  QueuedJob job;
  job.ns = pod.ns;
  if (pod.owner_uid.empty()) {
    job.kind = "Pod";
    job.name = pod.name;
    job.uid = pod.uid;
  } else {
    job.kind = pod.owner_kind;
    job.name = pod.owner_name;
    job.uid = pod.owner_uid;
  }
  return job;
}

std::string position_text(int position, std::size_t total) {
  return "position " + std::to_string(position) + " of " + std::to_string(total);
}

}  // namespace

std::string queued_key(const QueuedJob& job) {
  return job.kind + "/" + job.ns + "/" + job.name;
}

std::string pool_waited_for(std::string_view selected, std::string_view tolerated) {
  // A selector is where the pod can only go; a toleration of the dedicated taint is where it
  // was written to go (without it no pool node would take it).
  return std::string(selected.empty() ? tolerated : selected);
}

bool queued_before(const QueuedJob& a, const QueuedJob& b) {
  return std::tuple(-static_cast<std::int64_t>(a.priority), a.since, a.ns, a.name) <
         std::tuple(-static_cast<std::int64_t>(b.priority), b.since, b.ns, b.name);
}

PoolJobs pool_jobs(const std::vector<JobPod>& pods) {
  std::map<std::string, JobGroup> groups;
  for (const JobPod& pod : pods) {
    auto [it, added] = groups.try_emplace(job_uid(pod));
    if (added) it->second.job = job_of(pod);
    add_pod(it->second, pod);
  }
  PoolJobs jobs;
  for (auto& [uid, group] : groups) {
    if (group.job.pods > 0)
      jobs.queue.push_back(std::move(group.job));
    else if (group.on_node)
      ++jobs.running;
  }
  std::sort(jobs.queue.begin(), jobs.queue.end(), queued_before);
  return jobs;
}

std::string waiting_for(const QueuedJob& job, std::string_view resource,
                        const apimachinery::Quantity& largest_free) {
  if (job.request.milli() <= 0) return "";
  return job.request.to_string() + " " + std::string(resource) + ", largest free " +
         largest_free.to_string();
}

nlohmann::json jobs_summary(const PoolJobs& jobs, std::string_view resource,
                            const apimachinery::Quantity& largest_free, std::size_t limit) {
  nlohmann::json queue = nlohmann::json::array();
  const std::size_t shown = std::min(limit, jobs.queue.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const QueuedJob& job = jobs.queue[i];
    nlohmann::json item = {{"position", i + 1},        {"kind", job.kind},
                           {"namespace", job.ns},      {"name", job.name},
                           {"priority", job.priority}, {"since", format_time(job.since)},
                           {"pods", job.pods}};
    if (auto w = waiting_for(job, resource, largest_free); !w.empty()) item["waitingFor"] = w;
    queue.push_back(std::move(item));
  }
  return {{"running", jobs.running}, {"pending", jobs.queue.size()}, {"queue", std::move(queue)}};
}

JobsWrite decide_jobs_write(bool changed, std::optional<TimePoint> last_write, TimePoint now,
                            std::chrono::nanoseconds min_interval) {
  if (!changed) return {};
  const auto wait = jobs_enqueue_delay(last_write, now, min_interval);
  if (wait <= std::chrono::nanoseconds::zero()) return {JobsWrite::Kind::Now, {}};
  return {JobsWrite::Kind::Later, wait};
}

std::chrono::nanoseconds jobs_enqueue_delay(std::optional<TimePoint> last_write, TimePoint now,
                                            std::chrono::nanoseconds min_interval) {
  if (!last_write) return std::chrono::nanoseconds::zero();
  const auto due = *last_write + min_interval;
  if (due <= now) return std::chrono::nanoseconds::zero();
  // A clock that went back (a restarted process never has a last write) waits no longer than
  // one interval.
  return std::min<std::chrono::nanoseconds>(due - now, min_interval);
}

QueuedEvents queued_events(const std::vector<QueuedJob>& queue, const QueuedMemory& announced,
                           std::string_view pool) {
  QueuedEvents out;
  const std::string in_pool = " in pool " + std::string(pool);
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const QueuedJob& job = queue[i];
    const int position = static_cast<int>(i) + 1;
    const std::string key = queued_key(job);
    auto known = announced.find(key);
    const bool front = position == 1;
    if (known == announced.end()) {
      // Starts to wait: one event with its position (at the front already: that one only).
      out.events.push_back({job, position,
                            "Queued at " + position_text(position, queue.size()) + in_pool +
                                " (priority " + std::to_string(job.priority) + ")"});
      out.memory[key] = front;
    } else if (front && !known->second) {
      out.events.push_back({job, position,
                            "Moved to the front of the queue" + in_pool + " (" +
                                position_text(position, queue.size()) + ")"});
      out.memory[key] = true;
    } else {
      out.memory[key] = known->second;
    }
  }
  return out;
}

QueuedMemory queued_memory_from_status(const nlohmann::json& jobs) {
  QueuedMemory memory;
  if (!jobs.is_object()) return memory;
  for (const auto& item : jobs.value("queue", nlohmann::json::array())) {
    if (!item.is_object()) continue;
    QueuedJob job;
    job.kind = item.value("kind", "");
    job.ns = item.value("namespace", "");
    job.name = item.value("name", "");
    memory[queued_key(job)] = item.value("position", 0) == 1;
  }
  return memory;
}

}  // namespace respool::policy
