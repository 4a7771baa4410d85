#pragma once
// The writes a pool makes on its nodes, as JSON merge patches (application/merge-patch+json).
// Taints are a list, which a merge patch replaces whole: each patch carries the node's full new
// taint list, and metadata.resourceVersion so that the API server refuses it (409) when the node
// changed since it was observed. A claim guarded this way never takes a node another pool took.

#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/node_view.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// Claims a free node: pool label, job-type labels, container engine space annotation (P5),
// taints respool.io/pool=<pool>:NoSchedule and isolation.respool.io/A200008:NoSchedule (F3).
// `replaces`: the node whose place it takes (respool.io/replacement-for), if any.
nlohmann::json claim_patch(const NodeView& node, std::string_view pool,
                           std::span<const JobType> job_types, int container_engine_space_gib,
                           std::string_view replaces = {});

// Ends admission (F3): removes the A200008 taint. Null when the node has none.
nlohmann::json admission_done_patch(const NodeView& node);

// Sets the job-type labels to exactly `job_types` (P12). Null when they already match.
nlohmann::json job_types_patch(const NodeView& node, std::span<const JobType> job_types);

// Marks a pool node for release (scale-in, deletion): taint respool.io/releasing:NoSchedule, so
// that no new job lands while it drains. Null when already marked.
nlohmann::json releasing_patch(const NodeView& node);

// Undoes releasing_patch: the pool needs the node again. Null when it is not marked.
nlohmann::json keep_patch(const NodeView& node);

// Releases a node from its pool: removes every label, annotation and taint respool added
// (pool, job types, container engine space, pool taint, releasing, resetting, A200008, A200001,
// A200002, driver-upgrade state, the node-operation markers), except respool.io/retired. Fault
// isolation taints stay: they describe the node, and keep it out of the free inventory until
// whoever set them clears them.
nlohmann::json release_patch(const NodeView& node);

}  // namespace respool::policy
