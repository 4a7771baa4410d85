// Create, update and patch: the generic registry store's flow (BeforeCreate/BeforeUpdate with
// the kind's strategy, optimistic concurrency; unknown fields: engine_unknown_fields.cpp).

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/registry/crd.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"
#include "sandbox/apiserver/strategies/node_ports.hpp"
#include "sandbox/apiserver/strategies/warnings.hpp"
#include "sandbox/patch/patch.hpp"

namespace respool::sandbox {
namespace {

// Fields a client may not set: the server owns them. (managedFields: record_fields.)
void clear_server_fields(Json& meta) {
  for (const char* f : {"uid", "creationTimestamp", "deletionTimestamp",
                        "deletionGracePeriodSeconds", "selfLink", "generation"}) {
    meta.erase(f);
  }
}

std::optional<ApiError> check_type_meta(const ResourceType& type, Json& body) {
  std::string want_version = type.api_version();
  if (body.contains("apiVersion") && body["apiVersion"].is_string() &&
      !body["apiVersion"].get<std::string>().empty()) {
    std::string got = body["apiVersion"].get<std::string>();
    if (got != want_version) {
      bool other_crd_version = type.custom() && got.rfind(type.group + "/", 0) == 0;
      if (!other_crd_version) {
        return bad_request("the API version in the data (" + got +
                           ") does not match the expected API version (" + want_version + ")");
      }
    }
  }
  if (body.contains("kind") && body["kind"].is_string() &&
      !body["kind"].get<std::string>().empty() && body["kind"] != type.kind) {
    return bad_request("the kind in the data (" + body["kind"].get<std::string>() +
                       ") does not match the expected kind (" + type.kind + ")");
  }
  body["apiVersion"] = want_version;
  body["kind"] = type.kind;
  if (!body.contains("metadata") || body["metadata"].is_null()) body["metadata"] = Json::object();
  return std::nullopt;
}

// What the server owns comes from the stored object, as rest.BeforeUpdate takes it: the
// generation, the uid when none was sent, the creation time, and a deletion time and grace
// period the object already has. Setting or changing those otherwise is left to validation
// (metadata.deletionTimestamp: field is immutable).
void keep_server_fields(Json& meta, const Json& old) {
  const Json& was = old["metadata"];
  const bool had_deletion = has_deletion_timestamp(old);
  const bool sent_grace =
      meta.contains("deletionGracePeriodSeconds") && !meta["deletionGracePeriodSeconds"].is_null();
  Json sent_deletion = meta.value("deletionTimestamp", Json());
  Json grace = meta.value("deletionGracePeriodSeconds", Json());
  clear_server_fields(meta);
  for (const char* f : {"uid", "creationTimestamp", "generation"}) {
    if (was.contains(f)) meta[f] = was[f];
  }
  if (had_deletion) {
    meta["deletionTimestamp"] = was["deletionTimestamp"];
  } else if (!sent_deletion.is_null()) {
    meta["deletionTimestamp"] = sent_deletion;
  }
  if (was.contains("deletionGracePeriodSeconds") && !sent_grace) {
    meta["deletionGracePeriodSeconds"] = was["deletionGracePeriodSeconds"];
  } else if (sent_grace) {
    meta["deletionGracePeriodSeconds"] = grace;
  }
}

// pods/ephemeralcontainers and namespaces/finalize: only spec.ephemeralContainers or
// spec.finalizers comes from the request.
Json take_subresource(const std::string& subresource, const Json& body, const Json& old) {
  Json merged = old;
  merged["metadata"]["resourceVersion"] = body["metadata"].value("resourceVersion", "");
  if (subresource == "finalize") {
    merged["spec"]["finalizers"] = body.contains("spec") && body["spec"].is_object()
                                       ? body["spec"].value("finalizers", Json::array())
                                       : Json::array();
    return merged;
  }
  const Json spec = body.value("spec", Json::object());
  if (spec.is_object() && spec.contains("ephemeralContainers")) {
    merged["spec"]["ephemeralContainers"] = spec["ephemeralContainers"];
  } else {
    merged["spec"].erase("ephemeralContainers");
  }
  return merged;
}

ApiError invalid_for(const ResourceType& type, const std::string& name,
                     const std::vector<Cause>& causes) {
  return invalid(type.group, type.kind, name, causes);
}

}  // namespace

std::optional<ApiError> Engine::check_namespace(const ResourceType& type, const std::string& ns,
                                                const std::string& name) {
  if (!type.namespaced) return std::nullopt;
  TypePtr nstype = registry_.find("", "v1", "namespaces");
  const StoredObject* n = store_.get(nstype->storage, ns);
  if (!n) return not_found(nstype->gr(), ns);
  if (has_deletion_timestamp(*n->obj())) {
    ApiError e = forbidden(
        type.gr(), name,
        "unable to create new content in namespace " + ns + " because it is being terminated");
    e.details["causes"] = Json::array({{{"reason", "NamespaceTerminating"},
                                        {"message", "namespace " + ns + " is being terminated"},
                                        {"field", "metadata.namespace"}}});
    return e;
  }
  return std::nullopt;
}

Result<WriteResult> Engine::create(const ResourceType& type, const std::string& ns, Json body,
                                   const WriteOptions& options) {
  std::unique_lock lock(store_.mutex());
  return create_locked(type, ns, std::move(body), options);
}

Result<WriteResult> Engine::create_locked(const ResourceType& type, const std::string& ns,
                                          Json body, const WriteOptions& options) {
  if (auto e = kinds::decode_check(type, body)) return std::unexpected(*e);
  if (auto e = check_type_meta(type, body)) return std::unexpected(*e);
  if (type.terminating) {
    return std::unexpected(method_not_supported(type.gr(), "create"));
  }
  std::vector<std::string> warnings;
  // As decoding into the served version's Go type drops them, before any conversion.
  if (auto e = drop_unknown_fields(type, body, options, warnings)) return std::unexpected(*e);
  if (type.converted) body = kinds::to_storage(type, body);
  Json& meta = body["metadata"];
  std::string body_ns = meta.value("namespace", std::string());
  if (type.namespaced) {
    if (!body_ns.empty() && body_ns != ns) {
      return std::unexpected(bad_request(
          "the namespace of the provided object does not match the namespace sent on the request"));
    }
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  if (!meta.value("resourceVersion", std::string()).empty()) {
    return std::unexpected(
        bad_request("resourceVersion should not be set on objects to be created"));
  }
  meta.erase("resourceVersion");
  clear_server_fields(meta);
  meta["uid"] = new_uid();
  meta["creationTimestamp"] = apimachinery::format_time(clock_.now());
  if (type.tracks_generation) meta["generation"] = 1;

  if (type.custom()) {
    if (type.status_subresource) body.erase("status");
    if (auto e = apply_schema(type, body, options, warnings)) return std::unexpected(*e);
  }
  const kinds::Strategy& strategy = kinds::strategy(type);
  const Json requested = strategy.allocates_node_ports ? body : Json();
  kinds::prepare_create(type, body, clock_.now());
  if (strategy.prepare_create) strategy.prepare_create(body);

  std::string generate = meta.value("generateName", std::string());
  bool generated = meta.value("name", std::string()).empty() && !generate.empty();
  if (generated) meta["name"] = generate + random_suffix();
  if (strategy.allocates_node_ports) {
    // The Service storage allocates (BeginCreate) before it validates.
    auto taken = kinds::node_ports_in_use(store_.find(type.storage).get(), "");
    auto refused = kinds::claim_node_ports(requested, body, taken);
    if (!refused.empty()) return std::unexpected(invalid_for(type, object_name(body), refused));
  }
  std::vector<Cause> causes = type.custom()
                                  ? custom_resource_validate(type, body, nullptr, warnings)
                                  : kinds::validate(type, body, nullptr);
  if (strategy.validate) {
    auto more = strategy.validate(body, nullptr, &warnings);
    causes.insert(causes.end(), more.begin(), more.end());
  }
  if (!causes.empty()) return std::unexpected(invalid_for(type, object_name(body), causes));
  for (std::string& w : kinds::create_warnings(type, body))
    warnings.push_back(std::move(w));
  if (auto e = check_namespace(type, ns, object_name(body))) return std::unexpected(*e);

  std::string key = Store::key(type.namespaced ? ns : "", object_name(body));
  for (int attempt = 0; store_.get(type.storage, key); ++attempt) {
    if (!generated || attempt >= 8) {
      return std::unexpected(already_exists(type.gr(), object_name(body)));
    }
    meta["name"] = generate + random_suffix();
    key = Store::key(type.namespaced ? ns : "", object_name(body));
  }
  record_fields(type, nullptr, body, options, "");
  WriteResult result;
  result.created = true;
  result.warnings = std::move(warnings);
  if (options.dry_run) {
    result.object = StoredObject::of(std::move(body), 0);
    return result;
  }
  result.object = commit_put(type, key, std::move(body));
  return result;
}

Result<WriteResult> Engine::update(const ResourceType& type, const std::string& ns,
                                   const std::string& name, Json body, const WriteOptions& options,
                                   const std::string& subresource) {
  std::unique_lock lock(store_.mutex());
  return update_locked(type, ns, name, std::move(body), options, subresource, false);
}

Result<WriteResult> Engine::update_locked(const ResourceType& type, const std::string& ns,
                                          const std::string& name, Json body,
                                          const WriteOptions& options,
                                          const std::string& subresource, bool from_patch) {
  if (auto e = kinds::decode_check(type, body)) return std::unexpected(*e);
  if (auto e = check_type_meta(type, body)) return std::unexpected(*e);
  std::vector<std::string> warnings;
  if (auto e = drop_unknown_fields(type, body, options, warnings)) return std::unexpected(*e);
  if (type.converted) body = kinds::to_storage(type, body);
  Json& meta = body["metadata"];
  std::string body_name = meta.value("name", std::string());
  if (!body_name.empty() && body_name != name) {
    return std::unexpected(bad_request("the name of the object (" + body_name +
                                       ") does not match the name on the URL (" + name + ")"));
  }
  std::string body_ns = meta.value("namespace", std::string());
  if (type.namespaced && !body_ns.empty() && body_ns != ns) {
    return std::unexpected(bad_request(
        "the namespace of the provided object does not match the namespace sent on the request"));
  }
  std::string key = Store::key(type.namespaced ? ns : "", name);
  const StoredObject* current = store_.get(type.storage, key);
  if (!current) {
    if (type.create_on_update && subresource.empty()) {
      meta["name"] = name;
      meta.erase("resourceVersion");
      return create_locked(type, ns, std::move(body), options);
    }
    return std::unexpected(not_found(type.gr(), name));
  }
  const auto old_object = current->obj();
  const Json& old = *old_object;
  std::string rv = meta.value("resourceVersion", std::string());
  if (rv.empty() && type.custom() && !from_patch) {
    return std::unexpected(
        invalid(type.group, type.plural, name,
                {{"FieldValueInvalid", "Invalid value: 0x0: must be specified for an update",
                  "metadata.resourceVersion"}}));
  }
  if (!rv.empty() && rv != std::to_string(current->rv)) {
    return std::unexpected(stale_conflict(type.gr(), name));
  }
  std::string uid = meta.value("uid", std::string());
  if (!uid.empty() && uid != object_uid(old)) {
    return std::unexpected(conflict(type.gr(), name,
                                    "Precondition failed: UID in precondition: " + uid +
                                        ", UID in object meta: " + object_uid(old)));
  }
  meta["name"] = name;
  if (type.namespaced) meta["namespace"] = ns;
  keep_server_fields(meta, old);
  const kinds::Strategy& strategy = kinds::strategy(type);
  const Json requested = strategy.allocates_node_ports ? body : Json();
  if (subresource == "status" || subresource == "approval") {
    kinds::prepare_status_update(type, body, old);
  } else if (subresource == "ephemeralcontainers" || subresource == "finalize") {
    body = take_subresource(subresource, body, old);
  } else {
    kinds::prepare_update(type, body, old);
    if (strategy.prepare_update) strategy.prepare_update(body, old);
  }
  if (auto e = apply_schema(type, body, options, warnings)) return std::unexpected(*e);
  std::vector<Cause> causes = type.custom() ? custom_resource_validate(type, body, &old, warnings)
                                            : kinds::validate(type, body, &old);
  if (strategy.validate) {
    auto more = strategy.validate(body, &old, &warnings);
    causes.insert(causes.end(), more.begin(), more.end());
  }
  if (!causes.empty()) return std::unexpected(invalid_for(type, name, causes));
  if (strategy.allocates_node_ports && subresource.empty()) {
    // On update the Service storage allocates (BeginUpdate) after validation.
    auto taken = kinds::node_ports_in_use(store_.find(type.storage).get(), key);
    auto refused = kinds::claim_node_ports(requested, body, taken);
    if (!refused.empty()) return std::unexpected(invalid_for(type, name, refused));
  }
  if (type.tracks_generation && subresource.empty() && kinds::spec_changed(type, body, old)) {
    body["metadata"]["generation"] = old["metadata"].value("generation", 0) + 1;
  }
  record_fields(type, &old, body, options, subresource);
  return finish_write(type, key, std::move(body), current, options, std::move(warnings));
}

Result<WriteResult> Engine::finish_write(const ResourceType& type, const std::string& key, Json obj,
                                         const StoredObject* old, const WriteOptions& options,
                                         std::vector<std::string> warnings) {
  WriteResult result;
  result.warnings = std::move(warnings);
  Json compare = obj;
  const auto before = old->obj();
  compare["metadata"]["resourceVersion"] = (*before)["metadata"].value("resourceVersion", "");
  if (compare == *before) {
    result.object = *old;  // nothing changed: no write, no event, the same resourceVersion
    return result;
  }
  bool finished = has_deletion_timestamp(obj) && finalizers_of(obj).empty() &&
                  obj["metadata"].value("deletionGracePeriodSeconds", 0) == 0;
  if (options.dry_run) {
    result.object = StoredObject::of(std::move(obj), old->rv);
    return result;
  }
  if (finished) {
    // The last finalizer went: the object goes now.
    StoredObject last = *old;
    Json final_state = std::move(obj);
    commit_erase(type, key);
    last.text = std::make_shared<const std::string>(to_text(final_state));
    last.decoded = std::make_shared<const Json>(std::move(final_state));
    result.object = last;
    return result;
  }
  result.object = commit_put(type, key, std::move(obj));
  return result;
}

Result<WriteResult> Engine::patch(const ResourceType& type, const std::string& ns,
                                  const std::string& name, const std::string& patch_type,
                                  const Json& patch, const WriteOptions& options,
                                  const std::string& subresource) {
  std::unique_lock lock(store_.mutex());
  auto current = get_locked(type, ns, name);
  if (!current) return std::unexpected(current.error());
  Json target = present(type, *current->obj());
  std::expected<Json, patch::PatchError> patched;
  if (patch_type == "application/merge-patch+json") {
    patched = patch::merge_patch(target, patch);
  } else if (patch_type == "application/json-patch+json") {
    patched = patch::json_patch(target, patch);
  } else {
    patched = patch::strategic_merge_patch(target, patch, type.kind);
  }
  if (!patched) {
    if (patched.error().code == 400) return std::unexpected(bad_request(patched.error().message));
    ApiError e;
    e.code = patched.error().code;
    e.reason = e.code == 422 ? "Invalid" : "BadRequest";
    e.message = patched.error().message;
    return std::unexpected(std::move(e));
  }
  if (!patched->is_object()) {
    return std::unexpected(bad_request("the patched object is not a JSON object"));
  }
  return update_locked(type, ns, name, std::move(*patched), options, subresource, true);
}

}  // namespace respool::sandbox
