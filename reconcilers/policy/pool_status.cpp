#include "reconcilers/policy/pool_status.hpp"

#include <array>

namespace respool::policy {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 7> kPhaseNames{
    "Creating", "Running", "Scaling", "Upgrading", "Abnormal", "Deleting", "Failed"};
constexpr std::size_t kNamedAbnormalNodes = 10;

std::string n(int count) {
  return std::to_string(count);
}
std::string nodes_word(int count) {
  return n(count) + (count == 1 ? " node" : " nodes");
}

void count(NodeCounts& c, NodeState state) {
  ++c.total;
  switch (state) {
    case NodeState::Available:
      ++c.available;
      break;
    case NodeState::Creating:
      ++c.creating;
      break;
    case NodeState::Abnormal:
      ++c.abnormal;
      break;
    case NodeState::Upgrading:
      ++c.upgrading;
      break;
    case NodeState::Reserved:
      ++c.reserved;
      break;
    case NodeState::Resetting:
      ++c.resetting;
      break;
    case NodeState::Deleting:
      ++c.deleting;
      break;
  }
}

FlavorCounts& flavor_entry(std::vector<FlavorCounts>& list, const std::string& flavor) {
  for (FlavorCounts& f : list) {
    if (f.flavor == flavor) return f;
  }
  list.push_back(FlavorCounts{flavor, 0, {}});
  return list.back();
}

PoolPhase derive_phase(const PoolObservation& o, const NodeCounts& c) {
  if (o.deleting) return PoolPhase::Deleting;
  const bool settled = o.plan && o.plan->settled();
  if (!pool_created(o.previous_phase)) {
    if (!o.invalid.empty() && c.total == 0) return PoolPhase::Failed;
    const bool done =
        settled && c.creating == 0 && o.invalid.empty() && !o.network_problem && c.total > 0;
    if (!done) return PoolPhase::Creating;
    return c.available > 0 ? PoolPhase::Running : PoolPhase::Abnormal;
  }
  if (c.available == 0) return PoolPhase::Abnormal;
  if (o.driver_upgrading) return PoolPhase::Upgrading;
  const bool resizing = o.plan && !o.plan->settled() && !o.plan->resize_blocked &&
                        o.invalid.empty() && !o.network_problem;
  if (resizing || c.creating > 0 || c.deleting > 0) return PoolPhase::Scaling;
  return PoolPhase::Running;
}

std::string progress_words(const NodeCounts& c) {
  std::string out = n(c.creating) + " in admission, " + n(c.queuing) + " queuing";
  if (c.deleting > 0) out += ", " + n(c.deleting) + " being released";
  return out;
}

Condition ready_condition(const PoolObservation& o, PoolPhase phase, const NodeCounts& c) {
  if (phase == PoolPhase::Deleting) {
    return {"Ready", "False", "Deleting",
            "the pool is being deleted; " + nodes_word(c.total) + " still to release (P14)"};
  }
  if (!o.invalid.empty()) return {"Ready", "False", "InvalidSpec", join(o.invalid)};
  if (o.network_problem) return {"Ready", "False", "NetworkNotReady", *o.network_problem};
  if (phase == PoolPhase::Creating) {
    if (o.plan && o.plan->missing() > 0) {
      return {"Ready", "False", "InsufficientFreeNodes",
              "waiting for free nodes: " + o.plan->missing_message()};
    }
    return {"Ready", "False", "Creating",
            n(c.available) + " of " + n(c.total + c.queuing) + " nodes available, " +
                progress_words(c)};
  }
  if (c.available == 0) {
    return {"Ready", "False", "NoAvailableNodes",
            "none of the pool's " + nodes_word(c.total) + " is available"};
  }
  return {"Ready", "True", "Available", n(c.available) + " of " + n(c.total) + " nodes available"};
}

Condition progressing_condition(const PoolObservation& o, PoolPhase phase, const NodeCounts& c) {
  const bool moving = c.creating > 0 || c.deleting > 0 ||
                      (o.plan && (!o.plan->claims.empty() || !o.plan->releases.empty()));
  const std::string status = moving ? "True" : "False";
  if (phase == PoolPhase::Deleting) {
    return {"Progressing", "True", "Deleting", "releasing " + nodes_word(c.total)};
  }
  if (!o.invalid.empty()) {
    return {"Progressing", "False", "InvalidSpec", "nothing changes until the spec is fixed"};
  }
  if (o.network_problem) return {"Progressing", "False", "NetworkNotReady", *o.network_problem};
  if (o.plan && o.plan->resize_blocked) {
    return {"Progressing", "False", "NotRunning",
            "the pool is " + std::string(to_string(phase)) +
                "; resizing waits until it is Running (P10)"};
  }
  if (o.scale_in_blocked) return {"Progressing", status, "ScaleInBlocked", *o.scale_in_blocked};
  if (o.plan && o.plan->missing() > 0) {
    return {"Progressing", status, "InsufficientFreeNodes",
            "waiting for free nodes: " + o.plan->missing_message()};
  }
  if (moving || (o.plan && !o.plan->settled())) {
    return {"Progressing", "True", phase == PoolPhase::Creating ? "Creating" : "Scaling",
            progress_words(c)};
  }
  return {"Progressing", "False", "UpToDate", "the pool has the nodes its spec asks for"};
}

// H16: "; findings stale on n-3 (GPUHealthy)": said, never counted as abnormal.
std::string stale_words(std::span<const PoolNode> nodes) {
  std::string list;
  std::size_t named = 0;
  for (const PoolNode& node : nodes) {
    if (node.stale_findings.empty()) continue;
    if (named++ == kNamedAbnormalNodes) {
      list.append(", and more");
      break;
    }
    if (!list.empty()) list.append(", ");
    list.append(node.name).append(" (").append(node.stale_findings).append(")");
  }
  return list.empty() ? list : "; the node agent's findings are stale on " + list;
}

Condition degraded_condition(std::span<const PoolNode> nodes, const NodeCounts& c) {
  if (c.abnormal == 0) {
    return {"Degraded", "False", "NoAbnormalNodes", "no node is abnormal" + stale_words(nodes)};
  }
  std::string list;
  std::size_t named = 0;
  for (const PoolNode& node : nodes) {
    if (node.state.state != NodeState::Abnormal) continue;
    if (named++ == kNamedAbnormalNodes) {
      list += ", and " + n(c.abnormal - int(kNamedAbnormalNodes)) + " more";
      break;
    }
    std::string codes;
    for (const std::string& code : node.state.codes)
      codes += (codes.empty() ? "" : ", ") + code;
    list += (list.empty() ? "" : ", ") + node.name + " (" + codes + ")";
  }
  return {
      "Degraded", "True", "AbnormalNodes",
      n(c.abnormal) + " of " + n(c.total) + " nodes are abnormal: " + list + stale_words(nodes)};
}

json counts_json(const NodeCounts& c) {
  return {{"total", c.total},         {"available", c.available}, {"abnormal", c.abnormal},
          {"creating", c.creating},   {"queuing", c.queuing},     {"deleting", c.deleting},
          {"upgrading", c.upgrading}, {"reserved", c.reserved},   {"resetting", c.resetting}};
}

}  // namespace

