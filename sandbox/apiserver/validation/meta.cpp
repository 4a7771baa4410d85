// ObjectMeta as kube-apiserver v1.32 validates it (apimachinery's ValidateObjectMetaAccessor and
// ValidateObjectMetaAccessorUpdate, with pkg/apis/core/validation's finalizer-name check for the
// built-in kinds): generateName, labels, annotations, owner references, finalizers, and the
// fields an update may not change. Also the label and selector rules templates share.

#include <cctype>

#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {
namespace {

// %#v of a []string.
std::string meta_go_strings(const Json& list) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < list.size(); ++i) {
    out += (i ? ", " : "") + render_value(list[i].is_string() ? list[i] : Json(""));
  }
  return out + "}";
}

std::string go_bool_pointer(const Json& v) {
  return v.is_boolean() ? "(*bool)(0xc000000000)" : "(*bool)(nil)";
}

// %#v of a metav1.OwnerReference.
std::string go_owner_reference(const Json& ref) {
  return "v1.OwnerReference{APIVersion:" + render_value(text_of(ref, "apiVersion")) +
         ", Kind:" + render_value(text_of(ref, "kind")) +
         ", Name:" + render_value(text_of(ref, "name")) +
         ", UID:" + render_value(text_of(ref, "uid")) +
         ", Controller:" + go_bool_pointer(member_or_null(ref, "controller")) +
         ", BlockOwnerDeletion:" + go_bool_pointer(member_or_null(ref, "blockOwnerDeletion")) + "}";
}

// schema.ParseGroupVersion's version: "" for "", "a/b/c" or "/v1"-like malformed values.
std::string version_of(const std::string& api_version) {
  if (api_version.empty()) return "";
  auto slash = api_version.find('/');
  if (slash == std::string::npos) return api_version;
  if (api_version.find('/', slash + 1) != std::string::npos) return "";
  return api_version.substr(slash + 1);
}

