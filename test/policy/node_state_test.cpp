// Node states seen from the pool (F1–F5), the isolation code table, free nodes (N9), and the
// patches a pool writes on its nodes.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/node_patch.hpp"
#include "reconcilers/policy/node_state.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::NodeBuilder;
using respool::policy::test::test_catalog;

namespace {

// An admitted A100 node of pool gpu-a with all 8 GPUs.
NodeBuilder a100(const std::string& name = "n-1") {
  NodeBuilder b(name, "gpu-8x-a100");
  b.zone("az-1").pool("gpu-a").allocatable("nvidia.com/gpu", "8");
  return b;
}

NodeClass classify(const NodeBuilder& b) {
  static const Catalog catalog = test_catalog();
  return classify_node(b.view(), catalog.flavor("gpu-8x-a100"));
}

using Codes = std::vector<std::string>;

}  // namespace

TEST_CASE("node views read what decisions need", "[policy][node]") {
  NodeView v = a100().taint("isolation.respool.io/A050101").view();
  CHECK(v.name == "n-1");
  CHECK(v.resource_version == "7");
  CHECK(*v.label("respool.io/pool") == "gpu-a");
  CHECK(v.ready == true);
  CHECK(v.allocatable_of("nvidia.com/gpu") == 8);
  CHECK(v.allocatable_of("memory") == 1LL << 40);
  CHECK(v.allocatable_of("huawei.com/Ascend910") == 0);
  CHECK(isolation_codes_on(v) == Codes{"A050101"});
  CHECK(v.has_taint("respool.io/pool"));
  CHECK(a100().ready("Unknown").view().ready == std::nullopt);
  CHECK(a100().ready("False").view().ready == false);
}

TEST_CASE("a healthy admitted node is Available", "[policy][node][rule:F4]") {
  CHECK(classify(a100()).state == NodeState::Available);
  CHECK(classify(a100()).codes.empty());
}

TEST_CASE("F1: fault isolation codes make a node abnormal", "[policy][node][rule:F1]") {
  for (const IsolationCode& code : isolation_codes()) {
    if (code.operational) continue;
    INFO(code.code);
    NodeClass c = classify(a100().taint(isolation_taint_key(code.code)));
    CHECK(c.state == NodeState::Abnormal);
    CHECK(c.codes == Codes{std::string(code.code)});
  }
  // An unknown code is a fault too; several codes are all reported.
  CHECK(classify(a100().taint("isolation.respool.io/X000001")).codes == Codes{"X000001"});
  CHECK(classify(a100().taint("isolation.respool.io/A050101").taint("isolation.respool.io/A050147"))
            .codes == Codes{"A050101", "A050147"});
  // A fault found during admission ends admission as failed.
  CHECK(classify(a100().taint("isolation.respool.io/A200008").taint("isolation.respool.io/A050931"))
            .state == NodeState::Abnormal);
}

TEST_CASE("the isolation code table is RULES.md's", "[policy][node][rule:F1][rule:F4]") {
  CHECK(isolation_codes().size() == 25);
  std::vector<std::string> operational;
  for (const IsolationCode& c : isolation_codes()) {
    CHECK(c.code.size() == 7);
    if (c.operational) operational.emplace_back(c.code);
  }
  CHECK(operational == Codes{"A050801", "A200001", "A200002", "A200008"});
  CHECK(find_isolation_code("A050203")->fault == "fewer healthy accelerators than the capacity");
  CHECK(find_isolation_code("A050202")->category == "runtime");
  CHECK(find_isolation_code("A0501") == nullptr);
}

TEST_CASE("F2: not ready or unreachable nodes are abnormal (A050202), and heal",
          "[policy][node][rule:F2]") {
  for (const char* taint : {"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"}) {
    INFO(taint);
    NodeClass c = classify(a100().taint(taint, "", "NoExecute"));
    CHECK(c.state == NodeState::Abnormal);
    CHECK(c.codes == Codes{"A050202"});
  }
  CHECK(classify(a100().ready("False")).codes == Codes{"A050202"});
  CHECK(classify(a100().ready("Unknown")).codes == Codes{"A050202"});
  // Recovery: Ready again without the taints.
  CHECK(classify(a100().ready("True")).state == NodeState::Available);
  // The detector's own A050202 taint is not reported twice.
  CHECK(classify(a100().ready("False").taint("isolation.respool.io/A050202")).codes ==
        Codes{"A050202"});
}

