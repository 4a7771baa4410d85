#pragma once
// OpenAPI definitions of the built-in kinds, derived from the Kubernetes API's own type table
// (sandbox/protobuf/k8s-api.table) as kube-openapi derives them from the Go types: properties
// with the doc comments as descriptions, required fields, zero defaults, enums, and the
// x-kubernetes-list-type / -list-map-keys / -patch-strategy / -patch-merge-key / -map-type
// extensions kubectl reads to build strategic merge patches.

#include <string>

#include "sandbox/apiserver/errors.hpp"
#include "sandbox/protobuf/api_table.hpp"

namespace respool::sandbox {

enum class OpenApiVersion { V2, V3 };

// "#/components/schemas/" (v3) or "#/definitions/" (v2) + name.
std::string openapi_ref(OpenApiVersion v, const std::string& name);

// Adds the definition of `message`, and of every type it reaches, to `definitions` (keyed by
// io.k8s... names, each sorted as the real documents are); definitions already there are kept.
void add_definitions(const protobuf::MessageDef& message, OpenApiVersion v, Json& definitions);

}  // namespace respool::sandbox
