// ValidateDefaults (apiextensions-apiserver's pkg/apiserver/schema/defaulting/validation.go):
// a default must survive pruning unchanged and validate against the schema it sits in.

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/openapi.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

namespace {

// `inside_meta` is true under apiVersion, kind and metadata of a resource, where the server
// checks defaults as ObjectMeta instead; those are refused elsewhere at the top level, and
// not checked here.
void check(const Json& node, bool resource_root, bool inside_meta, const std::string& path,
           Errors& out) {
  if (!node.is_object()) return;
  const bool resource = resource_root || embedded(node);
  if (resource) inside_meta = false;
  if (const Json* fallback = default_of(node); fallback && !inside_meta) {
    Json pruned = *fallback;
    prune_value(pruned, node, resource);
    if (pruned != *fallback) {
      out.push_back(invalid(child(path, "default"), *fallback, "must not have unknown fields"));
    }
    Errors errors = to_field_errors(child(path, "default"), validate_node(*fallback, node, ""));
    out.insert(out.end(), errors.begin(), errors.end());
  }
  if (const Json* items = items_of(node))
    check(*items, false, inside_meta, child(path, "items"), out);
  if (const Json* properties = properties_of(node)) {
    for (const auto& [name, sub] : properties->items()) {
      check(sub, false, inside_meta || (resource && is_meta_field(name)),
            key(child(path, "properties"), name), out);
    }
  }
}

}  // namespace

Errors default_errors(const Json& schema, const std::string& path) {
  Errors out;
  check(schema, true, false, path, out);
  return out;
}

}  // namespace respool::sandbox::schema::detail
