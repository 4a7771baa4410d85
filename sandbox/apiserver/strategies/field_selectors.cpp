// The fields a field selector may name per kind (each kind's GetAttrs / ToSelectableFields).

#include "sandbox/apiserver/jsonpath.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox::kinds {
namespace {

std::string text_at(const Json& obj, std::initializer_list<const char*> path,
                    const std::string& fallback = "") {
  const Json* v = &obj;
  for (const char* key : path) {
    if (!v->is_object()) return fallback;
    auto it = v->find(key);
    if (it == v->end()) return fallback;
    v = &*it;
  }
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  if (v->is_number()) return v->dump();
  return fallback;
}

std::string scalar(const Json* v) {
  if (!v || v->is_null()) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  return v->dump();
}

}  // namespace

bool field_supported(const ResourceType& type, const std::string& field) {
  // A kind selects on the fields field_values gives, whatever the object holds.
  return field_values(type, Json::object()).contains(field);
}

std::string unsupported_field_message(const ResourceType& type, const std::string& field) {
  if (!type.custom()) return "field label not supported: " + field;
  std::string msg = "\"" + field +
                    "\" is not a known field selector: only \"metadata.name\", "
                    "\"metadata.namespace\"";
  for (const std::string& f : type.selectable_fields) {
    msg += ", \"" + (f.rfind('.', 0) == 0 ? f.substr(1) : f) + "\"";
  }
  return msg;
}

std::map<std::string, std::string> field_values(const ResourceType& type, const Json& obj) {
  std::map<std::string, std::string> f;
  f["metadata.name"] = text_at(obj, {"metadata", "name"});
  f["metadata.namespace"] = text_at(obj, {"metadata", "namespace"});
  switch (type.id) {
    case KindId::Pod:
      f["spec.nodeName"] = text_at(obj, {"spec", "nodeName"});
      f["spec.restartPolicy"] = text_at(obj, {"spec", "restartPolicy"});
      f["spec.schedulerName"] = text_at(obj, {"spec", "schedulerName"});
      f["spec.serviceAccountName"] = text_at(obj, {"spec", "serviceAccountName"});
      f["spec.hostNetwork"] = text_at(obj, {"spec", "hostNetwork"}, "false");
      f["status.phase"] = text_at(obj, {"status", "phase"});
      f["status.podIP"] = text_at(obj, {"status", "podIP"});
      f["status.nominatedNodeName"] = text_at(obj, {"status", "nominatedNodeName"});
      break;
    case KindId::Node:
      f["spec.unschedulable"] = text_at(obj, {"spec", "unschedulable"}, "false");
      break;
    case KindId::Event:
    case KindId::EventV1: {
      // Both views select on the stored (core/v1) object.
      bool v1 = type.id == KindId::EventV1;
      const char* regarding = v1 ? "regarding." : "involvedObject.";
      for (const char* k :
           {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"}) {
        f[std::string(regarding) + k] = text_at(obj, {"involvedObject", k});
      }
      f["reason"] = text_at(obj, {"reason"});
      f["type"] = text_at(obj, {"type"});
      f[v1 ? "reportingController" : "reportingComponent"] = text_at(obj, {"reportingComponent"});
      f[v1 ? "deprecatedSource" : "source"] = text_at(obj, {"source", "component"});
      break;
    }
    case KindId::Namespace:
      f["status.phase"] = text_at(obj, {"status", "phase"});
      break;
    case KindId::Secret:
      f["type"] = text_at(obj, {"type"});
      break;
    case KindId::Service:
      f["spec.clusterIP"] = text_at(obj, {"spec", "clusterIP"});
      f["spec.type"] = text_at(obj, {"spec", "type"});
      break;
    case KindId::Job:
      f["status.successful"] = text_at(obj, {"status", "succeeded"}, "0");
      break;
    case KindId::Custom:
      for (const std::string& path : type.selectable_fields) {
        std::string bare = path.rfind('.', 0) == 0 ? path.substr(1) : path;
        f[bare] = scalar(json_path_first(obj, path));
      }
      break;
    default:
      break;
  }
  return f;
}

}  // namespace respool::sandbox::kinds
