// Protobuf bodies decoded into the JSON a Go client's JSON body holds, and the Go decoder's
// errors for malformed ones.

#include <catch2/catch.hpp>

#include <fstream>

#include "sandbox/protobuf/decode.hpp"
#include "test/protobuf/wire_builder.hpp"

using respool::sandbox::protobuf::ApiTable;
using respool::sandbox::protobuf::decode_body;
using respool::sandbox::protobuf::decode_message;
using respool::sandbox::protobuf::GroupVersionKind;
using respool::sandbox::protobuf::Json;
using respool::test::k8s_body;
using respool::test::Wire;

namespace {

const GroupVersionKind kPodDefaults{"", "v1", "Pod"};

Json decode(const std::string& body, const GroupVersionKind& defaults = kPodDefaults) {
  auto out = decode_body(body, defaults);
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  return *out;
}

std::string error_of(const std::string& body, const GroupVersionKind& defaults = kPodDefaults) {
  auto out = decode_body(body, defaults);
  REQUIRE_FALSE(out);
  return out.error().message;
}

// ObjectMeta as go-to-protobuf writes it: every non-pointer field, empty or not.
Wire object_meta(std::string_view name, std::string_view ns = "") {
  return Wire()
      .str(1, name)
      .str(2, "")
      .str(3, ns)
      .str(4, "")
      .str(5, "")
      .str(6, "")
      .varint(7, 0)
      .msg(8, Wire())
      .str(16, "");
}

}  // namespace

TEST_CASE("a Pod as a Go client sends it decodes to the JSON of its Go value") {
  Wire container = Wire().str(1, "app").str(2, "nginx:1.27").msg(8, Wire()).str(13, "").str(14, "");
  Wire spec = Wire().msg(2, container).str(3, "").str(6, "").str(19, "").varint(11, 0);
  std::string body =
      k8s_body("v1", "Pod", Wire().msg(1, object_meta("p", "ns")).msg(2, spec).msg(3, Wire()));
  Json expected = Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "namespace": "ns", "creationTimestamp": null},
    "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "resources": {}}]},
    "status": {}
  })");
  CHECK(decode(body) == expected);
}

TEST_CASE("pointers keep zero values, omitempty drops them, others are written") {
  // DeploymentSpec: replicas *int32 (0 kept), paused bool omitempty (false dropped),
  // minReadySeconds int32 omitempty; selector *LabelSelector (no omitempty) absent.
  Wire spec = Wire().varint(1, 0).varint(5, 0).varint(7, 0).msg(3, Wire().msg(1, object_meta("")));
  Json d = decode(k8s_body("apps/v1", "Deployment", Wire().msg(1, object_meta("d")).msg(2, spec)),
                  {"apps", "v1", "Deployment"});
  CHECK(d["spec"]["replicas"] == 0);
  CHECK_FALSE(d["spec"].contains("paused"));
  CHECK_FALSE(d["spec"].contains("minReadySeconds"));
  CHECK(d["spec"]["selector"].is_null());                        // a nil pointer without omitempty
  CHECK(d["spec"]["template"]["spec"]["containers"].is_null());  // a nil slice, no omitempty
  CHECK(d["spec"]["strategy"] == Json::object());
  CHECK(d["status"] == Json::object());
  CHECK(d["apiVersion"] == "apps/v1");
}

