// What the printers share: reading fields, ages, label and selector formats, container cells.

#include "apimachinery/time.hpp"
#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/printers/printers.hpp"
#include "sandbox/apiserver/printers/tables.hpp"

namespace respool::sandbox::printers {

const char* const kAgeDesc =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";
const char* const kContainersDesc = "Names of each container in the template.";
const char* const kImagesDesc = "Images referenced by each container in the template.";

const Json& at(const Json& obj, std::initializer_list<const char*> path) {
  static const Json null;
  const Json* v = &obj;
  for (const char* k : path) {
    if (!v->is_object()) return null;
    auto it = v->find(k);
    if (it == v->end()) return null;
    v = &*it;
  }
  return *v;
}

const Json& name_of(const Json& obj) {
  return at(obj, {"metadata", "name"});
}

std::string text(const Json& v, const std::string& fallback) {
  return v.is_string() && !v.get<std::string>().empty() ? v.get<std::string>() : fallback;
}

std::string since(const Json& ts, runtime::TimePoint now) {
  auto t = ts.is_string() ? apimachinery::parse_time(ts.get<std::string>()) : std::nullopt;
  if (!t) return "<unknown>";
  return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string age(const Json& obj, runtime::TimePoint now) {
  return since(at(obj, {"metadata", "creationTimestamp"}), now);
}

std::string condition_status(const Json& obj, const std::string& type) {
  const Json& conds = at(obj, {"status", "conditions"});
  if (!conds.is_array()) return "";
  for (const Json& c : conds) {
    if (c.is_object() && c.value("type", std::string()) == type) {
      return c.value("status", std::string());
    }
  }
  return "";
}

long long number(const Json& v) {
  return v.is_number_integer() ? v.get<long long>() : 0;
}

std::string int_or_string(const Json& v, const std::string& fallback) {
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return text(v, fallback);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string format_labels(const Json& map) {
  std::vector<std::string> parts;
  if (map.is_object()) {
    for (auto it = map.begin(); it != map.end(); ++it)
      parts.push_back(it.key() + "=" + text(it.value()));
  }
  return parts.empty() ? "<none>" : join(parts, ",");
}

std::string format_selector(const Json& selector) {
  if (selector.is_null()) return "<none>";
  auto parsed = kube::LabelSelector::from_json(selector);
  if (!parsed) return "<error>";
  std::string s = parsed->to_string();
  return s.empty() ? "<none>" : s;
}

namespace {

std::string container_field(const Json& pod_spec, const char* field) {
  std::vector<std::string> parts;
  const Json& list = at(pod_spec, {"containers"});
  if (list.is_array()) {
    for (const Json& c : list)
      parts.push_back(text(at(c, {field})));
  }
  return join(parts, ",");
}

}  // namespace

const Json& template_pod_spec(const Json& o) {
  return at(o, {"spec", "template", "spec"});
}

std::string container_names(const Json& pod_spec) {
  return container_field(pod_spec, "name");
}

std::string container_images(const Json& pod_spec) {
  return container_field(pod_spec, "image");
}

}  // namespace respool::sandbox::printers
