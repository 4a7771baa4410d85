// Pool and network specs: parsing and the rule checks the operator makes (P1–P5, P11, P13, W4).

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/spec.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::test_catalog;

namespace {

json pool_object() {
  return json::parse(R"({
    "apiVersion": "respool.io/v1alpha1", "kind": "ResourcePool",
    "metadata": {"name": "gpu-a"},
    "spec": {
      "description": "vision team",
      "type": "Physical",
      "jobTypes": ["Training", "Inference"],
      "network": "net-a",
      "resources": [
        {"flavor": "gpu-8x-a100", "count": 8, "zones": [{"zone": "az-1", "count": 4}, {"zone": "az-2", "count": 4}],
         "containerEngineSpaceGiB": 100},
        {"flavor": "cpu-64c", "count": 2}
      ],
      "driver": {"gpuVersion": "535.104.05", "upgrade": {"mode": "Force", "maxUnavailable": "25%"}},
      "nodeBinding": false,
      "tags": {"team": "vision"}
    }})");
}

// The violations check_pool reports after `edit`, as strings.
std::vector<std::string> problems(const std::function<void(json&)>& edit) {
  json object = pool_object();
  edit(object);
  auto result = check_pool(object, test_catalog());
  std::vector<std::string> out;
  if (!result) {
    for (const Violation& v : result.error())
      out.push_back(v.to_string());
  }
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("a complete pool spec parses into its typed form", "[policy][spec]") {
  auto spec = check_pool(pool_object(), test_catalog());
  REQUIRE(spec);
  CHECK(spec->description == "vision team");
  CHECK(spec->type == PoolType::Physical);
  CHECK(spec->job_types == std::vector{JobType::Training, JobType::Inference});
  CHECK(spec->network == "net-a");
  REQUIRE(spec->resources.size() == 2);
  CHECK(spec->resources[0].count == 8);
  CHECK(spec->resources[0].zones.size() == 2);
  CHECK(spec->resources[0].zones[1].zone == "az-2");
  CHECK(spec->resources[0].container_engine_space_gib == 100);
  CHECK(spec->resources[1].container_engine_space_gib == 50);
  CHECK(spec->desired_nodes() == 10);
  REQUIRE(spec->driver);
  CHECK(spec->driver->gpu_version == "535.104.05");
  CHECK(spec->driver->mode == UpgradeMode::Force);
  CHECK(spec->driver->max_unavailable == IntOrPercent{25, true});
  CHECK(spec->tags.at("team") == "vision");
  CHECK(spec->has_job_type(JobType::Inference));
  CHECK_FALSE(spec->has_job_type(JobType::DevEnviron));
}

TEST_CASE("a zone-only flavor takes the zones' sum as its count", "[policy][spec][rule:P4]") {
  json object = pool_object();
  object["spec"]["resources"][0].erase("count");
  auto spec = check_pool(object, test_catalog());
  REQUIRE(spec);
  CHECK(spec->resources[0].count == 8);
}

TEST_CASE("P1: the pool name", "[policy][spec][rule:P1]") {
  for (const char* name : {"1pool", "pool-", "Pool", "p_q", ""}) {
    INFO(name);
    CHECK(problems([&](json& o) { o["metadata"]["name"] = name; }) ==
          Strings{"metadata.name: must be at most 63 lowercase letters, digits and hyphens, start "
                  "with a letter and not end with a hyphen (P1)"});
  }
  CHECK(problems([](json& o) { o["metadata"]["name"] = std::string(64, 'p'); }).size() == 1);
  CHECK(problems([](json& o) { o["metadata"]["name"] = std::string(63, 'p'); }).empty());
}

TEST_CASE("P2: pool type and job types", "[policy][spec][rule:P2]") {
  CHECK(problems([](json& o) { o["spec"]["type"] = "Logical"; }) ==
        Strings{"spec.jobTypes[1]: a Logical pool accepts only Training (P2)"});
  CHECK(problems([](json& o) {
          o["spec"]["type"] = "Logical";
          o["spec"]["jobTypes"] = {"Training"};
          o["spec"].erase("driver");
        }).empty());
  CHECK(problems([](json& o) {
          o["spec"]["jobTypes"] = {"Training", "DevEnviron", "Inference"};
        }).empty());
  CHECK(problems([](json& o) { o["spec"]["type"] = "Virtual"; }) ==
        Strings{"spec.type: \"Virtual\" is not a pool type (Physical, Logical) (P2)"});
  CHECK(problems([](json& o) {
          o["spec"]["jobTypes"] = {"Training", "Batch"};
        }) ==
        Strings{"spec.jobTypes[1]: \"Batch\" is not a job type (Training, Inference, DevEnviron) "
                "(P2)"});
  CHECK(problems([](json& o) { o["spec"]["jobTypes"] = json::array(); }) ==
        Strings{"spec.jobTypes: must name at least one (P2)"});
  CHECK(problems([](json& o) {
          o["spec"]["jobTypes"] = {"Training", "Training"};
        }) == Strings{"spec.jobTypes[1]: Training appears twice (P2)"});
}

TEST_CASE("P3: a pool names a network", "[policy][spec][rule:P3]") {
  CHECK(problems([](json& o) { o["spec"].erase("network"); }) ==
        Strings{"spec.network: must name a Network (P3)"});
  CHECK(problems([](json& o) { o["spec"]["network"] = "Net A"; }) ==
        Strings{"spec.network: must name a Network (P3)"});
}

TEST_CASE("P4: flavors from the catalog, counts and zones", "[policy][spec][rule:P4]") {
  CHECK(problems([](json& o) { o["spec"]["resources"][1]["flavor"] = "gpu-x"; }) ==
        Strings{"spec.resources[1].flavor: \"gpu-x\" is not a flavor of the catalog (gpu-8x-a100, "
                "npu-8x-910b, cpu-64c) (P4)"});
  CHECK(problems([](json& o) {
          o["spec"]["resources"] = json::array();
          o["spec"].erase("driver");
        }) == Strings{"spec.resources: must list a flavor (P4)"});
  CHECK(problems([](json& o) { o["spec"]["resources"][1]["count"] = 0; }) ==
        Strings{"spec.resources[1].count: must be at least 1 (P4)"});
  CHECK(problems([](json& o) { o["spec"]["resources"][1].erase("count"); }) ==
        Strings{"spec.resources[1].count: must be at least 1 (P4)"});
  CHECK(problems([](json& o) { o["spec"]["resources"][0]["count"] = 7; }) ==
        Strings{"spec.resources[0].count: is 7 but the zones' counts sum to 8 (P4)"});
  CHECK(problems([](json& o) { o["spec"]["resources"][0]["zones"][1]["zone"] = "az-1"; }) ==
        Strings{"spec.resources[0].zones[1].zone: \"az-1\" appears twice (P4)"});
  CHECK(problems([](json& o) {
          o["spec"]["resources"][0]["zones"][1]["count"] = 0;
          o["spec"]["resources"][0]["count"] = 4;
        }) == Strings{"spec.resources[0].zones[1].count: must be at least 1 (P4)"});
  CHECK(problems([](json& o) { o["spec"]["resources"][1]["flavor"] = "gpu-8x-a100"; }) ==
        Strings{"spec.resources[1].flavor: \"gpu-8x-a100\" appears twice (P4)"});
  CHECK(problems([](json& o) { o["spec"]["resources"][1]["count"] = "2"; }) ==
        Strings{"spec.resources[1].count: must be an integer"});
}

TEST_CASE("P5: container engine space", "[policy][spec][rule:P5]") {
  CHECK(problems([](json& o) { o["spec"]["resources"][1]["containerEngineSpaceGiB"] = 49; }) ==
        Strings{"spec.resources[1].containerEngineSpaceGiB: must be at least 50 (GiB) (P5)"});
  CHECK(
      problems([](json& o) { o["spec"]["resources"][1]["containerEngineSpaceGiB"] = 50; }).empty());
  CHECK(problems([](json& o) { o["spec"]["resources"][1]["containerEngineSpaceGiB"] = 50.5; }) ==
        Strings{"spec.resources[1].containerEngineSpaceGiB: must be an integer"});
}

TEST_CASE("P11: at most 20 tags", "[policy][spec][rule:P11]") {
  auto tags = [](int n) {
    json t = json::object();
    for (int i = 0; i < n; ++i)
      t["k" + std::to_string(i)] = "v";
    return t;
  };
  CHECK(problems([&](json& o) { o["spec"]["tags"] = tags(20); }).empty());
  CHECK(problems([&](json& o) { o["spec"]["tags"] = tags(21); }) ==
        Strings{"spec.tags: at most 20 tags, not 21 (P11)"});
  CHECK(problems([](json& o) { o["spec"]["tags"]["x"] = std::string(256, 'v'); }) ==
        Strings{"spec.tags.x: a tag value has at most 255 characters (P11)"});
  CHECK(problems([](json& o) { o["spec"]["tags"]["x"] = 3; }) ==
        Strings{"spec.tags.x: must be a string (P11)"});
}

TEST_CASE("P13: drivers only for GPU and NPU flavors", "[policy][spec][rule:P13]") {
  CHECK(problems([](json& o) { o["spec"]["driver"]["npuVersion"] = "23.0.6"; }) ==
        Strings{"spec.driver.npuVersion: an NPU driver needs an NPU flavor in the pool (P13)"});
  CHECK(problems([](json& o) { o["spec"]["resources"].erase(0); }) ==
        Strings{"spec.driver.gpuVersion: a GPU driver needs a GPU flavor in the pool (P13)"});
  CHECK(problems([](json& o) {
          o["spec"]["resources"].push_back({{"flavor", "npu-8x-910b"}, {"count", 1}});
          o["spec"]["driver"]["npuVersion"] = "23.0.6";
        }).empty());
  auto spec = check_pool(pool_object(), test_catalog()).value();
  CHECK_FALSE(driver_upgrade_violation(spec));
  spec.type = PoolType::Logical;
  CHECK(driver_upgrade_violation(spec)->to_string() ==
        "spec.nodeBinding: a Logical pool's driver can be upgraded only with nodeBinding: true "
        "(P13)");
  spec.node_binding = true;
  CHECK_FALSE(driver_upgrade_violation(spec));
}

TEST_CASE("driver upgrade settings parse (D1, D2)", "[policy][spec]") {
  CHECK(problems([](json& o) { o["spec"]["driver"]["upgrade"]["mode"] = "Fast"; }) ==
        Strings{"spec.driver.upgrade.mode: must be Secure or Force (D1)"});
  CHECK(problems([](json& o) { o["spec"]["driver"]["upgrade"]["maxUnavailable"] = "0%"; }) ==
        Strings{"spec.driver.upgrade.maxUnavailable: must be a positive integer or a percentage "
                "from 1% to 100% (D2)"});
  IntOrPercent quarter{25, true}, three{3, false};
  CHECK(quarter.of_rounding_up(10) == 3);
  CHECK(quarter.of_rounding_down(10) == 2);
  CHECK(quarter.of_rounding_down(3) == 1);
  CHECK(three.of_rounding_up(100) == 3);
  CHECK(quarter.to_string() == "25%");
  CHECK(parse_int_or_percent(json(4)) == IntOrPercent{4, false});
  CHECK_FALSE(parse_int_or_percent(json(0)));
  CHECK_FALSE(parse_int_or_percent(json("101%")));
  CHECK_FALSE(parse_int_or_percent(json("x%")));
}

TEST_CASE("several violations are all reported and joined", "[policy][spec]") {
  auto result = check_pool(json::parse(R"({"metadata": {"name": "Bad"},
    "spec": {"jobTypes": ["Training"], "network": "n", "resources": [{"flavor": "cpu-64c", "count": 1,
             "containerEngineSpaceGiB": 10}]}})"),
                           test_catalog());
  REQUIRE_FALSE(result);
  CHECK(join(result.error()) ==
        "metadata.name: must be at most 63 lowercase letters, digits and hyphens, start with a "
        "letter and not end with a hyphen (P1); spec.resources[0].containerEngineSpaceGiB: must be "
        "at least 50 (GiB) (P5)");
  CHECK_FALSE(check_pool(json::parse(R"({"metadata": {"name": "x"}})"), test_catalog()));
}

