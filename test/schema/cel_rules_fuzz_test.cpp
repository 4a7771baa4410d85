// Fuzzed rules through the whole path a CRD's rule takes in the sandbox: the CRD-time check
// (parse, type check against the schema) and the evaluation over objects. Nothing may crash;
// every mutated rule is either refused with a message or evaluated to a verdict.

#include <random>

#include "schema_test_util.hpp"

using namespace schema_test;
using namespace respool::sandbox::schema;

TEST_CASE("fuzzed rules never crash the check or the evaluation") {
  const std::vector<std::string> seeds = {
      "self.type != 'Logical' || self.jobTypes.all(t, t == 'Training')",
      "!has(self.count) || !has(self.zones) || self.zones.map(z, z.count).sum() == self.count",
      "self.tags.all(k, k.size() >= 1 && k.size() <= 128)",
      "self.name.matches('^[a-z]+$') && self.name == oldSelf.name",
      "format.dns1123Label().validate(self.name).hasValue() || quantity('1Gi').isInteger()",
      "self.zones.exists_one(z, z.zone == 'a') ? self.count > 0 : size(self.tags) < 3",
  };
  const Json schema = json(R"j({"type": "object", "properties": {"spec": {"type": "object",
    "properties": {
      "type": {"type": "string"}, "name": {"type": "string"}, "count": {"type": "integer"},
      "jobTypes": {"type": "array", "items": {"type": "string"}},
      "tags": {"type": "object", "additionalProperties": {"type": "string"}},
      "zones": {"type": "array", "items": {"type": "object", "properties": {
        "zone": {"type": "string"}, "count": {"type": "integer"}}}}}}}})j");
  const Json object = json(R"j({"spec": {"type": "Logical", "name": "abc", "count": 2,
    "jobTypes": ["Training"], "tags": {"a": "b"}, "zones": [{"zone": "a", "count": 2}]}})j");
  const std::string junk = "().[]{},:?!-+*/%<>=&|'\"`\\ _aZ09";
  std::mt19937 rng(42);
  int checked = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string rule = seeds[rng() % seeds.size()];
    for (int k = 1 + static_cast<int>(rng() % 3); k > 0 && !rule.empty(); --k) {
      std::size_t at = rng() % rule.size();
      if (rng() % 2) {
        rule[at] = junk[rng() % junk.size()];
      } else {
        rule.erase(at, 1 + rng() % 4);
      }
    }
    Json s = schema;
    s["properties"]["spec"]["x-kubernetes-validations"] = Json::array({{{"rule", rule}}});
    std::vector<std::string> warnings;
    auto errors = check_validation_rules(s, "spec.validation.openAPIV3Schema", warnings);
    for (const FieldError& e : errors)
      REQUIRE_FALSE(e.message.empty());
    Json old = object;
    old["spec"]["count"] = 3;
    auto verdict = validate_rules(object, &old, s, {}, warnings);
    for (const FieldError& e : verdict)
      REQUIRE_FALSE(e.message.empty());
    ++checked;
  }
  CHECK(checked == 1500);
}
