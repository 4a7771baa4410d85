// P2/P12: plug-ins per job type, rendered for a pool, and what they take from it.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/plugins.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::test_catalog;

namespace {

const PoolRef kPool{"gpu-a", "uid-123"};

}  // namespace

TEST_CASE("P12: plug-ins render per job type, scoped to the pool and owned by it",
          "[policy][plugins][rule:P12]") {
  const Catalog catalog = test_catalog();
  auto plugins =
      render_plugins(catalog, kPool, std::vector{JobType::Inference, JobType::Training}, "respool");
  REQUIRE(plugins.size() == 2);
  // Catalog order of job types: Training first.
  const RenderedPlugin& agent = plugins[0];
  CHECK(agent.job_type == JobType::Training);
  CHECK(agent.kind == "DaemonSet");
  CHECK(agent.name == "gpu-a-training-agent");
  CHECK(agent.namespace_name == "respool-system");
  const json& m = agent.manifest;
  CHECK(m["metadata"]["labels"] == json::parse(R"({"respool.io/pool": "gpu-a",
    "respool.io/job-type": "training", "app.kubernetes.io/managed-by": "respool"})"));
  CHECK(m["metadata"]["ownerReferences"] == json::parse(R"([{"apiVersion": "respool.io/v1alpha1",
    "kind": "ResourcePool", "name": "gpu-a", "uid": "uid-123", "controller": true,
    "blockOwnerDeletion": true}])"));
  CHECK(m["spec"]["selector"]["matchLabels"]["respool.io/pool"] == "gpu-a");
  CHECK(m["spec"]["template"]["metadata"]["labels"]["respool.io/pool"] == "gpu-a");
  CHECK(m["spec"]["template"]["spec"]["nodeSelector"] == json({{"respool.io/pool", "gpu-a"}}));
  CHECK(m["spec"]["template"]["spec"]["tolerations"] ==
        json::parse(R"([{"key": "respool.io/pool", "operator": "Equal", "value": "gpu-a",
                         "effect": "NoSchedule"}])"));
  CHECK(m["spec"]["template"]["spec"]["containers"][0]["args"] ==
        json({"--pool=gpu-a", "--type=Training"}));

  const RenderedPlugin& gateway = plugins[1];
  CHECK(gateway.name == "gpu-a-inference-gateway");
  CHECK(gateway.namespace_name == "respool");
  CHECK(gateway.manifest["spec"]["selector"]["matchLabels"] ==
        json({{"app", "gw-gpu-a"}, {"respool.io/pool", "gpu-a"}}));

  CHECK(render_plugins(catalog, kPool, std::vector{JobType::DevEnviron}, "respool").empty());
  // Rendering twice gives the same objects (a reconcile that repeats writes nothing new).
  CHECK(render_plugins(catalog, kPool, std::vector{JobType::Training}, "respool")[0].manifest == m);
}

TEST_CASE("P12: removing a job type leaves its plug-ins stale", "[policy][plugins][rule:P12]") {
  const Catalog catalog = test_catalog();
  auto desired = render_plugins(catalog, kPool, std::vector{JobType::Training}, "respool");
  std::vector<InstalledPlugin> installed{{"DaemonSet", "respool-system", "gpu-a-training-agent"},
                                         {"Deployment", "respool", "gpu-a-inference-gateway"}};
  auto stale = stale_plugins(installed, desired);
  REQUIRE(stale.size() == 1);
  CHECK(stale[0].name == "gpu-a-inference-gateway");
  CHECK(stale_plugins(installed, {}).size() == 2);
}

TEST_CASE("P12: plug-ins' resource use is requests × pods on the pool",
          "[policy][plugins][rule:P12]") {
  const Catalog catalog = test_catalog();
  auto plugins =
      render_plugins(catalog, kPool, std::vector{JobType::Training, JobType::Inference}, "respool");
  // DaemonSet: 500m / 512Mi per node, 8 nodes.
  PluginStatus agent = plugin_status(plugins[0], 8, true);
  CHECK(to_json(agent) == json::parse(R"({"jobType": "Training", "name": "gpu-a-training-agent",
    "ready": true, "requests": {"cpu": "4", "memory": "4Gi"}})"));
  // Deployment: 2 replicas whatever the pool size.
  CHECK(to_json(plugin_status(plugins[1], 8, false))["requests"] ==
        json({{"cpu", "2"}, {"memory", "2Gi"}}));
  CHECK(plugin_requests(plugins[0], 0).at("cpu").milli() == 0);

  json pod = json::parse(R"({"containers": [
      {"resources": {"requests": {"cpu": "250m", "memory": "100Mi"}}},
      {"resources": {"requests": {"cpu": "250m"}}}],
    "initContainers": [{"resources": {"requests": {"cpu": "1", "memory": "50Mi"}}}]})");
  ResourceList r = pod_requests(pod);
  CHECK(r.at("cpu").to_string() == "1");
  CHECK(r.at("memory").to_string() == "100Mi");
}

TEST_CASE("workloads are ready once rolled out", "[policy][plugins][rule:P12]") {
  json ds = json::parse(R"({"kind": "DaemonSet", "metadata": {"generation": 2},
    "status": {"observedGeneration": 2, "desiredNumberScheduled": 3, "numberReady": 3,
               "updatedNumberScheduled": 3}})");
  CHECK(workload_ready(ds));
  ds["status"]["numberReady"] = 2;
  CHECK_FALSE(workload_ready(ds));
  ds["status"]["numberReady"] = 3;
  ds["status"]["observedGeneration"] = 1;
  CHECK_FALSE(workload_ready(ds));
  json deploy = json::parse(R"({"kind": "Deployment", "metadata": {"generation": 1},
    "spec": {"replicas": 2}, "status": {"observedGeneration": 1, "readyReplicas": 2,
    "updatedReplicas": 2}})");
  CHECK(workload_ready(deploy));
  deploy["status"]["readyReplicas"] = 1;
  CHECK_FALSE(workload_ready(deploy));
  CHECK(workload_ready(json::parse(R"({"kind": "ConfigMap"})")));
  CHECK_FALSE(workload_ready(json()));
}