TEST_CASE("network specs parse and keep W4", "[policy][spec][rule:W4][rule:W1]") {
  auto object = json::parse(R"({"metadata": {"name": "net-a"}, "spec": {"cidr": "192.168.128.0/17",
    "interconnects": [{"vpc": "vpc-prod", "subnet": "subnet-a", "cidr": "10.10.0.0/24"}]}})");
  auto spec = check_network(object);
  REQUIRE(spec);
  CHECK(spec->cidr->to_string() == "192.168.128.0/17");
  CHECK(spec->interconnects.at(0).cidr.to_string() == "10.10.0.0/24");
  CHECK(check_network(json::parse(R"({"metadata": {"name": "n"}, "spec": {}})"))->cidr ==
        std::nullopt);

  object["spec"]["cidr"] = "192.168.128.1/17";
  CHECK(join(check_network(object).error()) ==
        "spec.cidr: \"192.168.128.1/17\" has host bits set; the block is 192.168.128.0/17 (W1)");
  object["spec"]["cidr"] = "192.168.128.0/17";
  for (int i = 1; i <= 10; ++i) {
    object["spec"]["interconnects"].push_back(
        {{"vpc", "vpc-" + std::to_string(i)}, {"subnet", "s"}, {"cidr", "10.20.0.0/24"}});
  }
  CHECK(join(check_network(object).error()) ==
        "spec.interconnects: at most 10 interconnected subnets, not 11 (W4)");
  object["spec"]["interconnects"].erase(10);
  CHECK(check_network(object));
  object["spec"]["interconnects"][9]["vpc"] = "vpc-1";
  CHECK(join(check_network(object).error()) == "spec.interconnects[9]: vpc-1/s appears twice (W4)");
  object["spec"]["interconnects"][9]["cidr"] = "nope";
  CHECK(join(check_network(object).error()) ==
        "spec.interconnects[9].cidr: \"nope\" is not an IPv4 CIDR block (a.b.c.d/n) (W3)");
}
