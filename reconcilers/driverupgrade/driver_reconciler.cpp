#include "reconcilers/driverupgrade/driver_reconciler.hpp"

#include <algorithm>
#include <cstdio>

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/driver_upgrade_patch.hpp"
#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/pool_plan.hpp"
#include "reconcilers/policy/spec.hpp"
#include "reconcilers/policy/time.hpp"
#include "reconcilers/stable_hash.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

using kube::Json;
using runtime::ReconcileResult;

constexpr const char* kDriverHashAnnotation = "respool.io/driver-hash";
constexpr std::chrono::seconds kExpectationTimeout{30};

// One pool node whose driver the pool sets.
struct DriverMember {
  std::shared_ptr<const policy::NodeView> view;
  policy::AcceleratorType type = policy::AcceleratorType::GPU;
  std::vector<std::string> job_pods;  // namespace/name of its running job pods
  // Events of a node's upgrade regard the node (as `kubectl describe node` shows them): the
  // pool's own events stay few, within the recorder's per-object budget.
  runtime::ObjectReference ref;
};

void audit_driver_step(const std::string& pool, const std::string& node, runtime::TimePoint now,
                       policy::AuditResult result, std::string message) {
  write_audit(policy::audit_line({policy::AuditOperation::UpdatePoolV2, pool, node, std::nullopt,
                                  now, result, std::move(message)}));
}

// What a node's step says in its event and audit line (none for most steps).
struct StepReport {
  runtime::EventType type = runtime::EventType::Normal;
  std::string reason, message;
  std::optional<std::string> audit;  // the audit line's message
  policy::AuditResult result = policy::AuditResult::Success;
};

std::optional<StepReport> report_of(const policy::UpgradeStep& step, const policy::UpgradeNode& n,
                                    const std::string& type, policy::UpgradeMode mode) {
  using S = policy::UpgradeState;
  if (step.to == S::CordonRequired && step.from != step.to) {
    const std::string what = "upgrading the " + type + " driver of node " + n.name + " from " +
                             (n.running.empty() ? std::string("none") : n.running) + " to " +
                             n.target + " (" +
                             (mode == policy::UpgradeMode::Force ? "Force" : "Secure") + ")";
    return StepReport{runtime::EventType::Normal, "DriverUpgradeStarted", what,
                      "driver upgrade started: " + what, policy::AuditResult::Success};
  }
  if (step.to == S::Done && step.from == S::UncordonRequired) {
    const std::string what = "node " + n.name + " runs the " + type + " driver " + n.target;
    return StepReport{runtime::EventType::Normal, "DriverUpgraded", what,
                      "driver upgraded: " + what, policy::AuditResult::Success};
  }
  if (step.to == S::Failed && step.from != step.to) {
    const std::string what = "node " + n.name + ": " + step.reason + ": " + step.message;
    return StepReport{runtime::EventType::Warning, "DriverUpgradeFailed", what,
                      "driver upgrade failed: " + what, policy::AuditResult::Failure};
  }
  if (step.from == S::Failed && step.to == S::DriverRestartRequired) {
    return StepReport{runtime::EventType::Normal, "DriverUpgradeRetried",
                      "node " + n.name + ": restarting the " + type + " driver " + n.target +
                          " again (attempt " + std::to_string(n.attempts + 2) + ")",
                      std::nullopt, policy::AuditResult::Success};
  }
  return std::nullopt;
}

}  // namespace

bool DriverReconciler::audit_once(const std::string& pool, const std::string& node,
                                  const std::string& key) {
  std::lock_guard lock(mu_);
  std::string& last = audited_[pool + "/" + node];
  if (last == key) return false;
  last = key;
  return true;
}

bool DriverReconciler::waiting_for_cache(const std::string& pool, runtime::TimePoint now) {
  std::lock_guard lock(mu_);
  bool waiting = false;
  for (auto it = written_.begin(); it != written_.end();) {
    if (it->second.pool != pool) {
      ++it;
      continue;
    }
    auto node = ctx_.caches.nodes->store().get(it->first);
    const std::string seen =
        node ? std::string(node->meta.labels.get(policy::kDriverUpgradeStateLabel).value_or(""))
             : it->second.state;
    if (seen == it->second.state || now - it->second.at > kExpectationTimeout) {
      it = written_.erase(it);
    } else {
      waiting = true;
      ++it;
    }
  }
  return waiting;
}

