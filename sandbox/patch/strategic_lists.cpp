// Strategic merge patch over lists: mergeSlice, the $patch list items, $deleteFromPrimitiveList
// and the ordering rules (normalizeElementOrder, mergeSortedSlice) of
// k8s.io/apimachinery/pkg/util/strategicpatch. Order precedence: $setElementOrder, then the
// patch list, then the live list; an item only the patch knows goes before the live items it
// is compared with, as in apimachinery.

#include <algorithm>
#include <vector>

#include "sandbox/patch/go_format.hpp"
#include "sandbox/patch/strategic_merge.hpp"

namespace respool::sandbox::patch::smp {
namespace {

// reflect.Type of the decoded elements, as sliceElementType compares them.
enum class ElementKind { None, Null, Bool, Int, Float, String, Object, Array };

ElementKind kind_of(const Json& v) {
  if (v.is_object()) return ElementKind::Object;
  if (v.is_array()) return ElementKind::Array;
  if (v.is_string()) return ElementKind::String;
  if (v.is_boolean()) return ElementKind::Bool;
  if (v.is_number_float()) return ElementKind::Float;
  if (v.is_number()) return ElementKind::Int;
  return ElementKind::Null;
}

Result<ElementKind> element_kind(const Json& first, const Json& second) {
  ElementKind kind = ElementKind::None;
  for (const Json* list : {&first, &second}) {
    for (const Json& item : *list) {
      const ElementKind k = kind_of(item);
      if (kind == ElementKind::None) {
        if (k == ElementKind::Array) return unprocessable("lists of lists are not supported");
        kind = k;
      } else if (k != kind) {
        return internal_error("list element types are not identical: [" + go_value(first) + " " +
                              go_value(second) + "]");
      }
    }
  }
  return kind;
}

std::string no_merge_key(const Json& item, std::string_view merge_key) {
  return "map: " + go_value(item) +
         " does not contain declared merge key: " + std::string(merge_key);
}

// What index() compares: the merge key's value for objects (null when absent), else the item.
const Json& identity(const Json& item, std::string_view merge_key) {
  static const Json kNull;
  if (merge_key.empty()) return item;
  if (!item.is_object()) return kNull;
  const auto it = item.find(merge_key);
  return it == item.end() ? kNull : *it;
}

std::optional<std::size_t> index_in(const Json& list, const Json& item,
                                    std::string_view merge_key) {
  const Json& wanted = identity(item, merge_key);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (identity(list[i], merge_key) == wanted) return i;
  }
  return std::nullopt;
}

Result<void> require_merge_keys(const std::vector<Json>& items, std::string_view merge_key) {
  for (const Json& item : items) {
    if (!item.is_object()) {
      return internal_error("expected a map[string]interface {}, but received a " +
                            std::string(go_type_name(item)));
    }
    if (!item.contains(merge_key)) return internal_error(no_merge_key(item, merge_key));
  }
  return {};
}

// Stable sort by position in `order`; items it lacks keep their place after those it has.
void sort_by(std::vector<Json>& items, const Json& order, std::string_view merge_key) {
  std::ranges::stable_sort(items, {}, [&](const Json& item) {
    return index_in(order, item, merge_key).value_or(order.size());
  });
}

// normalizeElementOrder: patch items in patch order, live-only items in live order, then
// interleaved by live order.
Result<Json> normalize_order(std::vector<Json> patch_items, std::vector<Json> server_only,
                             const Json& patch_order, const Json& server_order,
                             std::string_view merge_key) {
  if (!merge_key.empty()) {
    const std::vector<Json> orders(patch_order.begin(), patch_order.end());
    for (const std::vector<Json>* items :
         std::initializer_list<const std::vector<Json>*>{&patch_items, &server_only, &orders}) {
      if (auto ok = require_merge_keys(*items, merge_key); !ok) return std::unexpected(ok.error());
    }
  }
  sort_by(patch_items, patch_order, merge_key);
  sort_by(server_only, server_order, merge_key);
  Json out = Json::array();
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < server_only.size() || j < patch_items.size()) {
    bool take_server = j >= patch_items.size();
    if (!take_server && i < server_only.size()) {
      const auto left = index_in(server_order, server_only[i], merge_key);
      const auto right = index_in(server_order, patch_items[j], merge_key);
      take_server = left && right && *left < *right;
    }
    out.push_back(take_server ? std::move(server_only[i++]) : std::move(patch_items[j++]));
  }
  return out;
}

// Splits `merged` into the items `partition` names and the others, then orders them.
Result<Json> order_by(const Json& merged, const Json& partition, const Json& server_order,
                      std::string_view merge_key) {
  std::vector<Json> named;
  std::vector<Json> others;
  for (const Json& item : merged) {
    if (!merge_key.empty() && (!item.is_object() || !item.contains(merge_key))) {
      return internal_error(no_merge_key(item, merge_key));
    }
    (index_in(partition, item, merge_key) ? named : others).push_back(item);
  }
  return normalize_order(std::move(named), std::move(others), partition, server_order, merge_key);
}

