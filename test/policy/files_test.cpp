// The shipped files: crds/ (valid CRDs carrying the API contract and the rules' schema checks),
// config/catalog.yaml, and examples/ (valid against the CRDs and the policy validators, and
// enough for the example pool to come up in the sandbox).

// GCC 12 reports a false maybe-uninitialized inside std::regex under the sanitizers.
#if defined(__GNUC__) && !defined(__clang__)  // Clang has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <filesystem>
#include <set>

#include <catch2/catch.hpp>

#include "reconcilers/policy/names.hpp"
#include "reconcilers/policy/network.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/plugins.hpp"
#include "reconcilers/policy/pool_plan.hpp"
#include "reconcilers/policy/pool_status.hpp"
#include "reconcilers/policy/records.hpp"
#include "yaml_json.hpp"

using namespace respool::policy;
using namespace respool::policy::test;
using nlohmann::json;

namespace {

json crd(const std::string& plural) {
  return load_yaml("crds/" + plural + ".yaml");
}

const json& schema_of(const json& definition) {
  return definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

// The schema at a dotted path; "[]" steps into array items.
const json* schema_at(const json& root, const std::string& path) {
  const json* node = &root;
  std::stringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    bool items = part.ends_with("[]");
    if (items) part.resize(part.size() - 2);
    if (!node->contains("properties") || !(*node)["properties"].contains(part)) return nullptr;
    node = &(*node)["properties"][part];
    if (items) {
      if (!node->contains("items")) return nullptr;
      node = &(*node)["items"];
    }
  }
  return node;
}

std::vector<std::string> enum_of(const json& root, const std::string& path) {
  const json* node = schema_at(root, path);
  REQUIRE(node);
  return (*node)["enum"].get<std::vector<std::string>>();
}

// Structural-schema basics the API server insists on, everywhere in the tree.
void check_structural(const json& s, const std::string& path) {
  INFO(path);
  const bool int_or_string = s.value("x-kubernetes-int-or-string", false);
  CHECK((s.contains("type") || int_or_string ||
         s.value("x-kubernetes-preserve-unknown-fields", false)));
  if (int_or_string) {
    CHECK(s["anyOf"] == json::parse(R"([{"type": "integer"}, {"type": "string"}])"));
  }
  for (const auto& rule : s.value("x-kubernetes-validations", json::array())) {
    CHECK(rule.contains("rule"));
    CHECK(rule.contains("message"));
  }
  if (s.contains("x-kubernetes-list-map-keys")) {
    for (const auto& key : s["x-kubernetes-list-map-keys"]) {
      const json required = s["items"].value("required", json::array());
      CHECK(std::find(required.begin(), required.end(), key) != required.end());
    }
  }
  if (s.contains("default") && s.value("type", "") == "object") CHECK(s["default"].is_object());
  if (s.contains("default") && s.contains("enum")) {
    CHECK(std::find(s["enum"].begin(), s["enum"].end(), s["default"]) != s["enum"].end());
  }
  if (s.contains("properties")) {
    for (const auto& [key, child] : s["properties"].items())
      check_structural(child, path + "." + key);
  }
  if (s.contains("items")) check_structural(s["items"], path + "[]");
  if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
    check_structural(s["additionalProperties"], path + "{}");
  }
}

std::vector<std::string> rules_at(const json* node) {
  std::vector<std::string> out;
  REQUIRE(node);
  for (const auto& r : node->value("x-kubernetes-validations", json::array())) {
    out.push_back(r["rule"].get<std::string>() + " => " + r["message"].get<std::string>());
  }
  return out;
}

Catalog default_catalog() {
  auto catalog = parse_catalog(load_yaml("config/catalog.yaml"));
  REQUIRE(catalog);
  return *catalog;
}

}  // namespace

TEST_CASE("crds/ holds exactly the four CRDs", "[policy][files][crds]") {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("crds"))) {
    files.insert(entry.path().filename().string());
  }
  CHECK(files == std::set<std::string>{"diagnoses.yaml", "networks.yaml", "nodeoperations.yaml",
                                       "resourcepools.yaml"});
}

