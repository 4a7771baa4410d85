#pragma once
// Objects read through a Schema, as structured-merge-diff's typed values: the fields an object
// sets, the fields two versions differ in, the merge of an applied configuration into a live
// object, and the removal of fields.

#include <optional>

#include "sandbox/fieldmanager/field_set.hpp"
#include "sandbox/fieldmanager/schema.hpp"

namespace respool::sandbox::fields {

// ToFieldSet: every field the object sets (leaves, list items, empty or null values, map
// entries); struct fields with content are implied by their children.
FieldSet to_field_set(const Schema& schema, const Json& object);

struct Comparison {
  FieldSet added, modified, removed;
};
// Compare(old, new): what a write added, changed or removed (absent objects: pass null and
// `old_present`/`new_present` false).
Comparison compare(const Schema& schema, const Json* old_object, const Json* new_object);

// live.Merge(config): maps and structs merged field by field, associative lists item by item
// (by key or value), atomic values and lists replaced.
Json merge(const Schema& schema, const Json& live, const Json& config);

// Removes every member path of `remove` from the object, except paths that have descendants in
// `keep` (those are still owned by someone). Maps emptied by a removal go too.
Json remove_fields(const Schema& schema, const Json& object, const FieldSet& remove,
                   const FieldSet& keep);

}  // namespace respool::sandbox::fields
