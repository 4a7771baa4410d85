#include "reconcilers/inventory/free_nodes_controller.hpp"

#include <map>
#include <optional>
#include <utility>

#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

namespace {

constexpr auto kMinInterval = std::chrono::seconds(1);
constexpr const char* kKey = "free-nodes";

class FreeNodeCounter {
 public:
  explicit FreeNodeCounter(Context& ctx) : ctx_(ctx) {}

  Outcome<runtime::ReconcileResult> reconcile(const std::string&) {
    const auto now = ctx_.clock->now();
    if (last_count_ && now - *last_count_ < kMinInterval)
      return runtime::ReconcileResult::after(kMinInterval - (now - *last_count_));
    last_count_ = now;
    ctx_.metrics->set_free_nodes(count());
    return runtime::ReconcileResult::after(std::chrono::minutes(1));
  }

 private:
  // Every (flavor, zone) that has nodes gets a series, 0 when none of them is free; the free
  // ones are the free-node index's (its handler runs before this controller hears).
  std::map<std::pair<std::string, std::string>, int> count() const {
    auto catalog = ctx_.catalog->get();
    auto& nodes = ctx_.caches.nodes->store();
    std::map<std::pair<std::string, std::string>, int> counts;
    for (const auto& flavor : catalog->flavors) {
      for (const auto& n : nodes.by_index(kByFlavor, flavor.label_value)) {
        auto zone = n->meta.labels.get(catalog->zone_label).value_or("");
        counts.try_emplace({flavor.name, std::string(zone)}, 0);
      }
    }
    for (const auto& free : ctx_.free_nodes->list(catalog, [&nodes] { return nodes.list(); }))
      ++counts[{free.flavor, free.zone}];
    return counts;
  }

  Context& ctx_;
  std::optional<runtime::TimePoint> last_count_;  // one worker: no lock
};

}  // namespace

ControllerState add_free_nodes_controller(runtime::Manager& manager, Context& ctx, const Options&) {
  auto counter = std::make_shared<FreeNodeCounter>(ctx);
  runtime::ControllerOptions options;
  options.name = "inventory";
  auto& controller = manager.add_controller(reconcile_with(*counter), std::move(options));
  controller.watch(*ctx.caches.nodes, std::function<Keys(const kube::Node&)>(
                                          [](const kube::Node&) { return Keys{kKey}; }));
  return counter;
}

}  // namespace respool::reconcilers
