// apiextensions-apiserver's pkg/apiserver/schema/pruning (PruneWithOptions with unknown field
// paths), and the part of objectmeta.Coerce that drops unknown fields of embedded metadata.

#include <algorithm>

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/schema.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema {

namespace {

using detail::Additional;

// The fields of metav1.ObjectMeta: an embedded resource's metadata keeps only these.
bool is_object_meta_field(const std::string& name) {
  static const char* const fields[] = {"name",
                                       "generateName",
                                       "namespace",
                                       "selfLink",
                                       "uid",
                                       "resourceVersion",
                                       "generation",
                                       "creationTimestamp",
                                       "deletionTimestamp",
                                       "deletionGracePeriodSeconds",
                                       "labels",
                                       "annotations",
                                       "ownerReferences",
                                       "finalizers",
                                       "managedFields"};
  return std::any_of(std::begin(fields), std::end(fields),
                     [&](const char* field) { return name == field; });
}

class Pruner {
 public:
  std::vector<std::string> unknown;

  // `schema` is nullptr where the schema says nothing (additionalProperties: true or false,
  // items missing): objects there lose all their fields.
  void prune(Json& value, const Json* schema, bool resource_root, const std::string& path) {
    if (schema && detail::preserves_unknown(*schema)) {
      skip_prune(value, schema, resource_root, path);
      return;
    }
    if (value.is_object()) {
      if (!schema) {
        for (const auto& [name, _] : value.items())
          record(path, name);
        value = Json::object();
        return;
      }
      const bool embedded = resource_root || detail::embedded(*schema);
      const Additional additional = detail::additional_of(*schema);
      for (auto it = value.begin(); it != value.end();) {
        const std::string name = it.key();
        if (embedded && detail::is_meta_field(name)) {
          ++it;
        } else if (const Json* property = detail::property(*schema, name)) {
          prune(*it, property, false, append_key(path, name));
          ++it;
        } else if (additional.present) {
          prune(*it, additional.schema, false, append_key(path, name));
          ++it;
        } else {
          if (!detail::is_meta_field(name) || !path.empty()) record(path, name);
          it = value.erase(it);
        }
      }
      if (embedded && !resource_root) coerce_metadata(value, path);
    } else if (value.is_array()) {
      const Json* items = schema ? detail::items_of(*schema) : nullptr;
      for (std::size_t i = 0; i < value.size(); ++i) {
        prune(value[i], items, false, path + "[" + std::to_string(i) + "]");
      }
    }
  }

 private:
  // Under x-kubernetes-preserve-unknown-fields unknown fields stay; known ones are pruned.
  void skip_prune(Json& value, const Json* schema, bool resource_root, const std::string& path) {
    if (!schema) return;
    if (value.is_object()) {
      const bool embedded = resource_root || detail::embedded(*schema);
      const Additional additional = detail::additional_of(*schema);
      for (auto& [name, item] : value.items()) {
        if (embedded && detail::is_meta_field(name)) continue;
        if (const Json* property = detail::property(*schema, name)) {
          prune(item, property, false, append_key(path, name));
        } else if (additional.present) {
          prune(item, additional.schema, false, append_key(path, name));
        }
      }
      if (embedded && !resource_root) coerce_metadata(value, path);
    } else if (value.is_array()) {
      const Json* items = detail::items_of(*schema);
      for (std::size_t i = 0; i < value.size(); ++i) {
        skip_prune(value[i], items, false, path + "[" + std::to_string(i) + "]");
      }
    }
  }

  // An embedded resource's metadata is decoded into an ObjectMeta and written back.
  void coerce_metadata(Json& resource, const std::string& path) {
    auto it = resource.find("metadata");
    if (it == resource.end() || !it->is_object()) return;
    const std::string metadata_path = append_key(path, "metadata");
    for (auto field = it->begin(); field != it->end();) {
      if (is_object_meta_field(field.key())) {
        ++field;
      } else {
        record(metadata_path, field.key());
        field = it->erase(field);
      }
    }
  }

  static std::string append_key(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }

  void record(const std::string& path, const std::string& name) {
    unknown.push_back(append_key(path, name));
  }
};

}  // namespace

namespace detail {

void prune_value(Json& value, const Json& schema, bool resource_root) {
  Pruner pruner;
  pruner.prune(value, &schema, resource_root, "");
}

}  // namespace detail

std::vector<std::string> prune(Json& object, const Json& schema) {
  Pruner pruner;
  pruner.prune(object, &schema, true, "");
  std::sort(pruner.unknown.begin(), pruner.unknown.end());
  return pruner.unknown;
}

}  // namespace respool::sandbox::schema
