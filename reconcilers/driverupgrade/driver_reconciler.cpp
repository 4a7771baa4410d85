#include "reconcilers/driverupgrade/driver_reconciler.hpp"

#include <algorithm>

#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/pool_plan.hpp"

namespace respool::reconcilers {

using runtime::ReconcileResult;

Outcome<ReconcileResult> DriverReconciler::reconcile(const std::string& name) {
  auto held = ctx_.pool_locks->lock(name);
  auto pool = ctx_.caches.pools->store().get(name);
  if (!pool || pool->meta.deletion_timestamp) return ReconcileResult::done();
  auto catalog = ctx_.catalog->get();
  auto spec = policy::check_pool(pool->object, *catalog);
  if (!spec) return ReconcileResult::done();  // the pool controller reports InvalidSpec
  const auto now = ctx_.clock->now();
  const policy::PoolRef ref{name, pool->meta.uid.str()};
  const auto want = policy::render_driver_daemonsets(*catalog, ref, *spec, ctx_.operator_namespace);
  if (auto synced = sync_daemonsets(*pool, want); !synced) return std::unexpected(synced.error());
  if (!spec->driver) return ReconcileResult::done();
  const bool behind = written_.behind(name, now, [&](const std::string& node) {
    auto cached = ctx_.caches.nodes->store().get(node);
    return cached ? std::optional(cached->meta.resource_version) : std::nullopt;
  });
  if (behind) return ReconcileResult::after(std::chrono::milliseconds(300));

  // Observe, decide.
  const std::vector<DriverMember> members = observe(name, *catalog, *spec);
  std::vector<policy::UpgradeNode> nodes;
  for (const auto& m : members)
    nodes.push_back(m.node);
  const auto blocked = policy::driver_block(
      *spec, pool->object.value("status", kube::Json::object()).value("phase", ""));
  policy::UpgradeSettings settings;
  settings.mode = spec->driver->mode;
  settings.batch =
      blocked ? 0 : policy::batch_size(spec->driver->max_unavailable, spec->desired_nodes());
  const policy::UpgradePlan plan = policy::plan_upgrade(nodes, settings, now);

  // Act, step by step; report as each step is written.
  Round round{*pool, settings.mode, blocked.has_value(), now};
  for (const policy::UpgradeStep& step : plan.steps) {
    auto member = std::find_if(members.begin(), members.end(),
                               [&](const DriverMember& m) { return m.node.name == step.node; });
    if (member != members.end()) act(round, step, *member);
  }
  if (round.failure) return std::unexpected(*round.failure);
  if (auto wake = policy::next_upgrade_round(plan, round.busy, now))
    return ReconcileResult::after(*wake);
  return ReconcileResult::done();
}

}  // namespace respool::reconcilers
