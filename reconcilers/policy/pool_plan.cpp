#include "reconcilers/policy/pool_plan.hpp"

#include <algorithm>
#include <set>

namespace respool::policy {

namespace {

bool in_group(const DesiredGroup& g, std::string_view flavor, std::string_view zone) {
  return g.flavor == flavor && (!g.zone || *g.zone == zone);
}

// The group a node belongs to (the first that matches), or -1.
int group_of(std::span<const DesiredGroup> desired, std::string_view flavor,
             std::string_view zone) {
  for (std::size_t i = 0; i < desired.size(); ++i) {
    if (in_group(desired[i], flavor, zone)) return int(i);
  }
  return -1;
}

// The order in which idle-equal nodes are given up: the less use a node is, the earlier.
int release_rank(NodeState state) {
  switch (state) {
    case NodeState::Abnormal:
      return 0;
    case NodeState::Creating:
      return 1;
    case NodeState::Reserved:
      return 2;
    case NodeState::Resetting:
      return 3;
    case NodeState::Available:
      return 4;
    case NodeState::Upgrading:
      return 5;  // mid-upgrade: given up last, its driver work would be lost (issue 14)
    case NodeState::Deleting:
      return 6;
  }
  return 6;
}

bool release_before(const PoolNode* a, const PoolNode* b) {
  auto key = [](const PoolNode* n) {
    return std::tuple(n->running_jobs > 0, n->running_jobs, release_rank(n->state.state),
                      std::string_view(n->name));
  };
  return key(a) < key(b);
}

}  // namespace

std::vector<DesiredGroup> desired_groups(const ResourcePoolSpec& spec) {
  std::vector<DesiredGroup> out;
  for (const FlavorRequest& r : spec.resources) {
    if (r.zones.empty()) {
      out.push_back({r.flavor, std::nullopt, r.count, r.container_engine_space_gib});
    }
    for (const ZoneCount& z : r.zones) {
      out.push_back({r.flavor, z.zone, z.count, r.container_engine_space_gib});
    }
  }
  return out;
}

int PoolPlan::queuing() const {
  int n = 0;
  for (const GroupProgress& g : groups)
    n += g.queuing;
  return n;
}

int PoolPlan::missing() const {
  int n = 0;
  for (const GroupProgress& g : groups)
    n += g.missing;
  return n;
}

std::string PoolPlan::missing_message() const {
  std::string out;
  for (const GroupProgress& g : groups) {
    if (g.missing == 0) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(g.missing) + " of flavor " + g.group.flavor;
    if (g.group.zone) out += " in zone " + *g.group.zone;
  }
  return out;
}

bool PoolPlan::settled() const {
  if (!claims.empty() || !releases.empty() || !keeps.empty() || resize_blocked) return false;
  for (const GroupProgress& g : groups) {
    if (g.queuing > 0 || g.surplus > 0) return false;
  }
  return true;
}

std::vector<Violation> resize_violations(const ResourcePoolSpec& spec,
                                         std::span<const std::string> pool_flavors) {
  std::vector<Violation> out;
  for (const std::string& flavor : pool_flavors) {
    if (!spec.resource(flavor)) {
      out.push_back({"spec.resources", "P10",
                     "flavor " + flavor + " cannot be removed: no flavor of a pool goes to 0"});
    }
  }
  for (std::size_t i = 0; i < spec.resources.size(); ++i) {
    const std::string& flavor = spec.resources[i].flavor;
    if (std::find(pool_flavors.begin(), pool_flavors.end(), flavor) == pool_flavors.end()) {
      out.push_back({"spec.resources[" + std::to_string(i) + "].flavor", "P10",
                     "flavor " + flavor +
                         " is new: a resize adds or removes nodes of the flavors the pool has"});
    }
  }
  return out;
}

std::vector<std::string> status_flavors(const nlohmann::json& status) {
  std::vector<std::string> out;
  if (!status.is_object() || !status.contains("resources") || !status["resources"].is_array()) {
    return out;
  }
  for (const auto& entry : status["resources"]) {
    if (entry.is_object() && entry.contains("flavor") && entry["flavor"].is_string()) {
      out.push_back(entry["flavor"].get<std::string>());
    }
  }
  return out;
}

PoolPlan plan_pool(std::span<const DesiredGroup> desired, std::span<const PoolNode> nodes,
                   std::span<const FreeNode> free, const PlanOptions& options) {
  PoolPlan plan;
  for (const DesiredGroup& g : desired)
    plan.groups.push_back({g});

  // Replacements under way: old node → its replacement is in the pool.
  std::set<std::string, std::less<>> replaced, replace_marked;
  for (const PoolNode& n : nodes) {
    if (n.operation == NodeOperationType::Replace) replace_marked.insert(n.name);
  }
  for (const PoolNode& n : nodes) {
    if (!n.replacement_for.empty() && replace_marked.contains(n.replacement_for))
      replaced.insert(n.replacement_for);
  }
  // Whether scale-in may choose a node: not in an operation, not a replacement in progress.
  auto unanswered_delete = [&options](const PoolNode& n) {
    return std::find(options.delete_unanswered.begin(), options.delete_unanswered.end(), n.name) !=
           options.delete_unanswered.end();
  };
  auto choosable = [&](const PoolNode& n) {
    return !n.operation && !unanswered_delete(n) &&
           !(!n.replacement_for.empty() && replace_marked.contains(n.replacement_for));
  };

  // Members of each group; nodes no group wants, and nodes a Delete takes, are surplus of their
  // own. Nodes being released stay aside: kept if their group is short, else released.
  std::vector<std::vector<const PoolNode*>> members(desired.size());
  std::vector<std::vector<const PoolNode*>> releasing(desired.size());
  std::vector<std::vector<const PoolNode*>> deleted(desired.size());
  std::vector<const PoolNode*> unwanted;
  for (const PoolNode& n : nodes) {
    int g = group_of(desired, n.flavor, n.zone);
    if (n.operation == NodeOperationType::Delete) {
      if (g >= 0) deleted[g].push_back(&n);
      plan.releases.push_back(n.name);
      continue;
    }
    if (n.state.state == NodeState::Deleting) {
      // Marked for release in an earlier pass: the drain goes on until the node is free.
      if (g >= 0 && n.releasing) {
        releasing[g].push_back(&n);
      } else {
        plan.releases.push_back(n.name);
      }
      continue;
    }
    if (n.state.state == NodeState::Creating) ++plan.in_admission;
    if (replaced.contains(n.name)) continue;  // its replacement holds its place
    if (g < 0) {
      unwanted.push_back(&n);
    } else {
      members[g].push_back(&n);
    }
  }
  const bool act = options.resize_allowed && options.claims_allowed;
  for (std::size_t i = 0; i < desired.size(); ++i) {
    GroupProgress& p = plan.groups[i];
    std::sort(releasing[i].begin(), releasing[i].end(),
              [](const PoolNode* a, const PoolNode* b) { return a->name < b->name; });
    for (const PoolNode* n : releasing[i]) {
      if (act && int(members[i].size()) < p.group.count) {
        members[i].push_back(n);
        plan.keeps.push_back(n->name);
      } else {
        plan.releases.push_back(n->name);
      }
    }
    p.have = int(members[i].size());
    const auto leaving = std::count_if(members[i].begin(), members[i].end(),
                                       [&](const PoolNode* n) { return unanswered_delete(*n); });
    p.surplus = std::max(0, p.have - int(leaving) - p.group.count);
  }

  // Free candidates per group, by name, each node offered to the first group it fits.
  std::vector<std::vector<const FreeNode*>> candidates(desired.size());
  std::vector<const FreeNode*> sorted_free;
  for (const FreeNode& f : free)
    sorted_free.push_back(&f);
  std::sort(sorted_free.begin(), sorted_free.end(),
            [](const FreeNode* a, const FreeNode* b) { return a->name < b->name; });
  for (const FreeNode* f : sorted_free) {
    int g = group_of(desired, f->flavor, f->zone);
    if (g >= 0) candidates[g].push_back(f);
  }

  const bool resizing_needed =
      !unwanted.empty() || std::any_of(plan.groups.begin(), plan.groups.end(),
                                       [](auto& p) { return p.have != p.group.count; });
  plan.resize_blocked = resizing_needed && !options.resize_allowed;

  // Claims: round-robin over the groups that need nodes, one at a time, within the window.
  int window_left = std::max(0, options.window - plan.in_admission);
  std::vector<std::size_t> next(desired.size(), 0);
  for (bool progress = true; act && progress && window_left > 0;) {
    progress = false;
    for (std::size_t i = 0; i < desired.size() && window_left > 0; ++i) {
      GroupProgress& p = plan.groups[i];
      if (p.have + p.claimed >= p.group.count || next[i] >= candidates[i].size()) continue;
      const FreeNode* f = candidates[i][next[i]++];
      // The first claims of a group take the places of the nodes a Delete takes out of it.
      std::string replaces = std::size_t(p.claimed) < deleted[i].size()
                                 ? deleted[i][std::size_t(p.claimed)]->name
                                 : std::string();
      plan.claims.push_back({f->name, f->resource_version, f->flavor, f->zone,
                             p.group.container_engine_space_gib, std::move(replaces)});
      ++p.claimed;
      --window_left;
      progress = true;
    }
  }
  for (std::size_t i = 0; i < desired.size(); ++i) {
    GroupProgress& p = plan.groups[i];
    int need = std::max(0, p.group.count - p.have);
    p.queuing = need - p.claimed;
    p.missing = std::max(0, need - int(candidates[i].size()));
  }

  // Releases (P10): nodes named by a Delete first, then a Delete's substitutes (a count lowered
  // just after the Delete took its node undoes the substitution, so that exactly the named node
  // leaves, whichever change the pool saw first), then the usual order; nodes in an operation
  // are not chosen.
  auto order = [&options, &replace_marked](const PoolNode* a, const PoolNode* b) {
    auto named = [&options](const PoolNode* n) {
      return std::find(options.delete_first.begin(), options.delete_first.end(), n->name) ==
             options.delete_first.end();
    };
    if (named(a) != named(b)) return !named(a);
    auto substitute = [&replace_marked](const PoolNode* n) {
      return !n->replacement_for.empty() && !replace_marked.contains(n->replacement_for);
    };
    if (substitute(a) != substitute(b)) return substitute(a);
    return release_before(a, b);
  };
  if (act) {
    std::erase_if(unwanted, [&](const PoolNode* n) { return !choosable(*n); });
    std::sort(unwanted.begin(), unwanted.end(), order);
    for (const PoolNode* n : unwanted)
      plan.releases.push_back(n->name);
    for (std::size_t i = 0; i < desired.size(); ++i) {
      std::vector<const PoolNode*> group;
      for (const PoolNode* n : members[i]) {
        if (choosable(*n) &&
            std::find(plan.keeps.begin(), plan.keeps.end(), n->name) == plan.keeps.end())
          group.push_back(n);
      }
      std::sort(group.begin(), group.end(), order);
      const int take = std::min(plan.groups[i].surplus, int(group.size()));
      for (int k = 0; k < take; ++k)
        plan.releases.push_back(group[std::size_t(k)]->name);
    }
  }
  return plan;
}

}  // namespace respool::policy
