#pragma once
// N18: what a NodeOperation with `spec.preview: true` would do, decided as a real one and done
// to nothing. The controller gathers the facts from its caches: the admission of the preview
// beside the pool's open operations on a scratch copy of the ledger (never written), the pods a
// drain would move, the PodDisruptionBudgets that select them, the idle free nodes a Replace
// could claim. These pure functions turn them into the operation's `status.preview`.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/node_operation_admission.hpp"
#include "reconcilers/policy/node_operation_ledger.hpp"
#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

// Whether a node's part would start: RunsNow, Waits (reason, message, and notBefore when the
// daily limit says when a slot frees) or Rejected (reason, message).
struct PreviewVerdict {
  std::string outcome;
  std::string reason;
  std::string message;
  std::optional<TimePoint> not_before;
  bool operator==(const PreviewVerdict&) const = default;
};

// The verdict for `node` of `operation`, from the admission of the preview on a scratch ledger
// and the budget after it.
PreviewVerdict preview_verdict(const Admission& admission, const Budget& budget,
                               const std::string& operation, const std::string& node);

// A PodDisruptionBudget as an eviction sees it.
struct DisruptionBudgetView {
  std::string name;  // namespace/name
  int disruptions_allowed = 0;
};
// A pod a drain would evict, with the budgets (indexes into the budgets) that select it.
struct PodToDrain {
  std::string key;  // namespace/name
  bool job = false;
  std::vector<std::size_t> budgets;
};
struct DrainBlock {
  std::string pod;
  std::string budget;  // empty: refused for another reason, in `message`
  std::string message;
};
// The evictions the API server would refuse, evicting `pods` in order as a drain does: an
// eviction of a pod that more than one budget selects is refused (the eviction API supports at
// most one); one whose budget allows no more disruptions is refused (429); each allowed
// eviction takes one of its budget's allowed disruptions.
std::vector<DrainBlock> drain_blocks(std::span<const PodToDrain> pods,
                                     std::vector<DisruptionBudgetView> budgets);

// The idle free node a Replace would claim, and where it is.
struct PreviewReplacement {
  std::string node;
  std::string flavor;
  std::string zone;
};

// One node of the preview.
struct NodePreview {
  std::string name;
  PreviewVerdict verdict;
  std::vector<PodToDrain> pods;  // what the drain would evict
  std::vector<DrainBlock> blocks;
  std::optional<PreviewReplacement> replacement;  // Replace: nullopt when no idle node is free
  std::string replacement_wanted;                 // Replace: "flavor X [in zone Z]"
  std::string reset_os;                           // Reset: what it would install
};

// status.preview: per node its verdict, the steps it would take (each saying what it would do
// there), the job pods it would stop, every pod it would evict, the budgets that would block the
// drain, the replacement; and the operation's reason and message (summary()).
nlohmann::json preview_json(NodeOperationType type, std::span<const NodePreview> nodes);

// The operation's reason and message for a preview: the first node Rejected, else the first
// that waits, else WouldRun; the message counts the stopped jobs and the blocking budgets.
Verdict preview_summary(NodeOperationType type, std::span<const NodePreview> nodes);

}  // namespace respool::policy
