// Unknown fields of written objects: custom resources pruned by their structural schema (with
// its defaults applied), built-in kinds by their Go type (sandbox/protobuf/unknown_fields.hpp);
// fieldValidation decides what the client hears of them.

#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/protobuf/unknown_fields.hpp"
#include "sandbox/schema/schema.hpp"

namespace respool::sandbox {
namespace {

// Keys present in `before` and gone from `after`: what pruning dropped.
void pruned_paths(const Json& before, const Json& after, const std::string& prefix,
                  std::vector<std::string>& out) {
  if (before.is_object()) {
    for (auto it = before.begin(); it != before.end(); ++it) {
      std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
      if (prefix.empty() &&
          (it.key() == "metadata" || it.key() == "apiVersion" || it.key() == "kind")) {
        continue;
      }
      if (!after.is_object() || !after.contains(it.key())) {
        out.push_back(path);
      } else {
        pruned_paths(it.value(), after[it.key()], path, out);
      }
    }
  } else if (before.is_array() && after.is_array()) {
    for (std::size_t i = 0; i < before.size() && i < after.size(); ++i) {
      pruned_paths(before[i], after[i], prefix + "[" + std::to_string(i) + "]", out);
    }
  }
}

}  // namespace

std::optional<ApiError> Engine::apply_schema(const ResourceType& type, Json& obj,
                                             const WriteOptions& options,
                                             std::vector<std::string>& warnings) {
  if (!type.custom() || type.schema.is_null()) return std::nullopt;
  Json before = obj;
  schema::default_and_prune(obj, type.schema);
  std::vector<std::string> unknown;
  pruned_paths(before, obj, "", unknown);
  return unknown_fields_policy(type, unknown, options, warnings);
}

std::optional<ApiError> Engine::drop_unknown_fields(const ResourceType& type, Json& body,
                                                    const WriteOptions& options,
                                                    std::vector<std::string>& warnings) {
  if (type.custom()) return std::nullopt;  // their schema prunes them: apply_schema
  // Kinds outside k8s.io/api (CRDs, APIServices) keep theirs.
  const protobuf::MessageDef* go_type =
      protobuf::ApiTable::get().kind(type.group, type.version, type.kind);
  if (go_type == nullptr) return std::nullopt;
  auto unknown = protobuf::drop_unknown_fields(body, *go_type);
  return unknown_fields_policy(type, unknown, options, warnings);
}

std::optional<ApiError> Engine::unknown_fields_policy(const ResourceType& type,
                                                      const std::vector<std::string>& unknown,
                                                      const WriteOptions& options,
                                                      std::vector<std::string>& warnings) {
  if (unknown.empty()) return std::nullopt;
  if (options.field_validation == "Strict") {
    // The decode error's wording (transformDecodeError around a StrictDecodingError).
    std::string msg = type.kind + " in version \"" + type.version + "\" cannot be handled as a " +
                      type.kind + ": strict decoding error: ";
    for (std::size_t i = 0; i < unknown.size(); ++i) {
      if (i) msg += ", ";
      msg += "unknown field \"" + unknown[i] + "\"";
    }
    return bad_request(msg);
  }
  if (options.field_validation != "Ignore") {
    for (const std::string& f : unknown)
      warnings.push_back("unknown field \"" + f + "\"");
  }
  return std::nullopt;
}

}  // namespace respool::sandbox