void DriverReconciler::expect(const std::string& pool, const std::string& node, std::string state,
                              runtime::TimePoint now) {
  std::lock_guard lock(mu_);
  written_[node] = Written{pool, std::move(state), now};
}

std::expected<void, std::string> DriverReconciler::sync_daemonsets(
    const kube::Unstructured& pool, const std::vector<policy::DriverDaemonSet>& want) {
  const auto& res = kube::resources::daemonsets;
  for (const auto& installed : ctx_.caches.plugins->store().by_index(kByPool, pool.meta.name)) {
    if (!installed->meta.labels.get(policy::kDriverLabel)) continue;
    const bool wanted = std::any_of(want.begin(), want.end(), [&](const auto& w) {
      return w.name == installed->meta.name && w.namespace_name == installed->meta.namespace_.str();
    });
    if (wanted) continue;
    auto r = ctx_.client->remove(res, installed->meta.namespace_.str(), installed->meta.name);
    if (!r && !r.error().is(kube::Error::Kind::NotFound))
      return std::unexpected("removing driver DaemonSet " + installed->meta.name + ": " +
                             r.error().describe());
  }
  for (const auto& w : want) {
    Json manifest = w.manifest;
    const std::string hash = stable_hash(manifest.dump());
    manifest["metadata"]["annotations"][kDriverHashAnnotation] = hash;
    auto observed = ctx_.caches.plugins->store().get(w.namespace_name + "/" + w.name);
    if (!observed) {
      auto r = ctx_.client->create(res, w.namespace_name, manifest);
      if (!r && !r.error().is(kube::Error::Kind::AlreadyExists))
        return std::unexpected("creating driver DaemonSet " + w.name + ": " + r.error().describe());
      continue;
    }
    auto current = observed->meta.annotations.get(kDriverHashAnnotation);
    if (current && *current == hash) continue;
    // OnDelete: a new template restarts no pod; the upgrade does, node by node.
    manifest["metadata"]["resourceVersion"] = observed->meta.resource_version;
    auto r = ctx_.client->update(res, w.namespace_name, manifest);
    if (!r && !lost_race(r.error()))
      return std::unexpected("updating driver DaemonSet " + w.name + ": " + r.error().describe());
  }
  return {};
}