TEST_CASE("maps, bytes, times, quantities and int-or-strings as their Go JSON") {
  Wire meta = object_meta("s");
  meta.entry(11, "app", "web")
      .entry(12, "note", "a\xff")
      .msg(9, Wire().varint(1, 1700000000).varint(2, 5));
  std::string secret = k8s_body(
      "v1", "Secret", Wire().msg(1, meta).entry(2, "key", "\x01\x02\x03").str(3, "Opaque"));
  Json s = decode(secret, {"", "v1", "Secret"});
  CHECK(s["metadata"]["labels"] == Json{{"app", "web"}});
  CHECK(s["metadata"]["annotations"]["note"] == "a\xEF\xBF\xBD");  // invalid UTF-8 as U+FFFD
  CHECK(s["metadata"]["deletionTimestamp"] == "2023-11-14T22:13:20Z");
  CHECK(s["data"]["key"] == "AQID");
  CHECK(s["type"] == "Opaque");

  // ResourceRequirements limits map<string, Quantity>; a Service port's targetPort.
  Wire resources = Wire().entry(1, "cpu", Wire().str(1, "500m"));
  Wire container = Wire().str(1, "c").msg(8, resources);
  Json pod = decode(k8s_body("v1", "Pod", Wire().msg(2, Wire().msg(2, container))));
  CHECK(pod["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "500m");

  Wire named_port = Wire().varint(1, 1).str(3, "http");
  Wire number_port = Wire().varint(1, 0).varint(2, 8080);
  Wire spec = Wire()
                  .msg(1, Wire().str(1, "a").varint(3, 80).msg(4, named_port))
                  .msg(1, Wire().str(1, "b").varint(3, 81).msg(4, number_port));
  Json svc = decode(k8s_body("v1", "Service", Wire().msg(2, spec)), {"", "v1", "Service"});
  CHECK(svc["spec"]["ports"][0]["targetPort"] == "http");
  CHECK(svc["spec"]["ports"][1]["targetPort"] == 8080);

  // Lease: MicroTime keeps microseconds.
  Wire lease_spec = Wire().str(1, "me").msg(4, Wire().varint(1, 0).varint(2, 123456789));
  Json lease = decode(k8s_body("coordination.k8s.io/v1", "Lease", Wire().msg(2, lease_spec)),
                      {"coordination.k8s.io", "v1", "Lease"});
  CHECK(lease["spec"]["renewTime"] == "1970-01-01T00:00:00.123456Z");
  CHECK(lease["spec"]["holderIdentity"] == "me");
}

TEST_CASE("inline structs, slice wrappers and options kinds") {
  // Volume's VolumeSource is inline: its configMap appears beside name.
  Wire source = Wire().msg(19, Wire().msg(1, Wire().str(1, "cfg")));
  Wire volume = Wire().str(1, "v").msg(2, source);
  Json pod = decode(k8s_body("v1", "Pod", Wire().msg(2, Wire().msg(1, volume))));
  CHECK(pod["spec"]["volumes"][0]["name"] == "v");
  CHECK(pod["spec"]["volumes"][0]["configMap"]["name"] == "cfg");

  // SubjectAccessReviewSpec.extra is map<string, ExtraValue>: arrays in JSON.
  Wire extra = Wire().str(1, "a").str(1, "b");
  Wire sar_spec = Wire().entry(5, "scopes", extra).str(3, "alice");
  Json sar =
      decode(k8s_body("authorization.k8s.io/v1", "SubjectAccessReview", Wire().msg(2, sar_spec)),
             {"authorization.k8s.io", "v1", "SubjectAccessReview"});
  CHECK(sar["spec"]["extra"]["scopes"] == Json{"a", "b"});
  CHECK(sar["spec"]["user"] == "alice");

  // DeleteOptions posted to an apps/v1 endpoint come from meta/v1.
  Json opts = decode(k8s_body("apps/v1", "DeleteOptions", Wire().varint(1, 0).str(4, "Orphan")),
                     {"apps", "v1", "DeleteOptions"});
  CHECK(opts["gracePeriodSeconds"] == 0);
  CHECK(opts["propagationPolicy"] == "Orphan");
  CHECK(opts["kind"] == "DeleteOptions");
}

TEST_CASE("the envelope's kind and version default to the endpoint's") {
  Wire unknown = Wire().msg(1, Wire()).str(2, Wire().msg(1, object_meta("x")).bytes());
  std::string body = std::string("k8s\0", 4) + unknown.bytes();
  Json ns = decode(body, {"", "v1", "Namespace"});
  CHECK(ns["kind"] == "Namespace");
  CHECK(ns["apiVersion"] == "v1");
  CHECK(ns["metadata"]["name"] == "x");
  CHECK(error_of(body, {"", "", ""}) ==
        "Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"\", Kind:\"\"}'");
}

TEST_CASE("malformed bodies fail with the Go decoder's words") {
  CHECK(error_of("") == "empty data");
  CHECK(error_of(std::string("k8s\0", 4)) == "empty body");
  CHECK(error_of("{\"kind\":\"Pod\"}") ==
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  std::string body = k8s_body("v1", "Pod", Wire().msg(1, object_meta("p")));
  CHECK(error_of(body.substr(0, body.size() - 3)) == "unexpected EOF");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().varint(1, 5))) ==
        "proto: wrong wireType = 0 for field ObjectMeta");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().tag(0, 2))) ==
        "proto: Pod: illegal tag 0 (wire type 2)");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().tag(7, 4))) ==
        "proto: Pod: wiretype end group for non-group");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().tag(99, 7))) == "proto: illegal wireType 7");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().tag(99, 0).raw(std::string(10, '\xff')))) ==
        "proto: integer overflow");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().tag(1, 2).raw_varint(~0ULL).raw("x"))) ==
        "proto: negative length found during unmarshaling");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().tag(99, 4))) ==
        "proto: Pod: wiretype end group for non-group");
  CHECK(error_of(k8s_body("v1", "Pod", Wire().tag(99, 3).tag(98, 4).tag(97, 4))) ==
        "proto: Pod: wiretype end group for non-group");
  CHECK(error_of(k8s_body("v1", "Podx", Wire())) ==
        "no kind \"Podx\" is registered for version \"v1\" in scheme "
        "\"pkg/api/legacyscheme/scheme.go:30\"");
  auto nested =
      decode_body(k8s_body("v1", "Pod", Wire().msg(1, Wire().varint(8, 1))), kPodDefaults);
  REQUIRE_FALSE(nested);
  CHECK(nested.error().message == "proto: wrong wireType = 0 for field CreationTimestamp");
  REQUIRE(nested.error().gvk);
  CHECK(nested.error().gvk->kind == "Pod");
}

