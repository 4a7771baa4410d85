#pragma once
// The schema server-side apply reads a served type by: a built-in kind's OpenAPI definition
// (from the API type table, as the real server's comes from its OpenAPI models), a custom
// resource's structural schema with ObjectMeta for its metadata.

#include "sandbox/apiserver/registry/registry.hpp"
#include "sandbox/fieldmanager/schema.hpp"

namespace respool::sandbox {

fields::Schema field_schema(const ResourceType& type);

// What a create is compared with: the kind's Go zero value as JSON (non-pointer structs present
// and empty, `metav1.Time` null, fields without omitempty at their zero), as the real server's
// field manager compares a create with `New()` of the kind; `{}` for a custom resource.
Json zero_object(const ResourceType& type);

}  // namespace respool::sandbox
