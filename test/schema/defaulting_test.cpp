// prune() and apply_defaults(): each case a schema, an object, and the object the API server
// stores (plus the unknown fields it reports).

#include "schema_test_util.hpp"

using namespace schema_test;
using namespace respool::sandbox::schema;

namespace {

struct Case {
  const char* name;
  const char* schema;
  const char* object;
  const char* expected;
  std::vector<std::string> unknown;
};

void run(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Json schema = json(c.schema);
      Json object = json(c.object);
      CHECK(prune(object, schema) == c.unknown);
      apply_defaults(object, schema);
      CHECK(object == json(c.expected));
    }
  }
}

}  // namespace

TEST_CASE("defaults", "[schema][default]") {
  run({
      {"a default object is itself defaulted",
       R"({"type": "object", "properties": {"spec": {"type": "object", "default": {},
           "properties": {"a": {"type": "integer", "default": 1}}}}})",
       R"({})",
       R"({"spec": {"a": 1}})",
       {}},
      {"defaults apply to every array item",
       R"({"type": "object", "properties": {"ports": {"type": "array", "items": {"type": "object",
           "properties": {"port": {"type": "integer", "default": 80}, "name": {"type": "string"}}}}}})",
       R"({"ports": [{"name": "a"}, {"port": 8080}]})",
       R"({"ports": [{"name": "a", "port": 80}, {"port": 8080}]})",
       {}},
      {"defaults apply to every map value",
       R"({"type": "object", "properties": {"pools": {"type": "object", "additionalProperties": {
           "type": "object", "properties": {"size": {"type": "integer", "default": 3}}}}}})",
       R"({"pools": {"a": {}, "b": {"size": 5}}})",
       R"({"pools": {"a": {"size": 3}, "b": {"size": 5}}})",
       {}},
      {"an existing value is kept",
       R"({"type": "object", "properties": {"mode": {"type": "string", "default": "auto"}}})",
       R"({"mode": "manual"})",
       R"({"mode": "manual"})",
       {}},
      {"nulls: defaulted, kept when nullable, dropped otherwise",
       R"({"type": "object", "properties": {
           "a": {"type": "string", "default": "x"},
           "b": {"type": "string", "default": "y", "nullable": true},
           "c": {"type": "string"},
           "d": {"type": "string", "nullable": true}}})",
       R"({"a": null, "b": null, "c": null, "d": null})",
       R"({"a": "x", "b": null, "d": null})",
       {}},
      {"a null array item takes the items' default",
       R"({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string", "default": "z"}}}})",
       R"({"l": ["a", null]})",
       R"({"l": ["a", "z"]})",
       {}},
      {"no default inside an absent object",
       R"({"type": "object", "properties": {"spec": {"type": "object",
           "properties": {"a": {"type": "integer", "default": 1}}}}})",
       R"({})",
       R"({})",
       {}},
  });
}

TEST_CASE("pruning", "[schema][prune]") {
  run({
      {"unknown fields go, apiVersion, kind and metadata stay at the root",
       R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}}})",
       R"({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "whatever": 1},
           "spec": {"a": "x", "b": "y"}, "extra": {"deep": 1}})",
       R"({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "whatever": 1}, "spec": {"a": "x"}})",
       {"extra", "spec.b"}},
      {"inside array items",
       R"({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object",
           "properties": {"a": {"type": "string"}}}}}})",
       R"({"l": [{"a": "x"}, {"a": "y", "b": 1}]})",
       R"({"l": [{"a": "x"}, {"a": "y"}]})",
       {"l[1].b"}},
      {"x-kubernetes-preserve-unknown-fields keeps unknown fields but prunes declared ones",
       R"({"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
           "properties": {"a": {"type": "object", "properties": {"b": {"type": "integer"}}}}}}})",
       R"({"spec": {"free": {"x": 1}, "a": {"b": 1, "c": 2}}})",
       R"({"spec": {"free": {"x": 1}, "a": {"b": 1}}})",
       {"spec.a.c"}},
      {"an embedded resource keeps its type and metadata, minus unknown metadata fields",
       R"({"type": "object", "properties": {"template": {"type": "object", "x-kubernetes-embedded-resource": true,
           "properties": {"spec": {"type": "object", "properties": {"x": {"type": "integer"}}}}}}})",
       R"({"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "bogus": 1},
           "spec": {"x": 1, "y": 2}, "extra": 3}})",
       R"({"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": 1}}})",
       {"template.extra", "template.metadata.bogus", "template.spec.y"}},
      {"map values are pruned by additionalProperties",
       R"({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "object",
           "properties": {"a": {"type": "integer"}}}}}})",
       R"({"m": {"k": {"a": 1, "b": 2}}})",
       R"({"m": {"k": {"a": 1}}})",
       {"m.k.b"}},
      {"additionalProperties: true keeps the keys but says nothing about nested objects",
       R"({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": true}}})",
       R"({"m": {"a": 1, "b": {"c": 1}}})",
       R"({"m": {"a": 1, "b": {}}})",
       {"m.b.c"}},
      {"pruning comes before defaulting",
       R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {
           "a": {"type": "integer", "default": 1}}}}})",
       R"({"spec": {"b": 2}})",
       R"({"spec": {"a": 1}})",
       {"spec.b"}},
  });
}

TEST_CASE("default_and_prune is prune then apply_defaults", "[schema][default][prune]") {
  const Json schema =
      json(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "a": {"type": "integer", "default": 1}, "b": {"type": "string"}}}}})");
  Json object = json(R"({"spec": {"b": null, "c": 3}})");
  default_and_prune(object, schema);
  CHECK(object == json(R"({"spec": {"a": 1}})"));
}