std::expected<ReconcileResult, std::string> DriverReconciler::reconcile(const std::string& name) {
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
  if (waiting_for_cache(name, now)) return ReconcileResult::after(std::chrono::milliseconds(300));

  // Observe: the pool's accelerator nodes with a target version, by name.
  std::vector<DriverMember> members;
  std::vector<policy::UpgradeNode> nodes;
  for (const auto& node : ctx_.caches.nodes->store().by_index(kByPool, name)) {
    auto view = ctx_.node_views->view(node);
    const policy::PoolNode pn = policy::pool_node(*view, *catalog, 0);
    const policy::Flavor* flavor = catalog->flavor(pn.flavor);
    const std::string target = policy::driver_target(*catalog, *spec, pn.flavor);
    if (!flavor || target.empty()) continue;
    policy::UpgradeNode u = policy::read_upgrade_node(*view, target);
    u.healthy =
        pn.state.state != policy::NodeState::Abnormal || u.state == policy::UpgradeState::Failed;
    u.held = view->annotations.contains(policy::kNodeOperationAnnotation) ||
             pn.state.state == policy::NodeState::Creating ||
             pn.state.state == policy::NodeState::Deleting ||
             pn.state.state == policy::NodeState::Resetting;
    u.admitting = pn.state.state == policy::NodeState::Creating;
    DriverMember m{view,
                   flavor->accelerator.type,
                   {},
                   {"v1", "Node", node->meta.name, "", node->meta.uid.str()}};
    for (const auto& pod : ctx_.caches.pods->store().by_index(kByNode, view->name)) {
      auto version = pod->meta.annotations.get(policy::kDriverVersionLabel);
      auto pool_label = pod->meta.labels.get(policy::kPoolLabel);
      if (version && pool_label && *pool_label == name && pod->owned_by_daemonset()) {
        policy::DriverPod d{pod->meta.name, std::string(*version),
                            pod->ready && pod->phase == "Running",
                            pod->meta.deletion_timestamp.has_value()};
        // The live pod wins over one on its way out.
        if (!u.driver_pod || (u.driver_pod->deleting && !d.deleting)) u.driver_pod = d;
      } else if (is_running_job(*pod, ctx_.job_selector)) {
        ++u.jobs;
        m.job_pods.push_back(pod->meta.key());
      }
    }
    members.push_back(std::move(m));
    nodes.push_back(std::move(u));
  }
  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return nodes[a].name < nodes[b].name; });
  std::vector<policy::UpgradeNode> sorted;
  std::vector<DriverMember> sorted_members;
  for (std::size_t i : order) {
    sorted.push_back(nodes[i]);
    sorted_members.push_back(members[i]);
  }

  // Decide.
  const Json status = pool->object.value("status", Json::object());
  const auto blocked = policy::driver_block(*spec, status.value("phase", ""));
  policy::UpgradeSettings settings;
  settings.mode = spec->driver->mode;
  settings.batch = policy::batch_size(spec->driver->max_unavailable, spec->desired_nodes());
  if (blocked) settings.batch = 0;
  const policy::UpgradePlan plan = policy::plan_upgrade(sorted, settings, now);

  // Act, step by step.
  bool busy = false;
  std::optional<std::string> failure;
  const std::string when = policy::format_time(now);
  for (const policy::UpgradeStep& step : plan.steps) {
    std::size_t i = 0;
    while (sorted[i].name != step.node)
      ++i;
    const policy::UpgradeNode& n = sorted[i];
    const DriverMember& m = sorted_members[i];
    const std::string type(policy::to_string(m.type));
    // A blocked upgrade marks no new node: marked nodes would make the pool Upgrading.
    if (blocked && step.to == policy::UpgradeState::Required) continue;
    if (step.action == policy::UpgradeAction::DeleteJobPods) {
      std::string names;
      for (const std::string& key : m.job_pods) {
        const auto slash = key.find('/');
        auto r =
            ctx_.client->remove(kube::resources::pods, key.substr(0, slash), key.substr(slash + 1));
        if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
          if (!failure) failure = "deleting job pod " + key + ": " + r.error().describe();
          continue;
        }
        names += (names.empty() ? "" : ", ") + key;
      }
      if (!names.empty()) {
        ctx_.events->event(
            reference_to(*pool), runtime::EventType::Warning, "DriverUpgradeStoppedJobs",
            "UpgradeDriver",
            "Force mode (D1): deleted the job pods on node " + n.name + ": " + names);
      }
      busy = true;
      continue;
    }
    if (step.action == policy::UpgradeAction::DeleteDriverPod && n.driver_pod) {
      auto r =
          ctx_.client->remove(kube::resources::pods, ctx_.operator_namespace, n.driver_pod->name);
      if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
        if (!failure)
          failure = "deleting driver pod " + n.driver_pod->name + ": " + r.error().describe();
        continue;
      }
      if (step.to == step.from) {  // a node in admission: its state waits for validation
        busy = true;
        continue;
      }
    }
    const Json patch = policy::upgrade_patch(*m.view, step, m.type, when);
    if (patch.is_null()) continue;
    // Audited before the state is written, so that a crash in between repeats the line on the
    // next run rather than losing it (at least once; a lost race does not repeat it).
    const auto report = report_of(step, n, type, settings.mode);
    if (report && report->audit &&
        audit_once(name, n.name,
                   std::string(policy::to_string(step.from)) + ">" +
                       std::string(policy::to_string(step.to)) + ">" + n.target + ">" +
                       std::to_string(n.attempts)))
      audit_driver_step(name, n.name, now, report->result, *report->audit);
    auto r = ctx_.client->patch(kube::resources::nodes, "", n.name, kube::PatchType::Merge, patch);
    if (!r) {
      if (lost_race(r.error())) {
        busy = true;
        continue;
      }
      if (!failure)
        failure = "writing the upgrade state of node " + n.name + ": " + r.error().describe();
      continue;
    }
    expect(name, n.name, std::string(policy::to_string(step.to)), now);
    busy = true;
    if (report)
      ctx_.events->event(m.ref, report->type, report->reason, "UpgradeDriver", report->message);
  }

  if (failure) return std::unexpected(*failure);
  auto wake = plan.next_check;
  auto at = [&](runtime::TimePoint t) {
    if (!wake || t < *wake) wake = t;
  };
  if (busy) at(now + std::chrono::milliseconds(500));
  if (plan.running()) at(now + std::chrono::seconds(10));
  if (wake) {
    return ReconcileResult::after(
        std::max<runtime::Duration>(*wake - now, std::chrono::milliseconds(100)));
  }
  return ReconcileResult::done();
}

}  // namespace respool::reconcilers
