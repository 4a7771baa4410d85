#pragma once
// The parts of the API server's CRD validation that concern a version's openAPIV3Schema
// (apiextensions-apiserver's pkg/apis/apiextensions/validation and pkg/apiserver/schema),
// behind check_structural.

#include <string>
#include <vector>

#include "sandbox/schema/schema.hpp"

namespace respool::sandbox::schema::detail {

using Errors = std::vector<FieldError>;

// ValidateStructural: the invariants of a structural schema and its completeness, sorted as
// the server sorts them (by "field: message").
Errors structural_errors(const Json& schema, const std::string& path);

// ValidateDefaults: every default must be pruned already and validate against its schema.
Errors default_errors(const Json& schema, const std::string& path);

// ValidateCustomResourceDefinitionOpenAPISchema: unsupported constructs, list and map types.
Errors openapi_schema_errors(const Json& schema, const std::string& path);

// objectmeta.Validate: apiVersion and kind of every embedded resource in a custom resource.
Errors embedded_resource_errors(const Json& object, const Json& schema);

// Pruning of one value against a schema node, as a resource root or not (pruning.Prune).
void prune_value(Json& value, const Json& schema, bool resource_root);

// The error std::regex gives for a pattern, empty when it compiles.
std::string pattern_error(const std::string& pattern);

// field.Invalid with a value already rendered the Go way (for []string and the like).
FieldError invalid_rendered(std::string field, const std::string& value, std::string_view detail);

}  // namespace respool::sandbox::schema::detail
