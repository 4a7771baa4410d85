// What status, jobs and nodes show for a pool, from the objects alone.

#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "cmd/kubectl-respool/view/jobs_view.hpp"
#include "cmd/kubectl-respool/view/nodes_view.hpp"
#include "cmd/kubectl-respool/view/pool_view.hpp"

using namespace respool::kubectl;
using nlohmann::json;

namespace {

const Clock::time_point kNow = *respool::apimachinery::parse_time("2026-11-27T12:00:00Z");

json pool() {
  return json::parse(R"({
    "metadata": {"name": "gpu-a", "creationTimestamp": "2026-11-27T10:00:00Z"},
    "status": {
      "phase": "Abnormal",
      "nodes": {"total": 3, "available": 1, "abnormal": 1, "creating": 1, "queuing": 0, "deleting": 0},
      "driver": {"gpuVersion": "535.104.05", "target": {"gpuVersion": "550.54.15"},
                 "nodes": {"upgraded": 1, "upgrading": 1, "pending": 1, "failed": 0}},
      "nodeOperations": {"replacing": 1, "resetting": 0, "replacementsInWindow": 2,
                         "replacementLimit": 2, "concurrentReplacementLimit": 1,
                         "nextReplacementTime": "2026-11-27T17:30:00Z"},
      "jobs": {"running": 1, "pending": 2, "queue": [
        {"position": 1, "kind": "Job", "namespace": "team-a", "name": "big", "priority": 1000,
         "since": "2026-11-27T11:55:00Z", "pods": 2, "waitingFor": "16 nvidia.com/gpu, largest free 8"},
        {"position": 2, "kind": "Pod", "namespace": "team-b", "name": "solo", "priority": 0,
         "since": "2026-11-27T11:59:00Z", "pods": 1, "waitingFor": "8 nvidia.com/gpu, largest free 0"}]}
    }})");
}

