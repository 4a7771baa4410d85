// CRD lifecycle and custom resources, against k8s-reference/crd-*.txt and cr-*.txt.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "reference.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;
namespace ref = respool::sandbox::testing::reference;

namespace {

const char* kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const char* kWidgets = "/apis/ref.example.com/v1/refwidgets";

Json widget(const std::string& name, const std::string& size, const std::string& color) {
  return {{"apiVersion", "ref.example.com/v1"},
          {"kind", "RefWidget"},
          {"metadata", {{"name", name}, {"labels", {{"app", "ref"}}}}},
          {"spec", {{"size", size}, {"color", color}}}};
}

void install(Harness& h) {
  auto r = h.post(kCrds, refwidget_crd());
  REQUIRE(r.status == 201);
  // The create answer shows the status before the establishing controller ran.
  REQUIRE(r.json()["status"]["conditions"].is_null());
  REQUIRE(r.json()["status"]["storedVersions"] == Json::array({"v1"}));
  REQUIRE(r.json()["metadata"]["generation"] == 1);
}

}  // namespace

TEST_CASE("a CRD is established at once and serves its resources", "[conformance][crd]") {
  Harness h;
  install(h);
  Json crd = h.get(std::string(kCrds) + "/refwidgets.ref.example.com").json();
  Json want = Json::parse(ref::kCrdEstablished);
  REQUIRE(crd["status"]["acceptedNames"] == want["status"]["acceptedNames"]);
  REQUIRE(crd["status"]["storedVersions"] == want["status"]["storedVersions"]);
  REQUIRE(crd["status"]["conditions"].size() == 2);
  for (int i = 0; i < 2; ++i) {
    for (const char* k : {"type", "status", "reason", "message"}) {
      REQUIRE(crd["status"]["conditions"][i][k] == want["status"]["conditions"][i][k]);
    }
  }
  REQUIRE(crd["spec"]["conversion"] == Json({{"strategy", "None"}}));

  auto gv = h.get("/apis/ref.example.com/v1", "application/json, */*");
  REQUIRE(gv.status == 200);
  REQUIRE(gv.json() == Json::parse(ref::kCrGroupVersionDiscovery));
}

TEST_CASE("custom resources are defaulted, validated and answer the real Status bodies",
          "[conformance][crd]") {
  Harness h;
  install(h);
  auto created = h.post(kWidgets, widget("ref-w1", "medium", "blue"));
  REQUIRE(created.status == 201);
  Json want = Json::parse(ref::kCrCreated);
  REQUIRE(created.json()["spec"] == want["spec"]);
  REQUIRE(created.json()["metadata"]["generation"] == 1);

  auto bad = h.post(kWidgets, {{"apiVersion", "ref.example.com/v1"},
                               {"kind", "RefWidget"},
                               {"metadata", {{"name", "ref-bad"}}},
                               {"spec", {{"size", "huge"}, {"color", "Blue1"}}}});
  REQUIRE(bad.status == 422);
  require_same_status(bad.json(), Json::parse(ref::kCrEnumPattern422));

  auto missing = h.get(std::string(kWidgets) + "/ref-missing");
  REQUIRE(missing.status == 404);
  require_same_status(missing.json(), Json::parse(ref::kNotFoundCr));

  auto smp = h.patch(std::string(kWidgets) + "/ref-w1", {{"spec", {{"replicas", 2}}}},
                     "application/strategic-merge-patch+json");
  REQUIRE(smp.status == 415);
  require_same_status(smp.json(), Json::parse(ref::kSmpOnCr415));
}

