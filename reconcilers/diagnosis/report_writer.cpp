#include "reconcilers/diagnosis/report_writer.hpp"

#include "operator/kube/resource.hpp"

namespace respool::reconcilers {

using Json = nlohmann::json;

std::string diagnosed_note(const std::string& name, const Json& status) {
  std::string note = "diagnosis " + name + ": ";
  if (status.contains("category")) note += status["category"].get<std::string>() + ", ";
  note += "risk " + status.value("risk", std::string("NoRisk")) + ": " +
          status.value("message", std::string());
  if (note.size() > 1000) note.resize(1000);  // an event's note holds 1 KiB
  return note;
}

Outcome<Written> write_report(const Context& ctx, const Json& object, const Json& status,
                              const runtime::ObjectReference& job) {
  const std::string name = object["metadata"]["name"];
  const std::string ns = object["metadata"]["namespace"];
  auto created = ctx.client->create(kube::resources::diagnoses, ns, object);
  Json current;
  if (created) {
    current = std::move(*created);
  } else if (created.error().is(kube::Error::Kind::AlreadyExists)) {
    auto found = ctx.client->get(kube::resources::diagnoses, ns, name);
    if (!found) return failed("reading diagnosis " + ns + "/" + name, found.error());
    current = std::move(*found);
    if (current.value("status", Json::object()).value("phase", "") == "Completed")
      return Written::Already;
  } else {
    return failed("creating diagnosis " + ns + "/" + name, created.error());
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
