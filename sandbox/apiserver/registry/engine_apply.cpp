// Field ownership on every write (metadata.managedFields) and server-side apply, with the field
// manager of sandbox/fieldmanager: what the real server's fieldmanager package does around its
// create, update and patch handlers.

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/apiserver/registry/field_schemas.hpp"
#include "sandbox/fieldmanager/managers.hpp"

namespace respool::sandbox {
namespace {

fields::Writer writer_for(const ResourceType& type, const std::string& manager,
                          const char* operation, const std::string& subresource,
                          runtime::TimePoint now) {
  fields::Writer w;
  w.entry.manager = manager.empty() ? "kube-apiserver" : manager;
  w.entry.operation = operation;
  w.entry.api_version = type.api_version();
  w.entry.time = apimachinery::format_time(now);
  w.entry.subresource = subresource;
  // The endpoint's reset fields: status through the main resource, the rest through /status.
  if (subresource.empty() && type.status_subresource) w.ignored.insert({"f:status"});
  if (subresource == "status") w.ignored.insert({"f:spec"});
  return w;
}

Json without_managed_fields(const Json& obj) {
  Json out = obj;
  if (out.contains("metadata") && out["metadata"].is_object()) {
    out["metadata"].erase("managedFields");
  }
  return out;
}

void put_managed_fields(Json& obj, Json entries) {
  if (entries.is_array() && !entries.empty()) {
    obj["metadata"]["managedFields"] = std::move(entries);
  } else {
    obj["metadata"].erase("managedFields");
  }
}

ApiError apply_conflict(const std::vector<fields::Conflict>& conflicts) {
  ApiError e;
  e.code = 409;
  e.reason = "Conflict";
  e.message = fields::conflict_message(conflicts);
  Json causes = Json::array();
  for (const fields::Conflict& c : conflicts) {
    causes.push_back({{"reason", "FieldManagerConflict"},
                      {"message", "conflict with " + c.manager},
                      {"field", fields::path_string(c.path)}});
  }
  e.details = {{"causes", std::move(causes)}};
  return e;
}

}  // namespace

void Engine::record_fields(const ResourceType& type, const Json* old, Json& obj,
                           const WriteOptions& options, const std::string& subresource) {
  // managedFields sent by the client replace the live ones (as on a real server: `[{}]` strips
  // them); none or `[]` keeps them.
  Json sent = obj["metadata"].value("managedFields", Json());
  obj["metadata"].erase("managedFields");
  if (options.managed_fields) return put_managed_fields(obj, *options.managed_fields);
  std::vector<fields::ManagedEntry> managers;
  if (sent.is_array() && !sent.empty()) {
    managers = fields::decode_managed_fields(sent);
  } else if (old) {
    managers = fields::decode_managed_fields((*old)["metadata"].value("managedFields", Json()));
  }
  Json before = old ? without_managed_fields(*old) : zero_object(type);
  fields::Writer w = writer_for(type, options.field_manager, "Update", subresource, clock_.now());
  fields::record_update(field_schema(type), managers, &before, obj, w);
  put_managed_fields(obj, fields::encode_managed_fields(std::move(managers)));
}

Result<WriteResult> Engine::apply(const ResourceType& type, const std::string& ns,
                                  const std::string& name, Json config, const WriteOptions& options,
                                  bool force, const std::string& subresource) {
  std::unique_lock lock(store_.mutex());
  if (!config.is_object())
    return std::unexpected(bad_request("the applied configuration is not an object"));
  if (!config.contains("metadata") || !config["metadata"].is_object()) {
    config["metadata"] = Json::object();
  }
  Json& meta = config["metadata"];
  if (meta.contains("managedFields") && !meta["managedFields"].is_null()) {
    return std::unexpected(bad_request("metadata.managedFields must be nil"));
  }
  meta.erase("managedFields");
  std::string key = Store::key(type.namespaced ? ns : "", name);
  const StoredObject* current = store_.get(type.storage, key);
  if (!current && !subresource.empty()) return std::unexpected(not_found(type.gr(), name));
  std::vector<fields::ManagedEntry> managers;
  Json live;
  if (current) {
    live = present(type, *current->obj());
    managers = fields::decode_managed_fields(live["metadata"].value("managedFields", Json()));
    live = without_managed_fields(live);
  }
  fields::Writer w = writer_for(type, options.field_manager, "Apply", subresource, clock_.now());
  fields::Schema schema = field_schema(type);
  fields::ApplyOutcome outcome =
      fields::apply(schema, managers, current ? &live : nullptr, config, w, force);
  if (!outcome.conflicts.empty()) return std::unexpected(apply_conflict(outcome.conflicts));
  WriteOptions with_fields = options;
  with_fields.managed_fields = fields::encode_managed_fields(std::move(managers));
  if (!current) {
    Json& m = outcome.object["metadata"];
    if (!m.is_object()) m = Json::object();
    if (m.value("name", std::string()).empty()) m["name"] = name;
    if (m["name"] != name) {
      return std::unexpected(bad_request("the name of the object (" +
                                         m.value("name", std::string()) +
                                         ") does not match the name on the URL (" + name + ")"));
    }
    return create_locked(type, ns, std::move(outcome.object), with_fields);
  }
  return update_locked(type, ns, name, std::move(outcome.object), with_fields, subresource, true);
}

}  // namespace respool::sandbox
