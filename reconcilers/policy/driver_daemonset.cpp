#include "reconcilers/policy/driver_daemonset.hpp"

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

const std::optional<std::string>& driver_version_for(const DriverSpec& d, AcceleratorType type) {
  return type == AcceleratorType::NPU ? d.npu_version : d.gpu_version;
}

json no_schedule_toleration(std::string_view key, std::string_view op,
                            std::string_view value = "") {
  json t = {{"key", std::string(key)}, {"operator", std::string(op)}, {"effect", "NoSchedule"}};
  if (!value.empty()) t["value"] = std::string(value);
  return t;
}

}  // namespace

std::string driver_daemonset_name(std::string_view pool, AcceleratorType type) {
  return std::string(pool) + "-" + lowercase(to_string(type)) + "-driver";
}

std::string driver_target(const Catalog& catalog, const ResourcePoolSpec& spec,
                          std::string_view flavor) {
  const Flavor* f = catalog.flavor(flavor);
  if (!f || !spec.driver || f->accelerator.type == AcceleratorType::None) return "";
  return driver_version_for(*spec.driver, f->accelerator.type).value_or("");
}

std::vector<DriverDaemonSet> render_driver_daemonsets(const Catalog& catalog, const PoolRef& pool,
                                                      const ResourcePoolSpec& spec,
                                                      std::string_view ns) {
  std::vector<DriverDaemonSet> out;
  if (!spec.driver) return out;
  for (AcceleratorType type : {AcceleratorType::GPU, AcceleratorType::NPU}) {
    const auto& version = driver_version_for(*spec.driver, type);
    if (!version) continue;
    auto image = catalog.driver_image(type, *version);
    json flavor_values = json::array();
    for (const FlavorRequest& r : spec.resources) {
      const Flavor* f = catalog.flavor(r.flavor);
      if (f && f->accelerator.type == type) flavor_values.push_back(f->label_value);
    }
    if (!image || flavor_values.empty()) continue;
    const std::string name = driver_daemonset_name(pool.name, type);
    const json selector = {{std::string(kPoolLabel), pool.name},
                           {std::string(kDriverLabel), std::string(to_string(type))}};
    json labels = selector;
    labels["app.kubernetes.io/managed-by"] = "respool";
    labels["app.kubernetes.io/name"] = "respool-driver";
    json tolerations = json::array(
        {no_schedule_toleration(kPoolTaintKey, "Equal", pool.name),
         no_schedule_toleration(
             isolation_taint_key(type == AcceleratorType::NPU ? kNpuUpgradeCode : kGpuUpgradeCode),
             "Exists"),
         no_schedule_toleration(isolation_taint_key(kAdmissionCode), "Exists")});
    json manifest = {
        {"apiVersion", "apps/v1"},
        {"kind", "DaemonSet"},
        {"metadata",
         {{"name", name},
          {"namespace", std::string(ns)},
          {"labels", labels},
          {"ownerReferences", json::array({{{"apiVersion", std::string(kApiVersion)},
                                            {"kind", "ResourcePool"},
                                            {"name", pool.name},
                                            {"uid", pool.uid},
                                            {"controller", true},
                                            {"blockOwnerDeletion", true}}})}}},
        {"spec",
         {{"selector", {{"matchLabels", selector}}},
          {"updateStrategy", {{"type", "OnDelete"}}},
          {"template",
           {{"metadata",
             {{"labels", labels}, {"annotations", {{std::string(kDriverVersionLabel), *version}}}}},
            {"spec",
             {{"nodeSelector", {{std::string(kPoolLabel), pool.name}}},
              {"affinity",
               {{"nodeAffinity",
                 {{"requiredDuringSchedulingIgnoredDuringExecution",
                   {{"nodeSelectorTerms",
                     json::array({{{"matchExpressions",
                                    json::array({{{"key", catalog.flavor_label},
                                                  {"operator", "In"},
                                                  {"values", flavor_values}}})}}})}}}}}}},
              {"tolerations", tolerations},
              {"containers", json::array({{{"name", "driver"},
                                           {"image", *image},
                                           {"securityContext", {{"privileged", true}}}}})}}}}}}}};
    out.push_back({type, name, std::string(ns), *version, std::move(manifest)});
  }
  return out;
}

}  // namespace respool::policy
