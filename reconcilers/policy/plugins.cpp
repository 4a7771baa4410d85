#include "reconcilers/policy/plugins.hpp"

#include <algorithm>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/placeholders.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

// Replaces the placeholders in every string of `value` (parse_catalog refused unknown ones).
void substitute(json& value, const std::string& pool, JobType type) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    auto found = find_placeholders(text);
    if (found.empty()) return;
    std::string out;
    std::size_t last = 0;
    for (const Placeholder& p : found) {
      out.append(text, last, p.begin - last);
      out += p.name == "pool"      ? pool
             : p.name == "jobType" ? std::string(to_string(type))
                                   : std::string(label_name(type));
      last = p.end;
    }
    out.append(text, last);
    value = out;
  } else if (value.is_structured()) {
    for (auto& item : value)
      substitute(item, pool, type);
  }
}

json& object_at(json& parent, const char* key) {
  if (!parent.contains(key) || !parent[key].is_object()) parent[key] = json::object();
  return parent[key];
}

void add_pool_scheduling(json& manifest, const std::string& pool) {
  json& spec = manifest["spec"];
  if (!spec.is_object() || !spec.contains("template")) return;
  const std::string key(kPoolLabel);
  if (spec.contains("selector") && spec["selector"].is_object()) {
    object_at(spec["selector"], "matchLabels")[key] = pool;
  }
  json& pod_meta = object_at(spec["template"], "metadata");
  object_at(pod_meta, "labels")[key] = pool;
  json& pod_spec = object_at(spec["template"], "spec");
  object_at(pod_spec, "nodeSelector")[key] = pool;
  json toleration = {{"key", std::string(kPoolTaintKey)},
                     {"operator", "Equal"},
                     {"value", pool},
                     {"effect", "NoSchedule"}};
  json& tolerations = pod_spec["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array();
  if (std::find(tolerations.begin(), tolerations.end(), toleration) == tolerations.end()) {
    tolerations.push_back(toleration);
  }
}

void add_requests(ResourceList& total, const json& container, bool take_max) {
  if (!container.is_object()) return;
  auto resources = container.find("resources");
  if (resources == container.end() || !resources->is_object()) return;
  auto requests = resources->find("requests");
  if (requests == resources->end() || !requests->is_object()) return;
  for (const auto& [name, value] : requests->items()) {
    auto q = Quantity::parse(value.is_string() ? value.get<std::string>() : value.dump());
    if (!q) continue;
    if (take_max) {
      total[name] = std::max(total[name], *q);
    } else {
      total[name] += *q;
    }
  }
}

}  // namespace

std::vector<RenderedPlugin> render_plugins(const Catalog& catalog, const PoolRef& pool,
                                           std::span<const JobType> job_types,
                                           std::string_view default_namespace) {
  std::vector<RenderedPlugin> out;
  for (JobType type : kJobTypes) {
    if (std::find(job_types.begin(), job_types.end(), type) == job_types.end()) continue;
    auto templates = catalog.plugins.find(type);
    if (templates == catalog.plugins.end()) continue;
    for (const json& tmpl : templates->second) {
      json manifest = tmpl;
      substitute(manifest, pool.name, type);
      json& metadata = object_at(manifest, "metadata");
      const std::string name = pool.name + "-" + std::string(label_name(type)) + "-" +
                               metadata["name"].get<std::string>();
      metadata["name"] = name;
      if (!metadata.contains("namespace") || !metadata["namespace"].is_string()) {
        metadata["namespace"] = default_namespace;
      }
      json& labels = object_at(metadata, "labels");
      labels[std::string(kPoolLabel)] = pool.name;
      labels[std::string(kPluginJobTypeLabel)] = label_name(type);
      labels["app.kubernetes.io/managed-by"] = "respool";
      metadata["ownerReferences"] = json::array({{{"apiVersion", std::string(kApiVersion)},
                                                  {"kind", "ResourcePool"},
                                                  {"name", pool.name},
                                                  {"uid", pool.uid},
                                                  {"controller", true},
                                                  {"blockOwnerDeletion", true}}});
      add_pool_scheduling(manifest, pool.name);
      out.push_back({type, manifest["kind"].get<std::string>(), name,
                     metadata["namespace"].get<std::string>(), std::move(manifest)});
    }
  }
  return out;
}

std::vector<InstalledPlugin> stale_plugins(std::span<const InstalledPlugin> installed,
                                           std::span<const RenderedPlugin> desired) {
  std::vector<InstalledPlugin> out;
  for (const InstalledPlugin& i : installed) {
    bool wanted = std::any_of(desired.begin(), desired.end(), [&](const RenderedPlugin& d) {
      return d.kind == i.kind && d.name == i.name && d.namespace_name == i.namespace_name;
    });
    if (!wanted) out.push_back(i);
  }
  return out;
}

ResourceList pod_requests(const json& pod_spec) {
  ResourceList sum, init;
  if (!pod_spec.is_object()) return sum;
  if (auto containers = pod_spec.find("containers"); containers != pod_spec.end()) {
    for (const json& c : *containers)
      add_requests(sum, c, false);
  }
  if (auto inits = pod_spec.find("initContainers"); inits != pod_spec.end()) {
    for (const json& c : *inits)
      add_requests(init, c, true);
  }
  for (const auto& [name, q] : init)
    sum[name] = std::max(sum[name], q);
  return sum;
}

ResourceList plugin_requests(const RenderedPlugin& plugin, int pool_nodes) {
  const json& m = plugin.manifest;
  if (!m.contains("spec") || !m["spec"].is_object() || !m["spec"].contains("template")) return {};
  std::int64_t pods = 0;
  if (plugin.kind == "DaemonSet") {
    pods = pool_nodes;
  } else if (plugin.kind == "Deployment" || plugin.kind == "StatefulSet") {
    pods = m["spec"].value("replicas", 1);
  }
  ResourceList per_pod = pod_requests(m["spec"]["template"].value("spec", json::object()));
  ResourceList total;
  for (const auto& [name, q] : per_pod)
    total[name] = q * pods;
  return total;
}

bool workload_ready(const json& observed) {
  if (!observed.is_object()) return false;
  const std::string kind = observed.value("kind", "");
  const json status = observed.value("status", json::object());
  const std::int64_t generation =
      observed.value("metadata", json::object()).value("generation", std::int64_t{0});
  if (status.value("observedGeneration", std::int64_t{0}) < generation) return false;
  if (kind == "DaemonSet") {
    auto desired = status.value("desiredNumberScheduled", std::int64_t{0});
    return status.value("numberReady", std::int64_t{0}) >= desired &&
           status.value("updatedNumberScheduled", std::int64_t{0}) >= desired &&
           status.value("numberUnavailable", std::int64_t{0}) == 0;
  }
  if (kind == "Deployment" || kind == "StatefulSet") {
    auto wanted = observed.value("spec", json::object()).value("replicas", std::int64_t{1});
    return status.value("readyReplicas", std::int64_t{0}) >= wanted &&
           status.value("updatedReplicas", std::int64_t{0}) >= wanted;
  }
  return true;
}

PluginStatus plugin_status(const RenderedPlugin& plugin, int pool_nodes, bool ready) {
  return {plugin.job_type, plugin.name, ready, plugin_requests(plugin, pool_nodes)};
}

json to_json(const PluginStatus& s) {
  json requests = json::object();
  for (const auto& [name, q] : s.requests)
    requests[name] = q.to_string();
  return {{"jobType", to_string(s.job_type)},
          {"name", s.name},
          {"ready", s.ready},
          {"requests", requests}};
}

}  // namespace respool::policy