json node(const std::string& name, json taints, json labels = json::object(),
          json annotations = json::object()) {
  labels["respool.io/pool"] = "gpu-a";
  return {{"metadata",
           {{"name", name},
            {"labels", labels},
            {"annotations", annotations},
            {"creationTimestamp", "2026-11-27T11:00:00Z"}}},
          {"spec", {{"taints", taints}}},
          {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json nodes() {
  json items = json::array();
  items.push_back(
      node("n-1", json::array(), {{"respool.io/driver-upgrade-state", "upgrade-done"}}));
  items.push_back(node(
      "n-2", json::array({{{"key", "isolation.respool.io/A050101"}, {"effect", "NoSchedule"}}}),
      json::object(),
      {{"respool.io/node-operation", "fix-n-2"}, {"respool.io/node-operation-type", "Replace"}}));
  items.push_back(node(
      "n-3", json::array({{{"key", "isolation.respool.io/A200008"}, {"effect", "NoSchedule"}}})));
  return {{"items", items}};
}

json pod(const std::string& name, const std::string& node_name, const std::string& job) {
  json p = {
      {"metadata",
       {{"name", name}, {"namespace", "team-a"}, {"creationTimestamp", "2026-11-27T11:30:00Z"}}},
      {"spec", {{"nodeName", node_name}, {"priority", 10}}},
      {"status", {{"phase", "Running"}}}};
  if (!job.empty())
    p["metadata"]["ownerReferences"] =
        json::array({{{"kind", "Job"}, {"name", job}, {"controller", true}}});
  return p;
}

}  // namespace

TEST_CASE("status: one row per pool") {
  json list = {{"items", json::array({pool(), {{"metadata", {{"name", "empty"}}}}})}};
  CHECK(render(pools_table(list, false, kNow)) ==
        "NAME    PHASE      AVAILABLE   TOTAL   ABNORMAL   RUNNING   PENDING   REPLACEMENTS   "
        "DRIVER                  UPGRADED   AGE\n"
        "gpu-a   Abnormal   1           3       1          1         2         2/2            "
        "535.104.05->550.54.15   1/3        120m\n"
        "empty   <none>     0           0       0          0         0         <none>         "
        "<none>                  <none>     <none>\n");
  auto wide = pools_table(list, true, kNow);
  CHECK(wide.headers[10] == "CREATING");
  CHECK(wide.headers[13] == "NEXT-SLOT");
  CHECK(wide.rows[0][13] == "in 5h30m");
}

TEST_CASE("status POOL: the page") {
  std::string page = pool_page(pool(), nodes(), kNow);
  CHECK(page.find("Phase:          Abnormal\n") != std::string::npos);
  CHECK(page.find("Nodes:          total 3, available 1, abnormal 1, creating 1, queuing 0, "
                  "deleting 0\n") != std::string::npos);
  CHECK(page.find("Faulty nodes:   1\n  NODE   STATE      CODES\n  n-2    Abnormal   A050101\n") !=
        std::string::npos);
  CHECK(page.find("Replacements:   2 of 2 replacements in the last 24h, 1 replacing (at most 1 at "
                  "once), 0 resetting; next slot frees in 5h30m (2026-11-27T17:30:00Z)\n") !=
        std::string::npos);
  CHECK(page.find("Driver:         535.104.05->550.54.15: 1 upgraded, 1 upgrading, 1 pending, 0 "
                  "failed\n") != std::string::npos);
  CHECK(page.find("Jobs:           1 running, 2 pending\n") != std::string::npos);
  // A pool without status yet.
  CHECK(pool_page({{"metadata", {{"name", "new"}}}}, json::object(), kNow)
            .find("Jobs:           <none>\n") != std::string::npos);
}

TEST_CASE("jobs: running ones from the pods on the pool's nodes, then the queue") {
  json pods = {
      {"items", json::array({pod("big-0", "n-1", "train"), pod("big-1", "n-1", "train"),
                             pod("elsewhere", "other-node", "x"), pod("bare", "n-3", "")})}};
  CHECK(render(jobs_table(pool(), nodes(), pods, false, kNow)) ==
        "NAMESPACE   NAME    KIND   STATUS    POSITION   PRIORITY   PODS   AGE\n"
        "team-a      train   Job    Running   <none>     10         2      30m\n"
        "team-a      bare    Pod    Running   <none>     10         1      30m\n"
        "team-a      big     Job    Pending   1          1000       2      5m\n"
        "team-b      solo    Pod    Pending   2          0          1      60s\n");
  auto wide = jobs_table(pool(), nodes(), pods, true, kNow);
  CHECK(wide.rows[2].back() == "16 nvidia.com/gpu, largest free 8");
  json data = jobs_data(pool(), nodes(), pods);
  CHECK(data["running"].size() == 2);
  CHECK(data["jobs"]["queue"][1]["name"] == "solo");
}

TEST_CASE("nodes: state, codes, upgrade state, operation") {
  json ops = {
      {"items",
       json::array({{{"metadata", {{"name", "fix-n-2"}}},
                     {"status",
                      {{"phase", "Running"},
                       {"nodes", json::array({{{"name", "n-2"}, {"phase", "Pending"}}})}}}}})}};
  CHECK(render(nodes_table(nodes(), ops, false, kNow)) ==
        "NAME   STATE       CODES     UPGRADE        OPERATION         AGE\n"
        "n-1    Available   <none>    upgrade-done   <none>            60m\n"
        "n-2    Abnormal    A050101   <none>         Replace/fix-n-2   60m\n"
        "n-3    Creating    A200008   <none>         <none>            60m\n");
  auto wide = nodes_table(nodes(), ops, true, kNow);
  CHECK(wide.headers[5] == "OPERATION-PHASE");
  CHECK(wide.rows[1][5] == "Pending");
  CHECK(render(nodes_table(json::object(), json::object(), false, kNow)).empty());
}
