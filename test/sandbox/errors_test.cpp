// Status answers compared field by field with the real kube-apiserver's (k8s-reference/err-*).

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "reference.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;
namespace ref = respool::sandbox::testing::reference;

namespace {

void make_namespace(Harness& h, const std::string& name) {
  auto r = h.post("/api/v1/namespaces",
                  {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}});
  REQUIRE(r.status == 201);
}

Json configmap(const std::string& name, const std::string& value = "v") {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}}},
          {"data", {{"k", value}}}};
}

}  // namespace

TEST_CASE("missing objects answer 404 NotFound with the plural resource as details.kind",
          "[conformance][errors]") {
  Harness h;
  make_namespace(h, "ref-capture");
  auto r = h.get("/api/v1/namespaces/ref-capture/configmaps/ref-missing");
  REQUIRE(r.status == 404);
  REQUIRE(r.header("Content-Type") == "application/json");
  require_same_status(r.json(), Json::parse(ref::kNotFoundCm));
}

TEST_CASE("unknown paths answer text/plain 404 page not found", "[conformance][errors]") {
  Harness h;
  for (const char* path : {"/apis/nosuch.example.com/v1", "/apis/apps/v1/nosuchthings",
                           "/api/v1/nodes/x/nosuchsub", "/nowhere"}) {
    auto r = h.get(path);
    INFO(path);
    REQUIRE(r.status == 404);
    REQUIRE(r.header("Content-Type") == "text/plain; charset=utf-8");
    REQUIRE(r.body == "404 page not found\n");
  }
}

TEST_CASE("create of an existing name is 409 AlreadyExists; a stale update 409 Conflict",
          "[conformance][errors]") {
  Harness h;
  make_namespace(h, "ref-capture");
  REQUIRE(h.post("/api/v1/namespaces/ref-capture/configmaps", configmap("ref-cm")).status == 201);
  auto again = h.post("/api/v1/namespaces/ref-capture/configmaps", configmap("ref-cm"));
  REQUIRE(again.status == 409);
  require_same_status(again.json(), Json::parse(ref::kAlreadyExists));

  Json current = h.get("/api/v1/namespaces/ref-capture/configmaps/ref-cm").json();
  Json stale = current;
  current["data"]["k"] = "v2";
  REQUIRE(h.put("/api/v1/namespaces/ref-capture/configmaps/ref-cm", current).status == 200);
  stale["data"]["k"] = "v3";
  auto conflict = h.put("/api/v1/namespaces/ref-capture/configmaps/ref-cm", stale);
  REQUIRE(conflict.status == 409);
  require_same_status(conflict.json(), Json::parse(ref::kConflict));
}

TEST_CASE("built-ins allow PUT without resourceVersion", "[conformance][errors]") {
  Harness h;
  make_namespace(h, "ref-capture");
  REQUIRE(h.post("/api/v1/namespaces/ref-capture/configmaps", configmap("ref-cm")).status == 201);
  auto r = h.put("/api/v1/namespaces/ref-capture/configmaps/ref-cm", configmap("ref-cm", "put"));
  REQUIRE(r.status == 200);
  REQUIRE(r.json()["data"]["k"] == "put");
  REQUIRE(r.json()["metadata"]["namespace"] == "ref-capture");
}

TEST_CASE("malformed JSON is 400 BadRequest worded as the decoder", "[conformance][errors]") {
  Harness h;
  make_namespace(h, "ref-capture");
  auto r = h.call({"POST",
                   "/api/v1/namespaces/ref-capture/configmaps",
                   R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x")",
                   {{"Content-Type", "application/json"}}});
  REQUIRE(r.status == 400);
  require_same_status(r.json(), Json::parse(ref::kMalformed400));
}

