// Evictions against PodDisruptionBudgets, and the PDB status the sandbox keeps.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "sandbox/apiserver/controllers/pdb.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

namespace {

void ready_pod(Harness& h, const std::string& name, bool ready = true) {
  Json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", {{"app", "db"}}}}},
            {"spec",
             {{"nodeName", "n1"},
              {"terminationGracePeriodSeconds", 0},
              {"containers", {{{"name", "c"}, {"image", "busybox:1"}}}}}}};
  REQUIRE(h.post("/api/v1/namespaces/default/pods", p).status == 201);
  Json status = {{"status",
                  {{"phase", "Running"},
                   {"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
  REQUIRE(h.patch("/api/v1/namespaces/default/pods/" + name + "/status", status).status == 200);
}

Json eviction(const std::string& name) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "Eviction"},
          {"metadata", {{"name", name}, {"namespace", "default"}}}};
}

}  // namespace

TEST_CASE("scaled int-or-percent values round up like the disruption controller", "[pdb]") {
  using respool::sandbox::scaled_value;
  REQUIRE(scaled_value(Json("50%"), 3) == 2);
  REQUIRE(scaled_value(Json("10%"), 5) == 1);
  REQUIRE(scaled_value(Json(2), 10) == 2);
  REQUIRE(scaled_value(Json("x"), 3) == -1);
}

TEST_CASE("a PDB's status follows its pods; evictions honour it", "[conformance][eviction]") {
  Harness h;
  ready_pod(h, "a");
  ready_pod(h, "b");
  Json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "db"}}},
              {"spec", {{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "db"}}}}}}}};
  REQUIRE(h.post("/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb).status == 201);
  Json st = h.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/db").json()["status"];
  REQUIRE(st["currentHealthy"] == 2);
  REQUIRE(st["desiredHealthy"] == 2);
  REQUIRE(st["expectedPods"] == 2);
  REQUIRE(st["disruptionsAllowed"] == 0);
  REQUIRE(st["observedGeneration"] == 1);

  auto refused = h.post("/api/v1/namespaces/default/pods/a/eviction", eviction("a"));
  REQUIRE(refused.status == 429);
  Json s = refused.json();
  REQUIRE(s["reason"] == "TooManyRequests");
  REQUIRE(s["message"] == "Cannot evict pod as it would violate the pod's disruption budget.");
  REQUIRE(s["details"]["causes"][0]["reason"] == "DisruptionBudget");
  REQUIRE(s["details"]["causes"][0]["message"] ==
          "The disruption budget db needs 2 healthy pods and has 2 currently");
  REQUIRE(h.get("/api/v1/namespaces/default/pods/a").status == 200);

  REQUIRE(h.patch("/apis/policy/v1/namespaces/default/poddisruptionbudgets/db",
                  {{"spec", {{"minAvailable", 1}}}})
              .status == 200);
  st = h.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/db").json()["status"];
  REQUIRE(st["disruptionsAllowed"] == 1);
  REQUIRE(st["observedGeneration"] == 2);
  auto ok = h.post("/api/v1/namespaces/default/pods/a/eviction", eviction("a"));
  REQUIRE(ok.status == 201);
  REQUIRE(ok.json() == Json({{"kind", "Status"},
                             {"apiVersion", "v1"},
                             {"metadata", Json::object()},
                             {"status", "Success"},
                             {"code", 201}}));
  REQUIRE(h.get("/api/v1/namespaces/default/pods/a").status == 404);
  st = h.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/db").json()["status"];
  REQUIRE(st["currentHealthy"] == 1);
  REQUIRE(st["disruptionsAllowed"] == 0);
  REQUIRE(h.post("/api/v1/namespaces/default/pods/b/eviction", eviction("b")).status == 429);
}

TEST_CASE("eviction edge cases: name mismatch, unknown pod, no budget, percentages",
          "[conformance][eviction]") {
  Harness h;
  ready_pod(h, "a");
  auto mismatch = h.post("/api/v1/namespaces/default/pods/a/eviction", eviction("other"));
  REQUIRE(mismatch.status == 400);
  REQUIRE(mismatch.json()["message"] == "name in URL does not match name in Eviction object");
  REQUIRE(h.post("/api/v1/namespaces/default/pods/nope/eviction", eviction("nope")).status == 404);

  Json pdb = {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "pct"}}},
      {"spec", {{"maxUnavailable", "50%"}, {"selector", {{"matchLabels", {{"app", "db"}}}}}}}};
  REQUIRE(h.post("/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb).status == 201);
  ready_pod(h, "b");
  ready_pod(h, "c", false);
  Json st = h.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/pct").json()["status"];
  REQUIRE(st["expectedPods"] == 3);
  REQUIRE(st["desiredHealthy"] == 1);  // 3 - ceil(1.5)
  REQUIRE(st["currentHealthy"] == 2);
  REQUIRE(st["disruptionsAllowed"] == 1);
  // An unready pod may go while the budget is healthy.
  REQUIRE(h.post("/api/v1/namespaces/default/pods/c/eviction", eviction("c")).status == 201);

  Json lone = {{"apiVersion", "v1"},
               {"kind", "Pod"},
               {"metadata", {{"name", "lone"}}},
               {"spec", {{"containers", {{{"name", "c"}, {"image", "x:1"}}}}}}};
  REQUIRE(h.post("/api/v1/namespaces/default/pods", lone).status == 201);
  REQUIRE(h.post("/api/v1/namespaces/default/pods/lone/eviction", eviction("lone")).status == 201);
  REQUIRE(h.get("/api/v1/namespaces/default/pods/lone").status == 404);
}
