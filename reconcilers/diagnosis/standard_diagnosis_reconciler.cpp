#include "reconcilers/diagnosis/standard_diagnosis_reconciler.hpp"

#include "operator/kube/resource.hpp"
#include "reconcilers/diagnosis/job_evidence.hpp"
#include "reconcilers/diagnosis/report_writer.hpp"
#include "reconcilers/policy/standard_diagnosis.hpp"
#include "reconcilers/policy/time.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"

namespace respool::reconcilers {

using Json = nlohmann::json;
using runtime::ReconcileResult;

namespace {
constexpr std::chrono::seconds kJobNotFoundGrace{10};
}  // namespace

bool StandardDiagnosisReconciler::pending(const kube::Unstructured& d) {
  if (d.object.value("spec", Json::object()).value("type", "Standard") != "Standard") return false;
  const std::string phase = d.object.value("status", Json::object()).value("phase", "");
  return phase != "Completed" && phase != "Failed";
}

Outcome<ReconcileResult> StandardDiagnosisReconciler::reconcile(const std::string& key) {
  auto d = diagnoses_.store().get(key);
  if (!d || !pending(*d)) return ReconcileResult::done();
  const std::string ns = d->meta.namespace_.str();
  const std::string job_name = d->object["spec"].value("job", "");
  Json object = {{"apiVersion", "respool.io/v1alpha1"},
                 {"kind", "Diagnosis"},
                 {"metadata", {{"name", d->meta.name}, {"namespace", ns}}},
                 {"spec", d->object["spec"]}};
  const std::string creator = d->object.value("creator", "");
  auto job = ctx_.caches.training_jobs->store().get(ns + "/" + job_name);
  // A Job created with its Diagnosis (one `kubectl apply` of both) may reach the cache a moment
  // after it: it is looked for again before the Diagnosis fails.
  if (!job && ctx_.clock->now() - d->meta.creation_timestamp < kJobNotFoundGrace)
    return ReconcileResult::after(std::chrono::seconds(1));
  if (!job) {
    const Json status = {{"phase", "Failed"},
                         {"reason", "JobNotFound"},
                         {"message", "spec.job: Job " + ns + "/" + job_name + " not found"},
                         {"creator", creator},
                         {"completionTime", policy::format_time(ctx_.clock->now())}};
    object["metadata"]["resourceVersion"] = d->meta.resource_version;
    object["status"] = status;
    auto r = ctx_.client->update_status(kube::resources::diagnoses, ns, object);
    if (!r && lost_race(r.error())) return ReconcileResult{true, {}};
    if (!r) return failed("writing diagnosis " + key, r.error());
    return ReconcileResult::done();
  }
  policy::Gathered g;
  g.started = ctx_.clock->now();
  auto gathered = gather_job_evidence(ctx_, *job);
  if (!gathered) {
    ctx_.events->event(job_reference(*job), runtime::EventType::Warning, "ReconcileFailed",
                       "Diagnose", gathered.error().message);
    return std::unexpected(gathered.error());
  }
  auto catalog = ctx_.catalog->get();
  g.results = policy::standard_results(gathered->evidence, catalog->failures.get());
  g.job = report_job_info(*job, *catalog, gathered->pods);
  g.creator = creator;
  g.requests = gathered->requests;
  g.log_bytes = gathered->log_bytes;
  g.message = g.results.empty()
                  ? "nothing abnormal found in " + std::to_string(gathered->pods) + " pods, " +
                        std::to_string(gathered->evidence.nodes.size()) + " nodes"
                  : "";
  g.completed = ctx_.clock->now();
  auto written = write_report(ctx_, object, policy::completed_status(std::move(g)), d.get(),
                              job_reference(*job));
  if (!written) {
    if (written.error().lost_race()) return ReconcileResult{true, {}};
    ctx_.events->event(job_reference(*job), runtime::EventType::Warning, "ReconcileFailed",
                       "Diagnose", written.error().message);
    return std::unexpected(written.error());
  }
  return ReconcileResult::done();
}

}  // namespace respool::reconcilers
