// Subresources with their own shapes: scale (autoscaling/v1 Scale), eviction (policy/v1
// Eviction against PodDisruptionBudgets) and binding (core/v1 Binding).

#include "apimachinery/time.hpp"
#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/controllers/pdb.hpp"
#include "sandbox/apiserver/jsonpath.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"
#include "sandbox/patch/patch.hpp"

namespace respool::sandbox {
namespace {

std::string selector_text(const Json& selector) {
  auto parsed = kube::LabelSelector::from_json(selector);
  return parsed ? parsed->to_string() : "";
}

Json scale_of(const ResourceType& type, const Json& obj) {
  const ScalePaths& paths = *type.scale;
  const Json& meta = obj["metadata"];
  Json scale = {{"kind", "Scale"}, {"apiVersion", "autoscaling/v1"}};
  Json m = {{"name", meta.value("name", "")}};
  if (meta.contains("namespace")) m["namespace"] = meta["namespace"];
  for (const char* f : {"uid", "resourceVersion", "creationTimestamp"}) {
    if (meta.contains(f)) m[f] = meta[f];
  }
  scale["metadata"] = m;
  const Json* spec_replicas = json_path_first(obj, paths.spec_replicas);
  scale["spec"] = Json::object();
  if (spec_replicas && spec_replicas->is_number_integer())
    scale["spec"]["replicas"] = *spec_replicas;
  const Json* status_replicas = json_path_first(obj, paths.status_replicas);
  scale["status"] = {{"replicas", status_replicas && status_replicas->is_number_integer()
                                      ? *status_replicas
                                      : Json(0)}};
  if (type.custom()) {
    if (!paths.label_selector.empty()) {
      const Json* sel = json_path_first(obj, paths.label_selector);
      if (sel && sel->is_string()) scale["status"]["selector"] = *sel;
    }
  } else if (obj.contains("spec") && obj["spec"].is_object() && obj["spec"].contains("selector")) {
    std::string text = selector_text(obj["spec"]["selector"]);
    if (!text.empty()) scale["status"]["selector"] = text;
  }
  return scale;
}

// The DeleteOptions an Eviction carries.
DeleteOptions eviction_delete_options(const Json& eviction, bool dry_run) {
  DeleteOptions del;
  del.dry_run = dry_run;
  const Json opts = eviction.value("deleteOptions", Json::object());
  if (opts.is_object()) {
    if (opts.contains("gracePeriodSeconds") && opts["gracePeriodSeconds"].is_number_integer()) {
      del.grace_period_seconds = opts["gracePeriodSeconds"].get<std::int64_t>();
    }
    if (opts.contains("preconditions") && opts["preconditions"].is_object()) {
      const Json& p = opts["preconditions"];
      if (p.contains("uid") && p["uid"].is_string()) del.precondition_uid = p["uid"];
      if (p.contains("resourceVersion") && p["resourceVersion"].is_string()) {
        del.precondition_resource_version = p["resourceVersion"];
      }
    }
    if (opts.contains("dryRun") && opts["dryRun"].is_array() && !opts["dryRun"].empty()) {
      del.dry_run = true;
    }
  }
  return del;
}

}  // namespace

Result<Json> Engine::get_scale(const ResourceType& type, const std::string& ns,
                               const std::string& name) {
  std::unique_lock lock(store_.mutex());
  auto current = get_locked(type, ns, name);
  if (!current) return std::unexpected(current.error());
  return scale_of(type, *current->obj());
}

Result<Json> Engine::update_scale(const ResourceType& type, const std::string& ns,
                                  const std::string& name, Json scale,
                                  const WriteOptions& options) {
  std::unique_lock lock(store_.mutex());
  auto current = get_locked(type, ns, name);
  if (!current) return std::unexpected(current.error());
  if (!scale.is_object()) return std::unexpected(bad_request("the body must be a Scale object"));
  const Json spec = scale.value("spec", Json::object());
  Json replicas = spec.is_object() ? spec.value("replicas", Json()) : Json();
  if (!replicas.is_number_integer() || replicas.get<long long>() < 0) {
    return std::unexpected(
        invalid("autoscaling", "Scale", name,
                {field_invalid("spec.replicas", replicas, "must be greater than or equal to 0")}));
  }
  std::string rv;
  if (scale.contains("metadata") && scale["metadata"].is_object()) {
    rv = scale["metadata"].value("resourceVersion", std::string());
  }
  if (!rv.empty() && rv != std::to_string(current->rv)) {
    return std::unexpected(stale_conflict(type.gr(), name));
  }
  auto fields = json_path_fields(type.scale->spec_replicas);
  if (!fields) return std::unexpected(internal_error("unsupported specReplicasPath"));
  // Without a resourceVersion from the client the write is unconditional, as the real server's
  // GuaranteedUpdate makes it: a write that slips in between (a controller's status) is retried.
  for (int attempt = 0;; ++attempt) {
    Json obj = present(type, *current->obj());
    Json* at = &obj;
    for (const std::string& f : *fields) {
      if (!at->is_object()) *at = Json::object();
      at = &(*at)[f];
    }
    *at = replicas;
    obj["metadata"]["resourceVersion"] = std::to_string(current->rv);
    lock.unlock();
    auto written = update(type, ns, name, std::move(obj), options);
    if (written) return scale_of(type, *written->object.obj());
    if (!rv.empty() || written.error().code != 409 || attempt == 4)
      return std::unexpected(written.error());
    lock.lock();
    current = get_locked(type, ns, name);
    if (!current) return std::unexpected(current.error());
  }
}

Result<Json> Engine::patch_scale(const ResourceType& type, const std::string& ns,
                                 const std::string& name, const std::string& patch_type,
                                 const Json& patch, const WriteOptions& options) {
  auto current = get_scale(type, ns, name);
  if (!current) return current;
  std::expected<Json, patch::PatchError> patched;
  if (patch_type == "application/merge-patch+json") {
    patched = patch::merge_patch(*current, patch);
  } else if (patch_type == "application/json-patch+json") {
    patched = patch::json_patch(*current, patch);
  } else {
    patched = patch::strategic_merge_patch(*current, patch, "Scale");
  }
  if (!patched) {
    ApiError e = bad_request(patched.error().message);
    e.code = patched.error().code;
    if (e.code == 422) e.reason = "Invalid";
    return std::unexpected(std::move(e));
  }
  // The Scale read above carries its resourceVersion; only the patch's own one is a condition.
  const bool conditional = patch.is_object() && patch.contains("metadata") &&
                           patch["metadata"].is_object() &&
                           patch["metadata"].contains("resourceVersion");
  if (!conditional && patched->is_object() && patched->contains("metadata") &&
      (*patched)["metadata"].is_object())
    (*patched)["metadata"].erase("resourceVersion");
  return update_scale(type, ns, name, std::move(*patched), options);
}

Result<void> Engine::evict(const std::string& ns, const std::string& name, const Json& eviction,
                           bool dry_run) {
  std::unique_lock lock(store_.mutex());
  TypePtr pods = registry_.find("", "v1", "pods");
  TypePtr pdbs = registry_.find("policy", "v1", "poddisruptionbudgets");
  if (!eviction.is_object()) return std::unexpected(bad_request("the body must be an Eviction"));
  std::string body_name;
  if (eviction.contains("metadata") && eviction["metadata"].is_object()) {
    body_name = eviction["metadata"].value("name", std::string());
  }
  if (!body_name.empty() && body_name != name) {
    return std::unexpected(bad_request("name in URL does not match name in Eviction object"));
  }
  auto pod = get_locked(*pods, ns, name);
  if (!pod) return std::unexpected(pod.error());
  const DeleteOptions del = eviction_delete_options(eviction, dry_run);
  auto remove_pod = [&]() -> Result<void> {
    auto r = remove_locked(*pods, ns, name, del);
    if (!r) return std::unexpected(r.error());
    return {};
  };
  const auto decoded = pod->obj();
  const Json& obj = *decoded;
  std::string phase = obj.value("status", Json::object()).value("phase", std::string());
  // Pods that are done, not started or already going need no budget.
  if (phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
      has_deletion_timestamp(obj)) {
    return remove_pod();
  }
  std::vector<std::string> matching;
  if (auto coll = store_.find(pdbs->storage)) {
    std::string prefix = ns + "/";
    Json labels = obj["metadata"].value("labels", Json::object());
    for (auto it = coll->items.lower_bound(prefix);
         it != coll->items.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      const Json spec = it->second.obj()->value("spec", Json::object());
      if (!spec.is_object() || !spec.contains("selector") || spec["selector"].is_null()) continue;
      auto selector = kube::LabelSelector::from_json(spec["selector"]);
      if (selector && selector->matches(labels)) matching.push_back(it->first);
    }
  }
  if (matching.empty()) return remove_pod();
  if (matching.size() > 1) {
    return std::unexpected(internal_error(
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
        "not support."));
  }
  const StoredObject* pdb = store_.get(pdbs->storage, matching[0]);
  const auto pdb_decoded = pdb->obj();
  const Json& pdb_obj = *pdb_decoded;
  std::string pdb_name = object_name(pdb_obj);
  const Json status = pdb_obj.value("status", Json::object());
  long current_healthy = status.value("currentHealthy", 0L);
  long desired_healthy = status.value("desiredHealthy", 0L);
  long allowed = status.value("disruptionsAllowed", 0L);
  if (!pod_healthy(obj)) {
    std::string policy = pdb_obj.value("spec", Json::object())
                             .value("unhealthyPodEvictionPolicy", std::string("IfHealthyBudget"));
    if (policy == "AlwaysAllow" || (current_healthy >= desired_healthy && desired_healthy > 0)) {
      return remove_pod();
    }
  }
  if (status.value("observedGeneration", 0L) < pdb_obj["metadata"].value("generation", 0L)) {
    ApiError e = too_many_requests(
        "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget " +
            pdb_name + " is still being processed by the server.",
        0);
    e.details["causes"] =
        Json::array({{{"reason", "DisruptionBudget"},
                      {"message", "The disruption budget " + pdb_name +
                                      " is still being processed by the server."}}});
    return std::unexpected(std::move(e));
  }
  if (allowed <= 0) {
    ApiError e =
        too_many_requests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
    e.details["causes"] =
        Json::array({{{"reason", "DisruptionBudget"},
                      {"message", "The disruption budget " + pdb_name + " needs " +
                                      std::to_string(desired_healthy) + " healthy pods and has " +
                                      std::to_string(current_healthy) + " currently"}}});
    return std::unexpected(std::move(e));
  }
  if (!del.dry_run) {
    Json updated = pdb_obj;
    updated["status"]["disruptionsAllowed"] = allowed - 1;
    updated["status"]["disruptedPods"][name] = apimachinery::format_time(clock_.now());
    commit_put(*pdbs, matching[0], std::move(updated));
  }
  return remove_pod();
}

Result<void> Engine::bind(const std::string& ns, const std::string& name, const Json& binding,
                          bool dry_run) {
  std::unique_lock lock(store_.mutex());
  TypePtr pods = registry_.find("", "v1", "pods");
  if (!binding.is_object()) return std::unexpected(bad_request("the body must be a Binding"));
  const Json target = binding.value("target", Json::object());
  std::string node = target.is_object() ? target.value("name", std::string()) : "";
  std::string kind = target.is_object() ? target.value("kind", std::string("Node")) : "";
  GroupResource gr{"", "pods/binding"};
  if (node.empty() || (!kind.empty() && kind != "Node")) {
    return std::unexpected(invalid(
        "", "Binding", name, {field_not_supported("target.kind", kind, {"Node", "<empty>"})}));
  }
  auto pod = get_locked(*pods, ns, name);
  if (!pod) return std::unexpected(pod.error());
  const auto decoded = pod->obj();
  const Json& obj = *decoded;
  std::string bound = obj.value("spec", Json::object()).value("nodeName", std::string());
  if (!bound.empty()) {
    return std::unexpected(
        conflict(gr, name, "pod " + name + " is already assigned to node \"" + bound + "\""));
  }
  if (has_deletion_timestamp(obj)) {
    return std::unexpected(
        conflict(gr, name, "pod " + name + " is being deleted, cannot be assigned to a host"));
  }
  if (dry_run) return {};
  Json updated = obj;
  updated["spec"]["nodeName"] = node;
  Json& conditions = updated["status"]["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  Json scheduled = {{"type", "PodScheduled"},
                    {"status", "True"},
                    {"lastProbeTime", nullptr},
                    {"lastTransitionTime", apimachinery::format_time(clock_.now())}};
  bool replaced = false;
  for (Json& c : conditions) {
    if (c.is_object() && c.value("type", std::string()) == "PodScheduled") {
      c = scheduled;
      replaced = true;
    }
  }
  if (!replaced) conditions.push_back(scheduled);
  commit_put(*pods, Store::key(ns, name), std::move(updated));
  return {};
}

}  // namespace respool::sandbox
