#include "reconcilers/trainingjob/training_job_setup.hpp"

#include <algorithm>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"
#include "reconcilers/trainingjob/training_job_reconciler.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

ControllerState add_training_job_controller(runtime::Manager& manager, Context& ctx,
                                            const Options& options) {
  if (!options.training_jobs) return nullptr;
  // Training jobs live in the users' namespaces; other Jobs are kept as metadata only.
  runtime::InformerOptions job_options;
  job_options.resource = kube::resources::jobs;
  auto& jobs = manager.add_informer<kube::Unstructured>(job_options, [](kube::Unstructured& job) {
    if (TrainingJobReconciler::is_candidate(job.meta)) return;
    // Of the others, only the pool they select (O1: a pool Job without fault tolerance is
    // labelled Unprotected).
    auto pool = training_pool(job.object);
    job.object = kube::Json::object();
    if (pool) job.object["spec"]["template"]["spec"]["nodeSelector"][policy::kPoolLabel] = *pool;
  });
  ctx.caches.training_jobs = &jobs;
  auto& pods = *ctx.caches.pods;
  pods.store().add_index(kByJob, controlling_job);
  auto reconciler = std::make_shared<TrainingJobReconciler>(ctx);

  // One key per Job: every decision about a Job is made in one place.
  runtime::ControllerOptions controller_options;
  controller_options.name = "trainingjob";
  controller_options.workers = options.workers;
  auto& controller =
      manager.add_controller(reconcile_with(*reconciler), std::move(controller_options));
  auto training = [&jobs](Keys keys) {
    std::erase_if(keys, [&jobs](const std::string& key) {
      auto job = jobs.store().get(key);
      return !job || !TrainingJobReconciler::is_candidate(job->meta);
    });
    return keys;
  };
  controller.watch(jobs, std::function<Keys(const kube::Unstructured&)>(
                             [](const kube::Unstructured& job) -> Keys {
                               if (!TrainingJobReconciler::is_candidate(job.meta) &&
                                   !TrainingJobReconciler::needs_unprotected_label(job))
                                 return {};
                               return {job.meta.key()};
                             }));
  controller.watch(pods, std::function<Keys(const kube::Pod&)>([training](const kube::Pod& p) {
                     return training(controlling_job(p));
                   }));
  // A pool node's change (a fault, its repair) concerns the training jobs with pods on it.
  controller.watch(*ctx.caches.nodes,
                   std::function<Keys(const kube::Node&)>([&pods, training](const kube::Node& n) {
                     Keys keys;
                     if (!n.meta.labels.get(policy::kPoolLabel)) return keys;
                     for (const auto& p : pods.store().by_index(kByNode, n.meta.name))
                       for (auto& key : controlling_job(*p))
                         if (std::find(keys.begin(), keys.end(), key) == keys.end())
                           keys.push_back(std::move(key));
                     return training(std::move(keys));
                   }));
  return reconciler;
}

}  // namespace respool::reconcilers
