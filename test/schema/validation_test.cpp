// validate(): each case a schema for spec.x, a value for it, and the exact causes the real
// API server answers with (kube-openapi's messages through kubeOpenAPIResultToFieldErrors).

#include "schema_test_util.hpp"

using namespace schema_test;
using namespace respool::sandbox::schema;

namespace {

struct Case {
  const char* name;
  const char* x_schema;
  const char* x_value;
  std::vector<FieldError> causes;
};

void run(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      CHECK(validate(object_with(json(c.x_value)), spec_with(json(c.x_schema))) == c.causes);
    }
  }
}

FieldError type_invalid(const char* field, const char* message) {
  return {"FieldValueTypeInvalid", field, message};
}
FieldError invalid(const char* field, const char* message) {
  return {"FieldValueInvalid", field, message};
}

}  // namespace

TEST_CASE("types: object, array, string, integer, number, boolean", "[schema][validate]") {
  run({
      {"integer given a string",
       R"({"type": "integer"})",
       R"("3")",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "string": spec.x in body must be of type integer: "string")")}},
      {"integer given a fraction",
       R"({"type": "integer"})",
       "1.5",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "number": spec.x in body must be of type integer: "number")")}},
      {"integer given an integral float", R"({"type": "integer"})", "2.0", {}},
      {"number given an integer", R"({"type": "number"})", "3", {}},
      {"string given an integer",
       R"({"type": "string"})",
       "5",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "integer": spec.x in body must be of type string: "integer")")}},
      {"boolean given a string",
       R"({"type": "boolean"})",
       R"("true")",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "string": spec.x in body must be of type boolean: "string")")}},
      {"array given an object",
       R"({"type": "array", "items": {"type": "string"}})",
       "{}",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "object": spec.x in body must be of type array: "object")")}},
      {"object given an array",
       R"({"type": "object"})",
       "[]",
       {type_invalid("spec.x",
                     R"(Invalid value: "array": spec.x in body must be of type object: "array")")}},
      {"object with required fields given a string: the type only",
       R"({"type": "object", "required": ["a"]})",
       R"("s")",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "string": spec.x in body must be of type object: "string")")}},
      {"int-or-string given an integer", R"({"x-kubernetes-int-or-string": true})", "5", {}},
      {"int-or-string given a string", R"({"x-kubernetes-int-or-string": true})", R"("50%")", {}},
      {"int-or-string given a boolean",
       R"({"x-kubernetes-int-or-string": true})",
       "true",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean")")}},
      {"null where not nullable",
       R"({"type": "string"})",
       "null",
       {type_invalid("spec.x",
                     R"(Invalid value: "null": spec.x in body must be of type string: "null")")}},
      {"null where nullable", R"({"type": "string", "nullable": true})", "null", {}},
      {"no type under x-kubernetes-preserve-unknown-fields",
       R"({"x-kubernetes-preserve-unknown-fields": true})",
       R"({"any": [1, "thing"]})",
       {}},
  });
}

TEST_CASE("required, enum and pattern", "[schema][validate]") {
  run({
      {"required fields in the order of the list",
       R"({"type": "object", "required": ["b", "a"]})",
       "{}",
       {{"FieldValueRequired", "spec.x.b", "Required value"},
        {"FieldValueRequired", "spec.x.a", "Required value"}}},
      {"enum of integers",
       R"({"type": "integer", "enum": [1, 2, 3]})",
       "5",
       {{"FieldValueNotSupported", "spec.x",
         R"(Unsupported value: 5: supported values: "1", "2", "3")"}}},
      {"enum matches numbers by value", R"({"type": "number", "enum": [1, 2.5]})", "1.0", {}},
      {"a type error and an enum error",
       R"({"type": "integer", "enum": [1, 2]})",
       R"("a")",
       {type_invalid(
            "spec.x",
            R"(Invalid value: "string": spec.x in body must be of type integer: "string")"),
        {"FieldValueNotSupported", "spec.x",
         R"(Unsupported value: "a": supported values: "1", "2")"}}},
      {"enum on a nullable null lists it only if null is listed",
       R"({"type": "string", "nullable": true,
       "enum": ["a"]})",
       "null",
       {{"FieldValueNotSupported", "spec.x", R"(Unsupported value: null: supported values: "a")"}}},
      {"pattern",
       R"({"type": "string", "pattern": "^a+$"})",
       R"("ab")",
       {invalid("spec.x", R"(Invalid value: "ab": spec.x in body should match '^a+$')")}},
      {"pattern is searched, not anchored",
       R"({"type": "string", "pattern": "b"})",
       R"("abc")",
       {}},
      {"pattern with (?i)", R"({"type": "string", "pattern": "(?i)^abc$"})", R"("ABC")", {}},
  });
}

