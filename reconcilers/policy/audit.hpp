#pragma once
// A1: one audit record per create, update and delete of a pool or a network, and per node added
// to or removed from a pool, as one JSON line (the operator writes them to its audit log):
//   {"time":"2026-01-01T00:00:00Z","operation":"CreatePoolV2","resourceType":"PoolV2",
//    "resource":"gpu-a","node":"n-3","actor":"alice","result":"Success","message":"..."}
// The operation names and resource types are the source documents' trace names (CTS tables
// 3-5 and 3-7): PoolV2 and NetworksV1 for the objects, Cluster for node additions and removals.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "reconcilers/policy/types.hpp"

namespace respool::policy {

enum class AuditOperation {
  CreatePoolV2,
  UpdatePoolV2,
  DeletePoolV2,
  CreateNetworksV1,
  UpdateNetworksV1,
  DeleteNetworksV1,
  addClusterNode,
  deleteClusterNode,
};
std::string_view to_string(AuditOperation operation);
// "PoolV2", "NetworksV1" or "Cluster".
std::string_view resource_type(AuditOperation operation);

enum class AuditResult { Success, Failure };

struct AuditRecord {
  AuditOperation operation = AuditOperation::CreatePoolV2;
  std::string resource;              // the pool's or network's name
  std::optional<std::string> node;   // for addClusterNode / deleteClusterNode
  std::optional<std::string> actor;  // who asked, where known
  TimePoint time{};
  AuditResult result = AuditResult::Success;
  std::string message;
};

// The record as one line of JSON (no trailing newline).
std::string audit_line(const AuditRecord& record);

enum class AuditedKind { Pool, Network };
// The create / update / delete a reconcile of an object witnesses, if any: a new object (its
// status has no observedGeneration yet) is a create, a generation its status has not observed
// an update, a deletion not yet recorded a delete.
std::optional<AuditOperation> audited_change(AuditedKind kind,
                                             std::optional<std::int64_t> observed_generation,
                                             std::int64_t generation, bool deleting,
                                             bool deletion_recorded);
// The create or update of an object not deleted whose status is `status`: audited_change with
// the status's observedGeneration (none yet: a create).
std::optional<AuditOperation> audited_spec_change(AuditedKind kind, const nlohmann::json& status,
                                                  std::int64_t generation);

// Who last changed the object's spec, as its managedFields say: the field manager (kubectl,
// helm, argocd-controller, a client's name) of the newest entry that owns a field under spec,
// leaving out the operator's own manager. The API server records managers, not users; nullopt
// when no entry owns spec fields (an object created without managedFields).
std::optional<std::string> spec_manager(const nlohmann::json& object,
                                        std::string_view own_manager = "respool");

}  // namespace respool::policy
