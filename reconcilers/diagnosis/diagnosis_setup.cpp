#include "reconcilers/diagnosis/diagnosis_setup.hpp"

#include "reconcilers/diagnosis/automatic_diagnosis_reconciler.hpp"
#include "reconcilers/diagnosis/standard_diagnosis_reconciler.hpp"
#include "reconcilers/policy/diagnosis_job.hpp"
#include "reconcilers/policy/diagnosis_report.hpp"
#include "reconcilers/trainingjob/training_job_reconciler.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

namespace {

using Json = nlohmann::json;

// A report is read for its spec, phase, risk and creator only: the rest (up to 100 results)
// stays on the server.
void keep_summary(kube::Unstructured& d) {
  const Json status = d.object.value("status", Json::object());
  Json kept = Json::object();
  for (const char* field : {"phase", "risk"})
    if (status.contains(field)) kept[field] = status[field];
  const std::string creator = policy::creator_of(d.object);
  d.object = {{"spec", d.object.value("spec", Json::object())}, {"status", std::move(kept)}};
  if (!creator.empty()) d.object["creator"] = creator;
}

// "namespace/name" of the Job a Diagnosis reports on (an Automatic one's respool.io/job label,
// a Standard one's spec.job).
Keys diagnosed_job(const kube::Unstructured& d) {
  if (auto job = d.meta.labels.get(policy::kDiagnosisJobLabel))
    return {d.meta.namespace_.str() + "/" + std::string(*job)};
  const std::string job = d.object.value("spec", Json::object()).value("job", "");
  if (job.empty()) return {};
  return {d.meta.namespace_.str() + "/" + job};
}

// "namespace/name" of the Job that controls a failed pod, or one whose containers restarted.
Keys failed_worker_job(const kube::Pod& p) {
  if (p.phase != "Failed" && p.restart_count == 0) return {};
  return controlling_job(p);
}

}  // namespace

ControllerState add_diagnosis_controller(runtime::Manager& manager, Context& ctx,
                                         const Options& options) {
  if (!options.training_jobs || !ctx.caches.training_jobs) return nullptr;
  runtime::InformerOptions diagnosis_options;
  diagnosis_options.resource = kube::resources::diagnoses;
  auto& diagnoses = manager.add_informer<kube::Unstructured>(diagnosis_options, keep_summary);
  diagnoses.store().add_index(kByJob, diagnosed_job);
  auto& jobs = *ctx.caches.training_jobs;
  std::unique_ptr<AcceleratorUse> accelerator_use;
  if (auto url = http::parse_url(options.prometheus_url))
    accelerator_use = std::make_unique<AcceleratorUse>(*url);
  auto reconciler =
      std::make_shared<AutomaticDiagnosisReconciler>(ctx, diagnoses, std::move(accelerator_use));

  runtime::ControllerOptions controller_options;
  controller_options.name = "diagnosis";
  controller_options.workers = options.workers;
  auto& controller =
      manager.add_controller(reconcile_with(*reconciler), std::move(controller_options));
  // A protected Job's change (its records grow when a run ends) and its workers' failures.
  controller.watch(jobs, std::function<Keys(const kube::Unstructured&)>(
                             [](const kube::Unstructured& job) -> Keys {
                               if (!TrainingJobReconciler::is_candidate(job.meta)) return {};
                               return {job.meta.key()};
                             }));
  controller.watch(*ctx.caches.pods,
                   std::function<Keys(const kube::Pod&)>([&jobs](const kube::Pod& p) {
                     Keys keys = failed_worker_job(p);
                     std::erase_if(keys, [&jobs](const std::string& key) {
                       auto job = jobs.store().get(key);
                       return !job || !TrainingJobReconciler::is_candidate(job->meta);
                     });
                     return keys;
                   }));
  // O6: a Standard diagnosis of a protected Job that starts or ends (Monitoring while it runs).
  controller.watch(
      diagnoses,
      std::function<Keys(const kube::Unstructured&)>([&jobs](const kube::Unstructured& d) -> Keys {
        if (d.meta.labels.get(policy::kDiagnosisJobLabel)) return {};
        Keys keys = diagnosed_job(d);
        std::erase_if(keys, [&jobs](const std::string& key) {
          auto job = jobs.store().get(key);
          return !job || !TrainingJobReconciler::is_candidate(job->meta);
        });
        return keys;
      }));

  // Standard diagnoses, one key per Diagnosis asked for.
  auto standard = std::make_shared<StandardDiagnosisReconciler>(ctx, diagnoses);
  runtime::ControllerOptions standard_options;
  standard_options.name = "standard-diagnosis";
  standard_options.workers = options.workers;
  auto& on_demand = manager.add_controller(reconcile_with(*standard), std::move(standard_options));
  on_demand.watch(diagnoses, std::function<Keys(const kube::Unstructured&)>(
                                 [](const kube::Unstructured& d) -> Keys {
                                   if (!StandardDiagnosisReconciler::pending(d)) return {};
                                   return {d.meta.key()};
                                 }));
  return std::make_shared<std::pair<std::shared_ptr<AutomaticDiagnosisReconciler>,
                                    std::shared_ptr<StandardDiagnosisReconciler>>>(reconciler,
                                                                                   standard);
}

}  // namespace respool::reconcilers