Result<Json> merge_primitives(const Json& original, const Json& patch) {
  Json merged = Json::array();
  for (const Json* list : {&original, &patch}) {
    for (const Json& item : *list) {
      if (std::ranges::find(merged, item) == merged.end()) merged.push_back(item);
    }
  }
  return order_by(merged, patch, original, "");
}

Result<Json> merge_objects(Json original, const Json& patch, const PatchField& field) {
  const std::string_view key = field.merge_key;
  Json plain = Json::array();
  bool replace = false;
  for (const Json& item : patch) {
    const auto directive = item.find(kDirective);
    if (directive == item.end()) {
      plain.push_back(item);
    } else if (*directive == "delete") {
      const auto value = item.find(key);
      if (value == item.end()) return internal_error(no_merge_key(item, key));
      original.erase(std::remove_if(original.begin(), original.end(),
                                    [&](const Json& o) {
                                      return o.is_object() && o.contains(key) && o[key] == *value;
                                    }),
                     original.end());
    } else if (*directive == "replace") {
      replace = true;
    } else if (*directive == "merge") {
      return internal_error("merging lists cannot yet be specified in the patch");
    } else {
      return internal_error("unknown patch type: " + go_value(*directive) +
                            " in map: " + go_value(item));
    }
  }
  if (replace) {
    original = Json::array();
    for (const Json& item : plain) {
      auto fresh = merge_object(Json::object(), item, field.type);
      if (!fresh) return fresh;
      original.push_back(std::move(*fresh));
    }
    plain = Json::array();
  }
  const Json server_order = original;
  for (const Json& item : plain) {
    const auto value = item.find(key);
    if (value == item.end()) return internal_error(no_merge_key(item, key));
    const auto match = std::ranges::find_if(original, [&](const Json& o) {
      return o.is_object() && o.contains(key) && o[key] == *value;
    });
    auto merged = merge_object(match == original.end() ? Json::object() : *match, item, field.type);
    if (!merged) return merged;
    if (match == original.end()) {
      original.push_back(std::move(*merged));
    } else {
      *match = std::move(*merged);
    }
  }
  return order_by(original, plain, server_order, key);
}

}  // namespace

Result<Json> merge_list(Json original, const Json& patch, const PatchField& field) {
  if (original.empty() && patch.empty()) return original;
  const auto kind = element_kind(original, patch);
  if (!kind) return std::unexpected(kind.error());
  if (*kind != ElementKind::Object) return merge_primitives(original, patch);
  if (field.merge_key.empty()) {
    return internal_error(std::string("cannot merge lists without merge key for type ") +
                          (field.type ? "struct" : "string"));
  }
  return merge_objects(std::move(original), patch, field);
}

Json delete_from_list(const Json& original, const Json& values) {
  Json kept = Json::array();
  for (const Json& item : original) {
    if (std::ranges::find(values, item) == values.end()) kept.push_back(item);
  }
  return kept;
}

Result<Json> apply_element_order(const Json& original_list, const Json& patch_list,
                                 const Json& merged, const Json& order, const PatchField& field) {
  const auto kind = element_kind(original_list, patch_list);
  if (!kind) return std::unexpected(kind.error());
  if (*kind == ElementKind::None) return merged;
  const bool objects = *kind == ElementKind::Object;
  // Ordering objects needs their merge key; a list without one keeps the patch's order.
  if (objects && field.merge_key.empty()) return merged;
  return order_by(merged, order, original_list, objects ? field.merge_key : "");
}

Result<void> check_element_order(const Json& patch_list, const Json& order,
                                 std::string_view merge_key) {
  if (order.empty() || patch_list.empty()) return {};
  std::vector<Json> items;
  for (const Json& item : patch_list) {
    if (!merge_key.empty()) {
      if (!item.is_object()) {
        return internal_error("expected a map[string]interface {}, but received a " +
                              std::string(go_type_name(item)));
      }
      if (const auto d = item.find(kDirective); d != item.end() && *d == "delete") continue;
    }
    items.push_back(item);
  }
  std::size_t p = 0;
  std::size_t s = 0;
  while (p < items.size() && s < order.size()) {
    if (items[p].is_object() && items[p].contains(kDirective)) {
      ++p;
      continue;
    }
    if (!merge_key.empty()) {
      for (const Json* side : {static_cast<const Json*>(&items[p]), &order[s]}) {
        if (!side->is_object()) {
          return internal_error("expected a map[string]interface {}, but received a " +
                                std::string(go_type_name(*side)));
        }
        if (!side->contains(merge_key)) return internal_error(no_merge_key(*side, merge_key));
      }
    }
    if (identity(items[p], merge_key) == identity(order[s], merge_key)) ++p;
    ++s;
  }
  if (p < items.size()) {
    return internal_error("the order in patch list:\n" + go_value(patch_list) +
                          "\n doesn't match " + std::string(kSetElementOrder) + " list:\n" +
                          go_value(order));
  }
  return {};
}

}  // namespace respool::sandbox::patch::smp
