#include "reconcilers/policy/node_view.hpp"

#include "apimachinery/quantity.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

std::map<std::string, std::string, std::less<>> string_map(const json& object, const char* key) {
  std::map<std::string, std::string, std::less<>> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

const json& child(const json& object, const char* key) {
  static const json kEmpty = json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it == object.end() || !it->is_object() ? kEmpty : *it;
}

}  // namespace

const std::string* NodeView::label(std::string_view key) const {
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

bool NodeView::has_taint(std::string_view key) const {
  for (const Taint& t : taints) {
    if (t.key == key) return true;
  }
  return false;
}

std::int64_t NodeView::allocatable_of(std::string_view resource) const {
  auto it = allocatable.find(resource);
  return it == allocatable.end() ? 0 : it->second;
}

NodeView node_view_from_json(const json& node) {
  NodeView view;
  const json& metadata = child(node, "metadata");
  view.name = metadata.value("name", "");
  view.resource_version = metadata.value("resourceVersion", "");
  view.labels = string_map(metadata, "labels");
  view.annotations = string_map(metadata, "annotations");
  view.deleting =
      metadata.contains("deletionTimestamp") && !metadata["deletionTimestamp"].is_null();
  const json& spec = child(node, "spec");
  view.unschedulable = spec.value("unschedulable", false);
  if (auto taints = spec.find("taints"); taints != spec.end() && taints->is_array()) {
    for (const json& t : *taints) {
      if (!t.is_object()) continue;
      view.taints.push_back({t.value("key", ""), t.value("value", ""), t.value("effect", ""),
                             t.value("timeAdded", "")});
    }
  }
  const json& status = child(node, "status");
  for (const auto& [resource, value] : child(status, "allocatable").items()) {
    if (!value.is_string() && !value.is_number_integer()) continue;
    auto q =
        apimachinery::Quantity::parse(value.is_string() ? value.get<std::string>() : value.dump());
    if (q) view.allocatable[resource] = q->value();
  }
  if (auto conditions = status.find("conditions");
      conditions != status.end() && conditions->is_array()) {
    for (const json& c : *conditions) {
      if (!c.is_object() || c.value("type", "") != "Ready") continue;
      std::string s = c.value("status", "Unknown");
      if (s == "True") view.ready = true;
      if (s == "False") view.ready = false;
    }
  }
  return view;
}

json taints_to_json(const std::vector<Taint>& taints) {
  json out = json::array();
  for (const Taint& t : taints) {
    json item = {{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) item["value"] = t.value;
    if (!t.time_added.empty()) item["timeAdded"] = t.time_added;
    out.push_back(std::move(item));
  }
  return out;
}

bool pod_is_running_job(const json& pod) {
  return running_job_node(pod).has_value();
}

std::optional<std::string> running_job_node(const json& pod) {
  const json& metadata = child(pod, "metadata");
  if (auto owners = metadata.find("ownerReferences");
      owners != metadata.end() && owners->is_array()) {
    for (const json& o : *owners) {
      if (o.is_object() && o.value("kind", "") == "DaemonSet") {
        return std::nullopt;
      }
    }
  }
  std::string phase = child(pod, "status").value("phase", "");
  if (phase == "Succeeded" || phase == "Failed") return std::nullopt;
  std::string node = child(pod, "spec").value("nodeName", "");
  if (node.empty()) return std::nullopt;
  return node;
}

}  // namespace respool::policy
