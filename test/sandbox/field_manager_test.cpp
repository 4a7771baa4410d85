// The field manager of server-side apply without the API server: field sets and FieldsV1,
// ownership by list type and map keys, updates, applies, conflicts and removal of fields a
// manager stopped applying (sandbox/fieldmanager).

#include <catch2/catch.hpp>

#include "sandbox/fieldmanager/managers.hpp"
#include "sandbox/fieldmanager/typed.hpp"

using namespace respool::sandbox::fields;

namespace {

// A custom resource's schema: a struct spec with a granular map, an associative list keyed
// by name, a set, and an atomic list (a CRD's default).
Schema widget_schema() {
  Json root = R"({
    "type": "object",
    "properties": {
      "apiVersion": {"type": "string"}, "kind": {"type": "string"},
      "metadata": {"type": "object"},
      "spec": {"type": "object", "properties": {
        "size": {"type": "integer"}, "color": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name", "protocol"],
                  "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "port": {"type": "integer"},
                    "protocol": {"type": "string", "default": "TCP"}}}},
        "zones": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "tolerations": {"type": "array", "items": {"type": "object"}}
      }},
      "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
    }})"_json;
  Json defs = R"({"ObjectMeta": {"type": "object", "properties": {
    "name": {"type": "string"},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}})"_json;
  return Schema(root, std::make_shared<const Json>(defs), "ObjectMeta");
}

Json widget(const Json& spec) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", "w"}}},
          {"spec", spec}};
}

Writer writer(const std::string& manager, const std::string& operation) {
  Writer w;
  w.entry.manager = manager;
  w.entry.operation = operation;
  w.entry.api_version = "example.com/v1";
  w.entry.time = "2026-01-01T00:00:00Z";
  return w;
}

const ManagedEntry* entry(const std::vector<ManagedEntry>& m, const std::string& manager) {
  for (const ManagedEntry& e : m)
    if (e.manager == manager) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("FieldsV1 encodes members with '.' and reads back the same set", "[fieldmanager]") {
  FieldSet s;
  s.insert({"f:data"});
  s.insert({"f:data", "f:k"});
  s.insert({"f:spec", "f:taints", R"(k:{"effect":"NoSchedule","key":"a"})"});
  Json v1 = s.to_fields_v1();
  CHECK(v1 == R"({"f:data": {".": {}, "f:k": {}},
                  "f:spec": {"f:taints": {"k:{\"effect\":\"NoSchedule\",\"key\":\"a\"}": {}}}})"_json);
  CHECK(FieldSet::from_fields_v1(v1) == s);
  CHECK(path_string({"f:spec", "f:taints", R"(k:{"effect":"NoSchedule","key":"a"})", "f:value"}) ==
        R"(.spec.taints[effect="NoSchedule",key="a"].value)");
  CHECK(path_string({"f:metadata", "f:finalizers", R"(v:"x")"}) == R"(.metadata.finalizers[="x"])");
}

TEST_CASE("set algebra: union, difference, intersection, recursive difference", "[fieldmanager]") {
  FieldSet a, b;
  a.insert({"f:spec", "f:x"});
  a.insert({"f:spec", "f:y"});
  b.insert({"f:spec", "f:y"});
  b.insert({"f:status", "f:phase"});
  CHECK(a.minus(b).paths() == std::vector<Path>{{"f:spec", "f:x"}});
  CHECK(a.intersected(b).paths() == std::vector<Path>{{"f:spec", "f:y"}});
  CHECK(a.united(b).paths().size() == 3);
  FieldSet spec;
  spec.insert({"f:spec"});
  CHECK(a.united(b).minus_recursive(spec).paths() == std::vector<Path>{{"f:status", "f:phase"}});
}

TEST_CASE("an object's fields follow the schema's list types and map keys", "[fieldmanager]") {
  Json obj = widget({{"size", 3},
                     {"labels", {{"tier", "gold"}}},
                     {"ports", {{{"name", "http"}, {"port", 80}}}},
                     {"zones", {"a", "b"}},
                     {"tolerations", {{{"key", "x"}}}}});
  Json v1 = to_field_set(widget_schema(), obj).to_fields_v1();
  // Struct fields with content are implied by their children; list items and map entries are
  // members; the atomic list is one leaf; a key left out takes the schema's default.
  CHECK(v1["f:spec"] == R"({
    "f:size": {}, "f:labels": {"f:tier": {}},
    "f:ports": {"k:{\"name\":\"http\",\"protocol\":\"TCP\"}": {".": {}, "f:name": {}, "f:port": {}}},
    "f:zones": {"v:\"a\"": {}, "v:\"b\"": {}},
    "f:tolerations": {}})"_json);
}

