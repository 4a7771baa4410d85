#include "sandbox/simulator/job_controller.hpp"

#include <optional>

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/job_plan.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

JobController::JobController(Cluster& cluster)
    : SimController(cluster, "sandbox-job", 2),
      pending_(cluster.clock, cluster.timing.expectations_ttl) {
  pending_.follow(cluster.pods);  // before the controller's handlers: expectations first
  controller_.watch<kube::Unstructured>(cluster.jobs);
  controller_.watch<kube::Unstructured>(cluster.pods, controlled_by("Job"));
}

std::expected<void, std::string> JobController::release(const Json& pod) {
  const Json& finalizers = at_path(pod, {"metadata", "finalizers"});
  if (!finalizers.is_array()) return {};
  for (std::size_t i = 0; i < finalizers.size(); ++i) {
    if (finalizers[i] != kJobTrackingFinalizer) continue;
    const std::string path = "/metadata/finalizers/" + std::to_string(i);
    Json patch = Json::array({{{"op", "test"}, {"path", path}, {"value", kJobTrackingFinalizer}},
                              {{"op", "remove"}, {"path", path}}});
    auto patched =
        cluster_.client.patch(kube::resources::pods, string_at(pod, {"metadata", "namespace"}),
                              string_at(pod, {"metadata", "name"}), kube::PatchType::Json, patch);
    // Invalid: the test failed, the finalizer at that index is gone already (a stale cache);
    // the pod's next event brings the truth.
    if (!patched && !patched.error().is(kube::Error::Kind::NotFound) &&
        !patched.error().is(kube::Error::Kind::Invalid))
      return std::unexpected("release " + string_at(pod, {"metadata", "name"}) + ": " +
                             patched.error().describe());
    return {};
  }
  return {};
}

std::expected<ReconcileResult, std::string> JobController::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr cached = cluster_.jobs.store().get(key);

  std::vector<ObjectPtr> owned;
  std::string failures;
  for (auto& pod : cluster_.pods.store().by_index(kByOwner, owner_key("Job", ns, name))) {
    const kube::OwnerReference* ref = pod->meta.controller_ref();
    if (cached && ref && ref->uid.view() == cached->meta.uid.view()) {
      owned.push_back(std::move(pod));
    } else if (auto r = release(pod->object); !r) {
      failures += " " + r.error() + ";";  // its Job is gone: nothing will count it
    }
  }
  if (!cached) {
    if (!failures.empty()) return std::unexpected("job " + key + ":" + failures);
    return ReconcileResult::done();
  }
  const Json& job = cached->object;
  OwnedPods pods = pending_.overlay(cached->meta.uid.str(), owned);
  JobPlan plan = plan_job(job, pods.pods, cluster_.clock.now());

  if (plan.status != at_path(job, {"status"})) {
    Json next = job;
    next["status"] = plan.status;
    auto written = cluster_.client.update_status(kube::resources::jobs, ns, next);
    if (!written) {
      if (written.error().is(kube::Error::Kind::NotFound)) return ReconcileResult::done();
      // Nothing below may happen before the status records the pods it counts.
      return std::unexpected("job " + key + " status: " + written.error().describe());
    }
  }
  for (const auto& pod_name : plan.release) {
    for (const Json* p : pods.pods) {
      if (string_at(*p, {"metadata", "name"}) != pod_name) continue;
      if (auto r = release(*p); !r) failures += " " + r.error() + ";";
    }
  }
  // Suspended or surplus pods: released first, so that their end is not counted (deleteJobPods).
  for (const auto& pod_name : plan.release_and_remove) {
    for (const Json* p : pods.pods) {
      if (string_at(*p, {"metadata", "name"}) != pod_name) continue;
      if (auto r = release(*p); !r) {
        failures += " " + r.error() + ";";  // still tracked: deleting it now would count it
      } else {
        plan.remove.push_back(pod_name);
      }
      break;
    }
  }
  for (const auto& pod_name : plan.remove) {
    auto removed = cluster_.client.remove(kube::resources::pods, ns, pod_name);
    if (!removed && !removed.error().is(kube::Error::Kind::NotFound))
      failures += " delete " + pod_name + ": " + removed.error().describe() + ";";
    for (const Json* p : pods.pods)
      if (removed && string_at(*p, {"metadata", "name"}) == pod_name)
        pending_.deleted(cached->meta.uid.str(), string_at(*p, {"metadata", "uid"}));
  }
  std::vector<std::optional<int>> creates(static_cast<std::size_t>(plan.create));
  for (int ix : plan.create_indexes)
    creates.emplace_back(ix);
  for (const auto& index : creates) {
    auto created = cluster_.client.create(kube::resources::pods, ns, job_pod(job, index));
    if (!created) {
      failures += " create: " + created.error().describe() + ";";
      break;
    }
    pending_.created(cached->meta.uid.str(), std::move(*created));
  }
  if (!failures.empty()) return std::unexpected("job " + key + ":" + failures);
  if (plan.recheck > runtime::Duration::zero()) return ReconcileResult::after(plan.recheck);
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
