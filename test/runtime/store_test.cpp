#include <catch2/catch.hpp>

#include <algorithm>

#include "operator/kube/objects.hpp"
#include "operator/runtime/store.hpp"

using namespace respool;

namespace {

std::shared_ptr<const kube::Pod> pod(const char* ns, const char* name, const char* node,
                                     const char* rv = "1") {
  kube::Pod p;
  p.meta.namespace_ = kube::Atom(ns);
  p.meta.name = name;
  p.meta.resource_version = rv;
  p.node_name = kube::Atom(node);
  return std::make_shared<const kube::Pod>(std::move(p));
}

std::vector<std::string> names(const std::vector<runtime::Store<kube::Pod>::Ptr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods)
    out.push_back(p->meta.key());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("the store keys objects by their own namespace and name", "[runtime][store]") {
  runtime::Store<kube::Pod> store;
  store.add_index("node", [](const kube::Pod& p) {
    return p.node_name.empty() ? std::vector<std::string>{}
                               : std::vector<std::string>{p.node_name.str()};
  });
  CHECK_FALSE(store.upsert(pod("a", "web-1", "n1")));
  CHECK_FALSE(store.upsert(pod("b", "web-1", "n1")));  // the same name in another namespace
  CHECK(store.size() == 2);
  CHECK(store.get("a/web-1")->meta.namespace_ == "a");
  CHECK(store.get("b/web-1")->meta.namespace_ == "b");
  CHECK_FALSE(store.get("web-1"));
  CHECK(names(store.by_index("node", "n1")) == std::vector<std::string>{"a/web-1", "b/web-1"});

  // A replacement moves the object between index values and returns the old version.
  auto old = store.upsert(pod("a", "web-1", "n2", "2"));
  REQUIRE(old);
  CHECK(old->meta.resource_version == "1");
  CHECK(store.get("a/web-1")->meta.resource_version == "2");
  CHECK(names(store.by_index("node", "n1")) == std::vector<std::string>{"b/web-1"});
  CHECK(names(store.by_index("node", "n2")) == std::vector<std::string>{"a/web-1"});

  auto keys = store.keys();
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<std::string>{"a/web-1", "b/web-1"});

  CHECK(store.remove("b/web-1"));
  CHECK_FALSE(store.remove("b/web-1"));
  CHECK(store.by_index("node", "n1").empty());
  CHECK(store.size() == 1);
}

TEST_CASE("an object indexed twice under one value is listed there once", "[runtime][store]") {
  runtime::Store<kube::Pod> store;
  store.add_index("twice", [](const kube::Pod& p) {
    return std::vector<std::string>{p.node_name.str(), p.node_name.str()};
  });
  store.upsert(pod("a", "x", "n1"));
  CHECK(store.by_index("twice", "n1").size() == 1);
  store.remove("a/x");
  CHECK(store.by_index("twice", "n1").empty());
}
