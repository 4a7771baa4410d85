// The catalog: parsing with errors that name the field, and lookups.

#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::catalog_json;

TEST_CASE("a catalog parses into flavors, presets, plug-ins and drivers", "[policy][catalog]") {
  auto catalog = parse_catalog(catalog_json());
  REQUIRE(catalog);
  CHECK(catalog->flavor_label == "node.kubernetes.io/instance-type");
  CHECK(catalog->zone_label == "topology.kubernetes.io/zone");
  REQUIRE(catalog->flavors.size() == 3);
  const Flavor* a100 = catalog->flavor("gpu-8x-a100");
  REQUIRE(a100);
  CHECK(a100->label_value == "gpu-8x-a100");
  CHECK(a100->accelerator.type == AcceleratorType::GPU);
  CHECK(a100->accelerator.resource == "nvidia.com/gpu");
  CHECK(a100->accelerator.count == 8);
  CHECK(catalog->flavor_by_label("ascend.910b.8") == catalog->flavor("npu-8x-910b"));
  CHECK(catalog->flavor_by_label("npu-8x-910b") == nullptr);
  CHECK(catalog->flavor("nope") == nullptr);
  CHECK(catalog->flavor("cpu-64c")->accelerator.type == AcceleratorType::None);
  CHECK(catalog->network_presets.size() == 3);
  CHECK(catalog->plugins.at(JobType::Training).size() == 1);
  CHECK(catalog->driver_image(AcceleratorType::GPU, "535.104.05") ==
        "registry.example/gpu-driver:535.104.05");
  CHECK_FALSE(catalog->driver_image(AcceleratorType::None, "1"));
  CHECK(catalog->reset_image == "registry.example/node-reset:1");
  CHECK(catalog->flavor_names() == "gpu-8x-a100, npu-8x-910b, cpu-64c");
}

TEST_CASE("catalog labels default to the well-known node labels", "[policy][catalog]") {
  json doc = catalog_json();
  doc.erase("flavorLabel");
  doc.erase("zoneLabel");
  auto catalog = parse_catalog(doc);
  REQUIRE(catalog);
  CHECK(catalog->flavor_label == "node.kubernetes.io/instance-type");
  CHECK(catalog->zone_label == "topology.kubernetes.io/zone");
}

TEST_CASE("catalog errors name the bad field", "[policy][catalog]") {
  struct Case {
    std::string pointer;
    json value;
    std::string error;
  };
  std::vector<Case> cases{
      {"/flavors", json::array(), "flavors: must list at least one flavor"},
      {"/flavors/2/accelerator/count", 3,
       "flavors[2].accelerator: type None takes no resource"
       " and no count"},
      {"/flavors/0/accelerator/count", 0,
       "flavors[0].accelerator.count: must be a positive integer"},
      {"/flavors/0/accelerator/type", "TPU",
       "flavors[0].accelerator.type: must be GPU, NPU or None"},
      {"/flavors/0/accelerator/resource", "gpu",
       "flavors[0].accelerator.resource: must name an extended resource (e.g. nvidia.com/gpu)"},
      {"/flavors/1/name", "gpu-8x-a100", "flavors[1].name: \"gpu-8x-a100\" appears twice"},
      {"/flavors/1/name", "NPU",
       "flavors[1].name: must be a lowercase DNS label (letters, digits, "
       "hyphens)"},
      {"/flavorLabel", "bad key/x/y", "flavorLabel: must be a label key"},
      {"/networkPresets/1", "172.16.0.0/12",
       "networkPresets[1]: 172.16.0.0/12 overlaps the container block 172.16.0.0/16 (W3)"},
      {"/networkPresets/0", "10.0.0.1/8",
       "networkPresets[0]: \"10.0.0.1/8\" has host bits set; the block is 10.0.0.0/8"},
      {"/plugins/Batch", json::array(),
       "plugins.Batch: unknown job type (Training, Inference, DevEnviron)"},
      {"/plugins/Training/0/metadata/name", "Agent",
       "plugins.Training[0].metadata.name: must be a lowercase DNS label"},
      {"/plugins/Training/0/spec/template/spec/containers/0/args/0", "--pool={{poolName}}",
       "plugins.Training[0].spec.template.spec.containers[0].args[0]: unknown placeholder "
       "{{poolName}} (known: {{pool}}, {{jobType}}, {{jobTypeLabel}})"},
      {"/plugins/Inference/0/kind", 3,
       "plugins.Inference[0]: must be a manifest with apiVersion and kind"},
      {"/drivers/GPU/image", "registry.example/gpu-driver:latest",
       "drivers.GPU.image: must be an image reference containing {version}"},
      {"/drivers/None", {{"image", "x:{version}"}}, "drivers.None: must be GPU or NPU"},
      {"/reset/image", "", "reset.image: must be an image reference"},
  };
  for (const Case& c : cases) {
    INFO(c.pointer);
    json doc = catalog_json();
    doc[json::json_pointer(c.pointer)] = c.value;
    auto catalog = parse_catalog(doc);
    REQUIRE_FALSE(catalog);
    CHECK(catalog.error() == c.error);
  }
  json no_npu_driver = catalog_json();
  no_npu_driver["drivers"].erase("NPU");
  CHECK(parse_catalog(no_npu_driver).error() ==
        "drivers: flavor npu-8x-910b needs a NPU driver image");
  CHECK(parse_catalog(json::array()).error() == "catalog: must be a mapping");
}
