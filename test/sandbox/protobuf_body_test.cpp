// Kubernetes protobuf request bodies (what kubectl's generators and client-go's typed clients
// send) through the API server: the same objects as JSON bodies give, and 400s worded as the
// real server's decoder.

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "harness.hpp"
#include "test/protobuf/wire_builder.hpp"

using namespace respool::sandbox::testing;
using respool::test::k8s_body;
using respool::test::Wire;

namespace {

const std::pair<std::string, std::string> kProtobuf{"Content-Type",
                                                    "application/vnd.kubernetes.protobuf"};

std::string body_file(const std::string& name) {
  std::ifstream in(RESPOOL_SOURCE_DIR "/test/protobuf/bodies/" + name + ".pb", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Reply send(Harness& h, const std::string& method, const std::string& path,
           const std::string& body) {
  return h.call({method,
                 path,
                 body,
                 {kProtobuf,
                  {"Accept",
                   "application/vnd.kubernetes.protobuf,"
                   " application/json"}}});
}

}  // namespace

TEST_CASE("kubectl's protobuf creates store what its JSON would", "[conformance][protobuf]") {
  Harness h;
  auto ns = send(h, "POST", "/api/v1/namespaces", body_file("namespace"));
  REQUIRE(ns.status == 201);
  CHECK(ns.json()["metadata"]["name"] == "team-a");
  CHECK(ns.json()["status"]["phase"] == "Active");

  auto cm = send(h, "POST", "/api/v1/namespaces/team-a/configmaps", body_file("configmap"));
  REQUIRE(cm.status == 201);
  CHECK(cm.header("Content-Type") == "application/json");
  CHECK(cm.json()["data"] == Json{{"level", "3"}, {"mode", "fast"}});

  auto secret = send(h, "POST", "/api/v1/namespaces/team-a/secrets", body_file("secret-generic"));
  REQUIRE(secret.status == 201);
  CHECK(secret.json()["data"]["user"] == "YWRtaW4=");

  auto deploy =
      send(h, "POST", "/apis/apps/v1/namespaces/team-a/deployments", body_file("deployment"));
  REQUIRE(deploy.status == 201);
  Json d = deploy.json();
  CHECK(d["spec"]["replicas"] == 3);
  CHECK(d["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] == 80);
  CHECK(d["spec"]["template"]["spec"]["restartPolicy"] == "Always");  // defaulted as for JSON

  // A PUT with a protobuf body; the stored object is what a GET answers.
  Wire meta = Wire()
                  .str(1, "app-config")
                  .str(3, "team-a")
                  .str(6, cm.json()["metadata"]["resourceVersion"].get<std::string>());
  std::string update = k8s_body("v1", "ConfigMap", Wire().msg(1, meta).entry(2, "mode", "slow"));
  auto put = send(h, "PUT", "/api/v1/namespaces/team-a/configmaps/app-config", update);
  REQUIRE(put.status == 200);
  CHECK(h.get("/api/v1/namespaces/team-a/configmaps/app-config").json()["data"] ==
        Json{{"mode", "slow"}});

  // DELETE with protobuf DeleteOptions, as client-go's typed clients send them.
  std::string opts = k8s_body("v1", "DeleteOptions", Wire().varint(1, 0));
  REQUIRE(send(h, "DELETE", "/api/v1/namespaces/team-a/configmaps/app-config", opts).status == 200);
  CHECK(h.get("/api/v1/namespaces/team-a/configmaps/app-config").status == 404);
}

TEST_CASE("malformed protobuf bodies are 400s worded as the real server's",
          "[conformance][protobuf]") {
  Harness h;
  auto truncated = send(h, "POST", "/api/v1/namespaces/default/configmaps",
                        body_file("configmap").substr(0, 20));
  REQUIRE(truncated.status == 400);
  CHECK(truncated.json()["reason"] == "BadRequest");
  CHECK(truncated.json()["message"] ==
        "the object provided is unrecognized (must be of type ConfigMap): unexpected EOF "
        "(6b3873000a0f0a0276311209436f6e6669674d61)");

  auto wrong_wire = send(h, "POST", "/api/v1/namespaces/default/configmaps",
                         k8s_body("v1", "ConfigMap", Wire().varint(1, 1)));
  REQUIRE(wrong_wire.status == 400);
  CHECK(wrong_wire.json()["message"] ==
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: proto: wrong wireType = 0 "
        "for field ObjectMeta");

  auto empty = send(h, "POST", "/api/v1/namespaces/default/configmaps", "");
  REQUIRE(empty.status == 400);
  CHECK(empty.json()["message"] ==
        "the object provided is unrecognized (must be of type ConfigMap): empty data (<empty>)");
}

TEST_CASE("mutated protobuf bodies through the server: 4xx or success, never 5xx",
          "[conformance][protobuf][fuzz]") {
  Harness h;
  std::mt19937 rng(42);
  const std::pair<const char*, const char*> seeds[] = {
      {"configmap", "/api/v1/namespaces/team-a/configmaps"},
      {"deployment", "/apis/apps/v1/namespaces/team-a/deployments"},
      {"service-nodeport", "/api/v1/namespaces/team-a/services"},
      {"pdb", "/apis/policy/v1/namespaces/team-a/poddisruptionbudgets"}};
  REQUIRE(send(h, "POST", "/api/v1/namespaces", body_file("namespace")).status == 201);
  int ok = 0, bad = 0;
  for (int i = 0; i < 400; ++i) {
    const auto& [name, path] = seeds[rng() % 4];
    std::string body = body_file(name);
    // One to three bytes: with three, nearly every body that still decodes breaks a validation
    // rule (a label turned into a finalizer, a name byte), so few would be taken.
    for (int e = 0, n = 1 + i % 3; e < n; ++e)
      body[rng() % body.size()] = static_cast<char>(rng() & 0xFF);
    auto r = send(h, "POST", path, body);
    INFO(name << " answered " << r.status << ": " << r.body);
    CHECK(r.status < 500);
    if (r.status == 201) ++ok;
    if (r.status == 400) {
      // A body that decodes may still name another namespace than the path (a mutated
      // metadata.namespace); the rest are worded as the real server's transformDecodeError: the
      // kind the envelope named, or (the envelope unreadable) the body's first bytes in hex.
      const std::string message = r.json()["message"];
      if (message.starts_with("the namespace of the provided object does not match")) continue;
      CHECK((message.find(" cannot be handled as a ") != std::string::npos ||
             message.starts_with("the object provided is unrecognized (must be of type ")));
      ++bad;
    }
  }
  CHECK(ok > 0);
  CHECK(bad > 0);
}

TEST_CASE("bodies an endpoint does not decode are 415s listing what it takes",
          "[conformance][protobuf]") {
  Harness h;
  const std::string prefix =
      "the body of the request was in an unknown format - accepted media types include: ";
  auto text = h.call({"POST",
                      "/api/v1/namespaces/default/configmaps",
                      "data: {}",
                      {{"Content-Type", "text/plain"}}});
  REQUIRE(text.status == 415);
  CHECK(text.json()["reason"] == "UnsupportedMediaType");
  CHECK(text.json()["message"] ==
        prefix + "application/json, application/yaml, application/vnd.kubernetes.protobuf");
  // Custom resources take JSON and YAML only, on a real server too.
  REQUIRE(
      h.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", refwidget_crd()).status ==
      201);
  auto cr = send(h, "POST", "/apis/ref.example.com/v1/refwidgets",
                 k8s_body("ref.example.com/v1", "RefWidget", Wire()));
  REQUIRE(cr.status == 415);
  CHECK(cr.json()["message"] == prefix + "application/json, application/yaml");
}
