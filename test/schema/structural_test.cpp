// check_structural(): each case a CRD schema and the causes the API server refuses it with.

#include "schema_test_util.hpp"

using namespace schema_test;
using namespace respool::sandbox::schema;

namespace {

const std::string root = "spec.versions[0].schema.openAPIV3Schema";

struct Case {
  const char* name;
  const char* schema;
  std::vector<FieldError> causes;
};

void run(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      CHECK(check_structural(json(c.schema), root) == c.causes);
    }
  }
}

FieldError cause(const char* reason, const std::string& field, const char* message) {
  return {reason, root + field, message};
}

}  // namespace

TEST_CASE("structural schemas", "[schema][structural]") {
  run({
      {"a usual schema",
       R"({"type": "object", "properties": {"metadata": {"type": "object"}, "spec": {"type": "object",
           "properties": {"replicas": {"x-kubernetes-int-or-string": true,
             "anyOf": [{"type": "integer"}, {"type": "string"}]},
             "template": {"type": "object", "x-kubernetes-embedded-resource": true,
               "x-kubernetes-preserve-unknown-fields": true},
             "tags": {"type": "object", "additionalProperties": {"type": "string"}},
             "list": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
               "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}}}})",
       {}},
      {"a field without a type",
       R"({"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}})",
       {cause("FieldValueRequired", ".properties[spec].type",
              "Required value: must not be empty for specified object fields")}},
      {"an array without items, array items without a type",
       R"({"type": "object", "properties": {"a": {"type": "array"}, "b": {"type": "array", "items": {}}}})",
       {cause("FieldValueRequired", ".properties[a].items", "Required value: must be specified"),
        cause("FieldValueRequired", ".properties[b].items.type",
              "Required value: must not be empty for specified array items")}},
      {"a root that is not an object",
       R"({"type": "string"})",
       {cause("FieldValueInvalid", ".type",
              R"(Invalid value: "string": must be object at the root)")}},
      {"a root without type",
       R"({"properties": {}})",
       {cause("FieldValueRequired", ".type", "Required value: must not be empty at the root")}},
      {"an embedded resource that is not an object",
       R"({"type": "object", "properties": {"t": {"x-kubernetes-embedded-resource": true,
           "x-kubernetes-preserve-unknown-fields": true}}})",
       {cause("FieldValueRequired", ".properties[t].type",
              "Required value: must be object if x-kubernetes-embedded-resource is true")}},
      {"metadata restricted beyond name and generateName",
       R"({"type": "object", "properties": {"metadata": {"type": "object", "properties": {
           "labels": {"type": "object"}}}}})",
       {cause(
           "FieldValueForbidden", ".properties[metadata]",
           "Forbidden: must not specify anything other than name and generateName, but metadata is "
           "implicitly specified")}},
      {"a type in an anyOf",
       R"({"type": "object", "properties": {"a": {"type": "string", "anyOf": [{"type": "string"}]}}})",
       {cause("FieldValueForbidden", ".properties[a].anyOf[0].type",
              "Forbidden: must be empty to be structural")}},
      {"a field only specified in the root's allOf",
       R"({"type": "object", "properties": {"a": {"type": "string"}},
           "allOf": [{"properties": {"b": {"maxLength": 3}}}]})",
       {cause("FieldValueRequired", ".properties[b]",
              "Required value: because it is defined in "
              "spec.versions[0].schema.openAPIV3Schema.allOf[0].properties[b]")}},
      {"structural errors are sorted",
       R"({"type": "object", "properties": {"z": {}, "a": {"type": "array"}}})",
       {cause("FieldValueRequired", ".properties[a].items", "Required value: must be specified"),
        cause("FieldValueRequired", ".properties[z].type",
              "Required value: must not be empty for specified object fields")}},
  });
}

