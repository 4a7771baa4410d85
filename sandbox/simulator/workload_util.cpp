#include "sandbox/simulator/workload_util.hpp"

#include <cmath>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {

using Json = nlohmann::json;

kube::LabelSelector spec_selector(const Json& object) {
  const Json& selector = at_path(object, {"spec", "selector"});
  if (!selector.is_object()) return kube::LabelSelector::nothing();
  auto parsed = kube::LabelSelector::from_json(selector);
  return parsed ? *parsed : kube::LabelSelector::nothing();
}

kube::LabelSelector map_selector(const Json& labels) {
  if (!labels.is_object() || labels.empty()) return kube::LabelSelector::nothing();
  auto parsed = kube::LabelSelector::from_json(Json{{"matchLabels", labels}});
  return parsed ? *parsed : kube::LabelSelector::nothing();
}

const Json* controller_of(const Json& object) {
  const Json& refs = at_path(object, {"metadata", "ownerReferences"});
  if (!refs.is_array()) return nullptr;
  for (const auto& ref : refs)
    if (ref.is_object() && ref.value("controller", false)) return &ref;
  return nullptr;
}

Json controller_reference(const Json& owner, std::string_view api_version, std::string_view kind) {
  return {{"apiVersion", api_version}, {"kind", kind},       {"name", name_of(owner)},
          {"uid", uid_of(owner)},      {"controller", true}, {"blockOwnerDeletion", true}};
}

Claimed claim_objects(const Json& owner, const kube::LabelSelector& selector,
                      const std::vector<const Json*>& candidates) {
  Claimed out;
  const std::string uid = uid_of(owner);
  const std::string ns = namespace_of(owner);
  const bool owner_deleting = marked_for_deletion(owner);
  for (const Json* object : candidates) {
    if (namespace_of(*object) != ns) continue;
    const Json& labels = at_path(*object, {"metadata", "labels"});
    const bool selected = selector.matches(labels.is_object() ? labels : Json::object());
    const Json* ref = controller_of(*object);
    if (ref) {
      if (ref->value("uid", "") != uid) continue;
      if (selected || owner_deleting) {
        out.owned.push_back(object);
      } else {
        out.release.push_back(object);
      }
    } else if (selected && !owner_deleting && !marked_for_deletion(*object)) {
      out.adopt.push_back(object);
    }
  }
  return out;
}

Json adopt_patch(const Json& object, const Json& reference) {
  Json refs = at_path(object, {"metadata", "ownerReferences"});
  if (!refs.is_array()) refs = Json::array();
  refs.push_back(reference);
  return {{"metadata",
           {{"resourceVersion", string_at(object, {"metadata", "resourceVersion"})},
            {"ownerReferences", refs}}}};
}

Json release_patch(const Json& object, std::string_view owner_uid) {
  Json refs = Json::array();
  const Json& current = at_path(object, {"metadata", "ownerReferences"});
  if (current.is_array())
    for (const auto& ref : current)
      if (!ref.is_object() || ref.value("uid", "") != owner_uid) refs.push_back(ref);
  return {{"metadata",
           {{"resourceVersion", string_at(object, {"metadata", "resourceVersion"})},
            {"ownerReferences", refs.empty() ? Json(nullptr) : refs}}}};
}

Json object_merge_patch(const Json& current, const Json& next) {
  Json patch = next.is_object() ? next : Json::object();
  if (current.is_object())
    for (auto it = current.begin(); it != current.end(); ++it)
      if (!patch.contains(it.key())) patch[it.key()] = nullptr;
  return patch;
}

namespace {

bool semantically_absent(const Json& v) {
  return v.is_null() || ((v.is_object() || v.is_array()) && v.empty());
}

}  // namespace

bool semantic_equal(const Json& a, const Json& b) {
  if (semantically_absent(a) && semantically_absent(b)) return true;
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (!semantic_equal(it.value(), other == b.end() ? Json() : *other)) return false;
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key()) && !semantically_absent(it.value())) return false;
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!semantic_equal(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

bool marked_for_deletion(const Json& object) {
  return !at_path(object, {"metadata", "deletionTimestamp"}).is_null();
}

bool pod_is_ready(const Json& pod) {
  return condition_status(pod, "Ready") == kube::ConditionStatus::True;
}

bool pod_is_active(const Json& pod) {
  return !pod_terminal(pod) && !marked_for_deletion(pod);
}

std::int64_t int_at(const Json& object, std::initializer_list<std::string_view> path,
                    std::int64_t fallback) {
  const Json& v = at_path(object, path);
  return v.is_number_integer() ? v.get<std::int64_t>() : fallback;
}

std::optional<TimePoint> time_at(const Json& object, std::initializer_list<std::string_view> path) {
  return apimachinery::parse_time(string_view_at(object, path));
}

std::string name_of(const Json& object) {
  return string_at(object, {"metadata", "name"});
}

std::string namespace_of(const Json& object) {
  return string_at(object, {"metadata", "namespace"});
}

std::string uid_of(const Json& object) {
  return string_at(object, {"metadata", "uid"});
}

int scaled_int_or_percent(const Json& value, int total, bool round_up, int fallback) {
  if (value.is_number_integer()) return value.get<int>();
  if (!value.is_string()) return fallback;
  std::string text = value.get<std::string>();
  if (text.empty() || text.back() != '%') return fallback;
  text.pop_back();
  int percent = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return fallback;
    percent = percent * 10 + (c - '0');
  }
  const double scaled = static_cast<double>(percent) * total / 100.0;
  return static_cast<int>(round_up ? std::ceil(scaled) : std::floor(scaled));
}

bool created_before(const Json& a, const Json& b) {
  const auto ta = time_at(a, {"metadata", "creationTimestamp"});
  const auto tb = time_at(b, {"metadata", "creationTimestamp"});
  if (ta && tb && *ta != *tb) return *ta < *tb;
  if (ta.has_value() != tb.has_value()) return !ta.has_value();
  return name_of(a) < name_of(b);
}

}  // namespace respool::sandbox::sim