TEST_CASE("unknown fields are skipped; repeated scalars may be packed") {
  Wire meta = object_meta("p");
  meta.fixed64(200, 1).fixed32(201, 2).str(202, "x").tag(203, 3).varint(1, 1).tag(203, 4);
  Json pod = decode(k8s_body("v1", "Pod", Wire().msg(1, meta)));
  CHECK(pod["metadata"]["name"] == "p");
  // PodSecurityContext.supplementalGroups: repeated int64, packed or not.
  Wire sc = Wire().str(4, Wire().raw_varint(1).raw_varint(2).bytes()).varint(4, 3);
  Json p2 = decode(k8s_body("v1", "Pod", Wire().msg(2, Wire().msg(14, sc))));
  CHECK(p2["spec"]["securityContext"]["supplementalGroups"] == Json{1, 2, 3});
}

TEST_CASE("every field of the table resolves and the kinds of every served group decode") {
  const ApiTable& table = ApiTable::get();
  CHECK(table.messages().size() > 1000);
  for (const auto& [name, m] : table.messages()) {
    for (const auto& f : m.fields) {
      INFO(name << "." << f.json);
      if (f.type.scalar == respool::sandbox::protobuf::Scalar::Message) CHECK(f.type.message);
    }
  }
  const char* kinds[][3] = {{"", "v1", "Namespace"},
                            {"", "v1", "ConfigMap"},
                            {"apps", "v1", "StatefulSet"},
                            {"batch", "v1", "CronJob"},
                            {"rbac.authorization.k8s.io", "v1", "ClusterRole"},
                            {"networking.k8s.io", "v1", "Ingress"},
                            {"policy", "v1", "PodDisruptionBudget"},
                            {"authentication.k8s.io", "v1", "TokenRequest"},
                            {"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy"},
                            {"autoscaling", "v2", "HorizontalPodAutoscaler"}};
  for (auto& k : kinds) {
    INFO(k[0] << "/" << k[1] << " " << k[2]);
    const auto* m = table.kind(k[0], k[1], k[2]);
    REQUIRE(m);
    auto json = decode_message(Wire().msg(1, object_meta("x")).bytes(), *m);
    REQUIRE(json);
    CHECK((*json)["metadata"]["name"] == "x");
  }
  const auto* pod_spec = table.message("k8s.io.api.core.v1.PodSpec");
  REQUIRE(pod_spec);
  CHECK(pod_spec->field(2)->json == "containers");
  CHECK(pod_spec->field(2)->marker("patchMergeKey") == "name");
}

TEST_CASE("client-go's protobuf bodies decode to encoding/json's JSON of the same objects") {
  // test/protobuf/bodies/{pod-running,lease}: written by `clientgo-check golden DIR`
  // (test/clientgo/golden.go) with client-go's protobuf serializer and encoding/json: a pod as
  // a busy node holds it (owner, managed fields, probes, projected volumes, statuses) and a
  // Lease with MicroTimes.
  const std::string dir = RESPOOL_SOURCE_DIR "/test/protobuf/bodies/";
  for (const char* name : {"pod-running", "lease"}) {
    INFO(name);
    std::ifstream pb(dir + name + ".pb", std::ios::binary), js(dir + name + ".json");
    REQUIRE(pb);
    REQUIRE(js);
    std::string body((std::istreambuf_iterator<char>(pb)), std::istreambuf_iterator<char>());
    Json expected = Json::parse(js);
    auto got = decode_body(body, {"", "", ""});
    REQUIRE(got);
    CHECK(*got == expected);
    if (*got != expected) CHECK(Json::diff(expected, *got).dump() == "[]");
  }
}

TEST_CASE("kubectl 1.32's protobuf bodies decode to the JSON of its --dry-run=client -o json") {
  // test/protobuf/bodies/NAME.pb is what `kubectl create ...` sent, NAME.json what the same
  // command printed with --dry-run=client -o json (Go's encoding/json of the same object).
  const std::string dir = RESPOOL_SOURCE_DIR "/test/protobuf/bodies/";
  for (const char* name : {"namespace", "configmap", "secret-generic", "secret-docker",
                           "serviceaccount", "deployment", "service-nodeport", "job", "pdb"}) {
    INFO(name);
    std::ifstream pb(dir + name + ".pb", std::ios::binary), js(dir + name + ".json");
    REQUIRE(pb);
    REQUIRE(js);
    std::string body((std::istreambuf_iterator<char>(pb)), std::istreambuf_iterator<char>());
    Json expected = Json::parse(js);
    auto got = decode_body(body, {"", "", ""});
    REQUIRE(got);
    CHECK(*got == expected);
  }
}
