#include "reconcilers/diagnosis/report_writer.hpp"

#include "operator/kube/resource.hpp"
#include "reconcilers/policy/diagnosis_job.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"

namespace respool::reconcilers {

using Json = nlohmann::json;

policy::JobInfo report_job_info(const kube::Unstructured& job, const policy::Catalog& catalog,
                                int workers_found) {
  policy::JobInfo info = policy::job_info(job.object, "", catalog);
  info.name = job.meta.name;
  info.uid = job.meta.uid.str();
  info.created = job.meta.creation_timestamp;
  info.pool = training_pool(job.object).value_or("");
  if (!job.object.contains("status")) info.phase.clear();  // not kept: unknown
  const Json& pod_spec = job.object.value("spec", Json::object())
                             .value("template", Json::object())
                             .value("spec", Json::object());
  if (!pod_spec.contains("containers")) info.resource_type.clear();
  if (!job.object.value("spec", Json::object()).contains("parallelism"))
    info.workers = workers_found;
  return info;
}

std::string diagnosed_note(const std::string& name, const Json& status) {
  std::string note = "diagnosis " + name + ": ";
  if (status.contains("category")) note += status["category"].get<std::string>() + ", ";
  note += "risk " + status.value("risk", std::string("NoRisk")) + ": " +
          status.value("message", std::string());
  if (note.size() > 1000) note.resize(1000);  // an event's note holds 1 KiB
  return note;
}

Outcome<Written> write_report(const Context& ctx, const Json& object, const Json& status,
                              const kube::Unstructured* cached,
                              const runtime::ObjectReference& job) {
  const std::string name = object["metadata"]["name"];
  const std::string ns = object["metadata"]["namespace"];
  Json current = object;
  if (cached) {
    if (cached->object.value("status", Json::object()).value("phase", "") == "Completed")
      return Written::Already;
    current["metadata"]["resourceVersion"] = cached->meta.resource_version;
  } else {
    auto created = ctx.client->create(kube::resources::diagnoses, ns, object);
    if (!created) {
      // Created before, not cached yet: the next round reads it from the cache.
      if (created.error().is(kube::Error::Kind::AlreadyExists))
        return std::unexpected(ReconcileError{kube::Error::Kind::Conflict,
                                              "diagnosis " + ns + "/" + name + " not cached yet"});
      return failed("creating diagnosis " + ns + "/" + name, created.error());
    }
    current = std::move(*created);
  }
  current["status"] = status;
  auto updated = ctx.client->update_status(kube::resources::diagnoses, ns, current);
  if (!updated)
    return failed("writing the report of diagnosis " + ns + "/" + name, updated.error());
  ctx.events->event(job, runtime::EventType::Warning, "Diagnosed", "Diagnose",
                    diagnosed_note(name, status));
  return Written::Now;
}

}  // namespace respool::reconcilers