TEST_CASE("F3: a node under admission is Creating, however far it got",
          "[policy][node][rule:F3][rule:F4]") {
  const Catalog catalog = test_catalog();
  const Flavor* flavor = catalog.flavor("gpu-8x-a100");
  NodeBuilder booting("n-2", "gpu-8x-a100");
  booting.pool("gpu-a")
      .taint("isolation.respool.io/A200008")
      .ready("False")
      .taint("node.kubernetes.io/not-ready", "", "NoSchedule");
  CHECK(classify_node(booting.view(), flavor).state == NodeState::Creating);
  CHECK(classify_node(booting.view(), flavor).codes == Codes{"A200008"});
  CHECK_FALSE(admission_complete(booting.view(), flavor));

  NodeBuilder no_gpus("n-2", "gpu-8x-a100");
  no_gpus.pool("gpu-a").taint("isolation.respool.io/A200008").allocatable("nvidia.com/gpu", "0");
  CHECK(classify_node(no_gpus.view(), flavor).state == NodeState::Creating);
  CHECK_FALSE(admission_complete(no_gpus.view(), flavor));

  NodeBuilder done = no_gpus;
  done.allocatable("nvidia.com/gpu", "8");
  CHECK(admission_complete(done.view(), flavor));
  NodeBuilder faulty = done;
  faulty.taint("isolation.respool.io/A050147");
  CHECK_FALSE(admission_complete(faulty.view(), flavor));
  // A CPU flavor promises no accelerator.
  NodeBuilder cpu("c-1", "cpu-64c");
  cpu.pool("gpu-a").taint("isolation.respool.io/A200008");
  CHECK(admission_complete(cpu.view(), catalog.flavor("cpu-64c")));
}

TEST_CASE("F4: operational codes are not faults", "[policy][node][rule:F4]") {
  CHECK(classify(a100().taint("isolation.respool.io/A200001")).state == NodeState::Upgrading);
  CHECK(classify(a100().taint("isolation.respool.io/A200002")).state == NodeState::Upgrading);
  CHECK(classify(a100().taint("isolation.respool.io/A050801")).state == NodeState::Reserved);
  CHECK(classify(a100().taint("isolation.respool.io/A200008")).state == NodeState::Creating);
  // An upgrade takes the GPUs away for a while: still upgrading, not F5.
  CHECK(classify(a100().taint("isolation.respool.io/A200001").allocatable("nvidia.com/gpu", "0"))
            .state == NodeState::Upgrading);
  // A fault wins over an operational code.
  CHECK(classify(a100().taint("isolation.respool.io/A050801").taint("isolation.respool.io/A050102"))
            .state == NodeState::Abnormal);
}

TEST_CASE("F5: fewer allocatable accelerators than promised is A050203",
          "[policy][node][rule:F5]") {
  NodeClass c = classify(a100().allocatable("nvidia.com/gpu", "7"));
  CHECK(c.state == NodeState::Abnormal);
  CHECK(c.codes == Codes{"A050203"});
  NodeBuilder none("n-1", "gpu-8x-a100");
  none.pool("gpu-a");
  CHECK(classify(none).codes == Codes{"A050203"});
  CHECK(classify(a100().allocatable("nvidia.com/gpu", "16")).state == NodeState::Available);
  // Without a known flavor there is no promise to check.
  CHECK(classify_node(none.view(), nullptr).state == NodeState::Available);
}

