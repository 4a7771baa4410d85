// x-kubernetes-validations: checked when a CRD is written, evaluated on every write of its
// objects, with the real server's messages (apiextensions-apiserver schema/cel, v1.32).

#include "schema_test_util.hpp"

using namespace schema_test;
using namespace respool::sandbox::schema;

namespace {

std::vector<FieldError> rules(const Json& object, const Json* old, const Json& schema,
                              std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> ignored;
  return validate_rules(object, old, schema, {}, warnings ? *warnings : ignored);
}

std::vector<FieldError> check(const Json& schema, std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> ignored;
  return check_validation_rules(schema, "spec.validation.openAPIV3Schema",
                                warnings ? *warnings : ignored);
}

const Json kSpec = json(R"j({
  "type": "object",
  "properties": {"spec": {
    "type": "object",
    "x-kubernetes-validations": [
      {"rule": "self.min <= self.max", "message": "min must not exceed max"},
      {"rule": "!has(self.mode) || self.mode != 'Reset' || has(self.reset)", "message": "reset needed",
       "fieldPath": ".reset", "reason": "FieldValueRequired"},
      {"rule": "self.size() <= 3", "messageExpression": "'has ' + string(self.size()) + ' fields'"}
    ],
    "properties": {
      "min": {"type": "integer"}, "max": {"type": "integer"},
      "mode": {"type": "string"}, "reset": {"type": "object", "properties": {"os": {"type": "string"}}},
      "name": {"type": "string", "x-kubernetes-validations": [
        {"rule": "self == oldSelf", "message": "is immutable"},
        {"rule": "self.startsWith('n-')"}]}
    }}}})j");

}  // namespace

TEST_CASE("rules evaluate at their schema node with the server's messages") {
  Json ok = json(R"j({"spec": {"min": 1, "max": 2, "name": "n-a"}})j");
  CHECK(rules(ok, nullptr, kSpec).empty());

  Json bad = json(R"j({"spec": {"min": 3, "max": 2, "mode": "Reset", "name": "x"}})j");
  auto errors = rules(bad, nullptr, kSpec);
  REQUIRE(errors.size() == 4);
  CHECK(errors[0] == FieldError{"FieldValueInvalid", "spec",
                                "Invalid value: \"object\": min must not exceed max"});
  CHECK(errors[1] ==
        FieldError{"FieldValueRequired", "spec.reset", "Required value: reset needed"});
  CHECK(errors[2] ==
        FieldError{"FieldValueInvalid", "spec", "Invalid value: \"object\": has 4 fields"});
  CHECK(errors[3] == FieldError{"FieldValueInvalid", "spec.name",
                                "Invalid value: \"string\": failed rule: self.startsWith('n-')"});
}

TEST_CASE("transition rules run only on update, with oldSelf") {
  Json before = json(R"j({"spec": {"min": 1, "max": 2, "name": "n-a"}})j");
  Json after = json(R"j({"spec": {"min": 1, "max": 2, "name": "n-b"}})j");
  CHECK(rules(after, nullptr, kSpec).empty());
  auto errors = rules(after, &before, kSpec);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] ==
        FieldError{"FieldValueInvalid", "spec.name", "Invalid value: \"string\": is immutable"});
}

TEST_CASE("unchanged values ratchet: their rule errors become warnings on update") {
  Json old = json(R"j({"spec": {"min": 3, "max": 2, "name": "n-a"}})j");
  Json same = old;
  std::vector<std::string> warnings;
  CHECK(rules(same, &old, kSpec, &warnings).empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "spec: Invalid value: \"object\": min must not exceed max");
  Json changed = json(R"j({"spec": {"min": 4, "max": 2, "name": "n-a"}})j");
  CHECK(rules(changed, &old, kSpec).size() == 1);
}

TEST_CASE("a blocking schema error stops the rules, as the server") {
  std::vector<std::string> warnings;
  auto errors = validate_rules(json(R"j({"spec": {"min": 3, "max": 2}})j"), nullptr, kSpec,
                               {{"FieldValueRequired", "spec.name", "Required value"}}, warnings);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].field == "<nil>");
  CHECK(errors[0].message ==
        "Invalid value: \"null\": some validation rules were not checked because the object was "
        "invalid; correct the existing errors to complete validation");
}

TEST_CASE("runtime errors and the cost limit are reported per rule") {
  Json schema = json(R"j({"type": "object", "properties": {"spec": {"type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
    "x-kubernetes-validations": [
      {"rule": "self.items[500] > 0"},
      {"rule": "self.items.all(a, self.items.all(b, self.items.all(c, a + b + c >= 0)))"},
      {"rule": "self.items.size() > 100"}]}}})j");
  Json obj = {{"spec", {{"items", Json::array()}}}};
  for (int i = 0; i < 200; ++i)
    obj["spec"]["items"].push_back(i);
  auto errors = rules(obj, nullptr, schema);
  REQUIRE(errors.size() == 2);  // the third rule is not run after the cost limit
  CHECK(errors[0].message ==
        "Invalid value: \"object\": index out of range: 500 evaluating rule: self.items[500] > 0");
  CHECK(errors[1].message.find("'operation cancelled: actual cost limit exceeded': no further "
                               "validation rules will be run due to call cost exceeds limit for "
                               "rule: self.items.all(") != std::string::npos);
}

