#pragma once
// Validation, defaulting and pruning of custom resources from a CRD version's openAPIV3Schema,
// as the API server does for structural schemas (k8s.io/apiextensions-apiserver and
// kube-openapi's validate package, v1.32), with its wording.
//
// CEL rules (x-kubernetes-validations) are checked when a CRD is written and evaluated on every
// write of its objects (sandbox/cel). Not reproduced: the list-type invariants
// (x-kubernetes-list-type map/set uniqueness) and the schema's own validation ratcheting on
// update (the CEL rules' ratcheting is).
// Where the real server iterates a Go map (sibling properties of one object, keys of a map),
// it reports in random order; here the order is the sorted order of the keys, which is stable.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::schema {

using Json = nlohmann::json;

// One cause of a 422 Invalid answer, worded as the API server words it:
//   reason  "FieldValueInvalid" | "FieldValueRequired" | "FieldValueNotSupported" |
//           "FieldValueTypeInvalid" | "FieldValueTooLong" | "FieldValueTooMany" | ...
//   field   "spec.replicas" (no leading dot; list items as "spec.items[2]", map entries as
//           "spec.labels.tier"; "<nil>" for anyOf/oneOf/allOf/not failures, as the server)
//   message "Invalid value: -1: spec.replicas in body should be greater than or equal to 0"
struct FieldError {
  std::string reason;
  std::string field;
  std::string message;

  bool operator==(const FieldError&) const = default;
};

// Drops the fields `schema` does not declare (unless x-kubernetes-preserve-unknown-fields says
// otherwise); apiVersion, kind and metadata are kept at the root and in embedded resources,
// and unknown fields of an embedded resource's metadata are dropped. Returns the paths of the
// dropped fields, sorted, as the API server names them for fieldValidation=Warn/Strict
// ("spec.foo", "spec.items[0].bar").
std::vector<std::string> prune(Json& object, const Json& schema);

// Removes nulls the schema neither allows (nullable) nor defaults, then applies `default`s:
// missing fields and non-nullable nulls get their default, recursively (inside defaults just
// applied, in every array item, in every map value).
void apply_defaults(Json& object, const Json& schema);

// prune, then apply_defaults: what the API server does to every custom resource it decodes.
void default_and_prune(Json& object, const Json& schema);

// Every violation of `schema` by `object`, in the API server's order.
std::vector<FieldError> validate(const Json& object, const Json& schema);

// Problems with a CRD's schema itself that would make the API server refuse the CRD
// (e.g. a type missing where a structural schema needs one). Empty when it is usable.
// `path` names the schema, e.g. "spec.versions[0].schema.openAPIV3Schema".
std::vector<FieldError> check_structural(const Json& schema, const std::string& path);

// x-kubernetes-validations of a CRD version's schema, as the API server checks them when the
// CRD is written: each rule, message, messageExpression, reason and fieldPath, and each rule
// compiled (parsed and type-checked against the schema). `warnings` gets a line per rule that
// uses a function the sandbox does not evaluate (the rule is accepted, as on a real server).
std::vector<FieldError> check_validation_rules(const Json& schema, const std::string& path,
                                               std::vector<std::string>& warnings);

// The rules evaluated over a custom resource (and, on update, its stored `old`): the errors
// of failing rules as the API server words them. `prior` are the errors the object already
// has (metadata and schema): when one of them blocks CEL (a required, unsupported, too long,
// too many or mistyped value), no rule runs and one error says so. Errors of rules that do not
// use oldSelf on values an update left unchanged become `warnings` (validation ratcheting).
std::vector<FieldError> validate_rules(const Json& object, const Json* old, const Json& schema,
                                       const std::vector<FieldError>& prior,
                                       std::vector<std::string>& warnings);

}  // namespace respool::sandbox::schema
