#pragma once
// A training Job as the controller observed it from the caches.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "reconcilers/context.hpp"
#include "reconcilers/policy/fault_tolerance.hpp"
#include "reconcilers/policy/performance.hpp"
#include "reconcilers/policy/training_job_step.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

struct ObservedJob {
  std::shared_ptr<const kube::Unstructured> job;
  std::string key, pool;
  policy::FaultToleranceReading reading;        // J1: the tolerance, or what is wrong with it
  policy::JobRules rules;                       // J8
  policy::TrainingJob training;                 // with its workers (when the tolerance reads)
  bool has_ledger = false;                      // respool.io/fault-tolerance is on the Job
  kube::Json affinity;                          // the pod template's spec.affinity
  std::string container;                        // where the training runs (logs, kills)
  std::map<int, policy::TimePoint> started_at;  // worker → its running container's start
  policy::PerformanceReading performance;       // O12: whether O4 watches it, and its window
};

// The ObjectReference of a Job, for events.
runtime::ObjectReference job_reference(const kube::Unstructured& job);

// "namespace/name" of the Job that controls the pod, if one does (the pods' kByJob index).
Keys controlling_job(const kube::Pod& pod);

// The container a training runs in, as kubectl picks it by default: the
// kubectl.kubernetes.io/default-container annotation, else the first container. `pod` is a Pod
// or a pod template (metadata and spec).
std::string default_container(const kube::Json& pod);

// The pool the Job's pod template selects (nodeSelector respool.io/pool), if any.
std::optional<std::string> training_pool(const kube::Json& job);

// nullopt: no such Job in the cache, or it selects no pool (not a training job of a pool).
std::optional<ObservedJob> observe_job(const Context& ctx, const std::string& key);

}  // namespace respool::reconcilers
