// A1: audit records.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/audit.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;

TEST_CASE("A1: one JSON line per operation with the documents' names", "[policy][audit][rule:A1]") {
  CHECK(audit_line({AuditOperation::CreatePoolV2, "gpu-a", std::nullopt, "alice", kT0,
                    AuditResult::Success, ""}) ==
        R"({"time":"2026-01-01T00:00:00Z","operation":"CreatePoolV2","resourceType":"PoolV2",)"
        R"("resource":"gpu-a","actor":"alice","result":"Success"})");
  CHECK(audit_line({AuditOperation::addClusterNode, "gpu-a", "n-3", std::nullopt, kT0,
                    AuditResult::Failure, "node n-3 changed; claim refused (409)"}) ==
        R"({"time":"2026-01-01T00:00:00Z","operation":"addClusterNode","resourceType":"Cluster",)"
        R"("resource":"gpu-a","node":"n-3","result":"Failure",)"
        R"j("message":"node n-3 changed; claim refused (409)"})j");
  std::vector<std::pair<AuditOperation, std::string>> names{
      {AuditOperation::CreatePoolV2, "CreatePoolV2"},
      {AuditOperation::UpdatePoolV2, "UpdatePoolV2"},
      {AuditOperation::DeletePoolV2, "DeletePoolV2"},
      {AuditOperation::CreateNetworksV1, "CreateNetworksV1"},
      {AuditOperation::UpdateNetworksV1, "UpdateNetworksV1"},
      {AuditOperation::DeleteNetworksV1, "DeleteNetworksV1"},
      {AuditOperation::addClusterNode, "addClusterNode"},
      {AuditOperation::deleteClusterNode, "deleteClusterNode"}};
  for (const auto& [op, name] : names)
    CHECK(to_string(op) == name);
  CHECK(resource_type(AuditOperation::DeleteNetworksV1) == "NetworksV1");
  CHECK(resource_type(AuditOperation::deleteClusterNode) == "Cluster");
}

TEST_CASE("A1: which change a reconcile witnesses", "[policy][audit][rule:A1]") {
  using K = AuditedKind;
  CHECK(audited_change(K::Pool, std::nullopt, 1, false, false) == AuditOperation::CreatePoolV2);
  CHECK(audited_change(K::Pool, 1, 2, false, false) == AuditOperation::UpdatePoolV2);
  CHECK_FALSE(audited_change(K::Pool, 2, 2, false, false));
  CHECK(audited_change(K::Pool, 2, 2, true, false) == AuditOperation::DeletePoolV2);
  CHECK_FALSE(audited_change(K::Pool, 2, 2, true, true));
  CHECK(audited_change(K::Network, std::nullopt, 1, false, false) ==
        AuditOperation::CreateNetworksV1);
  CHECK(audited_change(K::Network, 1, 3, false, false) == AuditOperation::UpdateNetworksV1);
  CHECK(audited_change(K::Network, 1, 1, true, false) == AuditOperation::DeleteNetworksV1);
}

TEST_CASE("A1: the change a status has not acknowledged", "[policy][audit][rule:A1]") {
  using K = AuditedKind;
  const nlohmann::json none = nlohmann::json::object();
  CHECK(audited_spec_change(K::Pool, none, 1) == AuditOperation::CreatePoolV2);
  CHECK(audited_spec_change(K::Pool, {{"observedGeneration", 1}}, 2) ==
        AuditOperation::UpdatePoolV2);
  CHECK_FALSE(audited_spec_change(K::Pool, {{"observedGeneration", 2}}, 2));
  CHECK(audited_spec_change(K::Network, {{"phase", "Ready"}}, 1) ==
        AuditOperation::CreateNetworksV1);
}

TEST_CASE("A1: the actor of a pool's change is the newest manager of its spec",
          "[policy][audit][rule:A1]") {
  using respool::policy::spec_manager;
  auto entry = [](std::string manager, std::string time, nlohmann::json fields) {
    return nlohmann::json{
        {"manager", manager}, {"operation", "Update"}, {"time", time}, {"fieldsV1", fields}};
  };
  nlohmann::json pool = {
      {"metadata",
       {{"managedFields",
         nlohmann::json::array(
             {entry("kubectl-client-side-apply", "2026-01-01T00:00:00Z",
                    {{"f:spec", {{"f:network", nlohmann::json::object()}}}}),
              entry("respool", "2026-01-01T00:05:00Z", {{"f:spec", nlohmann::json::object()}}),
              entry("argocd-controller", "2026-01-01T00:03:00Z",
                    {{"f:spec", {{"f:resources", nlohmann::json::object()}}}}),
              entry("helm", "2026-01-01T00:09:00Z",
                    {{"f:metadata", nlohmann::json::object()}})})}}}};
  // respool's own entry and one that owns no spec field are no actor.
  CHECK(spec_manager(pool) == "argocd-controller");
  CHECK(spec_manager(pool, "nobody") == "respool");
  CHECK_FALSE(spec_manager(nlohmann::json{{"metadata", nlohmann::json::object()}}));
  CHECK_FALSE(spec_manager(nlohmann::json::object()));
}
