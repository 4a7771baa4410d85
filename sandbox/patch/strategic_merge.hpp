#pragma once
// Internal to the strategic merge patch sources: the recursion over objects
// (strategic_merge_patch.cpp) and over lists (strategic_lists.cpp), after mergeMap and
// mergeSlice in k8s.io/apimachinery/pkg/util/strategicpatch.

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "sandbox/patch/patch.hpp"
#include "sandbox/patch/patch_schema.hpp"

namespace respool::sandbox::patch::smp {

inline constexpr std::string_view kDirective = "$patch";
inline constexpr std::string_view kRetainKeys = "$retainKeys";
inline constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
inline constexpr std::string_view kSetElementOrder = "$setElementOrder";

template <class T>
using Result = std::expected<T, PatchError>;

// How the API server classifies the errors of the strategicpatch package.
std::unexpected<PatchError> bad_request(std::string message);     // 400
std::unexpected<PatchError> unprocessable(std::string detail);    // 422, generic message
std::unexpected<PatchError> internal_error(std::string message);  // 500, Go's message as is

// The tags of field `name` of `type` (untagged when type is null or lacks it).
PatchField field_of(const PatchType* type, std::string_view name);

// Merges patch object into original object, honouring the directives.
Result<Json> merge_object(Json original, const Json& patch, const PatchType* type);
// The patch applied to nothing, for a value the object does not have: nulls dropped, directives
// processed. Empty when nothing is left ({"$patch": "delete"}).
Result<std::optional<Json>> fresh_value(const Json& patch, const PatchField& field);

// Merges a list with a merge strategy (mergeSlice): primitives as a set, objects by merge key,
// with the $patch list items; the order as apimachinery orders it.
Result<Json> merge_list(Json original, const Json& patch, const PatchField& field);
// $deleteFromPrimitiveList/<field>: removes the listed values.
Json delete_from_list(const Json& original, const Json& values);
// $setElementOrder/<field>, given the list before and after merging.
Result<Json> apply_element_order(const Json& original_list, const Json& patch_list,
                                 const Json& merged, const Json& order, const PatchField& field);
// validatePatchWithSetOrderList: the patch list must follow the order list.
Result<void> check_element_order(const Json& patch_list, const Json& order,
                                 std::string_view merge_key);

}  // namespace respool::sandbox::patch::smp
