#include "reconcilers/jobs/pool_jobs_reconciler.hpp"

#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

using nlohmann::json;

policy::JobPod job_pod(const kube::Pod& pod, std::string_view resource, bool waiting) {
  policy::JobPod p;
  p.ns = pod.meta.namespace_.str();
  p.name = pod.meta.name;
  p.uid = pod.meta.uid.str();
  if (const kube::OwnerReference* owner = pod.meta.controller_ref()) {
    p.owner_kind = owner->kind.str();
    p.owner_name = owner->name.str();
    p.owner_uid = owner->uid.str();
  }
  p.priority = pod.priority;
  p.created = pod.meta.creation_timestamp;
  p.waiting = waiting;
  p.request = pod.requests.get(resource);
  return p;
}

// The pool's accelerator resource, from its flavors in the catalog: what its jobs wait for.
std::string pool_resource(const kube::Unstructured& pool, const policy::Catalog& catalog) {
  const json spec = pool.object.value("spec", json::object());
  for (const auto& r : spec.value("resources", json::array())) {
    if (!r.is_object()) continue;
    const policy::Flavor* flavor = catalog.flavor(r.value("flavor", ""));
    if (flavor && !flavor->accelerator.resource.empty()) return flavor->accelerator.resource;
  }
  return "cpu";
}

// A node a waiting job could be placed on now: schedulable and isolated by no fault or
// operation (isolation.respool.io/* taints).
bool takes_new_pods(const kube::Node& node) {
  if (node.unschedulable) return false;
  return std::none_of(node.taints.begin(), node.taints.end(), [](const kube::Taint& t) {
    return t.key.view().starts_with(policy::kIsolationTaintPrefix);
  });
}

runtime::ObjectReference job_reference(const policy::QueuedJob& job) {
  const bool pod = job.kind == "Pod";
  return {pod ? "v1" : "batch/v1", job.kind, job.name, job.ns, job.uid};
}

}  // namespace

PoolJobsReconciler::PoolJobsReconciler(Context& ctx, PoolJobsConfig config)
    : ctx_(ctx), config_(config) {}

void PoolJobsReconciler::enqueue(runtime::WorkQueue& queue, const std::string& pool) {
  const runtime::TimePoint now = ctx_.clock->now();
  std::lock_guard lock(mu_);
  Memory& memory = memory_[pool];
  const auto delay = std::chrono::duration_cast<runtime::Duration>(
      policy::jobs_enqueue_delay(memory.last_write, now, config_.min_interval));
  if (delay <= runtime::Duration::zero()) {
    queue.add(pool);
    return;
  }
  if (memory.due && *memory.due >= now && *memory.due <= now + delay) return;
  memory.due = now + delay;
  queue.add_after(pool, delay);
}

PoolJobsReconciler::Observation PoolJobsReconciler::observe(const kube::Unstructured& pool) const {
  Observation o;
  o.resource = pool_resource(pool, *ctx_.catalog->get());
  const auto& pods = ctx_.caches.pods->store();
  for (const auto& node : ctx_.caches.nodes->store().by_index(kByPool, pool.meta.name)) {
    for (const auto& pod : pods.by_index(kByNode, node->meta.name))
      if (is_running_job(*pod, ctx_.job_selector))
        o.pods.push_back(job_pod(*pod, o.resource, false));
  }
  for (const auto& pod : pods.by_index(kByWaitingPool, pool.meta.name)) {
    if (pod->meta.deletion_timestamp || pod->owned_by_daemonset()) continue;
    if (!ctx_.job_selector.empty() && !ctx_.job_selector.matches(labels_lookup(pod->meta.labels)))
      continue;
    o.pods.push_back(job_pod(*pod, o.resource, true));
  }
  observe_free(pool, o);
  return o;
}