TEST_CASE("nodes being released or deleted are Deleting", "[policy][node]") {
  CHECK(classify(a100().taint("respool.io/releasing")).state == NodeState::Deleting);
  NodeBuilder deleted = a100();
  deleted.node["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK(classify(deleted).state == NodeState::Deleting);
}

TEST_CASE("N9: free nodes", "[policy][node][rule:N9]") {
  const Catalog catalog = test_catalog();
  NodeBuilder free("f-1", "gpu-8x-a100");
  free.zone("az-2");
  auto f = free_node(free.view(), catalog);
  REQUIRE(f);
  CHECK(f->flavor == "gpu-8x-a100");
  CHECK(f->zone == "az-2");
  CHECK(f->resource_version == "7");
  // The flavor label's value maps to a flavor through labelValue.
  CHECK(free_node(NodeBuilder("f-2", "ascend.910b.8").view(), catalog)->flavor == "npu-8x-910b");

  struct Case {
    const char* why;
    NodeBuilder node;
  };
  std::vector<Case> not_free{
      {"unknown flavor", NodeBuilder("x", "gpu-1x-t4")},
      {"pool label", NodeBuilder(free).label("respool.io/pool", "other")},
      {"retired label", NodeBuilder(free).label("respool.io/retired", "true")},
      {"retired taint", NodeBuilder(free).taint("respool.io/retired")},
      {"not ready", NodeBuilder(free).ready("False")},
      {"unreachable", NodeBuilder(free).taint("node.kubernetes.io/unreachable", "", "NoExecute")},
      {"fault", NodeBuilder(free).taint("isolation.respool.io/A050101")},
  };
  NodeBuilder no_label("x", "gpu-8x-a100");
  no_label.node["metadata"]["labels"].erase("node.kubernetes.io/instance-type");
  not_free.push_back({"no flavor label", no_label});
  NodeBuilder cordoned = free;
  cordoned.node["spec"]["unschedulable"] = true;
  not_free.push_back({"cordoned", cordoned});
  for (const Case& c : not_free) {
    INFO(c.why);
    CHECK_FALSE(is_free_node(c.node.view(), catalog));
  }
}

TEST_CASE("pool nodes carry flavor, zone, state and running jobs", "[policy][node]") {
  const Catalog catalog = test_catalog();
  PoolNode n = pool_node(a100("n-4").view(), catalog, 3);
  CHECK(n.name == "n-4");
  CHECK(n.flavor == "gpu-8x-a100");
  CHECK(n.zone == "az-1");
  CHECK(n.state.state == NodeState::Available);
  CHECK(n.running_jobs == 3);
  CHECK(pool_node(NodeBuilder("x", "unknown").pool("p").view(), catalog, 0).flavor == "");
}

TEST_CASE("running jobs are bound, non-terminal, not DaemonSet pods", "[policy][node]") {
  json pod = {{"metadata", {{"name", "p"}}},
              {"spec", {{"nodeName", "n-1"}}},
              {"status", {{"phase", "Running"}}}};
  CHECK(running_job_node(pod) == "n-1");
  json pending = pod;
  pending["spec"].erase("nodeName");
  CHECK_FALSE(pod_is_running_job(pending));
  for (const char* phase : {"Succeeded", "Failed"}) {
    json done = pod;
    done["status"]["phase"] = phase;
    CHECK_FALSE(pod_is_running_job(done));
  }
  json daemon = pod;
  daemon["metadata"]["ownerReferences"] = {{{"kind", "DaemonSet"}, {"name", "agent"}}};
  CHECK_FALSE(pod_is_running_job(daemon));
  json job = pod;
  job["metadata"]["ownerReferences"] = {{{"kind", "Job"}, {"name", "train"}}};
  CHECK(pod_is_running_job(job));
}

TEST_CASE("claim, admission, job-type, releasing and release patches", "[policy][node][rule:P5]") {
  NodeBuilder free("f-1", "gpu-8x-a100");
  free.zone("az-1").taint("example.com/other", "x");
  const std::vector<JobType> types{JobType::Training, JobType::DevEnviron};
  json claim = claim_patch(free.view(), "gpu-a", types, 100);
  CHECK(claim == json::parse(R"({
    "metadata": {"resourceVersion": "7",
      "labels": {"respool.io/pool": "gpu-a", "respool.io/job-type.training": "true",
                 "respool.io/job-type.devenviron": "true"},
      "annotations": {"respool.io/container-engine-space": "100"}},
    "spec": {"taints": [{"key": "example.com/other", "value": "x", "effect": "NoSchedule"},
                        {"key": "respool.io/pool", "value": "gpu-a", "effect": "NoSchedule"},
                        {"key": "isolation.respool.io/A200008", "effect": "NoSchedule"}]}})"));

  // The node as it is after the claim.
  NodeBuilder claimed = free;
  claimed.label("respool.io/pool", "gpu-a")
      .label("respool.io/job-type.training", "true")
      .label("respool.io/job-type.devenviron", "true")
      .taint("respool.io/pool", "gpu-a")
      .taint("isolation.respool.io/A200008");
  claimed.node["metadata"]["annotations"] = {{"respool.io/container-engine-space", "100"}};
  CHECK(admission_done_patch(claimed.view())["spec"]["taints"].size() == 2);
  CHECK(admission_done_patch(free.view()).is_null());

  CHECK(job_types_patch(claimed.view(), types).is_null());
  CHECK(job_types_patch(claimed.view(), std::vector{JobType::Inference})["metadata"]["labels"] ==
        json::parse(R"({"respool.io/job-type.training": null, "respool.io/job-type.inference":
                        "true", "respool.io/job-type.devenviron": null})"));

  json releasing = releasing_patch(claimed.view());
  CHECK(releasing["spec"]["taints"].back() ==
        json({{"key", "respool.io/releasing"}, {"effect", "NoSchedule"}}));
  claimed.taint("respool.io/releasing").taint("isolation.respool.io/A050101");
  CHECK(releasing_patch(claimed.view()).is_null());
  claimed.label("respool.io/retired", "true").label("respool.io/driver-version", "535");
  CHECK(release_patch(claimed.view()) == json::parse(R"({
    "metadata": {"resourceVersion": "7",
      "labels": {"respool.io/pool": null, "respool.io/job-type.training": null,
                 "respool.io/job-type.devenviron": null},
      "annotations": {"respool.io/container-engine-space": null}},
    "spec": {"taints": [{"key": "example.com/other", "value": "x", "effect": "NoSchedule"},
                        {"key": "isolation.respool.io/A050101", "effect": "NoSchedule"}]}})"));

  // Released in the middle of a driver upgrade: the cordon respool made goes with its record
  // and the upgrade's annotations; someone else's cordon stays.
  NodeBuilder upgrading = claimed;
  upgrading.label("respool.io/driver-upgrade-state", "wait-for-jobs-required");
  upgrading.node["spec"]["unschedulable"] = true;
  upgrading.node["metadata"]["annotations"] = {
      {"respool.io/cordoned-by", "driver-upgrade"},
      {"respool.io/driver-upgrade-since", "2026-01-01T00:00:00Z"},
      {"respool.io/driver-upgrade-attempts", "1"}};
  json released = release_patch(upgrading.view());
  CHECK(released["spec"]["unschedulable"] == false);
  CHECK(released["metadata"]["labels"].contains("respool.io/driver-upgrade-state"));
  CHECK(released["metadata"]["annotations"] == json::parse(R"({"respool.io/cordoned-by": null,
    "respool.io/driver-upgrade-since": null, "respool.io/driver-upgrade-attempts": null})"));
  upgrading.node["metadata"]["annotations"] = json::object();  // cordoned by someone else
  CHECK_FALSE(release_patch(upgrading.view())["spec"].contains("unschedulable"));

  // Released after a failed reset: the cordon respool kept stays with its reason; a reason left
  // behind on a schedulable node goes.
  NodeBuilder failed_reset = claimed;
  failed_reset.node["spec"]["unschedulable"] = true;
  failed_reset.node["metadata"]["annotations"] = {
      {"respool.io/cordon-reason", "AbnormalAfterReset: NodeOperation r-1"}};
  json kept = release_patch(failed_reset.view());
  CHECK_FALSE(kept["spec"].contains("unschedulable"));
  CHECK_FALSE(kept["metadata"].contains("annotations"));
  failed_reset.node["spec"]["unschedulable"] = false;
  CHECK(release_patch(failed_reset.view())["metadata"]["annotations"] ==
        json::parse(R"({"respool.io/cordon-reason": null})"));
}
