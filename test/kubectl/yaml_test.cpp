// -o yaml: JSON in block style, strings that YAML would read as another type quoted.

#include <catch2/catch.hpp>

#include "cmd/kubectl-respool/view/yaml.hpp"

using nlohmann::json;
using respool::kubectl::to_yaml;

TEST_CASE("JSON as YAML") {
  json object = {{"kind", "ResourcePool"},
                 {"spec", {{"count", 8}, {"tags", {{"team", "vision"}}}}},
                 {"versions", json::array({"535.104.05", "1.0", "true", "", "null"})},
                 {"ok", true},
                 {"none", nullptr}};
  std::string y = to_yaml(object);
  CHECK(y.find("kind: ResourcePool\n") != std::string::npos);
  CHECK(y.find("  count: 8\n") != std::string::npos);
  CHECK(y.find("    team: vision\n") != std::string::npos);
  CHECK(y.find("- 535.104.05\n") != std::string::npos);  // not a number: two dots
  CHECK(y.find("- \"1.0\"\n") != std::string::npos);
  CHECK(y.find("- \"true\"\n") != std::string::npos);
  CHECK(y.find("- \"\"\n") != std::string::npos);
  CHECK(y.find("- \"null\"\n") != std::string::npos);
  CHECK(y.find("ok: true\n") != std::string::npos);
  CHECK(y.find("none: ~\n") != std::string::npos);
}
