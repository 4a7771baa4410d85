#include "reconcilers/policy/node_operation_preview.hpp"

#include <algorithm>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

struct PlannedStep {
  const char* step;
  std::string does;
};

std::string count_words(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string drain_words(const NodePreview& n) {
  if (n.pods.empty()) return "nothing to evict";
  std::size_t jobs = 0;
  for (const PodToDrain& p : n.pods)
    jobs += p.job;
  std::string out = "evict " + count_words(n.pods.size(), "pod", "pods") + " (" +
                    count_words(jobs, "job pod", "job pods") + " stopped)";
  if (!n.blocks.empty())
    out += "; blocked: " + n.blocks.front().pod + " by " +
           (n.blocks.front().budget.empty() ? n.blocks.front().message
                                            : "PodDisruptionBudget " + n.blocks.front().budget);
  return out;
}

// The steps of the real operation (the names its status.nodes[].steps would show), each with
// what it would do to this node.
std::vector<PlannedStep> planned_steps(NodeOperationType type, const NodePreview& n) {
  switch (type) {
    case NodeOperationType::Replace: {
      const std::string claim =
          n.replacement
              ? "claim free node " + n.replacement->node + " (" + n.replacement->flavor +
                    (n.replacement->zone.empty() ? std::string()
                                                 : ", zone " + n.replacement->zone) +
                    ")"
              : "no idle free node of " + n.replacement_wanted + " now: it would wait for one (N3)";
      return {{"Cordoned", "mark and cordon " + n.name},
              {"Drained", drain_words(n)},
              {"ReplacementClaimed", claim},
              {"ReplacementAdmitted", "wait for the replacement's admission (A200008)"},
              {"Retired", n.name + " leaves the pool, labelled and tainted respool.io/retired"}};
    }
    case NodeOperationType::Reset:
      return {{"Cordoned", "mark and cordon " + n.name + ", taint it respool.io/resetting"},
              {"Drained", drain_words(n)},
              {"ResetStarted", "run the catalog's reset image on it, installing " + n.reset_os},
              {"ResetCompleted", "wait for the reset Job to complete"},
              {"Readmitted", "admission again (A200008), then uncordon"}};
    case NodeOperationType::Delete:
      return {{"Draining", drain_words(n)},
              {"Released", n.name + " goes back to the free nodes; a free node is claimed in its "
                                    "place unless the pool shrinks"}};
  }
  return {};
}

json verdict_json(const PreviewVerdict& v) {
  json out = {{"outcome", v.outcome}};
  if (!v.reason.empty()) out["reason"] = v.reason;
  if (!v.message.empty()) out["message"] = v.message;
  if (v.not_before) out["notBefore"] = format_time(*v.not_before);
  return out;
}

json node_json(NodeOperationType type, const NodePreview& n) {
  json steps = json::array();
  for (const PlannedStep& s : planned_steps(type, n))
    steps.push_back({{"step", s.step}, {"message", s.does}});
  json stopped = json::array(), evicted = json::array(), blocking = json::array();
  for (const PodToDrain& p : n.pods) {
    evicted.push_back(p.key);
    if (p.job) stopped.push_back(p.key);
  }
  for (const DrainBlock& b : n.blocks) {
    json entry = {{"pod", b.pod}, {"message", b.message}};
    if (!b.budget.empty()) entry["name"] = b.budget;
    blocking.push_back(std::move(entry));
  }
  json out = {{"name", n.name},
              {"verdict", verdict_json(n.verdict)},
              {"steps", std::move(steps)},
              {"stoppedJobs", std::move(stopped)},
              {"evictedPods", std::move(evicted)},
              {"blockingBudgets", std::move(blocking)}};
  if (n.replacement)
    out["replacement"] = {{"node", n.replacement->node},
                          {"flavor", n.replacement->flavor},
                          {"zone", n.replacement->zone}};
  return out;
}

}  // namespace

PreviewVerdict preview_verdict(const Admission& admission, const Budget& budget,
                               const std::string& operation, const std::string& node) {
  if (auto r = admission.rejected.find(operation); r != admission.rejected.end())
    return {"Rejected", r->second.reason, r->second.message, std::nullopt};
  if (auto f = admission.failed.find(operation); f != admission.failed.end()) {
    if (auto why = f->second.find(node); why != f->second.end())
      return {"Rejected", why->second.reason, why->second.message, std::nullopt};
  }
  for (const ActiveNode& s : admission.started) {
    if (s.operation == operation && s.node == node)
      return {"RunsNow", "", "the budget lets it start now", std::nullopt};
  }
  if (auto w = admission.waiting.find(operation); w != admission.waiting.end()) {
    PreviewVerdict v{"Waits", w->second.reason, w->second.message, std::nullopt};
    if (w->second.reason == "ReplaceLimitPerDay") v.not_before = budget.next_replacement_time;
    return v;
  }
  return {"Waits", "Queued", "after the operation's nodes before it", std::nullopt};
}

std::vector<DrainBlock> drain_blocks(std::span<const PodToDrain> pods,
                                     std::vector<DisruptionBudgetView> budgets) {
  std::vector<DrainBlock> out;
  for (const PodToDrain& pod : pods) {
    if (pod.budgets.size() > 1) {
      out.push_back({pod.key, "",
                     "more than one PodDisruptionBudget selects it; the eviction API refuses "
                     "such a pod"});
      continue;
    }
    if (pod.budgets.empty()) continue;
    DisruptionBudgetView& b = budgets.at(pod.budgets.front());
    if (b.disruptions_allowed < 1) {
      out.push_back({pod.key, b.name,
                     "PodDisruptionBudget " + b.name +
                         " allows no more disruptions: the drain would hold, the node cordoned"});
      continue;
    }
    --b.disruptions_allowed;
  }
  return out;
}

json preview_json(NodeOperationType type, std::span<const NodePreview> nodes) {
  json list = json::array();
  for (const NodePreview& n : nodes)
    list.push_back(node_json(type, n));
  return {{"type", std::string(to_string(type))}, {"nodes", std::move(list)}};
}

Verdict preview_summary(NodeOperationType type, std::span<const NodePreview> nodes) {
  const NodePreview* rejected = nullptr;
  const NodePreview* waits = nullptr;
  std::size_t jobs = 0, blocks = 0, runs = 0;
  for (const NodePreview& n : nodes) {
    if (!rejected && n.verdict.outcome == "Rejected") rejected = &n;
    if (!waits && n.verdict.outcome == "Waits") waits = &n;
    runs += n.verdict.outcome == "RunsNow";
    for (const PodToDrain& p : n.pods)
      jobs += p.job;
    blocks += n.blocks.size();
  }
  std::string tail = "; would stop " + count_words(jobs, "job pod", "job pods");
  if (blocks) tail += ", " + count_words(blocks, "eviction", "evictions") + " blocked";
  if (rejected)
    return {rejected->verdict.reason, rejected->name + ": " + rejected->verdict.message};
  const std::string what(to_string(type));
  if (waits) {
    std::string message = what + " of " + waits->name + " would wait: " + waits->verdict.message;
    if (waits->verdict.not_before)
      message += " (not before " + format_time(*waits->verdict.not_before) + ")";
    return {waits->verdict.reason, message + tail};
  }
  return {"WouldRun", what + " would start now on " + count_words(runs, "node", "nodes") + tail};
}

}  // namespace respool::policy
