// CRD validation rules through the API: compiled when the CRD is written, evaluated with the
// object's name and schema errors in one 422; and the answers of DELETE for custom resources.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

namespace {

const char* kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const char* kGadgets = "/apis/cel.example.com/v1/gadgets";

Json gadget_crd(const Json& rules) {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "gadgets.cel.example.com"}}},
          {"spec",
           {{"group", "cel.example.com"},
            {"scope", "Cluster"},
            {"names", {{"plural", "gadgets"}, {"kind", "Gadget"}}},
            {"versions",
             {{{"name", "v1"},
               {"served", true},
               {"storage", true},
               {"schema",
                {{"openAPIV3Schema",
                  {{"type", "object"},
                   {"properties",
                    {{"spec",
                      {{"type", "object"},
                       {"x-kubernetes-validations", rules},
                       {"properties",
                        {{"size", {{"type", "integer"}, {"minimum", 0}}},
                         {"zone", {{"type", "string"}}}}}}}}}}}}}}}}}}};
}

Json gadget(const std::string& name, const Json& spec) {
  return {{"apiVersion", "cel.example.com/v1"},
          {"kind", "Gadget"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

const Json kRules =
    Json::array({{{"rule", "self.size <= 10"}, {"message", "size must be at most 10"}},
                 {{"rule", "self.zone == oldSelf.zone"}, {"message", "zone is immutable"}}});

}  // namespace

TEST_CASE("a malformed rule is refused when the CRD is created", "[crd][cel]") {
  Harness h;
  auto r = h.post(kCrds, gadget_crd(Json::array({{{"rule", "self.size >"}}})));
  REQUIRE(r.status == 422);
  Json cause = r.json()["details"]["causes"][0];
  CHECK(cause["field"] ==
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule");
  CHECK(cause["message"].get<std::string>().find(
            "compilation failed: ERROR: <input>:1:12: Syntax error: mismatched input '<EOF>'") !=
        std::string::npos);
}

TEST_CASE("rules, the name and the schema are checked together in one 422", "[crd][cel]") {
  Harness h;
  REQUIRE(h.post(kCrds, gadget_crd(kRules)).status == 201);
  REQUIRE(h.post(kGadgets, gadget("g1", {{"size", 3}, {"zone", "a"}})).status == 201);

  auto bad = h.post(kGadgets, gadget("Bad_Gadget", {{"size", 11}, {"zone", "a"}}));
  REQUIRE(bad.status == 422);
  CHECK(bad.json()["message"] ==
        "Gadget.cel.example.com \"Bad_Gadget\" is invalid: [metadata.name: Invalid value: "
        "\"Bad_Gadget\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
        "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec: Invalid "
        "value: \"object\": size must be at most 10]");

  // A schema error that blocks the rules: one error says they were not checked.
  auto blocked = h.post(kGadgets, gadget("g2", {{"size", "big"}}));
  REQUIRE(blocked.status == 422);
  auto causes = blocked.json()["details"]["causes"];
  REQUIRE(causes.size() == 2);
  CHECK(causes[0]["reason"] == "FieldValueTypeInvalid");
  CHECK(causes[1]["field"] == "<nil>");

  // Transition rules run on update only.
  auto moved = h.patch(std::string(kGadgets) + "/g1", {{"spec", {{"zone", "b"}}}});
  REQUIRE(moved.status == 422);
  CHECK(moved.json()["details"]["causes"][0]["message"] ==
        "Invalid value: \"object\": zone is immutable");
  REQUIRE(h.patch(std::string(kGadgets) + "/g1", {{"spec", {{"size", 4}}}}).status == 200);
}

TEST_CASE("a rule with a function the sandbox lacks warns, and its objects are refused",
          "[crd][cel]") {
  Harness h;
  auto r = h.post(
      kCrds,
      gadget_crd(Json::array(
          {{{"rule", "has(self.zone) && fieldSelector(self.zone) == fieldSelector(self.zone)"}}})));
  REQUIRE(r.status == 201);
  CHECK(r.header("Warning").find("fieldSelector") != std::string::npos);
  auto refused = h.post(kGadgets, gadget("g1", {{"size", 1}, {"zone", "a"}}));
  REQUIRE(refused.status == 422);
  CHECK(refused.json()["message"].get<std::string>().find("does not evaluate") !=
        std::string::npos);
}

TEST_CASE("DELETE of a custom resource answers a Status, or the object while held",
          "[crd][delete]") {
  Harness h;
  REQUIRE(h.post(kCrds, gadget_crd(kRules)).status == 201);
  auto created = h.post(kGadgets, gadget("g1", {{"size", 1}}));
  REQUIRE(created.status == 201);
  auto gone = h.del(std::string(kGadgets) + "/g1");
  REQUIRE(gone.status == 200);
  Json status = gone.json();
  CHECK(status["kind"] == "Status");
  CHECK(status["status"] == "Success");
  CHECK(status["details"] == Json({{"name", "g1"},
                                   {"group", "cel.example.com"},
                                   {"kind", "gadgets"},
                                   {"uid", created.json()["metadata"]["uid"]}}));

  Json held = gadget("g2", {{"size", 1}});
  held["metadata"]["finalizers"] = {"example.com/hold"};
  REQUIRE(h.post(kGadgets, held).status == 201);
  auto marked = h.del(std::string(kGadgets) + "/g2");
  REQUIRE(marked.status == 200);
  CHECK(marked.json()["kind"] == "Gadget");
  CHECK(marked.json()["metadata"].contains("deletionTimestamp"));
}