// O9: the Diagnosis is namespaced (its Job owns it), listed as the issue names its columns.
TEST_CASE("the Diagnosis CRD: namespaced, diag, JOB TYPE CATEGORY RISK AGE",
          "[policy][files][crds]") {
  json d = crd("diagnoses");
  CHECK(d["metadata"]["name"] == "diagnoses.respool.io");
  CHECK(d["spec"]["scope"] == "Namespaced");
  const json& names = d["spec"]["names"];
  CHECK(names["kind"] == "Diagnosis");
  CHECK(names["singular"] == "diagnosis");
  CHECK(names["listKind"] == "DiagnosisList");
  CHECK(names["shortNames"] == json::array({"diag"}));
  const json& v = d["spec"]["versions"][0];
  CHECK(v["subresources"] == json({{"status", json::object()}}));
  std::vector<std::string> shown;
  for (const auto& c : v["additionalPrinterColumns"]) {
    std::string path = c["jsonPath"].get<std::string>().substr(1);
    path = std::regex_replace(path, std::regex(R"(\[[0-9]+\])"), "[]");
    if (!path.starts_with("metadata.")) CHECK(schema_at(schema_of(d), path) != nullptr);
    if (c.value("priority", 0) == 0) shown.push_back(c["name"].get<std::string>());
  }
  CHECK(shown == std::vector<std::string>{"Job", "Type", "Category", "Risk", "Age"});
  check_structural(schema_of(d), "Diagnosis");
  CHECK(enum_of(schema_of(d), "spec.type") == std::vector<std::string>{"Automatic", "Standard"});
  for (const char* field :
       {"status.phase", "status.reason", "status.risk", "status.category", "status.creator",
        "status.startTime", "status.completionTime", "status.duration", "status.job.name",
        "status.job.resourceType", "status.job.creationTimestamp", "status.results[].symptom",
        "status.results[].fault", "status.results[].component", "status.results[].module",
        "status.results[].solution", "status.results[].device.node",
        "status.results[].device.isolationCode", "status.results[].keyLines[].text"}) {
    INFO(field);
    CHECK(schema_at(schema_of(d), field) != nullptr);
  }
}

TEST_CASE("each CRD is cluster-scoped respool.io/v1alpha1 with status, columns and names",
          "[policy][files][crds]") {
  struct Expect {
    std::string plural, kind, short_name;
    std::set<std::string> columns;
  };
  for (const Expect& e : std::vector<Expect>{
           {"networks", "Network", "rpnet", {"CIDR", "Ready", "Used-By", "Age"}},
           {"resourcepools",
            "ResourcePool",
            "rp",
            {"Phase", "Type", "Available", "Total", "Network", "Age"}},
           {"nodeoperations", "NodeOperation", "nodeop", {"Pool", "Type", "Phase", "Age"}}}) {
    INFO(e.plural);
    json d = crd(e.plural);
    CHECK(d["apiVersion"] == "apiextensions.k8s.io/v1");
    CHECK(d["kind"] == "CustomResourceDefinition");
    CHECK(d["metadata"]["name"] == e.plural + ".respool.io");
    CHECK(d["spec"]["group"] == "respool.io");
    CHECK(d["spec"]["scope"] == "Cluster");
    const json& names = d["spec"]["names"];
    CHECK(names["plural"] == e.plural);
    CHECK(names["kind"] == e.kind);
    CHECK(names["listKind"] == e.kind + "List");
    CHECK(names["singular"] == e.plural.substr(0, e.plural.size() - 1));
    CHECK(names["shortNames"] == json::array({e.short_name}));
    CHECK(names["categories"] == json::array({"respool"}));
    REQUIRE(d["spec"]["versions"].size() == 1);
    const json& v = d["spec"]["versions"][0];
    CHECK(v["name"] == "v1alpha1");
    CHECK(v["served"] == true);
    CHECK(v["storage"] == true);
    CHECK(v["subresources"] == json({{"status", json::object()}}));
    std::set<std::string> columns;
    for (const auto& c : v["additionalPrinterColumns"]) {
      columns.insert(c["name"].get<std::string>());
      CHECK(c["jsonPath"].get<std::string>().starts_with("."));
      CHECK(std::set<std::string>{"string", "integer", "number", "boolean", "date"}.contains(
          c["type"].get<std::string>()));
      // Columns show fields the schema has (a filter [?(...)] reads as the list's items).
      std::string path = c["jsonPath"].get<std::string>().substr(1);
      path = std::regex_replace(path, std::regex(R"(\[\?\(.*\)\])"), "[]");
      if (!path.starts_with("metadata.")) CHECK(schema_at(schema_of(d), path) != nullptr);
    }
    for (const std::string& col : e.columns)
      CHECK(columns.contains(col));
    check_structural(schema_of(d), e.kind);
    const json* status = schema_at(schema_of(d), "status");
    REQUIRE(status);
    CHECK(schema_at(*status, "observedGeneration"));
    CHECK(enum_of(*status, "conditions[].status") ==
          std::vector<std::string>{"True", "False", "Unknown"});
    CHECK((*status)["properties"]["conditions"]["x-kubernetes-list-map-keys"] == json({"type"}));
  }
}