// The largest amount of the resource free on one node of the pool: what a waiting pod's
// request is compared with (the scheduler places a pod on one node).
void PoolJobsReconciler::observe_free(const kube::Unstructured& pool, Observation& o) const {
  const auto& pods = ctx_.caches.pods->store();
  for (const auto& node : ctx_.caches.nodes->store().by_index(kByPool, pool.meta.name)) {
    if (!takes_new_pods(*node)) continue;
    apimachinery::Quantity free = node->allocatable.get(o.resource);
    for (const auto& pod : pods.by_index(kByNode, node->meta.name))
      if (!pod->terminal()) free -= pod->requests.get(o.resource);
    o.largest_free = std::max(o.largest_free, free);
  }
}

Outcome<runtime::ReconcileResult> PoolJobsReconciler::reconcile(const std::string& name) {
  auto pool = ctx_.caches.pools->store().get(name);
  if (!pool || pool->meta.deletion_timestamp) {
    std::lock_guard lock(mu_);
    memory_.erase(name);
    return runtime::ReconcileResult::done();
  }
  // Q4: nothing before the pool controller's first status. A write now would make that first
  // guarded write lose to a conflict, and the pool its Creating phase and event.
  const json status = pool->object.value("status", json::object());
  if (!status.contains("phase"))
    return runtime::ReconcileResult::done();  // its write brings it back
  const json cached = status.value("jobs", json());
  Memory memory;
  {
    std::lock_guard lock(mu_);
    memory_[name].due.reset();  // handed out: the next event schedules again
    memory = memory_[name];
  }
  // A restarted operator: what the status shows was announced (Q5).
  if (!memory.announced) memory.announced = policy::queued_memory_from_status(cached);
  // Once the cache shows the last write, the cache alone says what is there.
  if (cached == memory.written) memory.written = json();

  const Observation o = observe(*pool);
  const policy::PoolJobs jobs = policy::pool_jobs(o.pods);
  const json wanted = policy::jobs_summary(jobs, o.resource, o.largest_free, config_.shown);
  // What the server holds: the last write while the cache does not show it yet.
  const bool changed = wanted != (memory.written.is_null() ? cached : memory.written);
  const runtime::TimePoint now = ctx_.clock->now();
  const policy::JobsWrite write =
      policy::decide_jobs_write(changed, memory.last_write, now, config_.min_interval);
  if (write.kind == policy::JobsWrite::Kind::Now) {
    if (auto w = write_status(*pool, wanted); !w) {
      if (w.error().lost_race()) return runtime::ReconcileResult::done();  // the pool is gone
      return std::unexpected(w.error());
    }
    memory.last_write = now;
    memory.written = wanted;
  }
  report(*pool, jobs, memory);
  {
    std::lock_guard lock(mu_);
    memory.due = memory_[name].due;  // scheduled by an event during this round
    memory_[name] = std::move(memory);
  }
  if (write.kind != policy::JobsWrite::Kind::Later) return runtime::ReconcileResult::done();
  return runtime::ReconcileResult::after(std::chrono::duration_cast<runtime::Duration>(write.wait));
}

// Q5: one Queued event when a job starts to wait, one when it reaches the front.
void PoolJobsReconciler::report(const kube::Unstructured& pool, const policy::PoolJobs& jobs,
                                Memory& memory) {
  policy::QueuedEvents events =
      policy::queued_events(jobs.queue, *memory.announced, pool.meta.name);
  for (const policy::QueuedEvent& e : events.events)
    ctx_.events->event(job_reference(e.job), runtime::EventType::Normal, "Queued", "Queue",
                       e.message);
  memory.announced = std::move(events.memory);
}

Outcome<void> PoolJobsReconciler::write_status(const kube::Unstructured& pool, const json& wanted) {
  const json patch = {{"status", {{"jobs", wanted}}}};
  kube::WriteOptions options;
  options.subresource = "status";
  auto r = ctx_.client->patch(kube::resources::resourcepools, "", pool.meta.name,
                              kube::PatchType::Merge, patch, options);
  if (!r) return failed("writing status.jobs of pool " + pool.meta.name, r.error());
  return {};
}

}  // namespace respool::reconcilers