TEST_CASE("unsupported constructs", "[schema][structural]") {
  run({
      {"additionalProperties with properties",
       R"({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}},
           "additionalProperties": {"type": "string"}}}})",
       {cause("FieldValueForbidden", ".properties[a].additionalProperties",
              "Forbidden: additionalProperties and properties are mutual exclusive")}},
      {"additionalProperties at the root",
       R"({"type": "object", "additionalProperties": {"type": "string"}})",
       {cause("FieldValueForbidden", ".additionalProperties",
              "Forbidden: must not be used at the root")}},
      {"uniqueItems",
       R"({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}})",
       {cause("FieldValueForbidden", ".properties[a].uniqueItems",
              "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes "
              "quadratic")}},
      {"$ref",
       R"({"type": "object", "properties": {"a": {"type": "object", "$ref": "#/definitions/b"}}})",
       {cause("FieldValueForbidden", ".properties[a].$ref", "Forbidden: $ref is not supported")}},
      {"an unknown type",
       R"({"type": "object", "properties": {"a": {"type": "strin"}}})",
       {cause(
           "FieldValueNotSupported", ".properties[a].type",
           R"(Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string")")}},
      {"nullable at the root",
       R"({"type": "object", "nullable": true})",
       {cause("FieldValueForbidden", ".nullable",
              "Forbidden: nullable cannot be true at the root")}},
      {"x-kubernetes-preserve-unknown-fields: false",
       R"({"type": "object", "properties": {"a": {"type": "object", "x-kubernetes-preserve-unknown-fields": false}}})",
       {cause("FieldValueInvalid", ".properties[a].x-kubernetes-preserve-unknown-fields",
              "Invalid value: false: must be true or undefined")}},
      {"a map list without keys",
       R"({"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "map",
           "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}})",
       {cause("FieldValueRequired", ".properties[l].x-kubernetes-list-map-keys",
              "Required value: must not be empty if x-kubernetes-list-type is map")}},
      {"a default in top-level metadata",
       R"({"type": "object", "properties": {"metadata": {"type": "object", "default": {"name": "x"}}}})",
       {cause("FieldValueForbidden", ".properties[metadata].default",
              "Forbidden: must not be set in top-level metadata")}},
      {"an empty CEL rule",
       R"({"type": "object", "x-kubernetes-validations": [{"rule": " "}]})",
       {cause("FieldValueRequired", ".x-kubernetes-validations[0].rule",
              "Required value: rule is not specified")}},
  });
}

TEST_CASE("defaults must validate and be pruned", "[schema][structural][default]") {
  run({
      {"a default of the wrong type",
       R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {
           "replicas": {"type": "integer", "default": "one"}}}}})",
       {cause("FieldValueTypeInvalid", ".properties[spec].properties[replicas].default",
              R"(Invalid value: "string":  in body must be of type integer: "string")")}},
      {"a default out of its bounds and its enum",
       R"({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "enum": [1, 2], "default": 0}}})",
       {cause("FieldValueInvalid", ".properties[n].default",
              "Invalid value: 0:  in body should be greater than or equal to 1"),
        cause("FieldValueNotSupported", ".properties[n].default",
              R"(Unsupported value: 0: supported values: "1", "2")")}},
      {"a default map with a bad value",
       R"({"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"},
           "default": {"tier": 1}}}})",
       {cause("FieldValueTypeInvalid", ".properties[labels].default.tier",
              R"(Invalid value: "integer": .tier in body must be of type string: "integer")")}},
      {"a default with unknown fields",
       R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}},
           "default": {"a": "x", "b": 1}}}})",
       {cause(
           "FieldValueInvalid", ".properties[spec].default",
           R"(Invalid value: map[string]interface {}{"a":"x", "b":1}: must not have unknown fields)")}},
      {"a missing required field in a default",
       R"({"type": "object", "properties": {"spec": {"type": "object", "required": ["a"],
           "properties": {"a": {"type": "string"}}, "default": {}}}})",
       {cause("FieldValueRequired", ".properties[spec].default.a", "Required value")}},
  });
}

TEST_CASE("a missing schema", "[schema][structural]") {
  CHECK(check_structural(Json(), root) ==
        std::vector<FieldError>{
            {"FieldValueRequired", root, "Required value: schemas are required"}});
}
