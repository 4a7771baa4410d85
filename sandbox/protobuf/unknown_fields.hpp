#pragma once
// The members of a JSON object that its Go type does not declare. Decoding JSON into a Go struct
// drops them; the API server's strict decoding (sigs.k8s.io/json) names each one as
// `unknown field "PATH"`, PATH as "spec.template.spec.containers[0].portz" (map keys joined with
// '.' like fields). The Go types are the API type table's: JSON names, inline structs, embedded
// TypeMeta, and types with their own JSON encoding (Quantity, Time, RawExtension, ...), whose
// contents are theirs to judge.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/protobuf/api_table.hpp"

namespace respool::sandbox::protobuf {

// Removes from `object` what `type` does not declare, at any depth, and returns the paths of
// what it removed: the first 100, as the Go decoder keeps. Paths come in the object's key order
// (sorted), which is the document's order for what kubectl sends. Values of the wrong JSON type
// are left alone: that is a type error, not an unknown field.
std::vector<std::string> drop_unknown_fields(nlohmann::json& object, const MessageDef& type);

}  // namespace respool::sandbox::protobuf
