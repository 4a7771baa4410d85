// FreeNodeIndex: the free nodes (N9) of the cache, kept by its event handlers.
#include <catch2/catch.hpp>

#include "reconcilers/free_node_index.hpp"

using namespace respool;
using reconcilers::FreeNodeIndex;
using reconcilers::NodeViewCache;

namespace {

std::shared_ptr<const kube::Node> node(const std::string& name, const std::string& version,
                                       const std::string& flavor, const std::string& pool = "") {
  auto n = std::make_shared<kube::Node>();
  n->meta.name = name;
  n->meta.resource_version = version;
  n->meta.labels.set("node.kubernetes.io/instance-type", flavor);
  n->meta.labels.set("topology.kubernetes.io/zone", "az-1");
  if (!pool.empty()) n->meta.labels.set("respool.io/pool", pool);
  n->ready = kube::ConditionStatus::True;
  return n;
}

std::shared_ptr<const policy::Catalog> catalog(const std::string& flavor_label_value) {
  auto c = std::make_shared<policy::Catalog>();
  c->flavor_label = "node.kubernetes.io/instance-type";
  c->zone_label = "topology.kubernetes.io/zone";
  policy::Flavor f;
  f.name = "cpu";
  f.label_value = flavor_label_value;
  c->flavors.push_back(f);
  return c;
}

std::vector<std::string> names(const std::vector<policy::FreeNode>& free) {
  std::vector<std::string> out;
  for (const auto& f : free)
    out.push_back(f.name + "@" + f.resource_version);
  return out;
}

}  // namespace

TEST_CASE("the free-node index follows the cache's changes", "[reconcilers][rule:N9]") {
  NodeViewCache views;
  FreeNodeIndex index(views);
  std::vector<std::shared_ptr<const kube::Node>> cache{
      node("n-2", "1", "c64"), node("n-1", "1", "c64"), node("g-1", "1", "a100")};
  auto all = [&] { return cache; };
  auto cpu = catalog("c64");
  // Before the first list the handlers have nothing to keep: the first list builds it.
  index.observe(node("n-3", "1", "c64"));
  CHECK(names(index.list(cpu, all)) == std::vector<std::string>{"n-1@1", "n-2@1"});

  // A claim takes a node out, its release brings it back at its new version.
  index.observe(node("n-1", "2", "c64", "gpu-a"));
  CHECK(names(index.list(cpu, all)) == std::vector<std::string>{"n-2@1"});
  index.observe(node("n-1", "3", "c64"));
  CHECK(names(index.list(cpu, all)) == std::vector<std::string>{"n-1@3", "n-2@1"});
  // Added and deleted nodes.
  index.observe(node("n-0", "4", "c64"));
  index.forget(node("n-2", "1", "c64"));
  CHECK(names(index.list(cpu, all)) == std::vector<std::string>{"n-0@4", "n-1@3"});

  // Another catalog: rebuilt from the whole cache.
  CHECK(names(index.list(catalog("a100"), all)) == std::vector<std::string>{"g-1@1"});
}
