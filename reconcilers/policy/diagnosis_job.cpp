#include "reconcilers/policy/diagnosis_job.hpp"

#include <optional>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {
namespace {

using Json = nlohmann::json;

const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* node = &j;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return kNull;
    node = &(*node)[key];
  }
  return *node;
}

}  // namespace

std::string creator_of(const Json& object) {
  const Json& fields = at(object, {"metadata", "managedFields"});
  if (!fields.is_array()) return "";
  // managedFields say Apply or Update, never Create: the creator is the manager of the earliest
  // entry on the object itself (status entries are controllers reporting on it).
  std::optional<std::string> creator, earliest;
  for (const auto& f : fields) {
    if (!f.is_object() || (f.contains("subresource") && f["subresource"] != "")) continue;
    auto time = f.find("time");
    const std::string at = time != f.end() && time->is_string() ? time->get<std::string>() : "";
    auto manager = f.find("manager");
    if (earliest && at >= *earliest) continue;
    earliest = at;
    creator = manager != f.end() && manager->is_string() ? manager->get<std::string>() : "";
  }
  return creator.value_or("");
}

std::string resource_type(const Json& job, const Catalog& catalog) {
  const Json& containers = at(job, {"spec", "template", "spec", "containers"});
  if (!containers.is_array()) return "CPU";
  for (const auto& c : containers) {
    for (const char* kind : {"limits", "requests"}) {
      const Json& asked = at(c, {"resources", kind});
      if (!asked.is_object()) continue;
      for (const Flavor& f : catalog.flavors)
        if (!f.accelerator.resource.empty() && asked.contains(f.accelerator.resource))
          return std::string(to_string(f.accelerator.type));
    }
  }
  return "CPU";
}

std::string job_phase(const Json& job) {
  const Json& conditions = at(job, {"status", "conditions"});
  if (conditions.is_array()) {
    for (const auto& c : conditions) {
      if (!c.is_object() || c.value("status", "") != "True") continue;
      if (c.value("type", "") == "Complete") return "Succeeded";
      if (c.value("type", "") == "Failed") return "Failed";
    }
  }
  const Json& suspend = at(job, {"spec", "suspend"});
  return suspend.is_boolean() && suspend.get<bool>() ? "Suspended" : "Running";
}

JobInfo job_info(const Json& job, const std::string& pool, const Catalog& catalog) {
  JobInfo info;
  const Json& found = at(job, {"metadata"});
  const Json& meta = found.is_object() ? found : Json::object();
  info.name = meta.value("name", "");
  info.uid = meta.value("uid", "");
  info.pool = pool;
  info.resource_type = resource_type(job, catalog);
  info.phase = job_phase(job);
  info.creator = creator_of(job);
  const Json& parallelism = at(job, {"spec", "parallelism"});
  info.workers = parallelism.is_number_integer() ? parallelism.get<int>() : 1;
  if (auto created = parse_time(meta.value("creationTimestamp", ""))) info.created = *created;
  return info;
}

}  // namespace respool::policy
