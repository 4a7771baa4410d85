#include "sandbox/simulator/fit.hpp"

#include <algorithm>
#include <charconv>

namespace respool::sandbox::sim {
namespace {

const Json kNull;

apimachinery::Quantity quantity(const Json& value) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_number_integer()) {
    return apimachinery::Quantity::from_units(value.get<std::int64_t>());
  } else {
    return {};
  }
  auto q = apimachinery::Quantity::parse(text);
  return q ? *q : apimachinery::Quantity{};
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::vector<std::string> strings(const Json& array) {
  std::vector<std::string> out;
  if (!array.is_array()) return out;
  for (const auto& v : array)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

// One NodeSelectorRequirement against a value that is present or not.
bool requirement_matches(const Json& req, const std::optional<std::string>& value) {
  if (!req.is_object()) return false;
  const std::string op = req.value("operator", std::string());
  const auto values = strings(req.value("values", Json::array()));
  const bool listed = value && std::find(values.begin(), values.end(), *value) != values.end();
  if (op == "In") return listed;
  if (op == "NotIn") return !listed;
  if (op == "Exists") return value.has_value();
  if (op == "DoesNotExist") return !value.has_value();
  if (op == "Gt" || op == "Lt") {
    if (!value || values.size() != 1) return false;
    auto have = parse_int(*value);
    auto bound = parse_int(values[0]);
    if (!have || !bound) return false;
    return op == "Gt" ? *have > *bound : *have < *bound;
  }
  return false;
}

void add_list(kube::ResourceList& into, const kube::ResourceList& more) {
  for (const auto& [name, q] : more.items())
    into.add(name.view(), q);
}

// A container's requests, with its limits standing in for missing requests.
kube::ResourceList container_requests(const Json& container) {
  const Json& resources = at_path(container, {"resources"});
  kube::ResourceList out = resource_list(at_path(resources, {"requests"}));
  const Json& limits = at_path(resources, {"limits"});
  if (limits.is_object()) {
    for (auto it = limits.begin(); it != limits.end(); ++it) {
      const Json& requests = at_path(resources, {"requests"});
      if (!requests.is_object() || !requests.contains(it.key()))
        out.set(it.key(), quantity(it.value()));
    }
  }
  return out;
}

}  // namespace

const Json& at_path(const Json& object, std::initializer_list<std::string_view> path) {
  const Json* at = &object;
  for (std::string_view key : path) {
    if (!at->is_object()) return kNull;
    auto it = at->find(key);
    if (it == at->end()) return kNull;
    at = &*it;
  }
  return *at;
}

std::string string_at(const Json& object, std::initializer_list<std::string_view> path) {
  const Json& v = at_path(object, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::string_view string_view_at(const Json& object, std::initializer_list<std::string_view> path) {
  const Json& v = at_path(object, path);
  return v.is_string() ? std::string_view(v.get_ref<const std::string&>()) : std::string_view();
}

bool pod_terminal(const Json& pod) {
  const std::string phase = string_at(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

std::optional<std::string> annotation(const Json& object, std::string_view key) {
  const Json& v = at_path(object, {"metadata", "annotations", key});
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::optional<std::string> label(const Json& object, std::string_view key) {
  const Json& v = at_path(object, {"metadata", "labels", key});
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::vector<Taint> node_taints(const Json& node) {
  std::vector<Taint> out;
  const Json& taints = at_path(node, {"spec", "taints"});
  if (!taints.is_array()) return out;
  for (const auto& t : taints) {
    if (!t.is_object()) continue;
    out.push_back({t.value("key", std::string()), t.value("value", std::string()),
                   t.value("effect", std::string())});
  }
  return out;
}

Json taint_to_json(const Taint& taint) {
  Json out = {{"key", taint.key}, {"effect", taint.effect}};
  if (!taint.value.empty()) out["value"] = taint.value;
  return out;
}

bool tolerates(const Json& toleration, const Taint& taint) {
  if (!toleration.is_object()) return false;
  const std::string effect = toleration.value("effect", std::string());
  if (!effect.empty() && effect != taint.effect) return false;
  const std::string key = toleration.value("key", std::string());
  if (!key.empty() && key != taint.key) return false;
  const std::string op = toleration.value("operator", std::string("Equal"));
  if (op == "Exists") return true;
  if (op == "Equal" || op.empty()) return toleration.value("value", std::string()) == taint.value;
  return false;
}

bool tolerated(const Json& tolerations, const Taint& taint) {
  if (!tolerations.is_array()) return false;
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Json& t) { return tolerates(t, taint); });
}

std::optional<Taint> untolerated_taint(const std::vector<Taint>& taints, const Json& tolerations,
                                       Effects effects) {
  for (const auto& taint : taints) {
    const bool considered =
        taint.effect == "NoExecute" ||
        (effects == Effects::NoScheduleAndNoExecute && taint.effect == "NoSchedule");
    if (considered && !tolerated(tolerations, taint)) return taint;
  }
  return std::nullopt;
}

bool matches_node_selector(const Json& pod_spec, const Json& node) {
  const Json& selector = at_path(pod_spec, {"nodeSelector"});
  if (!selector.is_object()) return true;
  for (auto it = selector.begin(); it != selector.end(); ++it) {
    auto value = label(node, it.key());
    if (!value || !it.value().is_string() || *value != it.value().get<std::string>()) return false;
  }
  return true;
}

bool matches_node_selector_term(const Json& term, const Json& node) {
  const Json& expressions = at_path(term, {"matchExpressions"});
  const Json& fields = at_path(term, {"matchFields"});
  const bool has_expressions = expressions.is_array() && !expressions.empty();
  const bool has_fields = fields.is_array() && !fields.empty();
  if (!has_expressions && !has_fields) return false;
  if (has_expressions) {
    for (const auto& req : expressions) {
      if (!requirement_matches(req, label(node, req.value("key", std::string())))) return false;
    }
  }
  if (has_fields) {
    for (const auto& req : fields) {
      if (!req.is_object() || req.value("key", std::string()) != "metadata.name") return false;
      if (!requirement_matches(req, string_at(node, {"metadata", "name"}))) return false;
    }
  }
  return true;
}

bool matches_required_affinity(const Json& pod_spec, const Json& node) {
  const Json& required = at_path(
      pod_spec, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  if (!required.is_object()) return true;
  const Json& terms = at_path(required, {"nodeSelectorTerms"});
  if (!terms.is_array()) return false;
  return std::any_of(terms.begin(), terms.end(),
                     [&](const Json& term) { return matches_node_selector_term(term, node); });
}

kube::ResourceList resource_list(const Json& object) {
  kube::ResourceList out;
  if (!object.is_object()) return out;
  for (auto it = object.begin(); it != object.end(); ++it)
    out.set(it.key(), quantity(it.value()));
  return out;
}

kube::ResourceList pod_requests(const Json& pod_spec) {
  kube::ResourceList sum;
  const Json& containers = at_path(pod_spec, {"containers"});
  if (containers.is_array()) {
    for (const auto& c : containers)
      add_list(sum, container_requests(c));
  }
  // Sidecars (init containers that keep running) add to the sum; the others run one at a time
  // before the containers, so the pod needs at least the largest of them.
  const Json& inits = at_path(pod_spec, {"initContainers"});
  kube::ResourceList init_max;
  if (inits.is_array()) {
    kube::ResourceList sidecars;
    for (const auto& c : inits) {
      kube::ResourceList r = container_requests(c);
      if (c.is_object() && c.value("restartPolicy", std::string()) == "Always") {
        add_list(sidecars, r);
        continue;
      }
      kube::ResourceList with_sidecars = sidecars;
      add_list(with_sidecars, r);
      for (const auto& [name, q] : with_sidecars.items()) {
        if (q > init_max.get(name.view())) init_max.set(name.view(), q);
      }
    }
    add_list(sum, sidecars);
  }
  for (const auto& [name, q] : init_max.items()) {
    if (q > sum.get(name.view())) sum.set(name.view(), q);
  }
  add_list(sum, resource_list(at_path(pod_spec, {"overhead"})));
  return sum;
}

kube::ResourceList node_allocatable(const Json& node) {
  const Json& allocatable = at_path(node, {"status", "allocatable"});
  if (allocatable.is_object()) return resource_list(allocatable);
  return resource_list(at_path(node, {"status", "capacity"}));
}

const Json* find_condition(const Json& object, std::string_view type) {
  const Json& conditions = at_path(object, {"status", "conditions"});
  if (!conditions.is_array()) return nullptr;
  for (const auto& c : conditions) {
    if (c.is_object() && c.value("type", std::string()) == type) return &c;
  }
  return nullptr;
}

kube::ConditionStatus condition_status(const Json& object, std::string_view type) {
  const Json* c = find_condition(object, type);
  if (!c) return kube::ConditionStatus::Unknown;
  const std::string status = c->value("status", std::string());
  if (status == "True") return kube::ConditionStatus::True;
  if (status == "False") return kube::ConditionStatus::False;
  return kube::ConditionStatus::Unknown;
}

}  // namespace respool::sandbox::sim
