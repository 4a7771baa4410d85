#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "operator/kube/objects.hpp"

using namespace respool::kube;

namespace {

using Labels = SharedValue<StringMap::Items, AtomPairsHash, std::equal_to<StringMap::Items>>;

StringMap labels(std::initializer_list<std::pair<const char*, const char*>> pairs) {
  StringMap::Items items;
  for (const auto& [k, v] : pairs)
    items.emplace_back(Atom(k), Atom(v));
  return StringMap(std::move(items));
}

}  // namespace

TEST_CASE("equal label maps share one value, freed with the last holder", "[kube][shared]") {
  const std::size_t before = Labels::distinct();
  {
    auto a = labels({{"app", "infer-7"}, {"team", "vision"}});
    auto b = labels({{"team", "vision"}, {"app", "infer-7"}});  // another order, the same map
    CHECK(Labels::distinct() == before + 1);
    CHECK(&a.items() == &b.items());
    auto c = labels({{"app", "infer-8"}, {"team", "vision"}});
    CHECK(Labels::distinct() == before + 2);

    // A change is a copy: the other holder keeps its map.
    b.set("app", "infer-9");
    CHECK(a.get("app") == std::optional<std::string_view>("infer-7"));
    CHECK(b.get("app") == std::optional<std::string_view>("infer-9"));
    CHECK(Labels::distinct() == before + 3);
  }
  CHECK(Labels::distinct() == before);
  // The empty map is held by no entry.
  StringMap empty = labels({});
  CHECK(empty.empty());
  CHECK(Labels::distinct() == before);
}

TEST_CASE("a map built with a repeated key keeps its last value, sorted", "[kube][shared]") {
  auto m = labels({{"b", "1"}, {"a", "2"}, {"b", "3"}});
  REQUIRE(m.size() == 2);
  CHECK(m.items()[0].first == "a");
  CHECK(m.get("b") == std::optional<std::string_view>("3"));
}

TEST_CASE("resource lists are shared only when formats match too", "[kube][shared]") {
  using respool::apimachinery::Quantity;
  ResourceList binary({{Atom("memory"), *Quantity::parse("1Gi")}});
  ResourceList decimal({{Atom("memory"), *Quantity::parse("1073741824")}});
  ResourceList again({{Atom("memory"), *Quantity::parse("1Gi")}});
  CHECK(&binary.items() == &again.items());
  CHECK(&binary.items() != &decimal.items());
  CHECK(binary.get("memory") == decimal.get("memory"));
  CHECK(binary.get("memory").to_string() == "1Gi");
}

TEST_CASE("owner references are shared and copied on change", "[kube][shared]") {
  OwnerReference rs{Atom("apps/v1"), Atom("ReplicaSet"), Atom("web-7f9"), Atom("u-1"), true};
  OwnerReferences a({rs});
  OwnerReferences b({rs});
  CHECK(&a.items() == &b.items());
  b.push_back({Atom("v1"), Atom("Node"), Atom("n"), Atom("u-2"), false});
  CHECK(a.size() == 1);
  CHECK(b.size() == 2);
  CHECK(b[0].name == "web-7f9");
}

TEST_CASE("threads that make and drop equal maps at once leave none behind", "[kube][shared]") {
  const std::size_t before = Labels::distinct();
  std::atomic<int> wrong{0};  // Catch2's assertions are not thread-safe
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&wrong] {
      for (int i = 0; i < 20000; ++i) {
        const char* value = i % 2 ? "odd" : "even";
        auto m = labels({{"app", value}});
        auto copy = m;
        if (copy.get("app") != std::optional<std::string_view>(value)) ++wrong;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(wrong == 0);
  CHECK(Labels::distinct() == before);
}
