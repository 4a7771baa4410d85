// Strategic merge patch over objects: mergeMap of k8s.io/apimachinery/pkg/util/strategicpatch
// as the API server runs it (MergeParallelList, IgnoreUnmatchedNulls).

#include <algorithm>
#include <vector>

#include "sandbox/patch/go_format.hpp"
#include "sandbox/patch/strategic_merge.hpp"

namespace respool::sandbox::patch {
namespace smp {
namespace {

constexpr std::string_view kRejected =
    "the server rejected our request due to an error in our request";

// "$setElementOrder/containers" → "containers"; the prefix must be followed by "/".
std::optional<std::string> directive_field(std::string_view key, std::string_view prefix) {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) return std::nullopt;
  return std::string(key.substr(slash + 1));
}

std::unexpected<PatchError> not_a_list(const Json& value) {
  return internal_error("expected a []interface {}, but received a " +
                        std::string(go_type_name(value)));
}

// $retainKeys: keys of the original not listed are cleared; the patch may set no other key.
Result<void> apply_retain_keys(Json& original, Json& patch) {
  const auto directive = patch.find(kRetainKeys);
  if (directive == patch.end()) return {};
  if (!directive->is_array()) return bad_request("invalid patch format of retainKeys");
  const Json keep = *directive;
  patch.erase(directive);
  const auto kept = [&keep](std::string_view key) {
    return std::ranges::any_of(keep, [key](const Json& k) { return k.is_string() && k == key; });
  };
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null() || key.starts_with(kDeleteFromPrimitiveList) ||
        key.starts_with(kSetElementOrder)) {
      continue;
    }
    if (!kept(key)) return bad_request("invalid patch format of retainKeys");
  }
  for (auto it = original.begin(); it != original.end();) {
    it = kept(it.key()) ? std::next(it) : original.erase(it);
  }
  return {};
}

// $setElementOrder/<field>: merges the field's patch list (if any) and orders the result.
// The merged field leaves the patch, as in mergePatchIntoOriginal.
Result<void> apply_element_orders(Json& original, Json& patch, const PatchType* type) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : patch.items()) {
    if (key.starts_with(kSetElementOrder)) keys.push_back(key);
  }
  for (const std::string& key : keys) {
    const Json order = patch[key];
    patch.erase(key);
    if (!order.is_array()) return not_a_list(order);
    const auto name = directive_field(key, kSetElementOrder);
    if (!name) return bad_request("invalid patch format of setElementOrder list");
    const auto in_original = original.find(*name);
    const auto in_patch = patch.find(*name);
    const bool found_original = in_original != original.end() && !in_original->is_null();
    const bool found_patch = in_patch != patch.end();
    if (found_original && !in_original->is_array()) return not_a_list(*in_original);
    if (found_patch && !in_patch->is_array()) return not_a_list(*in_patch);
    const Json original_list = found_original ? *in_original : Json::array();
    const Json patch_list = found_patch ? *in_patch : Json::array();
    const PatchField field = field_of(type, *name);
    if (auto checked = check_element_order(patch_list, order, field.merge_key); !checked) {
      return std::unexpected(checked.error());
    }
    if (!found_original && !found_patch) continue;

    Json merged = original_list;
    if (found_patch && found_original && field.merges()) {
      auto result = merge_list(original_list, patch_list, field);
      if (!result) return std::unexpected(result.error());
      merged = std::move(*result);
    } else if (found_patch) {
      auto result = fresh_value(patch_list, field);
      if (!result) return std::unexpected(result.error());
      merged = std::move(**result);  // a list always stays
    }
    auto ordered = apply_element_order(original_list, patch_list, merged, order, field);
    if (!ordered) return std::unexpected(ordered.error());
    original[*name] = std::move(*ordered);
    patch.erase(*name);
  }
  return {};
}

// Sets original[name] to the patch value applied to nothing (or removes it).
Result<void> set_fresh(Json& original, const std::string& name, const Json& value,
                       const PatchField& field) {
  auto fresh = fresh_value(value, field);
  if (!fresh) return std::unexpected(fresh.error());
  if (*fresh) {
    original[name] = std::move(**fresh);
  } else {
    original.erase(name);
  }
  return {};
}