TEST_CASE("custom resources reject PUT without resourceVersion; /status changes only status",
          "[conformance][crd][status]") {
  Harness h;
  install(h);
  REQUIRE(h.post(kWidgets, widget("ref-w2", "large", "red")).status == 201);
  Json body = widget("ref-w2", "large", "red");
  body["status"] = {{"replicas", 3}, {"selector", "app=ref"}, {"phase", "Ready"}};
  auto norv = h.put(std::string(kWidgets) + "/ref-w2/status", body);
  REQUIRE(norv.status == 422);
  require_same_status(norv.json(), Json::parse(ref::kCrPutWithoutRv422));

  Json current = h.get(std::string(kWidgets) + "/ref-w2").json();
  current["spec"]["replicas"] = 9;
  current["status"] = body["status"];
  auto put = h.put(std::string(kWidgets) + "/ref-w2/status", current);
  REQUIRE(put.status == 200);
  REQUIRE(put.json()["spec"]["replicas"] == 1);
  REQUIRE(put.json()["status"]["phase"] == "Ready");
  REQUIRE(put.json()["metadata"]["generation"] == 1);
  REQUIRE(put.json()["metadata"]["resourceVersion"] != current["metadata"]["resourceVersion"]);

  // The main endpoint ignores status and bumps generation for spec changes only.
  Json main = put.json();
  main["status"]["phase"] = "Broken";
  main["spec"]["replicas"] = 3;
  auto upd = h.put(std::string(kWidgets) + "/ref-w2", main);
  REQUIRE(upd.status == 200);
  REQUIRE(upd.json()["status"]["phase"] == "Ready");
  REQUIRE(upd.json()["metadata"]["generation"] == 2);

  auto scale = h.get(std::string(kWidgets) + "/ref-w2/scale");
  REQUIRE(scale.status == 200);
  REQUIRE(scale.json()["kind"] == "Scale");
  REQUIRE(scale.json()["apiVersion"] == "autoscaling/v1");
  REQUIRE(scale.json()["spec"] == Json({{"replicas", 3}}));
  REQUIRE(scale.json()["status"] == Json({{"replicas", 3}, {"selector", "app=ref"}}));

  auto scaled = h.patch(std::string(kWidgets) + "/ref-w2/scale", {{"spec", {{"replicas", 5}}}});
  REQUIRE(scaled.status == 200);
  REQUIRE(scaled.json()["spec"]["replicas"] == 5);
  REQUIRE(h.get(std::string(kWidgets) + "/ref-w2").json()["spec"]["replicas"] == 5);
}

TEST_CASE("CR Tables carry the printer columns", "[conformance][crd][tables]") {
  Harness h;
  install(h);
  REQUIRE(h.post(kWidgets, widget("ref-w1", "medium", "blue")).status == 201);
  auto t = h.get(std::string(kWidgets) + "?limit=500",
                 "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
                 "g=meta.k8s.io,application/json");
  REQUIRE(t.status == 200);
  Json want = Json::parse(ref::kCrTable);
  REQUIRE(t.json()["kind"] == "Table");
  REQUIRE(t.json()["columnDefinitions"] == want["columnDefinitions"]);
  REQUIRE(t.json()["rows"][0]["cells"] == want["rows"][0]["cells"]);
  REQUIRE(t.json()["rows"][0]["object"]["kind"] == "PartialObjectMetadata");
}

TEST_CASE("deleting a CRD deletes its objects and stops serving them", "[conformance][crd]") {
  Harness h;
  install(h);
  REQUIRE(h.post(kWidgets, widget("ref-w1", "medium", "blue")).status == 201);
  auto d = h.del(std::string(kCrds) + "/refwidgets.ref.example.com");
  REQUIRE(d.status == 200);
  REQUIRE(h.get(std::string(kCrds) + "/refwidgets.ref.example.com").status == 404);
  REQUIRE(h.get(kWidgets).status == 404);
  REQUIRE(h.get("/apis/ref.example.com/v1").status == 404);
  // Created again, it starts empty.
  install(h);
  REQUIRE(h.get(kWidgets).json()["items"].empty());
}

TEST_CASE("Strict field validation refuses unknown fields of a CR; Warn warns",
          "[conformance][crd]") {
  Harness h;
  install(h);
  Json w = widget("ref-w1", "small", "red");
  w["spec"]["bogus"] = 1;
  auto strict = h.call({"POST",
                        std::string(kWidgets) + "?fieldValidation=Strict",
                        w.dump(),
                        {{"Content-Type", "application/json"}}});
  REQUIRE(strict.status == 400);
  // Worded as the real server's decode errors (transformDecodeError around the strict errors).
  REQUIRE(strict.json()["message"] ==
          "RefWidget in version \"v1\" cannot be handled as a RefWidget: strict decoding error: "
          "unknown field \"spec.bogus\"");
  auto warn = h.post(kWidgets, w);
  REQUIRE(warn.status == 201);
  REQUIRE(warn.header("Warning") == "299 - \"unknown field \\\"spec.bogus\\\"\"");
  REQUIRE_FALSE(warn.json()["spec"].contains("bogus"));
}