std::string_view to_string(PoolPhase phase) {
  return kPhaseNames[int(phase)];
}

std::optional<PoolPhase> parse_pool_phase(std::string_view text) {
  for (std::size_t i = 0; i < kPhaseNames.size(); ++i) {
    if (kPhaseNames[i] == text) return PoolPhase(i);
  }
  return std::nullopt;
}

bool pool_created(std::optional<PoolPhase> previous) {
  return previous == PoolPhase::Running || previous == PoolPhase::Scaling ||
         previous == PoolPhase::Upgrading || previous == PoolPhase::Abnormal;
}

bool resize_allowed(std::optional<PoolPhase> previous) {
  // Not while Upgrading: P10 says Running; a resize asked for during a driver upgrade waits
  // for its end (NotRunning says so).
  return !pool_created(previous) || previous == PoolPhase::Running ||
         previous == PoolPhase::Scaling;
}

PoolStatus derive_pool_status(const PoolObservation& o,
                              const std::vector<Condition>& previous_conditions, TimePoint now) {
  PoolStatus status;
  status.observed_generation = o.generation;
  if (o.plan) {
    for (const GroupProgress& g : o.plan->groups) {
      FlavorCounts& f = flavor_entry(status.resources, g.group.flavor);
      f.desired += g.group.count;
      f.counts.queuing += g.queuing;
      status.nodes.queuing += g.queuing;
    }
  }
  for (const PoolNode& node : o.nodes) {
    count(status.nodes, node.state.state);
    count(flavor_entry(status.resources, node.flavor).counts, node.state.state);
  }
  // The plan's claims are written before the status: they count as creating already (a claim
  // that fails is corrected by the next reconcile).
  if (o.plan) {
    for (const Claim& claim : o.plan->claims) {
      count(status.nodes, NodeState::Creating);
      count(flavor_entry(status.resources, claim.flavor).counts, NodeState::Creating);
    }
  }
  status.phase = derive_phase(o, status.nodes);
  std::vector<Condition> next{ready_condition(o, status.phase, status.nodes),
                              progressing_condition(o, status.phase, status.nodes),
                              degraded_condition(o.nodes, status.nodes)};
  if (o.driver_condition) next.push_back(*o.driver_condition);
  if (o.remediation_condition) next.push_back(*o.remediation_condition);
  for (Condition& c : next)
    c.observed_generation = o.generation;
  // Conditions other parts own (DriverUpgrading) are kept as they are.
  std::vector<Condition> merged = merge_conditions(previous_conditions, std::move(next), now);
  for (const Condition& c : previous_conditions) {
    if (find_condition(merged, c.type)) continue;
    if (c.type == "RemediationPaused" && !o.remediation_condition) continue;  // turned off
    merged.push_back(c);
  }
  status.conditions = std::move(merged);
  return status;
}

json to_json(const PoolStatus& s) {
  json out = {{"observedGeneration", s.observed_generation},
              {"phase", to_string(s.phase)},
              {"conditions", to_json(s.conditions)},
              {"nodes", counts_json(s.nodes)}};
  json resources = json::array();
  for (const FlavorCounts& f : s.resources) {
    json entry = counts_json(f.counts);
    entry.erase("total");
    entry["flavor"] = f.flavor;
    entry["desired"] = f.desired;
    entry["total"] = f.counts.total;
    resources.push_back(std::move(entry));
  }
  out["resources"] = std::move(resources);
  json plugins = json::array();
  for (const PluginStatus& p : s.plugins)
    plugins.push_back(to_json(p));
  out["plugins"] = std::move(plugins);
  out["records"] = to_json(s.records);
  if (!s.driver.is_null()) out["driver"] = s.driver;
  if (s.tags) out["tags"] = *s.tags;
  return out;
}

}  // namespace respool::policy
