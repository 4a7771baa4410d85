// Unknown fields of built-in kinds by their Go types: the paths apimachinery's strict JSON
// decoder names (unknown-fields.json, written by `clientgo-check golden DIR` with Debian's
// k8s.io/apimachinery), and the object left as decoding into the Go struct leaves it.

#include <catch2/catch.hpp>

#include <fstream>

#include "sandbox/protobuf/unknown_fields.hpp"

namespace pb = respool::sandbox::protobuf;
using Json = nlohmann::json;

namespace {

const pb::MessageDef& kind_of(const Json& body) {
  std::string api_version = body["apiVersion"];
  std::size_t slash = api_version.find('/');
  std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  std::string version = api_version.substr(slash == std::string::npos ? 0 : slash + 1);
  const pb::MessageDef* m =
      pb::ApiTable::get().kind(group, version, body["kind"].get<std::string>());
  REQUIRE(m != nullptr);
  return *m;
}

std::string strict_error(const std::vector<std::string>& paths) {
  std::string out = "strict decoding error: ";
  for (std::size_t i = 0; i < paths.size(); ++i)
    out += (i ? ", " : "") + std::string("unknown field \"") + paths[i] + "\"";
  return out;
}

}  // namespace

TEST_CASE("unknown fields are named as apimachinery's strict decoder names them") {
  std::ifstream in(RESPOOL_SOURCE_DIR "/test/protobuf/bodies/unknown-fields.json");
  Json cases = Json::parse(in);
  REQUIRE(cases.size() >= 7);
  for (const Json& c : cases) {
    Json body = c["body"];
    INFO(body.dump());
    auto unknown = pb::drop_unknown_fields(body, kind_of(body));
    CHECK(strict_error(unknown) == c["error"].get<std::string>());
    // What is left is known all through: a second pass finds nothing.
    CHECK(pb::drop_unknown_fields(body, kind_of(body)).empty());
  }
}

TEST_CASE("what the Go types declare stays, what they do not goes") {
  Json pod = Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"any": "thing"}},
    "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "1"}},
                             "ports": [{"containerPort": 80, "portName": "x"}]}],
             "volumes": [{"name": "v", "configMap": {"name": "cm"}}],
             "overhead": {"cpu": {"odd": "but a Quantity's own to refuse"}}},
    "status": {"startTime": null, "phase": "Pending", "hostIPs": [{"ip": "10.0.0.1"}]}})");
  Json want = pod;
  want["spec"]["containers"][0]["ports"][0].erase("portName");
  auto unknown = pb::drop_unknown_fields(pod, kind_of(pod));
  CHECK(unknown == std::vector<std::string>{"spec.containers[0].ports[0].portName"});
  CHECK(pod == want);
}

TEST_CASE("values of the wrong JSON type are not unknown fields") {
  Json cm = Json::parse(
      R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": "oops", "data": [1, 2]})");
  Json want = cm;
  CHECK(pb::drop_unknown_fields(cm, kind_of(cm)).empty());
  CHECK(cm == want);
}

TEST_CASE("at most 100 unknown fields are named; all of them are dropped") {
  Json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}};
  for (int i = 0; i < 150; ++i)
    cm["x" + std::to_string(1000 + i)] = i;
  auto unknown = pb::drop_unknown_fields(cm, kind_of(cm));
  CHECK(unknown.size() == 100);
  CHECK(unknown.front() == "x1000");
  CHECK(cm.size() == 3);
}
