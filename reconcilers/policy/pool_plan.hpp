#pragma once
// The creation / resize plan of a pool: which free nodes to claim now, which pool nodes to
// release, and how many desired nodes are still waiting.
//
// P4  desired nodes come per flavor, or per flavor and zone when the pool pins zones.
// P6  at most `window` (30) nodes of a pool are between their claim and the end of their
//     admission at any moment: nodes in state Creating hold the window; as each finishes
//     (Available or Abnormal) another may be claimed.
// P10 scale-in removes surplus nodes only from groups above their desired count, never below it
//     (no flavor goes to 0: the spec keeps at least one node per flavor): nodes without running
//     jobs first, then the fewest running jobs; among equals, nodes that do no good first
//     (Abnormal, then Creating, Reserved, Upgrading, Available), then by name.
// Nodes of the pool that no group wants any more (a zone or flavor no longer in the spec) are
// surplus too, chosen in the same order.
// Node operations (N1–N8): a node a Delete marked does not count, and is released first (a
// free node takes its place unless the count went down with it; the claim says whose place
// it takes); nodes named by a Delete that is not yet marked go first when scale-in chooses.
// A node being replaced counts until its replacement is in the pool; nodes in an operation,
// and a replacement whose old node is still in the pool, are never chosen for scale-in. A node
// being released whose group is short again is kept (its release is undone) rather than
// claiming another in its place. Resizing waits while the pool may not resize (P10:
// Running only; the caller says, see PlanOptions).

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/spec.hpp"

namespace respool::policy {

inline constexpr int kAdmissionWindow = 30;  // P6

// Desired nodes of one flavor, in one zone or in any zone.
struct DesiredGroup {
  std::string flavor;
  std::optional<std::string> zone;  // nullopt: any zone
  int count = 0;
  int container_engine_space_gib = kMinContainerEngineSpaceGiB;
};
// The groups of a spec, in spec order (zones in their order).
std::vector<DesiredGroup> desired_groups(const ResourcePoolSpec& spec);

struct PlanOptions {
  int window = kAdmissionWindow;
  // False while resizing is not allowed (P10: the pool is not Running). Creation is not a
  // resize: pass true until the pool was first created.
  bool resize_allowed = true;
  // False while nodes may not be claimed at all (invalid spec, network not ready, deletion).
  bool claims_allowed = true;
  // Nodes named by Delete operations not yet under way: scale-in takes them first.
  std::vector<std::string> delete_first{};
  // Of those, the ones whose operation the node-operation controller has not answered yet (no
  // status): they are about to leave through their Delete, so scale-in counts them as leaving
  // and releases neither them nor another node in their place. Releasing the named node itself
  // would leave the Delete nothing to take (NotInPool) when it is admitted a moment later.
  std::vector<std::string> delete_unanswered{};
};

struct Claim {
  std::string node;
  std::string resource_version;  // the claim's guard
  std::string flavor;
  std::string zone;
  int container_engine_space_gib = kMinContainerEngineSpaceGiB;
  std::string replaces;  // a node a Delete takes out of the pool, whose place this one takes
};

struct GroupProgress {
  DesiredGroup group;
  int have = 0;     // pool nodes in the group, Deleting ones not counted
  int claimed = 0;  // claims this plan makes
  int queuing = 0;  // desired nodes not yet claimed (waiting for a free node or the window)
  int missing = 0;  // of those, how many no free node exists for now
  int surplus = 0;  // nodes above the desired count
};

struct PoolPlan {
  std::vector<Claim> claims;
  // Nodes already being released first (their drain goes on), then new ones in P10 order.
  std::vector<std::string> releases;
  // Nodes being released that their group needs again: their release is undone.
  std::vector<std::string> keeps;
  std::vector<GroupProgress> groups;
  int in_admission = 0;         // nodes holding the P6 window before this plan's claims
  bool resize_blocked = false;  // counts differ, but resizing is not allowed now
  int queuing() const;
  int missing() const;
  // "3 of flavor gpu-8x-a100 in zone az-2, 1 of flavor cpu-64c" (empty when nothing is missing):
  // the InsufficientFreeNodes message body.
  std::string missing_message() const;
  // Whether anything is still to do for the counts (claims, releases, queuing, surplus).
  bool settled() const;
};

// P10 for a created pool: a resize adds or removes nodes of the flavors the pool has
// (`pool_flavors`, from status.resources): no flavor removed (none goes to 0), none added.
std::vector<Violation> resize_violations(const ResourcePoolSpec& spec,
                                         std::span<const std::string> pool_flavors);
// The flavors of a stored status (.status.resources[].flavor).
std::vector<std::string> status_flavors(const nlohmann::json& status);

PoolPlan plan_pool(std::span<const DesiredGroup> desired, std::span<const PoolNode> nodes,
                   std::span<const FreeNode> free, const PlanOptions& options = {});

}  // namespace respool::policy