TEST_CASE("rules at the root see metadata.name, embedded and list items") {
  Json schema = json(R"j({"type": "object",
    "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('a')",
                                  "message": "name must start with a"}],
    "properties": {"spec": {"type": "object", "properties": {
      "zones": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["zone"],
        "items": {"type": "object", "properties": {"zone": {"type": "string"}, "count": {"type": "integer"}},
          "x-kubernetes-validations": [{"rule": "self.count > 0", "fieldPath": ".count"}]}},
      "tags": {"type": "object", "additionalProperties": {"type": "string",
        "x-kubernetes-validations": [{"rule": "self.size() < 4"}]}}}}}})j");
  Json obj = json(R"j({"metadata": {"name": "bee"}, "spec": {
    "zones": [{"zone": "a", "count": 1}, {"zone": "b", "count": 0}],
    "tags": {"k": "long-value"}}})j");
  auto errors = rules(obj, nullptr, schema);
  REQUIRE(errors.size() == 3);
  CHECK(errors[0] == FieldError{"FieldValueInvalid", "<nil>",
                                "Invalid value: \"object\": name must start with a"});
  CHECK(errors[1] == FieldError{"FieldValueInvalid", "spec.tags[k]",
                                "Invalid value: \"string\": failed rule: self.size() < 4"});
  CHECK(errors[2] == FieldError{"FieldValueInvalid", "spec.zones[1].count",
                                "Invalid value: \"object\": failed rule: self.count > 0"});
}

TEST_CASE("malformed rules are refused when the CRD is written") {
  Json schema = json(R"j({"type": "object", "properties": {"spec": {"type": "object",
    "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
    "x-kubernetes-validations": [
      {"rule": "self.n =="},
      {"rule": "self.nope > 1"},
      {"rule": "self.n == 'a'"},
      {"rule": "self.s"},
      {"rule": "true", "reason": "Bogus"},
      {"rule": "self.n > 0", "fieldPath": ".missing"},
      {"rule": "line one\n&& true"}]}}})j");
  auto errors = check(schema);  // field errors at a node: its rules are not compiled
  REQUIRE(errors.size() == 3);
  std::string at = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
  CHECK(errors[0] == FieldError{"FieldValueNotSupported", at + "[4].reason",
                                "Unsupported value: \"Bogus\": supported values: "
                                "\"FieldValueDuplicate\", \"FieldValueForbidden\", "
                                "\"FieldValueInvalid\", \"FieldValueRequired\""});
  CHECK(errors[1] == FieldError{"FieldValueInvalid", at + "[5].fieldPath",
                                "Invalid value: \".missing\": fieldPath must be a valid path"});
  CHECK(errors[2] == FieldError{"FieldValueRequired", at + "[6].message",
                                "Required value: message must be specified if rule contains line "
                                "breaks"});

  // With the field errors gone, each rule compiles (or not) against the schema.
  Json rules_only = schema;
  auto& list = rules_only["properties"]["spec"]["x-kubernetes-validations"];
  list.erase(list.begin() + 4, list.end());
  errors = check(rules_only);
  REQUIRE(errors.size() == 4);
  CHECK(errors[0].message ==
        "Invalid value: apiextensions.ValidationRule{Rule:\"self.n ==\", Message:\"\", "
        "MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(nil), "
        "FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:10: "
        "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', "
        "'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
        " | self.n ==\n"
        " | .........^");
  CHECK(errors[1].message.find("compilation failed: ERROR: <input>:1:5: undefined field 'nope'") !=
        std::string::npos);
  CHECK(errors[2].message.find("found no matching overload for '_==_' applied to '(int, "
                               "string)'") != std::string::npos);
  CHECK(errors[3].message.find(": cel expression must evaluate to a bool") != std::string::npos);
}

TEST_CASE("a rule using a function the sandbox lacks warns, and refuses what it checks") {
  Json schema = json(R"j({"type": "object", "properties": {"spec": {"type": "object",
    "properties": {"n": {"type": "string"}},
    "x-kubernetes-validations": [
      {"rule": "has(self.n) && fieldSelector(self.n) == fieldSelector(self.n)"}]}}})j");
  std::vector<std::string> warnings;
  CHECK(check(schema, &warnings).empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("fieldSelector") != std::string::npos);
  auto errors = rules(json(R"j({"spec": {"n": "ok"}})j"), nullptr, schema);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.find("does not evaluate") != std::string::npos);
}

TEST_CASE("Kubernetes' format library validates names in rules and messages") {
  Json schema = json(R"j({"type": "object", "properties": {"spec": {"type": "object",
    "properties": {"n": {"type": "string"}},
    "x-kubernetes-validations": [
      {"rule": "!format.dns1123Label().validate(self.n).hasValue()",
       "messageExpression": "format.dns1123Label().validate(self.n).value().join('; ')"},
      {"rule": "format.named('qualifiedName').value().validate('a/b/c').hasValue()"}]}}})j");
  CHECK(check(schema).empty());
  CHECK(rules(json(R"j({"spec": {"n": "ok-name"}})j"), nullptr, schema).empty());
  auto errors = rules(json(R"j({"spec": {"n": "Not.OK"}})j"), nullptr, schema);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message ==
        "Invalid value: \"object\": a lowercase RFC 1123 label must consist of lower case "
        "alphanumeric characters or '-', and must start and end with an alphanumeric character "
        "(e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
}