TEST_CASE("numbers: minimum, maximum, exclusive bounds, multipleOf", "[schema][validate]") {
  run({
      {"exclusive minimum",
       R"({"type": "integer", "minimum": 0, "exclusiveMinimum": true})",
       "0",
       {invalid("spec.x", "Invalid value: 0: spec.x in body should be greater than 0")}},
      {"maximum",
       R"({"type": "integer", "maximum": 10})",
       "11",
       {invalid("spec.x", "Invalid value: 11: spec.x in body should be less than or equal to 10")}},
      {"exclusive maximum",
       R"({"type": "integer", "maximum": 10, "exclusiveMaximum": true})",
       "10",
       {invalid("spec.x", "Invalid value: 10: spec.x in body should be less than 10")}},
      {"a float below a minimum",
       R"({"type": "number", "minimum": 1})",
       "0.5",
       {invalid("spec.x",
                "Invalid value: 0.5: spec.x in body should be greater than or equal to 1")}},
      {"an integer against a fractional maximum, truncated as Go does",
       R"({"type": "number", "maximum": 3.5})",
       "5",
       {invalid("spec.x", "Invalid value: 5: spec.x in body should be less than or equal to 3")}},
      {"large floats print with an exponent",
       R"({"type": "number", "maximum": 10})",
       "1000000.0",
       {invalid("spec.x",
                "Invalid value: 1e+06: spec.x in body should be less than or equal to 10")}},
      {"multipleOf on integers",
       R"({"type": "integer", "multipleOf": 2})",
       "7",
       {invalid("spec.x", "Invalid value: 7: spec.x in body should be a multiple of 2")}},
      {"multipleOf on floats tolerates rounding",
       R"({"type": "number", "multipleOf": 0.1})",
       "0.3",
       {}},
      {"format int32 is not checked (the server drops it)",
       R"({"type": "integer", "format": "int32"})",
       "1099511627776",
       {}},
  });
}

TEST_CASE("strings, arrays and maps: lengths, counts, formats", "[schema][validate]") {
  run({
      {"maxLength is FieldValueTooLong",
       R"({"type": "string", "maxLength": 5})",
       R"("abcdef")",
       {{"FieldValueTooLong", "spec.x", "Too long: may not be more than 5 bytes"}}},
      {"maxLength counts runes", R"({"type": "string", "maxLength": 2})", R"("éé")", {}},
      {"minLength",
       R"({"type": "string", "minLength": 3})",
       R"("ab")",
       {invalid("spec.x",
                R"(Invalid value: "ab": spec.x in body should be at least 3 chars long)")}},
      {"maxItems is FieldValueTooMany",
       R"({"type": "array", "items": {"type": "integer"}, "maxItems": 2})",
       "[1, 2, 3]",
       {{"FieldValueTooMany", "spec.x", "Too many: 3: must have at most 2 items"}}},
      {"minItems",
       R"({"type": "array", "items": {"type": "integer"}, "minItems": 1})",
       "[]",
       {invalid("spec.x", "Invalid value: 0: spec.x in body should have at least 1 items")}},
      {"items before the counts",
       R"({"type": "array", "items": {"type": "integer"}, "maxItems": 1})",
       R"([1, "b"])",
       {type_invalid(
            "spec.x[1]",
            R"(Invalid value: "string": spec.x[1] in body must be of type integer: "string")"),
        {"FieldValueTooMany", "spec.x", "Too many: 2: must have at most 1 items"}}},
      {"uniqueItems",
       R"({"type": "array", "items": {"type": "integer"}, "uniqueItems": true})",
       "[1, 1]",
       {invalid("spec.x", R"(Invalid value: "": spec.x in body shouldn't contain duplicates)")}},
      {"maxProperties is FieldValueTooMany, and the entries are still checked",
       R"({"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 2})",
       R"({"a": 1, "b": "", "c": ""})",
       {{"FieldValueTooMany", "spec.x", "Too many: 3: must have at most 2 items"},
        type_invalid(
            "spec.x.a",
            R"(Invalid value: "integer": spec.x.a in body must be of type string: "integer")")}},
      {"minProperties",
       R"({"type": "object", "minProperties": 2})",
       R"({"a": 1})",
       {invalid("spec.x", "Invalid value: 1: spec.x in body should have at least 2 properties")}},
      {"map entries are named with dots",
       R"({"type": "object", "additionalProperties": {"type": "string"}})",
       R"({"app.kubernetes.io/name": 1})",
       {type_invalid(
           "spec.x.app.kubernetes.io/name",
           R"(Invalid value: "integer": spec.x.app.kubernetes.io/name in body must be of type string: "integer")")}},
      {"additionalProperties false",
       R"({"type": "object", "additionalProperties": false})",
       R"({"a": 1})",
       {invalid("spec.x", R"(Invalid value: "a": spec.x.a in body is a forbidden property)")}},
      {"date-time format",
       R"({"type": "string", "format": "date-time"})",
       R"("yesterday")",
       {type_invalid(
           "spec.x",
           R"(Invalid value: "yesterday": spec.x in body must be of type date-time: "yesterday")")}},
      {"a valid date-time",
       R"({"type": "string", "format": "date-time"})",
       R"("2026-01-01T00:00:00Z")",
       {}},
      {"a length and a format error",
       R"({"type": "string", "format": "uuid", "maxLength": 3})",
       R"("abcd")",
       {{"FieldValueTooLong", "spec.x", "Too long: may not be more than 3 bytes"},
        type_invalid("spec.x",
                     R"(Invalid value: "abcd": spec.x in body must be of type uuid: "abcd")")}},
  });
}

