#include "sandbox/apiserver/registry/crd.hpp"

#include <iostream>
#include <set>

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"
#include "sandbox/schema/schema.hpp"

namespace respool::sandbox {
namespace {

std::vector<std::string> strings(const Json& obj, const char* key) {
  std::vector<std::string> out;
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_array()) return out;
  for (const Json& v : obj[key]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string storage_version(const Json& spec) {
  if (spec.contains("versions") && spec["versions"].is_array()) {
    for (const Json& v : spec["versions"]) {
      if (v.is_object() && v.value("storage", false)) return text_of(v, "name");
    }
  }
  return "";
}

}  // namespace

void crd_prepare_create(Json& crd) {
  crd_prepare_update(crd, Json());
  std::string storage = storage_version(crd["spec"]);
  crd["status"] = {{"conditions", nullptr},
                   {"acceptedNames", {{"plural", ""}, {"kind", ""}}},
                   {"storedVersions", storage.empty() ? Json::array() : Json::array({storage})}};
}

void crd_prepare_update(Json& crd, const Json& old) {
  (void)old;
  if (!crd.contains("spec") || !crd["spec"].is_object()) return;
  Json& spec = crd["spec"];
  if (spec.contains("names") && spec["names"].is_object()) {
    Json& names = spec["names"];
    std::string kind = text_of(names, "kind");
    if (text_of(names, "singular").empty() && !kind.empty()) names["singular"] = lowercase(kind);
    if (text_of(names, "listKind").empty() && !kind.empty()) names["listKind"] = kind + "List";
  }
  if (!spec.contains("conversion") || !spec["conversion"].is_object()) {
    spec["conversion"] = {{"strategy", "None"}};
  }
}

namespace {

// Where the server reports a version's schema: collapsed to spec.validation when every version
// has the same schema (the internal CRD type keeps it once), else per version.
std::string schema_path(const Json& versions, std::size_t i) {
  bool same = true;
  for (const Json& v : versions) {
    if (!v.is_object() || v.value("schema", Json()) != versions[0].value("schema", Json())) {
      same = false;
    }
  }
  if (same) return "spec.validation.openAPIV3Schema";
  return "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema";
}

}  // namespace

std::vector<Cause> crd_validate(const Json& crd, const Json* old,
                                std::vector<std::string>* warnings) {
  std::vector<Cause> out;
  const Json spec = crd.value("spec", Json::object());
  std::string group = text_of(spec, "group");
  const Json names = spec.value("names", Json::object());
  std::string plural = text_of(names, "plural");
  std::string kind = text_of(names, "kind");
  if (group.empty()) {
    out.push_back(field_required("spec.group"));
  } else if (group.find('.') == std::string::npos) {
    out.push_back(field_invalid("spec.group", group, "should be a domain with at least one dot"));
  } else if (auto e = kinds::check_dns_subdomain(group)) {
    out.push_back(field_invalid("spec.group", group, *e));
  }
  if (plural.empty()) {
    out.push_back(field_required("spec.names.plural"));
  } else if (auto e = kinds::check_dns_label(plural)) {
    out.push_back(field_invalid("spec.names.plural", plural, *e));
  }
  if (kind.empty()) out.push_back(field_required("spec.names.kind"));
  std::string name = crd["metadata"].value("name", std::string());
  if (!plural.empty() && !group.empty() && name != plural + "." + group) {
    out.push_back(
        field_invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
  }
  std::string scope = text_of(spec, "scope");
  if (scope != "Cluster" && scope != "Namespaced") {
    if (scope.empty()) {
      out.push_back(field_required("spec.scope"));
    } else {
      out.push_back(field_not_supported("spec.scope", scope, {"Cluster", "Namespaced"}));
    }
  }
  const Json versions = spec.value("versions", Json());
  if (!versions.is_array() || versions.empty()) {
    out.push_back(field_required("spec.versions"));
  } else {
    int storage = 0;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < versions.size(); ++i) {
      const Json& v = versions[i];
      std::string at = "spec.versions[" + std::to_string(i) + "]";
      if (!v.is_object()) continue;
      if (v.value("storage", false)) ++storage;
      std::string vname = text_of(v, "name");
      if (auto e = kinds::check_dns_label(vname))
        out.push_back(field_invalid(at + ".name", vname, *e));
      if (!seen.insert(vname).second) {
        out.push_back(
            {"FieldValueDuplicate", "Duplicate value: " + render_value(vname), at + ".name"});
      }
      Json schema = Json();
      if (v.contains("schema") && v["schema"].is_object()) {
        schema = v["schema"].value("openAPIV3Schema", Json());
      }
      if (schema.is_null()) {
        out.push_back(field_required(at + ".schema.openAPIV3Schema", "schemas are required"));
      } else {
        auto structural = schema::check_structural(schema, at + ".schema.openAPIV3Schema");
        for (const schema::FieldError& e : structural) {
          out.push_back({e.reason, e.message, e.field});
        }
        bool checked_before = i > 0 && schema_path(versions, i) == schema_path(versions, 0);
        if (structural.empty() && !checked_before) {
          std::vector<std::string> rule_warnings;
          for (const schema::FieldError& e :
               schema::check_validation_rules(schema, schema_path(versions, i), rule_warnings)) {
            out.push_back({e.reason, e.message, e.field});
          }
          for (const std::string& w : rule_warnings) {
            std::cerr << "respool-sandbox: CustomResourceDefinition "
                      << crd["metadata"].value("name", std::string()) << ": " << w << "\n";
            if (warnings) warnings->push_back(w);
          }
        }
      }
    }
    if (storage != 1) {
      out.push_back(field_invalid("spec.versions", versions,
                                  "must have exactly one version marked as storage version"));
    }
  }
  if (old) {
    const Json old_spec = old->value("spec", Json::object());
    if (text_of(old_spec, "scope") != scope) {
      out.push_back(field_invalid("spec.scope", scope, "field is immutable"));
    }
    if (text_of(old_spec, "group") != group) {
      out.push_back(field_invalid("spec.group", group, "field is immutable"));
    }
  }
  return out;
}

std::vector<Cause> custom_resource_validate(const ResourceType& type, const Json& obj,
                                            const Json* old, std::vector<std::string>& warnings) {
  std::vector<Cause> causes = kinds::validate(type, obj, old);
  if (type.schema.is_null()) return causes;
  std::vector<schema::FieldError> prior;
  for (const Cause& c : causes)
    prior.push_back({c.reason, c.field, c.message});
  for (const schema::FieldError& e : schema::validate(obj, type.schema)) {
    causes.push_back({e.reason, e.message, e.field});
    prior.push_back(e);
  }
  for (const schema::FieldError& e :
       schema::validate_rules(obj, old, type.schema, prior, warnings)) {
    causes.push_back({e.reason, e.message, e.field});
  }
  return causes;
}

std::vector<ResourceType> crd_types(const Json& crd) {
  std::vector<ResourceType> out;
  const Json spec = crd.value("spec", Json::object());
  const Json names = spec.value("names", Json::object());
  std::string storage = storage_version(spec);
  if (!spec.contains("versions") || !spec["versions"].is_array()) return out;
  for (const Json& v : spec["versions"]) {
    if (!v.is_object() || !v.value("served", false)) continue;
    ResourceType t;
    t.id = KindId::Custom;
    t.group = text_of(spec, "group");
    t.version = text_of(v, "name");
    t.plural = text_of(names, "plural");
    t.singular = text_of(names, "singular");
    t.kind = text_of(names, "kind");
    t.list_kind = text_of(names, "listKind");
    t.namespaced = text_of(spec, "scope") == "Namespaced";
    t.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    t.short_names = strings(names, "shortNames");
    t.categories = strings(names, "categories");
    t.storage_version_hash = storage_version_hash(t.group, storage, t.kind);
    t.storage = crd.value("metadata", Json::object()).value("name", std::string());
    t.crd_name = t.storage;
    t.tracks_generation = true;
    t.returns_deleted_object = false;  // DELETE answers a Status (the object while held)
    if (v.contains("schema") && v["schema"].is_object()) {
      t.schema = v["schema"].value("openAPIV3Schema", Json());
    }
    const Json sub = v.value("subresources", Json::object());
    if (sub.is_object() && sub.contains("status")) {
      t.status_subresource = true;
      t.subresources.push_back({"status", "", "", "", {"get", "patch", "update"}});
    }
    if (sub.is_object() && sub.contains("scale") && sub["scale"].is_object()) {
      const Json& s = sub["scale"];
      t.scale = ScalePaths{text_of(s, "specReplicasPath"), text_of(s, "statusReplicasPath"),
                           text_of(s, "labelSelectorPath")};
      t.subresources.push_back({"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}});
    }
    if (v.contains("additionalPrinterColumns") && v["additionalPrinterColumns"].is_array()) {
      for (const Json& c : v["additionalPrinterColumns"]) {
        if (!c.is_object()) continue;
        PrinterColumn col;
        col.name = text_of(c, "name");
        col.type = text_of(c, "type");
        col.format = text_of(c, "format");
        col.description = text_of(c, "description");
        col.json_path = text_of(c, "jsonPath");
        col.priority = c.value("priority", 0);
        if (col.description.empty()) {
          col.description =
              "Custom resource definition column (in JSONPath format): " + col.json_path;
        }
        t.printer_columns.push_back(std::move(col));
      }
    } else {
      t.printer_columns.push_back(
          {"Age", "date", "",
           "Custom resource definition column (in JSONPath format): .metadata.creationTimestamp",
           ".metadata.creationTimestamp", 0});
    }
    if (v.contains("selectableFields") && v["selectableFields"].is_array()) {
      for (const Json& f : v["selectableFields"])
        t.selectable_fields.push_back(text_of(f, "jsonPath"));
    }
    out.push_back(std::move(t));
  }
  return out;
}

Json crd_status(const Json& crd, const std::vector<const Json*>& others, const std::string& now) {
  const Json spec = crd.value("spec", Json::object());
  const Json names = spec.value("names", Json::object());
  Json status = crd.value("status", Json::object());
  if (!status.is_object()) status = Json::object();
  std::string reason, message;
  for (const Json* other : others) {
    const Json accepted =
        other->value("status", Json::object()).value("acceptedNames", Json::object());
    auto clash = [&](const char* field, const char* why) {
      std::string mine = text_of(names, field);
      if (!mine.empty() && reason.empty() && mine == text_of(accepted, field)) {
        reason = why;
        message = "\"" + mine + "\" is already in use";
      }
    };
    clash("plural", "PluralConflict");
    clash("singular", "SingularConflict");
    clash("kind", "KindConflict");
    clash("listKind", "ListKindConflict");
  }
  bool accepted = reason.empty();
  const Json old_conditions = status.value("conditions", Json());
  auto condition = [&](const std::string& type, bool ok, const std::string& why,
                       const std::string& text) {
    Json c = {{"type", type},
              {"status", ok ? "True" : "False"},
              {"lastTransitionTime", now},
              {"reason", why},
              {"message", text}};
    if (old_conditions.is_array()) {
      for (const Json& o : old_conditions) {
        if (o.is_object() && o.value("type", std::string()) == type &&
            Json(o.value("status", std::string())) == c["status"]) {
          c["lastTransitionTime"] = o.value("lastTransitionTime", now);
        }
      }
    }
    return c;
  };
  Json conditions = Json::array();
  conditions.push_back(accepted
                           ? condition("NamesAccepted", true, "NoConflicts", "no conflicts found")
                           : condition("NamesAccepted", false, reason, message));
  conditions.push_back(
      accepted ? condition("Established", true, "InitialNamesAccepted",
                           "the initial names have been accepted")
               : condition("Established", false, "NotAccepted", "not all names are accepted"));
  if (has_deletion_timestamp(crd)) {
    conditions.push_back(condition("Terminating", true, "InstanceDeletionInProgress",
                                   "CustomResource deletion is in progress"));
  }
  status["conditions"] = conditions;
  if (accepted) status["acceptedNames"] = names;
  std::string storage = storage_version(spec);
  Json stored = status.value("storedVersions", Json::array());
  if (!stored.is_array()) stored = Json::array();
  if (!storage.empty() && std::find(stored.begin(), stored.end(), Json(storage)) == stored.end()) {
    stored.push_back(storage);
  }
  status["storedVersions"] = stored;
  return status;
}

void Engine::crd_changed(const Json& crd) {
  std::string name = object_name(crd);
  TypePtr crds = registry_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  std::string group = crd.value("spec", Json::object()).value("group", std::string());
  std::vector<const Json*> others;
  std::vector<std::shared_ptr<const Json>> keep;
  if (auto coll = store_.find(crds->storage)) {
    for (const auto& [key, stored] : coll->items) {
      if (key == name) continue;
      if (stored.obj()->value("spec", Json::object()).value("group", std::string()) != group) {
        continue;
      }
      keep.push_back(stored.obj());
      others.push_back(keep.back().get());
    }
  }
  Json status = crd_status(crd, others, apimachinery::format_time(clock_.now()));
  if (status != crd.value("status", Json())) {
    Json updated = crd;
    updated["status"] = status;
    commit_put(*crds, name, std::move(updated));
    return;  // the write above comes back here with the settled status
  }
  bool established = false;
  for (const Json& c : status["conditions"]) {
    if (c["type"] == "Established" && c["status"] == "True") established = true;
  }
  if (!established) {
    registry_.remove_custom(name);
    return;
  }
  registry_.set_custom(name, crd_types(crd));
  if (has_deletion_timestamp(crd)) registry_.mark_terminating(name);
}

void Engine::maybe_finalize_crd(const std::string& crd_name) {
  auto coll = store_.find(crd_name);
  if (coll && !coll->items.empty()) return;
  TypePtr crds = registry_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  remove_finalizer(*crds, crd_name, kCrdCleanupFinalizer);
}

}  // namespace respool::sandbox