TEST_CASE("POST to an item is 405; an unacceptable Accept 406", "[conformance][errors]") {
  Harness h;
  make_namespace(h, "ref-capture");
  auto r = h.post("/api/v1/namespaces/ref-capture/configmaps/ref-cm", configmap("ref-cm"));
  REQUIRE(r.status == 405);
  require_same_status(r.json(), Json::parse(ref::kMethodNotAllowed405));
  auto na = h.get("/api/v1/namespaces/ref-capture/configmaps/ref-cm", "application/xml");
  REQUIRE(na.status == 406);
  require_same_status(na.json(), Json::parse(ref::kNotAcceptable406));
  // protobuf falls back to JSON
  REQUIRE(
      h.get("/api/v1/namespaces", "application/vnd.kubernetes.protobuf,application/json").status ==
      200);
  REQUIRE(h.get("/api/v1/namespaces", "application/vnd.kubernetes.protobuf").status == 200);
}

TEST_CASE("PATCH with text/plain or application/json is 415", "[conformance][errors]") {
  Harness h;
  make_namespace(h, "ref-capture");
  REQUIRE(h.post("/api/v1/namespaces/ref-capture/configmaps", configmap("ref-cm")).status == 201);
  for (const char* type : {"text/plain", "application/json"}) {
    auto r = h.patch("/api/v1/namespaces/ref-capture/configmaps/ref-cm", {{"data", {{"k", "v4"}}}},
                     type);
    INFO(type);
    REQUIRE(r.status == 415);
    require_same_status(r.json(), Json::parse(ref::kUnsupported415));
  }
}

TEST_CASE("no token is 403 for system:anonymous, a bad token 401", "[conformance][auth]") {
  Harness h;
  Request anon{"GET", "/api/v1/namespaces", "", {{"Accept", "application/json"}}};
  anon.authenticate = false;
  auto r = h.call(anon);
  REQUIRE(r.status == 403);
  require_same_status(r.json(), Json::parse(ref::kForbidden403));

  Request bad{"GET", "/api/v1/namespaces", "", {{"Accept", "application/json"}}};
  bad.token = "wrong";
  auto u = h.call(bad);
  REQUIRE(u.status == 401);
  require_same_status(u.json(), Json::parse(ref::kUnauthorized401));
  REQUIRE_FALSE(u.headers.has("X-Kubernetes-Pf-Flowschema-Uid"));

  // system:public-info-viewer lets anonymous read /version and health; discovery needs a user.
  for (const char* open : {"/version", "/healthz", "/livez", "/readyz"}) {
    Request o{"GET", open, "", {}};
    o.authenticate = false;
    INFO(open);
    REQUIRE(h.call(o).status == 200);
  }
  Request disc{"GET", "/apis", "", {}};
  disc.authenticate = false;
  auto d = h.call(disc);
  REQUIRE(d.status == 403);
  REQUIRE(d.json()["message"] == "forbidden: User \"system:anonymous\" cannot get path \"/apis\"");
  REQUIRE(d.json()["details"] == Json::object());
}

TEST_CASE("a body over the limit is 413", "[conformance][errors]") {
  Harness h;
  Request big{"POST", "/api/v1/namespaces/default/configmaps", "", {}};
  big.too_large = true;
  auto r = h.call(big);
  REQUIRE(r.status == 413);
  REQUIRE(r.json()["reason"] == "RequestEntityTooLarge");
  REQUIRE(r.json()["message"] == "Request entity too large: limit is 3145728");
}

TEST_CASE("creating in a missing namespace is 404 namespaces not found", "[conformance][errors]") {
  Harness h;
  auto r = h.post("/api/v1/namespaces/nope/configmaps", configmap("a"));
  REQUIRE(r.status == 404);
  REQUIRE(r.json()["message"] == "namespaces \"nope\" not found");
  REQUIRE(r.json()["details"] == Json({{"name", "nope"}, {"kind", "namespaces"}}));
}

TEST_CASE("unsupported field selectors are 400 with the real message", "[conformance][selectors]") {
  Harness h;
  auto r = h.get("/api/v1/pods?fieldSelector=status.hostIP%3D1.2.3.4");
  REQUIRE(r.status == 400);
  REQUIRE(r.json()["message"] == "field label not supported: status.hostIP");
  REQUIRE(h.get("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1").status == 200);
  REQUIRE(h.get("/api/v1/events?fieldSelector=involvedObject.name%3Dx").status == 200);
  REQUIRE(h.get("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse").status == 200);
  REQUIRE(h.get("/api/v1/pods?labelSelector=a+in+(").status == 400);
}
