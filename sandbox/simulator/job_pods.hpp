#pragma once
// The pod the Job controller creates from a Job's template (manageJob in
// pkg/controller/job/job_controller.go): the template's metadata and spec, the controller
// reference, the job-tracking finalizer, the job-name and controller-uid labels; for an Indexed
// Job also the completion index as annotation and label, the hostname `<job>-<index>`, the
// name `<job>-<index>-<suffix>` and the JOB_COMPLETION_INDEX variable in every container.
// A pod whose template does not say how long it runs (sandbox.respool.io/run-seconds) gets
// kJobPodRunSeconds: the simulator cannot run the command, so it takes it to finish promptly,
// as `kubectl create job ... -- echo hi` does. (A template annotated with an empty
// run-seconds, or with sandbox.respool.io/log-interval, runs until it is stopped: a training
// job's worker.)

#include <optional>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

inline constexpr const char* kJobPodRunSeconds = "5";

nlohmann::json job_pod(const nlohmann::json& job, std::optional<int> index = std::nullopt);

}  // namespace respool::sandbox::sim