// ValidateOwnerReferences: each reference's fields, banned owners, one controller at most.
void owner_reference_rules(const Json& refs, std::vector<Cause>& out) {
  if (!refs.is_array()) return;
  const std::string at = "metadata.ownerReferences";
  std::string first_controller;
  for (const Json& ref : refs) {
    const std::string api_version = text_of(ref, "apiVersion");
    const std::string kind = text_of(ref, "kind");
    const std::string version = version_of(api_version);
    if (version.empty()) {
      out.push_back(field_invalid(at + ".apiVersion", api_version, "version must not be empty"));
    }
    if (kind.empty()) out.push_back(field_invalid(at + ".kind", kind, "kind must not be empty"));
    if (text_of(ref, "name").empty()) {
      out.push_back(field_invalid(at + ".name", "", "name must not be empty"));
    }
    if (text_of(ref, "uid").empty()) {
      out.push_back(field_invalid(at + ".uid", "", "uid must not be empty"));
    }
    if (api_version == "v1" && kind == "Event") {
      out.push_back(field_invalid_raw(at, go_owner_reference(ref),
                                      "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (member_or_null(ref, "controller") == true) {
      const std::string current = kind + "/" + text_of(ref, "name");
      if (first_controller.empty()) {
        first_controller = current;
      } else {
        std::string shown = "[]v1.OwnerReference{";
        for (std::size_t i = 0; i < refs.size(); ++i)
          shown += (i ? ", " : "") + go_owner_reference(refs[i]);
        out.push_back(field_invalid_raw(
            at, shown + "}",
            "Only one reference can have Controller set to true. Found \"true\" in references "
            "for " +
                first_controller + " and " + current));
      }
    }
  }
}

// ValidateFinalizers (on create): qualified names, and not both orphan and foregroundDeletion.
void finalizer_rules(const Json& finalizers, std::vector<Cause>& out) {
  if (!finalizers.is_array()) return;
  bool orphan = false, foreground = false;
  for (const Json& f : finalizers) {
    const std::string name = f.is_string() ? f.get<std::string>() : "";
    for (const std::string& msg : check_qualified_name(name))
      out.push_back(field_invalid("metadata.finalizers", name, msg));
    orphan = orphan || name == "orphan";
    foreground = foreground || name == "foregroundDeletion";
  }
  if (orphan && foreground) {
    out.push_back(field_invalid_raw("metadata.finalizers", meta_go_strings(finalizers),
                                    "finalizer orphan and foregroundDeletion cannot be both set"));
  }
}

// validateKubeFinalizerName (pkg/apis/core/validation), on create and update of built-in kinds.
void kube_finalizer_rules(const Json& finalizers, std::vector<Cause>& out) {
  if (!finalizers.is_array()) return;
  for (std::size_t i = 0; i < finalizers.size(); ++i) {
    const std::string name = finalizers[i].is_string() ? finalizers[i].get<std::string>() : "";
    if (name.find('/') != std::string::npos) continue;
    if (name == "kubernetes" || name == "orphan" || name == "foregroundDeletion") continue;
    out.push_back(field_invalid("metadata.finalizers[" + std::to_string(i) + "]", name,
                                "name is neither a standard finalizer name nor is it fully "
                                "qualified"));
  }
}

// ValidateNoNewFinalizers, while the object is being deleted.
void no_new_finalizer_rule(const Json& now, const Json& before, std::vector<Cause>& out) {
  std::vector<std::string> added;
  if (now.is_array()) {
    for (const Json& f : now) {
      if (!f.is_string()) continue;
      bool had = before.is_array() && std::find(before.begin(), before.end(), f) != before.end();
      if (!had && std::find(added.begin(), added.end(), f.get<std::string>()) == added.end())
        added.push_back(f.get<std::string>());
    }
  }
  if (added.empty()) return;
  std::sort(added.begin(), added.end());
  out.push_back(field_forbidden("metadata.finalizers",
                                "no new finalizers can be added if the object is being deleted, "
                                "found new finalizers " +
                                    meta_go_strings(Json(added))));
}

// The name rule with a generateName's trailing '-' allowed (maskTrailingDash).
std::optional<std::string> generate_name_rule(std::string prefix, NameRule rule) {
  if (prefix.size() > 1 && prefix.back() == '-') prefix.back() = 'a';
  return name_rule_message(prefix, rule);
}

// %#v-free rendering of a time or a number as field.Invalid prints them (metav1.Time via its
// String(), an int64 with %v), "null" when unset.
std::string shown_meta_value(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return go_time_string(v.get<std::string>());
  return v.dump();
}

}  // namespace

void label_map_rules(const Json& labels, const std::string& at, std::vector<Cause>& out) {
  if (!labels.is_object()) return;
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    for (const std::string& e : check_qualified_name(it.key()))
      out.push_back(field_invalid(at, it.key(), e));
    std::string value = it.value().is_string() ? it.value().get<std::string>() : "";
    for (const std::string& e : check_label_value(value))
      out.push_back(field_invalid(at, value, e));
  }
}

void annotation_map_rules(const Json& annotations, const std::string& at, std::vector<Cause>& out) {
  if (!annotations.is_object()) return;
  std::size_t total = 0;
  for (auto it = annotations.begin(); it != annotations.end(); ++it) {
    // A qualified name whatever the case (ValidateAnnotations lowercases the key first).
    std::string lower = it.key();
    for (char& ch : lower)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const std::string& e : check_qualified_name(lower))
      out.push_back(field_invalid(at, it.key(), e));
    total += it.key().size() + (it.value().is_string() ? it.value().get<std::string>().size() : 0);
  }
  if (total > 256 * 1024) {
    out.push_back({"FieldValueTooLong", "Too long: may not be more than 262144 bytes", at});
  }
}

