#include "sandbox/simulator/cronjob_controller.hpp"

#include "sandbox/simulator/cronjob_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_io.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

CronJobController::CronJobController(Cluster& cluster, ObjectInformer& cronjobs,
                                     runtime::EventRecorder& events)
    : SimController(cluster, "sandbox-cronjob", 1),
      cronjobs_(cronjobs),
      events_(events),
      written_(cluster.clock, cluster.timing.expectations_ttl) {
  add_namespace_index(cluster.jobs);
  ObjectInformer::Handlers gone;
  gone.on_delete = [this](const ObjectPtr& job) { written_.gone(job->meta.uid.str()); };
  cluster.jobs.add_handlers(std::move(gone));
  controller_.watch<kube::Unstructured>(cronjobs_);
  controller_.watch<kube::Unstructured>(cluster.jobs, controlled_by("CronJob"));
}

std::expected<ReconcileResult, std::string> CronJobController::reconcile(const std::string& key) {
  ObjectPtr cached = cronjobs_.store().get(key);
  if (!cached) return ReconcileResult::done();  // its Jobs go by garbage collection
  const Json& cj = cached->object;
  const std::string ns = cached->meta.namespace_.str();
  const std::string uid = cached->meta.uid.str();
  auto controlled = [&](const Json& job) {
    const Json* ref = controller_of(job);
    return ref && ref->value("uid", "") == uid;
  };
  std::vector<ObjectPtr> owned;
  for (auto& job : cluster_.jobs.store().by_index(kByNamespace, ns))
    if (controlled(job->object)) owned.push_back(std::move(job));
  Overlaid jobs = written_.overlay(owned, controlled);
  std::vector<const Json*> live;
  for (const Json* j : jobs.objects)
    if (!marked_for_deletion(*j)) live.push_back(j);

  CronJobPlan plan = plan_cronjob(cj, live, cluster_.clock.now());
  const runtime::ObjectReference regarding{"batch/v1", "CronJob", cached->meta.name, ns, uid};
  std::string failures;
  for (const auto& name : plan.remove) {
    kube::DeleteOptions options;
    options.propagation_policy = "Background";
    auto removed = cluster_.client.remove(kube::resources::jobs, ns, name, options);
    if (!removed && !removed.error().is(kube::Error::Kind::NotFound)) {
      failures += " delete " + name + ": " + removed.error().describe() + ";";
      continue;
    }
    for (const Json* j : jobs.objects)
      if (name_of(*j) == name) written_.deleted(uid_of(*j));
  }
  Json status = plan.status;
  if (plan.create) {
    auto created = cluster_.client.create(kube::resources::jobs, ns, *plan.create);
    if (!created && created.error().is(kube::Error::Kind::AlreadyExists)) {
      // Made by an earlier round whose status did not record it: take it if it is ours.
      created = cluster_.client.get(kube::resources::jobs, ns, name_of(*plan.create));
      if (created && !controlled(*created))
        return std::unexpected("cronjob " + key + ": job " + name_of(*plan.create) +
                               " exists and is not this CronJob's");
    }
    if (!created) {
      events_.event(regarding, runtime::EventType::Warning, "FailedCreate", "Create",
                    "Error creating job: " + created.error().describe());
      return std::unexpected("cronjob " + key + ": create: " + created.error().describe());
    }
    events_.event(regarding, runtime::EventType::Normal, "SuccessfulCreate", "Create",
                  "Created job " + name_of(*created));
    status["active"].push_back(job_reference(*created));
    written_.wrote(std::move(*created));
  }
  for (const auto& e : plan.events)
    events_.event(regarding,
                  e.type == "Warning" ? runtime::EventType::Warning : runtime::EventType::Normal,
                  e.reason, e.reason, e.message);
  if (auto w = write_status(cluster_.client, workload::cronjobs, cj, status); !w)
    failures += " " + w.error() + ";";
  if (!failures.empty()) return std::unexpected("cronjob " + key + ":" + failures);
  if (plan.recheck > runtime::Duration::zero()) return ReconcileResult::after(plan.recheck);
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
