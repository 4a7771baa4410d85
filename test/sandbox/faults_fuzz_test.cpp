// Injected faults, and a corpus of broken requests that must get sane 4xx answers.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

TEST_CASE("injected failures hit the next matching requests", "[conformance][faults]") {
  Harness h;
  respool::sandbox::FaultRule rule;
  rule.verb = "list";
  rule.resource = "nodes";
  rule.action = respool::sandbox::FaultRule::Action::TooManyRequests;
  rule.remaining = 2;
  rule.retry_after_seconds = 3;
  h.faults().fail_next(rule);
  REQUIRE(h.get("/api/v1/namespaces").status == 200);
  auto a = h.get("/api/v1/nodes");
  REQUIRE(a.status == 429);
  REQUIRE(a.header("Retry-After") == "3");
  REQUIRE(h.get("/api/v1/nodes").status == 429);
  REQUIRE(h.get("/api/v1/nodes").status == 200);

  auto ctl =
      h.call({"POST",
              "/sandbox/faults",
              R"({"failNext":{"verb":"create","resource":"configmaps","action":"409","count":1}})",
              {{"Content-Type", "application/json"}}});
  REQUIRE(ctl.status == 200);
  Json c = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}}};
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", c).status == 409);
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", c).status == 201);
  REQUIRE(h.call({"POST", "/sandbox/faults", R"({"failNext":{"verb":"get","action":"500"}})", {}})
              .status == 200);
  auto e = h.get("/api/v1/namespaces/default/configmaps/x");
  REQUIRE(e.status == 500);
  REQUIRE(e.json()["reason"] == "InternalError");
  REQUIRE(h.call({"POST", "/sandbox/faults", R"({"bogus":1})", {}}).status == 400);
  Request anon{"POST", "/sandbox/faults", R"({"clear":true})", {}};
  anon.authenticate = false;
  REQUIRE(h.call(anon).status == 403);
}

TEST_CASE("broken requests get 4xx answers, never a crash", "[conformance][fuzz]") {
  Harness h;
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps",
                 {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "t"}}}})
              .status == 201);
  std::string deep(5000, '[');
  std::vector<std::string> bodies = {
      "",
      "{",
      "}",
      "[]",
      "null",
      "42",
      "\"str\"",
      "{\"metadata\":",
      deep,
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":{"a":1}}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":[1]}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":"nope"})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","generation":1e400}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","finalizers":"f"}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","ownerReferences":[1]}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","creationTimestamp":"yesterday"}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":7}})",
      R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}})",
      R"({"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"x"}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"UPPER"}})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","resourceVersion":"5"}})",
      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"\xff\xfe\"}}",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"other"}})",
  };
  for (const std::string& body : bodies) {
    for (const char* method : {"POST", "PUT", "PATCH"}) {
      std::string target = std::string("/api/v1/namespaces/default/configmaps") +
                           (std::string(method) == "POST" ? "" : "/t");
      std::string type =
          std::string(method) == "PATCH" ? "application/merge-patch+json" : "application/json";
      auto r = h.call({method, target, body, {{"Content-Type", type}}});
      INFO(method << " " << body.substr(0, 80) << " -> " << r.status << " "
                  << r.body.substr(0, 200));
      REQUIRE(r.status >= 200);
      REQUIRE(r.status < 500);
      if (r.status >= 400) REQUIRE(r.json()["kind"] == "Status");
    }
  }
  std::vector<std::string> patches = {R"([{"op":"remove","path":"/nope"}])", R"([{"op":"bogus"}])",
                                      R"({"not":"a list"})",
                                      R"([{"op":"test","path":"/data","value":1}])", "[1,2,3]"};
  for (const std::string& p : patches) {
    auto r = h.call({"PATCH",
                     "/api/v1/namespaces/default/configmaps/t",
                     p,
                     {{"Content-Type", "application/json-patch+json"}}});
    INFO(p << " -> " << r.status << " " << r.body);
    REQUIRE(r.status >= 400);
    REQUIRE(r.status < 500);
  }
  std::vector<std::string> targets = {
      "/api/v1/configmaps?limit=-5",
      "/api/v1/configmaps?limit=abc",
      "/api/v1/configmaps?limit=99999999999999999999999",
      "/api/v1/configmaps?labelSelector=%%%",
      "/api/v1/configmaps?fieldSelector=a",
      "/api/v1/configmaps?watch=true&resourceVersion=abc",
      "/api/v1/configmaps?watch=true&timeoutSeconds=xyz",
      "/api/v1/namespaces/default/configmaps/%00",
      "/api/v1/namespaces//configmaps",
      "/apis///",
      "/api/v1/namespaces/default/configmaps/t/x/y/z",
      "/api/v1/configmaps?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTF9"};
  for (const std::string& t : targets) {
    auto r = h.get(t);
    INFO(t << " -> " << r.status << " " << r.body.substr(0, 200));
    REQUIRE(r.status < 500);
  }
  REQUIRE(h.get("/api/v1/namespaces/default/configmaps/t").status == 200);
}