TEST_CASE("updates own what they add or change, as the real server's Update entries",
          "[fieldmanager]") {
  Schema schema = widget_schema();
  std::vector<ManagedEntry> managers;
  Json empty = Json::object();
  Json created = widget({{"size", 1}, {"color", "red"}});
  record_update(schema, managers, &empty, created, writer("creator", "Update"));
  REQUIRE(managers.size() == 1);
  // A create from nothing adds spec itself: FieldsV1 marks it with '.'.
  CHECK(managers[0].fields.to_fields_v1() ==
        R"({"f:spec": {".": {}, "f:color": {}, "f:size": {}}})"_json);

  Json edited = created;
  edited["spec"]["size"] = 2;
  edited["metadata"]["labels"] = {{"x", "y"}};
  record_update(schema, managers, &created, edited, writer("editor", "Update"));
  CHECK(entry(managers, "creator")->fields.to_fields_v1() ==
        R"({"f:spec": {".": {}, "f:color": {}}})"_json);
  CHECK(entry(managers, "editor")->fields.to_fields_v1() ==
        R"({"f:metadata": {"f:labels": {".": {}, "f:x": {}}}, "f:spec": {"f:size": {}}})"_json);
}

TEST_CASE("apply merges, conflicts with other owners, and force takes ownership",
          "[fieldmanager]") {
  Schema schema = widget_schema();
  std::vector<ManagedEntry> managers;
  Json config = widget({{"size", 1}, {"ports", {{{"name", "http"}, {"port", 80}}}}});
  auto first = apply(schema, managers, nullptr, config, writer("kubectl", "Apply"), false);
  REQUIRE(first.conflicts.empty());
  CHECK(entry(managers, "kubectl")->fields.to_fields_v1()["f:spec"].contains("f:size"));

  // The same value from another manager is shared ownership, not a conflict.
  Json same = widget({{"size", 1}});
  auto shared = apply(schema, managers, &first.object, same, writer("other", "Apply"), false);
  REQUIRE(shared.conflicts.empty());
  CHECK(entry(managers, "kubectl")->fields.has({"f:spec", "f:size"}));
  CHECK(entry(managers, "other")->fields.has({"f:spec", "f:size"}));

  // A changed value owned by kubectl: refused, the field named.
  Json other = widget({{"size", 5}, {"color", "blue"}});
  auto refused = apply(schema, managers, &shared.object, other, writer("other", "Apply"), false);
  REQUIRE(refused.conflicts.size() == 1);
  CHECK(conflict_message(refused.conflicts) ==
        "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.size");

  auto forced = apply(schema, managers, &shared.object, other, writer("other", "Apply"), true);
  REQUIRE(forced.conflicts.empty());
  CHECK(forced.object["spec"]["size"] == 5);
  CHECK(forced.object["spec"]["ports"][0]["port"] == 80);  // kubectl's item kept
  CHECK_FALSE(entry(managers, "kubectl")->fields.has({"f:spec", "f:size"}));
  CHECK(entry(managers, "other")->fields.has({"f:spec", "f:color"}));
}

TEST_CASE("apply removes what the manager no longer applies unless another owns it",
          "[fieldmanager]") {
  Schema schema = widget_schema();
  std::vector<ManagedEntry> managers;
  Json v1 = widget({{"size", 1}, {"color", "red"}, {"labels", {{"a", "1"}, {"b", "2"}}}});
  auto one = apply(schema, managers, nullptr, v1, writer("kubectl", "Apply"), false);
  Json co = widget({{"color", "red"}});  // the same value: shared ownership
  auto shared = apply(schema, managers, &one.object, co, writer("other", "Apply"), false);
  REQUIRE(shared.conflicts.empty());
  Json edit = shared.object;
  edit["spec"]["labels"]["b"] = "3";
  record_update(schema, managers, &shared.object, edit, writer("kubectl-edit", "Update"));

  Json v2 = widget({{"size", 1}});  // color and both labels no longer applied
  auto two = apply(schema, managers, &edit, v2, writer("kubectl", "Apply"), false);
  REQUIRE(two.conflicts.empty());
  CHECK(two.object["spec"]["color"] == "red");                // "other" applies it too
  CHECK(two.object["spec"]["labels"] == Json({{"b", "3"}}));  // kubectl-edit owns b
  CHECK(entry(managers, "kubectl")->fields.to_fields_v1() == R"({"f:spec": {"f:size": {}}})"_json);
}

TEST_CASE("conflicts with several managers are listed by manager", "[fieldmanager]") {
  std::vector<Conflict> conflicts = {
      {"\"b\" using v1", {"f:spec", "f:x"}},
      {"\"a\"", {"f:spec", "f:y"}},
      {"\"a\"", {"f:spec", "f:z"}},
  };
  CHECK(conflict_message(conflicts) ==
        "Apply failed with 3 conflicts: conflicts with \"a\":\n- .spec.y\n- .spec.z\n"
        "conflicts with \"b\" using v1:\n- .spec.x");
  ManagedEntry e;
  e.manager = "kubectl-edit";
  e.operation = "Update";
  e.api_version = "v1";
  e.subresource = "status";
  CHECK(e.describe() == "\"kubectl-edit\" with subresource \"status\" using v1");
}