TEST_CASE("nested fields name their path; properties come in sorted order", "[schema][validate]") {
  const Json schema =
      spec_with(json(R"({"type": "array", "items": {"type": "object", "required": ["name"],
      "properties": {"name": {"type": "string"}, "port": {"type": "integer", "maximum": 65535}}}})"));
  const Json object =
      object_with(json(R"([{"name": "a"}, {"name": "b", "port": 70000}, {"port": 1}])"));
  const std::vector<FieldError> expected = {
      invalid("spec.x[1].port",
              "Invalid value: 70000: spec.x[1].port in body should be less than or equal to 65535"),
      {"FieldValueRequired", "spec.x[2].name", "Required value"},
  };
  CHECK(validate(object, schema) == expected);

  const Json root = json(R"({"type": "object", "required": ["spec"], "properties": {
      "spec": {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}}}})");
  CHECK(validate(json(R"({"metadata": {"name": "n"}})"), root) ==
        std::vector<FieldError>{{"FieldValueRequired", "spec", "Required value"}});
  CHECK(validate(json(R"({"spec": {"b": 1, "a": 2}})"), root) ==
        std::vector<FieldError>{
            type_invalid(
                "spec.a",
                R"(Invalid value: "integer": spec.a in body must be of type string: "integer")"),
            type_invalid(
                "spec.b",
                R"(Invalid value: "integer": spec.b in body must be of type string: "integer")")});
}

TEST_CASE("anyOf, oneOf, allOf and not report under <nil>", "[schema][validate]") {
  run({
      {"int-or-string with its anyOf, given a boolean",
       R"({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})",
       "true",
       {type_invalid(
            "spec.x",
            R"(Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean")"),
        invalid("<nil>",
                R"(Invalid value: "": "spec.x" must validate at least one schema (anyOf))"),
        type_invalid(
            "spec.x",
            R"(Invalid value: "boolean": spec.x in body must be of type integer: "boolean")")}},
      {"anyOf satisfied",
       R"({"type": "integer", "anyOf": [{"minimum": 5}, {"maximum": 0}]})",
       "7",
       {}},
      {"allOf with one part failing",
       R"({"type": "integer", "allOf": [{"minimum": 5}, {"maximum": 10}]})",
       "3",
       {invalid("spec.x", "Invalid value: 3: spec.x in body should be greater than or equal to 5"),
        invalid("<nil>", R"(Invalid value: "": "spec.x" must validate all the schemas (allOf))")}},
      {"oneOf with two matches",
       R"({"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": 10}]})",
       "5",
       {invalid(
           "<nil>",
           R"(Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives)")}},
      {"not",
       R"({"type": "string", "not": {"enum": ["x"]}})",
       R"("x")",
       {invalid("<nil>", R"(Invalid value: "": "spec.x" must not validate the schema (not))")}},
  });
}

TEST_CASE("embedded resources need an apiVersion and a kind", "[schema][validate]") {
  const char* embedded = R"({"type": "object", "x-kubernetes-embedded-resource": true,
                             "x-kubernetes-preserve-unknown-fields": true})";
  run({
      {"both missing",
       embedded,
       R"({"metadata": {"name": "a"}})",
       {{"FieldValueRequired", "spec.x.apiVersion", "Required value"},
        {"FieldValueRequired", "spec.x.kind", "Required value"}}},
      {"a well-formed one", embedded, R"({"apiVersion": "apps/v1", "kind": "Deployment"})", {}},
      {"malformed ones",
       embedded,
       R"({"apiVersion": "a/b/c", "kind": "Bad_Kind"})",
       {invalid("spec.x.apiVersion",
                R"(Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c)"),
        invalid(
            "spec.x.kind",
            R"(Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label )"
            R"(must consist of lower case alphanumeric characters or '-', start with an alphabetic character, )"
            R"(and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for )"
            R"(validation is '[a-z]([-a-z0-9]*[a-z0-9])?'))")}},
  });
  const Json map_schema = spec_with(json(
      R"({"type": "object", "additionalProperties": {"type": "object", "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true}})"));
  CHECK(
      validate(object_with(json(R"({"one": {"kind": "Pod"}})")), map_schema) ==
      std::vector<FieldError>{{"FieldValueRequired", "spec.x[one].apiVersion", "Required value"}});
}

TEST_CASE("bounds beyond int64 truncate as Go does on amd64", "[schema][validate]") {
  run({
      {"a huge minimum becomes math.MinInt64", R"({"type": "integer", "minimum": 1e300})", "5", {}},
      {"a huge maximum too",
       R"({"type": "integer", "maximum": 1e300})",
       "5",
       {invalid("spec.x",
                "Invalid value: 5: spec.x in body should be less than or equal to "
                "-9223372036854775808")}},
      {"a float against it is compared as a float",
       R"({"type": "number", "maximum": 1e300})",
       "5.5",
       {}},
      {"a huge maxLength", R"({"type": "string", "maxLength": 1e300})", R"("abc")", {}},
  });
}
