// Unknown fields of built-in kinds through the API server: dropped from what is stored, refused
// by fieldValidation=Strict with the real server's words, warned of by Warn (the default),
// silent with Ignore; on create, update and patch, and before an Event is converted to the
// version it is stored in.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;

namespace {

Json deployment(const std::string& name) {
  return Json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": ")" +
                     name + R"("},
    "spec": {"replicaz": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "web", "image": "nginx",
                                                   "portz": [80]}]}}}})");
}

Reply send(Harness& h, const std::string& method, const std::string& target, const Json& body) {
  return h.call({method, target, body.dump(), {{"Content-Type", "application/json"}}});
}

const char* kDeployments = "/apis/apps/v1/namespaces/default/deployments";

// Every Warning header of an answer, in order.
std::vector<std::string> warnings(const Reply& r) {
  std::vector<std::string> out;
  for (const auto& [name, value] : r.headers.fields()) {
    if (respool::http::iequals(name, "Warning")) out.push_back(value);
  }
  return out;
}

}  // namespace

TEST_CASE("Strict refuses unknown fields of built-in kinds as a real server",
          "[conformance][unknown-fields]") {
  Harness h;
  auto strict =
      send(h, "POST", std::string(kDeployments) + "?fieldValidation=Strict", deployment("web"));
  REQUIRE(strict.status == 400);
  CHECK(strict.json()["reason"] == "BadRequest");
  CHECK(strict.json()["message"] ==
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: "
        "unknown field \"spec.replicaz\", unknown field "
        "\"spec.template.spec.containers[0].portz\"");
  CHECK(h.get(std::string(kDeployments) + "/web").status == 404);
}

TEST_CASE("Warn (the default) stores the object without them and warns of each",
          "[conformance][unknown-fields]") {
  Harness h;
  auto created = h.post(kDeployments, deployment("web"));
  REQUIRE(created.status == 201);
  CHECK(warnings(created) ==
        std::vector<std::string>{
            "299 - \"unknown field \\\"spec.replicaz\\\"\"",
            "299 - \"unknown field \\\"spec.template.spec.containers[0].portz\\\"\""});
  Json stored = h.get(std::string(kDeployments) + "/web").json();
  CHECK_FALSE(stored["spec"].contains("replicaz"));
  CHECK_FALSE(stored["spec"]["template"]["spec"]["containers"][0].contains("portz"));
  CHECK(stored["spec"]["replicas"] == 1);  // defaulted: the typo set nothing

  // An update and a merge patch drop them too.
  stored["spec"]["paused"] = true;
  stored["spec"]["pausd"] = true;
  auto put = h.put(std::string(kDeployments) + "/web", stored);
  REQUIRE(put.status == 200);
  CHECK(put.header("Warning") == "299 - \"unknown field \\\"spec.pausd\\\"\"");
  CHECK_FALSE(put.json()["spec"].contains("pausd"));
  auto patched = h.patch(std::string(kDeployments) + "/web?fieldValidation=Ignore",
                         {{"spec", {{"minReadySecondz", 5}}}});
  REQUIRE(patched.status == 200);
  CHECK(warnings(patched).empty());
  CHECK_FALSE(patched.json()["spec"].contains("minReadySecondz"));
}

TEST_CASE("fields of the served version count, before conversion to the stored one",
          "[conformance][unknown-fields]") {
  Harness h;
  // events.k8s.io/v1 names core/v1's `message` `note`: `message` is unknown there.
  Json ev = {{"apiVersion", "events.k8s.io/v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "e1"}}},
             {"regarding", {{"kind", "Node"}, {"name", "n1"}}},
             {"note", "kept"},
             {"message", "dropped"},
             {"reason", "R"},
             {"type", "Normal"},
             {"action", "A"},
             {"reportingController", "x"},
             {"reportingInstance", "y"},
             {"eventTime", "2026-01-01T00:00:00.000000Z"}};
  auto created = h.post("/apis/events.k8s.io/v1/namespaces/default/events", ev);
  REQUIRE(created.status == 201);
  CHECK(created.header("Warning") == "299 - \"unknown field \\\"message\\\"\"");
  CHECK(h.get("/api/v1/namespaces/default/events/e1").json()["message"] == "kept");
}
