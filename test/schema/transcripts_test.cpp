// The RefWidget CRD and custom resources of /work/shared/k8s-reference, reproduced: the
// schema the real server accepted, its defaults, and its 422 causes (without the scale
// subresource's ".spec.replicas" cause, which the API server adds).

#include <algorithm>

#include "schema_test_util.hpp"

using namespace schema_test;
using namespace respool::sandbox::schema;

namespace {

// crd-create.txt, spec.versions[0].schema.openAPIV3Schema.
const Json& ref_widget_schema() {
  static const Json schema = json(R"({
    "type": "object",
    "description": "RefWidget is a reference widget",
    "properties": {
      "spec": {
        "type": "object",
        "required": ["size", "color"],
        "description": "Desired state",
        "properties": {
          "size": {"type": "string", "enum": ["small", "medium", "large"], "description": "Widget size"},
          "color": {"type": "string", "pattern": "^[a-z]+$", "description": "lower-case colour name"},
          "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1},
          "mode": {"type": "string", "default": "auto", "enum": ["auto", "manual"]},
          "labels": {"type": "object", "additionalProperties": {"type": "string"}, "default": {"tier": "ref"}}
        }
      },
      "status": {
        "type": "object",
        "properties": {
          "replicas": {"type": "integer", "format": "int32"},
          "selector": {"type": "string"},
          "phase": {"type": "string"}
        }
      }
    }
  })");
  return schema;
}

Json ref_widget(const char* spec) {
  Json object = json(R"({"apiVersion": "ref.example.com/v1", "kind": "RefWidget",
                         "metadata": {"name": "ref-bad"}})");
  object["spec"] = json(spec);
  return object;
}

std::vector<FieldError> admit(Json& object) {
  default_and_prune(object, ref_widget_schema());
  return validate(object, ref_widget_schema());
}

}  // namespace

TEST_CASE("the RefWidget schema is structural, as the real server accepted it",
          "[schema][transcript]") {
  CHECK(check_structural(ref_widget_schema(), "spec.versions[0].schema.openAPIV3Schema").empty());
}

TEST_CASE("cr-create-defaulting: replicas, mode and labels come from the schema",
          "[schema][transcript]") {
  Json object = json(R"({"apiVersion": "ref.example.com/v1", "kind": "RefWidget",
                         "metadata": {"name": "ref-w1", "labels": {"app": "ref"}},
                         "spec": {"size": "medium", "color": "blue"}})");
  CHECK(prune(object, ref_widget_schema()).empty());
  apply_defaults(object, ref_widget_schema());
  CHECK(object == json(R"({"apiVersion": "ref.example.com/v1", "kind": "RefWidget",
                           "metadata": {"name": "ref-w1", "labels": {"app": "ref"}},
                           "spec": {"color": "blue", "labels": {"tier": "ref"}, "mode": "auto",
                                    "replicas": 1, "size": "medium"}})"));
  CHECK(validate(object, ref_widget_schema()).empty());
}

TEST_CASE("err-422-cr-enum-pattern-required: minimum, enum and required, in the server's order",
          "[schema][transcript]") {
  Json object = ref_widget(R"({"size": "huge", "replicas": -1})");
  const std::vector<FieldError> expected = {
      {"FieldValueInvalid", "spec.replicas",
       "Invalid value: -1: spec.replicas in body should be greater than or equal to 0"},
      {"FieldValueNotSupported", "spec.size",
       R"(Unsupported value: "huge": supported values: "small", "medium", "large")"},
      {"FieldValueRequired", "spec.color", "Required value"},
  };
  CHECK(admit(object) == expected);
}

TEST_CASE("err-422-cr-enum-pattern: enum and pattern", "[schema][transcript]") {
  Json object = ref_widget(R"({"size": "huge", "color": "Blue1"})");
  // The real server listed spec.size first: sibling properties come out of a Go map there, in
  // random order (the other transcript has spec.replicas before spec.size, so no fixed order
  // matches both). Here they come in sorted order.
  const std::vector<FieldError> transcript = {
      {"FieldValueNotSupported", "spec.size",
       R"(Unsupported value: "huge": supported values: "small", "medium", "large")"},
      {"FieldValueInvalid", "spec.color",
       R"(Invalid value: "Blue1": spec.color in body should match '^[a-z]+$')"},
  };
  const auto causes = admit(object);
  CHECK(std::is_permutation(causes.begin(), causes.end(), transcript.begin(), transcript.end()));
  CHECK(causes == std::vector<FieldError>{transcript[1], transcript[0]});
}