TEST_CASE("the CRDs carry every field of API.md", "[policy][files][crds]") {
  std::map<std::string, std::vector<std::string>> contract{
      {"networks",
       {"spec.cidr", "spec.interconnects[].vpc", "spec.interconnects[].subnet",
        "spec.interconnects[].cidr", "status.cidr", "status.usedBy", "status.conditions",
        "status.observedGeneration"}},
      {"resourcepools",
       {"spec.description",
        "spec.type",
        "spec.jobTypes",
        "spec.network",
        "spec.resources[].flavor",
        "spec.resources[].count",
        "spec.resources[].zones[].zone",
        "spec.resources[].zones[].count",
        "spec.resources[].containerEngineSpaceGiB",
        "spec.driver.gpuVersion",
        "spec.driver.npuVersion",
        "spec.driver.upgrade.mode",
        "spec.driver.upgrade.maxUnavailable",
        "spec.nodeBinding",
        "spec.tags",
        "status.phase",
        "status.conditions",
        "status.nodes.total",
        "status.nodes.available",
        "status.nodes.abnormal",
        "status.nodes.creating",
        "status.nodes.queuing",
        "status.nodes.deleting",
        "status.resources[].flavor",
        "status.resources[].desired",
        "status.resources[].available",
        "status.resources[].abnormal",
        "status.resources[].creating",
        "status.resources[].queuing",
        "status.resources[].deleting",
        "status.driver.gpuVersion",
        "status.driver.target.gpuVersion",
        "status.driver.nodes.upgraded",
        "status.driver.nodes.upgrading",
        "status.driver.nodes.pending",
        "status.driver.nodes.failed",
        "status.driver.failedNodes[].name",
        "status.driver.failedNodes[].reason",
        "status.driver.failedNodes[].message",
        "status.plugins[].jobType",
        "status.plugins[].name",
        "status.plugins[].ready",
        "status.plugins[].requests",
        "status.records[].operation",
        "status.records[].phase",
        "status.records[].startTime",
        "status.records[].endTime",
        "status.records[].nodes",
        "status.records[].message",
        "status.observedGeneration"}},
      {"nodeoperations",
       {"spec.pool", "spec.type", "spec.nodes", "spec.reset.os", "spec.reset.maxUnavailable",
        "spec.timeout", "status.phase", "status.reason", "status.message", "status.startTime",
        "status.completionTime", "status.nodes[].name", "status.nodes[].phase",
        "status.nodes[].replacement", "status.nodes[].message", "status.conditions",
        "status.observedGeneration"}}};
  for (const auto& [plural, fields] : contract) {
    const json d = crd(plural);
    for (const std::string& field : fields) {
      INFO(plural << " " << field);
      CHECK(schema_at(schema_of(d), field) != nullptr);
    }
  }
}

TEST_CASE("CRD enums and defaults match the policy and the rules",
          "[policy][files][crds][rule:P2][rule:P5][rule:P11][rule:W4]") {
  const json pool = schema_of(crd("resourcepools"));
  CHECK(enum_of(pool, "spec.type") == std::vector<std::string>{"Physical", "Logical"});
  CHECK((*schema_at(pool, "spec.type"))["default"] == "Physical");
  std::vector<std::string> job_types;
  for (JobType t : kJobTypes)
    job_types.emplace_back(to_string(t));
  CHECK(enum_of(pool, "spec.jobTypes[]") == job_types);
  CHECK(enum_of(pool, "status.plugins[].jobType") == job_types);
  std::vector<std::string> phases;
  for (int p = 0; p <= int(PoolPhase::Failed); ++p)
    phases.emplace_back(to_string(PoolPhase(p)));
  CHECK(enum_of(pool, "status.phase") == phases);
  std::vector<std::string> operations;
  for (int o = 0; o <= int(Operation::Delete); ++o)
    operations.emplace_back(to_string(Operation(o)));
  CHECK(enum_of(pool, "status.records[].operation") == operations);
  const json* space = schema_at(pool, "spec.resources[].containerEngineSpaceGiB");
  CHECK((*space)["minimum"] == 50);
  CHECK((*space)["default"] == 50);
  CHECK((*schema_at(pool, "spec.driver.upgrade.mode"))["default"] == "Secure");
  CHECK((*schema_at(pool, "spec.driver.upgrade"))["default"] == json::object());
  CHECK((*schema_at(pool, "spec.tags"))["maxProperties"] == 20);
  CHECK((*schema_at(pool, "spec.resources[].count"))["minimum"] == 1);
  CHECK((*schema_at(pool, "spec.resources[].zones[].count"))["minimum"] == 1);
  CHECK((*schema_at(pool, "spec.resources"))["minItems"] == 1);
  CHECK((*schema_at(pool, "spec.resources"))["x-kubernetes-list-map-keys"] == json({"flavor"}));
  CHECK((*schema_at(pool, "spec.description"))["maxLength"] == 256);
  const json network = schema_of(crd("networks"));
  CHECK((*schema_at(network, "spec.interconnects"))["maxItems"] == 10);
  const json nodeop = schema_of(crd("nodeoperations"));
  CHECK(enum_of(nodeop, "spec.type") == std::vector<std::string>{"Replace", "Reset", "Delete"});
  CHECK((*schema_at(nodeop, "spec.timeout"))["default"] == "24h");
  CHECK((*schema_at(nodeop, "spec.nodes"))["minItems"] == 1);
}

