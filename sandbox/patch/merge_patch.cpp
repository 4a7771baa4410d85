// RFC 7386 JSON merge patch.

#include "sandbox/patch/go_format.hpp"
#include "sandbox/patch/patch.hpp"

namespace respool::sandbox::patch {

Json apply_merge_patch(const Json& target, const Json& patch) {
  if (!patch.is_object()) return patch;
  Json result = target.is_object() ? target : Json::object();
  for (const auto& [name, value] : patch.items()) {
    if (value.is_null()) {
      result.erase(name);
      continue;
    }
    const auto it = result.find(name);
    result[name] = apply_merge_patch(it == result.end() ? Json() : *it, value);
  }
  return result;
}

std::expected<Json, PatchError> merge_patch(const Json& target, const Json& patch) {
  if (patch.is_null()) return std::unexpected(PatchError{400, "Invalid JSON Patch", {}});
  if (!patch.is_object()) {
    return std::unexpected(PatchError{
        400, "error decoding patch: " + go_unmarshal_error(patch, "map[string]interface {}"), {}});
  }
  return apply_merge_patch(target, patch);
}

}  // namespace respool::sandbox::patch
