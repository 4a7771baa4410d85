// NodeViewCache: a view per cached node version, rebuilt when the cache replaces the object.
#include <catch2/catch.hpp>

#include "reconcilers/node_view_cache.hpp"

using namespace respool;
using reconcilers::NodeViewCache;

namespace {

std::shared_ptr<const kube::Node> node(const std::string& name, const std::string& version,
                                       const std::string& pool = "") {
  auto n = std::make_shared<kube::Node>();
  n->meta.name = name;
  n->meta.resource_version = version;
  if (!pool.empty()) n->meta.labels.set("respool.io/pool", pool);
  n->ready = kube::ConditionStatus::True;
  return n;
}

}  // namespace

TEST_CASE("node views are built once per cached object", "[reconcilers][views]") {
  NodeViewCache cache;
  auto v1 = node("n-1", "10");
  auto first = cache.view(v1);
  CHECK(first->name == "n-1");
  CHECK(first->resource_version == "10");
  CHECK(first->ready == true);
  CHECK(cache.view(v1) == first);  // same object: same view, nothing rebuilt

  // The cache replaced the object (a claim): the view follows, even while the old one lives.
  auto v2 = node("n-1", "11", "gpu-a");
  auto second = cache.view(v2);
  CHECK(second != first);
  REQUIRE(second->label("respool.io/pool"));
  CHECK(*second->label("respool.io/pool") == "gpu-a");
  CHECK(cache.view(v2) == second);
  // An equal but distinct object (a relist) is a new object: rebuilt, not trusted by name.
  auto v2_again = node("n-1", "11", "gpu-a");
  CHECK(cache.view(v2_again) != second);
}

TEST_CASE("views of deleted nodes are dropped", "[reconcilers][views]") {
  NodeViewCache cache;
  {
    std::vector<std::shared_ptr<const kube::Node>> gone;
    for (int i = 0; i < 50; ++i) {
      gone.push_back(node("old-" + std::to_string(i), "1"));
      cache.view(gone.back());
    }
    CHECK(cache.size() == 50);
  }  // the cache let go of them: deleted nodes
  std::vector<std::shared_ptr<const kube::Node>> live;
  for (int i = 0; i < 120; ++i) {
    live.push_back(node("new-" + std::to_string(i), "1"));
    cache.view(live.back());
  }
  CHECK(cache.size() < 170);
  CHECK(cache.size() >= 120);
  for (const auto& n : live)
    CHECK(cache.view(n)->name == n->meta.name);
}