TEST_CASE("CRD CEL rules carry P1, P2, P4 and W1",
          "[policy][files][crds][rule:P1][rule:P2]"
          "[rule:P4][rule:W1]") {
  const json pool = schema_of(crd("resourcepools"));
  const std::string p1 =
      "self.metadata.name.matches('^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$') => metadata.name: must be "
      "at most 63 lowercase letters, digits and hyphens, start with a letter and not end with a "
      "hyphen (P1)";
  CHECK(rules_at(&pool) == std::vector<std::string>{p1});
  CHECK(rules_at(schema_at(pool, "spec")) ==
        std::vector<std::string>{"self.type != 'Logical' || self.jobTypes.all(t, t == 'Training')"
                                 " => spec.jobTypes: a Logical pool accepts only Training (P2)"});
  auto p4 = rules_at(schema_at(pool, "spec.resources[]"));
  REQUIRE(p4.size() == 2);
  CHECK(p4[1] ==
        "!has(self.count) || !has(self.zones) || self.zones.map(z, z.count).sum() == "
        "self.count => spec.resources[].count: must equal the sum of the zones' counts "
        "(P4)");
  const json network = schema_of(crd("networks"));
  CHECK(rules_at(schema_at(network, "spec.cidr")) ==
        std::vector<std::string>{"self == oldSelf => spec.cidr: is immutable (W1)"});
  CHECK(rules_at(schema_at(network, "spec")) ==
        std::vector<std::string>{"has(self.cidr) == has(oldSelf.cidr) => spec.cidr: cannot be "
                                 "added or removed after creation (W1)"});

  // The P1 regex of the CEL rule and is_pool_name agree.
  const std::regex p1_regex("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");
  for (const std::string& name : {std::string("gpu-a"), std::string("a"), std::string("1a"),
                                  std::string("a-"), std::string("A"), std::string(63, 'x'),
                                  std::string(64, 'x'), std::string("a_b"), std::string("a.b")}) {
    INFO(name);
    CHECK(std::regex_match(name, p1_regex) == is_pool_name(name));
  }
  // The CIDR pattern accepts what parse_cidr reads (host bits aside).
  const std::regex cidr((*schema_at(network, "spec.cidr"))["pattern"].get<std::string>());
  for (const char* text : {"192.168.0.0/17", "10.0.0.0/8", "0.0.0.0/0", "255.255.255.255/32",
                           "256.0.0.0/8", "1.2.3.0/33", "01.2.3.0/24", "1.2.3/8"}) {
    INFO(text);
    CHECK(std::regex_match(text, cidr) == parse_cidr(text).has_value());
  }
}

TEST_CASE("the default catalog parses and serves every job type", "[policy][files][catalog]") {
  Catalog catalog = default_catalog();
  CHECK(catalog.flavors.size() >= 4);
  std::set<AcceleratorType> types;
  for (const Flavor& f : catalog.flavors)
    types.insert(f.accelerator.type);
  CHECK(types == std::set{AcceleratorType::GPU, AcceleratorType::NPU, AcceleratorType::None});
  for (JobType t : kJobTypes)
    CHECK_FALSE(catalog.plugins[t].empty());
  auto plugins = render_plugins(catalog, {"gpu-a", "u"}, kJobTypes, "respool-system");
  REQUIRE(plugins.size() == 3);
  CHECK(plugins[0].name == "gpu-a-training-agent");
  CHECK(plugins[1].name == "gpu-a-inference-gateway");
  CHECK(plugins[2].name == "gpu-a-devenviron-agent");
  for (const RenderedPlugin& p : plugins) {
    INFO(p.name);
    CHECK(p.manifest.dump().find("{{") == std::string::npos);
    CHECK(p.manifest["spec"]["selector"]["matchLabels"]["app.kubernetes.io/instance"] == "gpu-a");
    CHECK_FALSE(plugin_requests(p, 1).empty());
  }
  CHECK(catalog.driver_image(AcceleratorType::NPU, "23.0.6") ==
        "registry.example/respool/ascend-driver:23.0.6");
  CHECK_FALSE(catalog.reset_image.empty());
}

