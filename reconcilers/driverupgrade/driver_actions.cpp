// Act: the pool's driver DaemonSets, and each step of the plan on its node: the job pods
// (Force) or the driver pod deleted, then the node's next state written (guarded by the cache
// catching up with the last one), with its event and its audit line.
#include <algorithm>

#include "reconcilers/daemonset_sync.hpp"
#include "reconcilers/driverupgrade/driver_reconciler.hpp"
#include "reconcilers/policy/driver_upgrade_patch.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::reconcilers {

namespace {

using kube::Json;

constexpr const char* kDriverHashAnnotation = "respool.io/driver-hash";

void audit_driver_step(const std::string& pool, const std::string& node, runtime::TimePoint now,
                       policy::AuditResult result, std::string message) {
  write_audit(policy::audit_line({policy::AuditOperation::UpdatePoolV2, pool, node, std::nullopt,
                                  now, result, std::move(message)}));
}

}  // namespace

Outcome<void> DriverReconciler::sync_daemonsets(const kube::Unstructured& pool,
                                                const std::vector<policy::DriverDaemonSet>& want) {
  for (const auto& installed : ctx_.caches.plugins->store().by_index(kByPool, pool.meta.name)) {
    if (!installed->meta.labels.get(policy::kDriverLabel)) continue;
    const bool wanted = std::any_of(want.begin(), want.end(), [&](const auto& w) {
      return w.name == installed->meta.name && w.namespace_name == installed->meta.namespace_.str();
    });
    if (wanted) continue;
    auto r = remove_daemonset(*ctx_.client, installed->meta.namespace_.str(), installed->meta.name,
                              "driver DaemonSet");
    if (!r) return r;
  }
  // OnDelete: a new template restarts no pod; the upgrade does, node by node.
  for (const auto& w : want) {
    auto r = sync_daemonset(*ctx_.client, *ctx_.caches.plugins,
                            {w.namespace_name, w.name, w.manifest, "driver DaemonSet"},
                            kDriverHashAnnotation);
    if (!r) return std::unexpected(r.error());
  }
  return {};
}

void DriverReconciler::act(Round& round, const policy::UpgradeStep& step,
                           const DriverMember& member) {
  // A blocked upgrade marks no new node: marked nodes would make the pool Upgrading.
  if (round.blocked && step.to == policy::UpgradeState::Required) return;
  if (step.action == policy::UpgradeAction::DeleteJobPods) {
    delete_job_pods(round, member);
    round.busy = true;
    return;
  }
  if (step.action == policy::UpgradeAction::DeleteDriverPod && member.node.driver_pod) {
    if (!delete_driver_pod(round, member.node)) return;
    if (step.to == step.from) {  // a node in admission: its state waits for validation
      round.busy = true;
      return;
    }
  }
  write_state(round, step, member);
}

void DriverReconciler::delete_job_pods(Round& round, const DriverMember& member) {
  std::string names;
  for (const std::string& key : member.job_pods) {
    const auto slash = key.find('/');
    auto r =
        ctx_.client->remove(kube::resources::pods, key.substr(0, slash), key.substr(slash + 1));
    if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
      round.fail(failed("deleting job pod " + key, r.error()));
      continue;
    }
    names += (names.empty() ? "" : ", ") + key;
  }
  if (names.empty()) return;
  ctx_.events->event(
      reference_to(round.pool), runtime::EventType::Warning, "DriverUpgradeStoppedJobs",
      "UpgradeDriver",
      "Force mode (D1): deleted the job pods on node " + member.node.name + ": " + names);
}

bool DriverReconciler::delete_driver_pod(Round& round, const policy::UpgradeNode& node) {
  auto r =
      ctx_.client->remove(kube::resources::pods, ctx_.operator_namespace, node.driver_pod->name);
  if (r || r.error().is(kube::Error::Kind::NotFound)) return true;
  round.fail(failed("deleting driver pod " + node.driver_pod->name, r.error()));
  return false;
}

void DriverReconciler::write_state(Round& round, const policy::UpgradeStep& step,
                                   const DriverMember& member) {
  const policy::UpgradeNode& n = member.node;
  const Json patch =
      policy::upgrade_patch(*member.view, step, member.type, policy::format_time(round.now));
  if (patch.is_null()) return;
  const std::string& pool = round.pool.meta.name;
  // Audited before the state is written, so that a crash in between repeats the line on the
  // next run rather than losing it (at least once; a lost race does not repeat it).
  const auto report = policy::step_report(step, n, policy::to_string(member.type), round.mode);
  if (report && report->audit && audit_once(pool, n.name, policy::step_audit_key(step, n)))
    audit_driver_step(pool, n.name, round.now, report->result, *report->audit);
  auto r = ctx_.client->patch(kube::resources::nodes, "", n.name, kube::PatchType::Merge, patch);
  if (!r) {
    if (lost_race(r.error()))
      round.busy = true;
    else
      round.fail(failed("writing the upgrade state of node " + n.name, r.error()));
    return;
  }
  written_.wrote_answer(pool, n.name, *r, round.now);
  round.busy = true;
  if (report) {
    ctx_.events->event(member.ref,
                       report->warning ? runtime::EventType::Warning : runtime::EventType::Normal,
                       report->reason, "UpgradeDriver", report->message);
  }
}

bool DriverReconciler::audit_once(const std::string& pool, const std::string& node,
                                  const std::string& key) {
  std::lock_guard lock(mu_);
  std::string& last = audited_[pool + "/" + node];
  if (last == key) return false;
  last = key;
  return true;
}

}  // namespace respool::reconcilers
