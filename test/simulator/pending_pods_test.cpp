#include <catch2/catch.hpp>

#include "operator/runtime/clock.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/pending_pods.hpp"

using namespace respool;
using namespace respool::sandbox::sim;
using Json = nlohmann::json;

namespace {
std::shared_ptr<const kube::Unstructured> cached(const std::string& name) {
  kube::Unstructured u;
  u.object = {{"metadata", {{"name", name}, {"uid", name + "-uid"}}}};
  u.meta = kube::meta_from_json(u.object);
  return std::make_shared<const kube::Unstructured>(std::move(u));
}
std::vector<std::string> names(const OwnedPods& pods) {
  std::vector<std::string> out;
  for (const Json* p : pods.pods) {
    std::string n = string_at(*p, {"metadata", "name"});
    if (!at_path(*p, {"metadata", "deletionTimestamp"}).is_null()) n += "(deleting)";
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("pending writes are laid over the cache until it shows them", "[simulator]") {
  runtime::ManualClock clock;
  PendingPods pending(clock, std::chrono::minutes(5));
  auto a = cached("a");
  auto b = cached("b");
  pending.created("owner", {{"metadata", {{"name", "c"}, {"uid", "c-uid"}}}});
  pending.deleted("owner", "b-uid");
  CHECK(names(pending.overlay("owner", {a, b})) ==
        std::vector<std::string>{"a", "b(deleting)", "c"});
  CHECK(names(pending.overlay("other", {})).empty());

  // The informer shows c and b's deletion: the overlay adds nothing any more.
  pending.observe({{"metadata", {{"name", "c"}, {"uid", "c-uid"}}}});
  pending.observe_gone(b->object);
  CHECK(pending.empty());
  CHECK(names(pending.overlay("owner", {a})) == std::vector<std::string>{"a"});
}

TEST_CASE("pending writes expire", "[simulator]") {
  runtime::ManualClock clock;
  PendingPods pending(clock, std::chrono::minutes(5));
  pending.created("owner", {{"metadata", {{"name", "c"}, {"uid", "c-uid"}}}});
  clock.advance(std::chrono::minutes(6));
  CHECK(pending.overlay("owner", {}).pods.empty());
  CHECK(pending.empty());
}