TEST_CASE("the examples are valid against the CRDs and the validators",
          "[policy][files][examples][rule:P3]") {
  Catalog catalog = default_catalog();
  json network = load_yaml("examples/network.yaml");
  json pool = load_yaml("examples/resourcepool.yaml");
  for (auto [object, plural] : {std::pair{&network, "networks"}, {&pool, "resourcepools"}}) {
    INFO(plural);
    std::vector<std::string> problems;
    schema_problems(*object, schema_of(crd(plural)), "", problems);
    CHECK(problems.empty());
    for (const auto& p : problems)
      UNSCOPED_INFO(p);
  }
  auto pool_spec = check_pool(pool, catalog);
  REQUIRE(pool_spec);
  auto net_spec = check_network(network);
  REQUIRE(net_spec);
  CHECK(pool_spec->network == network["metadata"]["name"].get<std::string>());
  // The network gets a preset and is Ready.
  auto verdict =
      decide_networks(std::vector{network_view_from_json(network)}, catalog.network_presets)[0];
  CHECK(verdict.ready);
  CHECK(verdict.block);
  // A typo would be pruned by the API server and silently ignored: the checker catches it.
  std::vector<std::string> problems;
  json typo = pool;
  typo["spec"]["resources"][0]["containerEngineSpaceGB"] = 100;
  schema_problems(typo, schema_of(crd("resourcepools")), "", problems);
  CHECK(problems ==
        std::vector<std::string>{".spec.resources[0].containerEngineSpaceGB: unknown field"});
}

TEST_CASE("the sandbox's free nodes let the example pool come up",
          "[policy][files][examples]"
          "[rule:N9][rule:P6][rule:F3]") {
  Catalog catalog = default_catalog();
  json nodes = load_yaml("examples/sandbox-nodes.yaml");
  CHECK(nodes["flavorLabel"] == catalog.flavor_label);
  CHECK(nodes["zoneLabel"] == catalog.zone_label);
  std::vector<NodeView> views;
  std::set<std::string> names;
  for (const json& group : nodes["nodes"]) {
    INFO(group.dump());
    const Flavor* flavor = catalog.flavor_by_label(group["flavor"].get<std::string>());
    REQUIRE(flavor);
    if (flavor->accelerator.type != AcceleratorType::None) {
      CHECK(group["capacity"][flavor->accelerator.resource] ==
            std::to_string(flavor->accelerator.count));
    }
    for (const char* key : {"cpu", "memory", "pods"})
      CHECK(group["capacity"].contains(key));
    for (int i = 1; i <= group["count"].get<int>(); ++i) {
      json node = {{"metadata",
                    {{"name", group["namePrefix"].get<std::string>() + "-" + std::to_string(i)},
                     {"resourceVersion", "1"},
                     {"labels", group.value("labels", json::object())}}},
                   {"status",
                    {{"allocatable", group["capacity"]},
                     {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
      node["metadata"]["labels"][catalog.flavor_label] = group["flavor"];
      node["metadata"]["labels"][catalog.zone_label] = group["zone"];
      CHECK(names.insert(node["metadata"]["name"].get<std::string>()).second);
      views.push_back(node_view_from_json(node));
    }
  }
  std::vector<FreeNode> free;
  for (const NodeView& v : views) {
    auto f = free_node(v, catalog);
    CHECK(f);
    if (f) free.push_back(*f);
  }
  auto spec = check_pool(load_yaml("examples/resourcepool.yaml"), catalog);
  REQUIRE(spec);
  PoolPlan plan = plan_pool(desired_groups(*spec), {}, free);
  CHECK(plan.missing() == 0);
  CHECK(plan.queuing() == 0);
  CHECK(int(plan.claims.size()) == spec->desired_nodes());
  // Each claimed node passes admission as it is (Ready, accelerators as promised).
  for (const Claim& c : plan.claims) {
    auto it = std::find_if(views.begin(), views.end(),
                           [&](const NodeView& v) { return v.name == c.node; });
    REQUIRE(it != views.end());
    CHECK(admission_complete(*it, catalog.flavor(c.flavor)));
  }
}