bool label_selector_rules(const Json& selector, const std::string& at, std::vector<Cause>& out) {
  if (!selector.is_object()) return true;
  const std::size_t before = out.size();
  label_map_rules(member_or_null(selector, "matchLabels"), at + ".matchLabels", out);
  const Json& exprs = member_or_null(selector, "matchExpressions");
  for (std::size_t i = 0; exprs.is_array() && i < exprs.size(); ++i) {
    const Json& e = exprs[i];
    const std::string path = at + ".matchExpressions[" + std::to_string(i) + "]";
    const std::string op = text_of(e, "operator");
    const Json& values = member_or_null(e, "values");
    const bool has_values = values.is_array() && !values.empty();
    if (op == "In" || op == "NotIn") {
      if (!has_values) {
        out.push_back(field_required(path + ".values",
                                     "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (has_values) {
        out.push_back(
            field_forbidden(path + ".values",
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      out.push_back(field_invalid(path + ".operator", op, "not a valid selector operator"));
    }
    const std::string key = text_of(e, "key");
    for (const std::string& msg : check_qualified_name(key))
      out.push_back(field_invalid(path + ".key", key, msg));
    for (std::size_t j = 0; has_values && j < values.size(); ++j) {
      const std::string value = values[j].is_string() ? values[j].get<std::string>() : "";
      for (const std::string& msg : check_label_value(value)) {
        out.push_back(field_invalid(path + ".values[" + std::to_string(j) + "]", value, msg));
      }
    }
  }
  return out.size() == before;
}

void pod_template_rules(const Json& tmpl, const std::string& at, std::vector<Cause>& out) {
  const Json& meta = member_or_null(tmpl, "metadata");
  label_map_rules(member_or_null(meta, "labels"), at + ".labels", out);
  annotation_map_rules(member_or_null(meta, "annotations"), at + ".annotations", out);
  validate_pod_spec(member_or_null(tmpl, "spec"), at + ".spec", out);
  const Json& ephemeral = member_or_null(member_or_null(tmpl, "spec"), "ephemeralContainers");
  if (ephemeral.is_array() && !ephemeral.empty()) {
    out.push_back(field_forbidden(at + ".spec.ephemeralContainers",
                                  "ephemeral containers not allowed in pod template"));
  }
}

void validate_metadata(const ResourceType& type, const Json& obj, const Json* old,
                       std::vector<Cause>& out) {
  const Json& meta = member_or_null(obj, "metadata");
  const Json& old_meta = old ? member_or_null(*old, "metadata") : member_or_null(Json(), "");
  if (old && has_deletion_timestamp(*old)) {
    no_new_finalizer_rule(member_or_null(meta, "finalizers"),
                          member_or_null(old_meta, "finalizers"), out);
  }
  if (!old) {
    const std::string generate = text_of(meta, "generateName");
    if (!generate.empty()) {
      if (auto bad = generate_name_rule(generate, type.name_rule))
        out.push_back(field_invalid("metadata.generateName", generate, *bad));
    }
    const std::string name = text_of(meta, "name");
    if (name.empty()) {
      out.push_back(field_required("metadata.name", "name or generateName is required"));
    } else if (auto bad = name_rule_message(name, type.name_rule)) {
      out.push_back(field_invalid("metadata.name", name, *bad));
    }
  } else {
    // BeforeUpdate keeps the stored deletionTimestamp and grace period when the object has
    // them; setting or changing them otherwise is refused here.
    for (const char* key : {"deletionTimestamp", "deletionGracePeriodSeconds"}) {
      const Json& now = member_or_null(meta, key);
      if (now != member_or_null(old_meta, key)) {
        out.push_back(field_invalid_raw(std::string("metadata.") + key, shown_meta_value(now),
                                        "field is immutable"));
      }
    }
  }
  label_map_rules(member_or_null(meta, "labels"), "metadata.labels", out);
  annotation_map_rules(member_or_null(meta, "annotations"), "metadata.annotations", out);
  owner_reference_rules(member_or_null(meta, "ownerReferences"), out);
  if (!old) finalizer_rules(member_or_null(meta, "finalizers"), out);
  // The in-tree kinds' validation adds the legacy finalizer-name check; custom resources, CRDs
  // and APIServices are validated by apimachinery's rules alone.
  if (!type.custom() && type.id != KindId::CustomResourceDefinition && type.kind != "APIService") {
    kube_finalizer_rules(member_or_null(meta, "finalizers"), out);
  }
}

}  // namespace respool::sandbox::kinds