Result<void> merge_member(Json& original, const std::string& key, const Json& value,
                          const PatchType* type) {
  std::string name = key;
  bool delete_list = false;
  if (key.starts_with(kDeleteFromPrimitiveList)) {
    auto field = directive_field(key, kDeleteFromPrimitiveList);
    if (!field) return bad_request("invalid patch format of primitive list");
    name = std::move(*field);
    delete_list = true;
  }
  if (value.is_null()) {
    original.erase(name);
    return {};
  }
  const PatchField field = field_of(type, name);
  const auto it = original.find(name);
  if (it == original.end() || it->is_null()) {
    if (delete_list) return {};
    return set_fresh(original, name, value, field);
  }
  if (delete_list) {
    if (!value.is_array() || !it->is_array()) {
      return bad_request("invalid patch format of primitive list");
    }
    *it = delete_from_list(*it, value);
    return {};
  }
  if (it->is_object() && value.is_object() && !field.replaces()) {
    auto merged = merge_object(*it, value, field.type);
    if (!merged) return std::unexpected(merged.error());
    *it = std::move(*merged);
    return {};
  }
  if (it->is_array() && value.is_array() && field.merges()) {
    auto merged = merge_list(*it, value, field);
    if (!merged) return std::unexpected(merged.error());
    *it = std::move(*merged);
    return {};
  }
  return set_fresh(original, name, value, field);
}

}  // namespace

std::unexpected<PatchError> bad_request(std::string message) {
  return std::unexpected(PatchError{400, std::move(message), {}});
}

std::unexpected<PatchError> unprocessable(std::string detail) {
  return std::unexpected(PatchError{422, std::string(kRejected), std::move(detail)});
}

std::unexpected<PatchError> internal_error(std::string message) {
  return std::unexpected(PatchError{500, std::move(message), {}});
}

PatchField field_of(const PatchType* type, std::string_view name) {
  return type ? type->field(name) : PatchField{};
}

Result<Json> merge_object(Json original, const Json& patch_in, const PatchType* type) {
  if (const auto directive = patch_in.find(kDirective); directive != patch_in.end()) {
    if (*directive == "replace") {
      Json rest = patch_in;
      rest.erase(kDirective);
      return merge_object(Json::object(), rest, type);
    }
    if (*directive == "delete") return Json::object();
    return internal_error("unknown patch type: " + go_value(*directive) +
                          " in map: " + go_value(patch_in));
  }
  if (!original.is_object()) original = Json::object();
  Json patch = patch_in;
  if (auto retained = apply_retain_keys(original, patch); !retained) {
    return std::unexpected(retained.error());
  }
  if (auto ordered = apply_element_orders(original, patch, type); !ordered) {
    return std::unexpected(ordered.error());
  }
  // Keys sort "$deleteFromPrimitiveList/f" before "f": deletions apply before additions.
  for (const auto& [key, value] : patch.items()) {
    if (auto merged = merge_member(original, key, value, type); !merged) {
      return std::unexpected(merged.error());
    }
  }
  return original;
}

Result<std::optional<Json>> fresh_value(const Json& patch, const PatchField& field) {
  if (patch.is_object()) {
    if (const auto d = patch.find(kDirective); d != patch.end() && *d == "delete") {
      return std::optional<Json>();
    }
    auto merged = merge_object(Json::object(), patch, field.type);
    if (!merged) return std::unexpected(merged.error());
    return std::optional<Json>(std::move(*merged));
  }
  if (patch.is_array()) {
    Json items = Json::array();
    for (const Json& item : patch) {
      // A list item's directive acts on a list that is not there.
      if (item.is_object() && item.contains(kDirective)) continue;
      auto fresh = fresh_value(item, PatchField{"", "", field.type});
      if (!fresh) return std::unexpected(fresh.error());
      if (*fresh) items.push_back(std::move(**fresh));
    }
    return std::optional<Json>(std::move(items));
  }
  return std::optional<Json>(patch);
}

}  // namespace smp

std::expected<Json, PatchError> strategic_merge_patch(const Json& target, const Json& patch,
                                                      std::string_view kind) {
  if (patch.is_null()) return target;
  if (!patch.is_object()) {
    return smp::bad_request(go_unmarshal_error(patch, "map[string]interface {}"));
  }
  return smp::merge_object(target, patch, patch_type_for_kind(kind));
}

}  // namespace respool::sandbox::patch
