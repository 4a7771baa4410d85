// The CRDs the project ships in crds/: every version's schema must be one the real API server
// accepts, and a resource made of its defaults alone must come out pruned and defaulted
// without anything but missing required fields to complain about.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include "sandbox/schema/regex.hpp"

#include "schema_test_util.hpp"
#include "yaml_json.hpp"

using namespace schema_test;
using schema_test::yaml::to_json;
using namespace respool::sandbox::schema;

namespace {

std::vector<Json> shipped_crds() {
  std::vector<Json> crds;
  const std::filesystem::path dir = std::filesystem::path(RESPOOL_SOURCE_DIR) / "crds";
  if (!std::filesystem::is_directory(dir)) return crds;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    for (const auto& document : YAML::LoadAllFromFile(entry.path().string())) {
      Json crd = to_json(document);
      if (crd.value("kind", "") == "CustomResourceDefinition") crds.push_back(std::move(crd));
    }
  }
  return crds;
}

}  // namespace

TEST_CASE("the YAML reader resolves scalars as Kubernetes does", "[schema][crds]") {
  const Json read = to_json(YAML::Load("a: 1\nb: '1'\nc: true\nd: ~\ne: 1.5\nf: x\ng: [2]\n"));
  CHECK(read == json(R"({"a": 1, "b": "1", "c": true, "d": null, "e": 1.5, "f": "x", "g": [2]})"));
}

TEST_CASE("the shipped CRDs have schemas the API server accepts", "[schema][crds]") {
  const auto crds = shipped_crds();
  if (crds.empty()) WARN("no CRDs under crds/ yet");
  for (const auto& crd : crds) {
    const Json& versions = crd["spec"]["versions"];
    for (std::size_t i = 0; i < versions.size(); ++i) {
      const std::string path = "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema";
      const Json schema = versions[i].contains("schema")
                              ? versions[i]["schema"].value("openAPIV3Schema", Json())
                              : Json();
      INFO(crd["metadata"]["name"].get<std::string>() << " " << path);
      CHECK(check_structural(schema, path).empty());
      if (!schema.is_object()) continue;

      Json object = {{"apiVersion", crd["spec"]["group"].get<std::string>() + "/" +
                                        versions[i]["name"].get<std::string>()},
                     {"kind", crd["spec"]["names"]["kind"]},
                     {"metadata", {{"name", "example"}}},
                     {"spec", Json::object()}};
      const Json before = object;
      default_and_prune(object, schema);
      CHECK(object["metadata"] == before["metadata"]);
      for (const auto& cause : validate(object, schema)) {
        INFO(cause);
        CHECK(cause.reason == "FieldValueRequired");
      }
    }
  }
}
