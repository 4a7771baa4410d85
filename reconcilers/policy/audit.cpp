#include "reconcilers/policy/audit.hpp"

#include <array>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

constexpr std::array<std::string_view, 8> kNames{
    "CreatePoolV2",     "UpdatePoolV2",     "DeletePoolV2",   "CreateNetworksV1",
    "UpdateNetworksV1", "DeleteNetworksV1", "addClusterNode", "deleteClusterNode"};

}  // namespace

std::string_view to_string(AuditOperation operation) {
  return kNames[int(operation)];
}

std::string_view resource_type(AuditOperation operation) {
  switch (operation) {
    case AuditOperation::CreatePoolV2:
    case AuditOperation::UpdatePoolV2:
    case AuditOperation::DeletePoolV2:
      return "PoolV2";
    case AuditOperation::CreateNetworksV1:
    case AuditOperation::UpdateNetworksV1:
    case AuditOperation::DeleteNetworksV1:
      return "NetworksV1";
    case AuditOperation::addClusterNode:
    case AuditOperation::deleteClusterNode:
      return "Cluster";
  }
  return "";
}

std::string audit_line(const AuditRecord& r) {
  nlohmann::ordered_json line = {{"time", format_time(r.time)},
                                 {"operation", to_string(r.operation)},
                                 {"resourceType", resource_type(r.operation)},
                                 {"resource", r.resource}};
  if (r.node) line["node"] = *r.node;
  if (r.actor) line["actor"] = *r.actor;
  line["result"] = r.result == AuditResult::Success ? "Success" : "Failure";
  if (!r.message.empty()) line["message"] = r.message;
  return line.dump();
}

std::optional<AuditOperation> audited_change(AuditedKind kind,
                                             std::optional<std::int64_t> observed_generation,
                                             std::int64_t generation, bool deleting,
                                             bool deletion_recorded) {
  const bool pool = kind == AuditedKind::Pool;
  if (deleting) {
    if (deletion_recorded) return std::nullopt;
    return pool ? AuditOperation::DeletePoolV2 : AuditOperation::DeleteNetworksV1;
  }
  if (!observed_generation) {
    return pool ? AuditOperation::CreatePoolV2 : AuditOperation::CreateNetworksV1;
  }
  if (*observed_generation < generation) {
    return pool ? AuditOperation::UpdatePoolV2 : AuditOperation::UpdateNetworksV1;
  }
  return std::nullopt;
}

std::optional<AuditOperation> audited_spec_change(AuditedKind kind, const nlohmann::json& status,
                                                  std::int64_t generation) {
  std::optional<std::int64_t> observed;
  if (auto g = status.find("observedGeneration"); g != status.end() && g->is_number_integer())
    observed = g->get<std::int64_t>();
  return audited_change(kind, observed, generation, false, false);
}

std::optional<std::string> spec_manager(const nlohmann::json& object,
                                        std::string_view own_manager) {
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return std::nullopt;
  const auto entries = metadata->find("managedFields");
  if (entries == metadata->end() || !entries->is_array()) return std::nullopt;
  std::optional<std::string> manager;
  std::optional<TimePoint> newest;
  for (const auto& entry : *entries) {
    if (!entry.is_object()) continue;
    const std::string name = entry.value("manager", "");
    const auto fields = entry.find("fieldsV1");
    if (name.empty() || name == own_manager || fields == entry.end() || !fields->is_object() ||
        !fields->contains("f:spec"))
      continue;
    // RFC 3339 seconds: a later write of the same second ties, and the later entry wins.
    const auto time = parse_time(entry.value("time", ""));
    if (!manager || (time && (!newest || *time >= *newest))) {
      manager = name;
      newest = time;
    }
  }
  return manager;
}

}  // namespace respool::policy
