// Decoding checks and minimal validation of built-in kinds, worded as kube-apiserver words them.

#include <regex>

#include "apimachinery/quantity.hpp"
#include "apimachinery/time.hpp"
#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox::kinds {
namespace {

const char* go_type(const Json& v) {
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  return "object";
}

std::string handled_as(const ResourceType& type) {
  return type.kind + " in version \"" + type.version + "\" cannot be handled as a " + type.kind +
         ": ";
}

ApiError unmarshal(const ResourceType& type, const Json& v, const std::string& go_field,
                   const std::string& go_type_name) {
  return bad_request(handled_as(type) + "json: cannot unmarshal " + go_type(v) +
                     " into Go struct field " + go_field + " of type " + go_type_name);
}

enum class Want { String, Int, Bool, StringMap, StringList, List, Object, Time };

bool fits(const Json& v, Want want) {
  if (v.is_null()) return true;
  switch (want) {
    case Want::String:
    case Want::Time:
      return v.is_string();
    case Want::Int:
      return v.is_number_integer();
    case Want::Bool:
      return v.is_boolean();
    case Want::StringMap:
      if (!v.is_object()) return false;
      for (const Json& x : v) {
        if (!x.is_string() && !x.is_null()) return false;
      }
      return true;
    case Want::StringList:
      if (!v.is_array()) return false;
      for (const Json& x : v) {
        if (!x.is_string()) return false;
      }
      return true;
    case Want::List:
      return v.is_array();
    case Want::Object:
      return v.is_object();
  }
  return true;
}

const char* go_name(Want want) {
  switch (want) {
    case Want::String:
      return "string";
    case Want::Int:
      return "int64";
    case Want::Bool:
      return "bool";
    case Want::StringMap:
      return "map[string]string";
    case Want::StringList:
      return "[]string";
    case Want::List:
      return "[]v1.OwnerReference";
    case Want::Object:
      return "struct";
    case Want::Time:
      return "v1.Time";
  }
  return "";
}

std::optional<ApiError> check_fields(const ResourceType& type, const Json& obj,
                                     const std::string& struct_name, const std::string& prefix,
                                     std::initializer_list<std::pair<const char*, Want>> fields) {
  if (!obj.is_object()) return std::nullopt;
  for (const auto& [name, want] : fields) {
    auto it = obj.find(name);
    if (it == obj.end() || fits(*it, want)) continue;
    const Json& bad = *it;
    // A wrong element inside a map or list is reported with the element's type.
    const Json* culprit = &bad;
    std::string type_name = go_name(want);
    if (want == Want::StringMap && bad.is_object()) {
      for (const Json& x : bad) {
        if (!x.is_string()) culprit = &x;
      }
      type_name = "string";
    } else if (want == Want::StringList && bad.is_array()) {
      for (const Json& x : bad) {
        if (!x.is_string()) culprit = &x;
      }
      type_name = "string";
    }
    return unmarshal(type, *culprit, struct_name + "." + prefix + name, type_name);
  }
  for (const auto& [name, want] : fields) {
    if (want != Want::Time || !obj.contains(name) || !obj[name].is_string()) continue;
    std::string text = obj[name].get<std::string>();
    if (!apimachinery::parse_time(text)) {
      return bad_request(handled_as(type) + "parsing time " + Json(text).dump() +
                         " as \"2006-01-02T15:04:05Z07:00\": cannot parse " + Json(text).dump() +
                         " as \"2006\"");
    }
  }
  return std::nullopt;
}

// resource.Quantity's UnmarshalJSON: every limit and request of a pod spec's containers must
// parse, else decoding fails with the parser's error (a 400, before any validation).
std::optional<ApiError> check_quantities(const ResourceType& type, const Json& pod_spec) {
  if (!pod_spec.is_object()) return std::nullopt;
  for (const char* list : {"initContainers", "containers"}) {
    if (!pod_spec.contains(list) || !pod_spec[list].is_array()) continue;
    for (const Json& c : pod_spec[list]) {
      if (!c.is_object() || !c.contains("resources") || !c["resources"].is_object()) continue;
      for (const char* part : {"limits", "requests"}) {
        const Json& m = c["resources"].value(part, Json());
        if (!m.is_object()) continue;
        for (const Json& v : m) {
          if (v.is_null()) continue;
          std::string text = v.is_string() ? v.get<std::string>() : v.dump();
          auto q = apimachinery::Quantity::parse(text);
          if (!q) return bad_request(handled_as(type) + q.error());
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> decode_check(const ResourceType& type, const Json& obj) {
  if (!obj.is_object()) {
    return bad_request(handled_as(type) + "json: cannot unmarshal " + go_type(obj) +
                       " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,"
                       "omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }");
  }
  for (const char* k : {"apiVersion", "kind"}) {
    if (obj.contains(k) && !obj[k].is_string() && !obj[k].is_null()) {
      return bad_request(handled_as(type) + "json: cannot unmarshal " + go_type(obj[k]) +
                         " into Go struct field TypeMeta." + k + " of type string");
    }
  }
  if (obj.contains("metadata") && !obj["metadata"].is_object() && !obj["metadata"].is_null()) {
    return unmarshal(type, obj["metadata"], type.kind + ".metadata", "v1.ObjectMeta");
  }
  if (auto e = check_fields(type, obj.value("metadata", Json::object()), "ObjectMeta", "metadata.",
                            {{"name", Want::String},
                             {"generateName", Want::String},
                             {"namespace", Want::String},
                             {"uid", Want::String},
                             {"resourceVersion", Want::String},
                             {"generation", Want::Int},
                             {"deletionGracePeriodSeconds", Want::Int},
                             {"labels", Want::StringMap},
                             {"annotations", Want::StringMap},
                             {"finalizers", Want::StringList},
                             {"ownerReferences", Want::List},
                             {"managedFields", Want::List},
                             {"creationTimestamp", Want::Time},
                             {"deletionTimestamp", Want::Time}})) {
    return e;
  }
  const Json meta = obj.value("metadata", Json::object());
  if (meta.is_object() && meta.contains("ownerReferences") && meta["ownerReferences"].is_array()) {
    for (const Json& ref : meta["ownerReferences"]) {
      if (!ref.is_object()) {
        return unmarshal(type, ref, "ObjectMeta.metadata.ownerReferences", "v1.OwnerReference");
      }
      if (auto e = check_fields(type, ref, "OwnerReference", "metadata.ownerReferences.",
                                {{"apiVersion", Want::String},
                                 {"kind", Want::String},
                                 {"name", Want::String},
                                 {"uid", Want::String},
                                 {"controller", Want::Bool},
                                 {"blockOwnerDeletion", Want::Bool}})) {
        return e;
      }
    }
  }
  const Json spec = obj.value("spec", Json());
  if (type.id != KindId::Custom && !spec.is_null() && !spec.is_object()) {
    return unmarshal(type, spec, type.kind + ".spec", "v1." + type.kind + "Spec");
  }
  switch (type.id) {
    case KindId::Lease:
      return check_fields(type, spec, "LeaseSpec", "spec.",
                          {{"holderIdentity", Want::String},
                           {"leaseDurationSeconds", Want::Int},
                           {"leaseTransitions", Want::Int},
                           {"acquireTime", Want::Time},
                           {"renewTime", Want::Time}});
    case KindId::Node:
      return check_fields(type, spec, "NodeSpec", "spec.",
                          {{"unschedulable", Want::Bool}, {"taints", Want::List}});
    case KindId::Pod:
      if (auto e = check_quantities(type, spec)) return e;
      return check_fields(type, spec, "PodSpec", "spec.",
                          {{"nodeName", Want::String}, {"containers", Want::List}});
    case KindId::ConfigMap:
      return check_fields(type, obj, "ConfigMap", "", {{"data", Want::StringMap}});
    case KindId::DaemonSet: {
      const Json tmpl = spec.is_object() ? spec.value("template", Json()) : Json();
      return check_quantities(type, tmpl.is_object() ? tmpl.value("spec", Json()) : Json());
    }
    default:
      return std::nullopt;
  }
}

}  // namespace respool::sandbox::kinds
