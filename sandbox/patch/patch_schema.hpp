#pragma once
// The strategic-merge-patch tags (patchStrategy, patchMergeKey) of the built-in kinds the
// sandbox serves, as k8s.io/api declares them on its Go types.

#include <map>
#include <string>
#include <string_view>

namespace respool::sandbox::patch {

struct PatchType;

struct PatchField {
  std::string_view strategy;        // the patchStrategy tag: "", "merge", "retainKeys", ...
  std::string_view merge_key;       // the patchMergeKey tag
  const PatchType* type = nullptr;  // the struct held (for a list: its element), when it matters

  // Lists merge (by merge_key for lists of objects, as a set for primitives) instead of being
  // replaced.
  bool merges() const;
  // Objects are replaced whole instead of merged.
  bool replaces() const;
};

struct PatchType {
  std::map<std::string, PatchField, std::less<>> fields;

  // The field's tags; a field missing from the table is untagged.
  PatchField field(std::string_view name) const;
};

// The root type of a kind ("Pod", "Node", ...), or null for a kind without a table.
const PatchType* patch_type_for_kind(std::string_view kind);

}  // namespace respool::sandbox::patch
