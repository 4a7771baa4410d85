// N18: previews. A NodeOperation with spec.preview is decided as a real one (admitted beside the
// pool's open operations, on a scratch copy of the ledger that is never written) and done to
// nothing: its own status is the only write, and it says per node whether the budget lets it
// start, the steps it would take, the pods it would evict (the job pods among them stop), the
// PodDisruptionBudgets that would block the drain, and the free node that would replace it.
#include <algorithm>
#include <map>

#include "operator/runtime/log.hpp"
#include "reconcilers/nodeoperation/operation_reconciler.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

using kube::Json;

using NamespaceBudgets = OperationReconciler::NamespaceBudgets;

NamespaceBudgets read_budgets(const Json& list, const std::string& ns) {
  NamespaceBudgets out;
  for (const Json& pdb : list.value("items", Json::array())) {
    const Json meta = pdb.value("metadata", Json::object());
    const Json spec = pdb.value("spec", Json::object());
    const Json status = pdb.value("status", Json::object());
    // policy/v1: a null selector selects no pod; a broken one, none either.
    const Json selector = spec.value("selector", Json());
    auto parsed =
        selector.is_null()
            ? kube::LabelSelector::nothing()
            : kube::LabelSelector::from_json(selector).value_or(kube::LabelSelector::nothing());
    const auto allowed = status.value("disruptionsAllowed", Json(0));
    out.views.push_back({ns + "/" + meta.value("name", std::string()),
                         allowed.is_number_integer() ? allowed.get<int>() : 0});
    out.selectors.push_back(std::move(parsed));
  }
  return out;
}

}  // namespace

void OperationReconciler::preview(Observation& o, const policy::AdmissionInput& in,
                                  const std::vector<policy::OpenOperation>& open, Round& round) {
  for (Operation& op : o.operations) {
    if (!op.spec || !op.spec->preview || op.deleting ||
        op.old_status.phase == policy::OperationPhase::Previewed)
      continue;
    policy::OpenOperation self;
    self.name = op.name();
    self.created = op.object->meta.creation_timestamp;
    self.spec = op.spec;
    std::vector<policy::OpenOperation> all = open;
    all.push_back(std::move(self));
    const policy::Admission scratch = policy::admit(in, o.ledger, std::move(all));
    const policy::Budget budget =
        policy::budget(scratch.ledger, o.pool_size, o.catalog->replacement_limits, o.now);
    std::vector<policy::NodePreview> nodes;
    std::vector<std::string> taken;  // replacements promised to earlier nodes of this preview
    BudgetReads budgets;             // each namespace's budgets, read at most once
    bool complete = true;
    for (const std::string& node : op.spec->nodes) {
      auto n = node_preview(o, op, node, taken, budgets);
      if (!n) {
        round.note(std::unexpected(n.error()));  // looked at again after the back-off
        complete = false;
        break;
      }
      n->verdict = policy::preview_verdict(scratch, budget, op.name(), node);
      nodes.push_back(std::move(*n));
    }
    if (!complete) continue;
    const policy::Verdict summary = policy::preview_summary(op.spec->type, nodes);
    op.status.phase = policy::OperationPhase::Previewed;
    op.status.reason = summary.reason;
    op.status.message = summary.message;
    op.status.nodes.clear();  // nothing started: what it would do is in status.preview
    op.status.preview = policy::preview_json(op.spec->type, nodes);
    runtime::log::info("nodeoperation", "previewed",
                       {{"pool", o.pool}, {"operation", op.name()}, {"reason", summary.reason}});
  }
}

Outcome<policy::NodePreview> OperationReconciler::node_preview(const Observation& o,
                                                               const Operation& op,
                                                               const std::string& node,
                                                               std::vector<std::string>& taken,
                                                               BudgetReads& budgets) {
  policy::NodePreview n;
  n.name = node;
  if (op.spec->reset) n.reset_os = op.spec->reset->os;
  // The pods a drain would evict, and the budgets that select each. Each node's drain starts
  // from the budgets' disruptionsAllowed as read: its own views.
  std::vector<policy::DisruptionBudgetView> views;
  std::map<std::string, std::size_t> first_view;  // namespace → its first index in `views`
  for (const auto& pod : ctx_.caches.pods->store().by_index(kByNode, node)) {
    if (!to_drain(*pod)) continue;
    const std::string ns(pod->meta.namespace_.view());
    if (!budgets.contains(ns)) {
      auto list = ctx_.client->list(kube::resources::poddisruptionbudgets, ns);
      if (!list)
        return failed("listing the PodDisruptionBudgets of " + ns + " for preview " + op.name(),
                      list.error());
      budgets[ns] = read_budgets(*list, ns);
      first_view[ns] = views.size();
      views.insert(views.end(), budgets[ns].views.begin(), budgets[ns].views.end());
    }
    policy::PodToDrain p{pod->meta.key(), is_running_job(*pod, ctx_.job_selector), {}};
    const NamespaceBudgets& b = budgets[ns];
    for (std::size_t i = 0; i < b.selectors.size(); ++i) {
      if (b.selectors[i].matches(labels_lookup(pod->meta.labels)))
        p.budgets.push_back(first_view[ns] + i);
    }
    n.pods.push_back(std::move(p));
  }
  n.blocks = policy::drain_blocks(n.pods, views);
  if (op.spec->type != policy::NodeOperationType::Replace) return n;
  // The free node claim_replacement would take (N3): same flavor, same zone where pinned.
  auto cached = ctx_.caches.nodes->store().get(node);
  if (!cached) return n;
  const policy::PoolNode old = policy::pool_node(*ctx_.node_views->view(cached), *o.catalog, 0);
  const policy::FlavorRequest* request = o.pool_spec ? o.pool_spec->resource(old.flavor) : nullptr;
  const bool pinned = request && !request->zones.empty();
  n.replacement_wanted = "flavor " + old.flavor + (pinned ? " in zone " + old.zone : "");
  for (const policy::FreeNode& f : idle_free_nodes(o, old.flavor, pinned ? &old.zone : nullptr)) {
    if (std::find(taken.begin(), taken.end(), f.name) != taken.end()) continue;
    taken.push_back(f.name);
    n.replacement = policy::PreviewReplacement{f.name, f.flavor, f.zone};
    break;
  }
  return n;
}

}  // namespace respool::reconcilers
