// Driver upgrades against the sandbox (issue 14): Secure waits for jobs, Force stops them, the
// batch is never exceeded (checked by watching the nodes), a driver that never becomes Ready
// fails its node while the rest finish, and a node an administrator cordoned stays cordoned.
#include <map>
#include <set>

#include "test/reconcilers/driver_fixtures.hpp"
#include "test/reconcilers/node_watch.hpp"

using namespace respool;
using namespace respool::test;
using namespace respool::test::driver;

TEST_CASE("D1 Secure: a node's driver restarts only after its jobs finish",
          "[reconcilers][driver][rule:D1][rule:D4]") {
  Harness h({.nodes_yaml = gpu_nodes(3), .time_scale = 20});
  gpu_pool(h, "p", 3, "Secure", Json(1));
  const std::string busy = "g-1";
  run_job(h, "train-0", busy, 900);  // 15 simulated minutes
  NodeWatch watch(h.client(), "p");
  upgrade_to(h, "p", kNew);

  // The others upgrade; the busy node waits cordoned, with its old driver, while the job runs.
  REQUIRE(h.eventually([&] {
    auto n = h.get(kube::resources::nodes, busy);
    return state_of(n) == "wait-for-jobs-required";
  }));
  CHECK(label(h.get(kube::resources::nodes, busy), "respool.io/driver-version") == kOld);
  CHECK(h.get(kube::resources::nodes, busy)["spec"].value("unschedulable", false));
  CHECK(has_taint(h.get(kube::resources::nodes, busy), "isolation.respool.io/A200001"));
  CHECK(h.phase("p") == "Upgrading");
  auto condition = [&](const std::string& type) {
    const Json conditions = h.pool("p")["status"].value("conditions", Json::array());
    for (const auto& c : conditions)
      if (c["type"] == type) return c;
    return Json::object();
  };
  CHECK(condition("DriverUpgrading").value("status", "") == "True");
  // Until the job ends, its node's driver is not restarted.
  while (!pod_gone_or_ended(h, "train-0")) {
    CHECK(label(h.get(kube::resources::nodes, busy), "respool.io/driver-version") == kOld);
    CHECK(h.client().get(kube::resources::pods, "default", "train-0"));
    std::this_thread::sleep_for(200ms);
  }
  REQUIRE(h.eventually([&] { return all_upgraded(h, "p", kNew); }, std::chrono::seconds(120)));
  REQUIRE(h.eventually([&] {
    return h.phase("p") == "Running" && driver_status(h, "p").value("gpuVersion", "") == kNew;
  }));
  INFO(watch.log());
  CHECK(watch.most("upgrade") == 1);
  auto s = driver_status(h, "p");
  CHECK(s.value("gpuVersion", "") == kNew);
  CHECK(s["nodes"].value("upgraded", 0) == 3);
  CHECK(condition("DriverUpgrading").value("reason", "") == "UpToDate");
  CHECK(event_mentions(h, busy, "DriverUpgraded", busy));
  // A1: each node's start and end are audited as updates of the pool.
  int audited = 0;
  for (const auto& line : h.audit_lines())
    audited += line.value("operation", "") == "UpdatePoolV2" &&
               line.dump().find("driver upgraded") != std::string::npos;
  CHECK(audited == 3);
  // P9: the pool's record of the upgrade, with a step per node start and end.
  REQUIRE(h.eventually([&] {
    for (const auto& r : h.pool("p")["status"].value("records", Json::array()))
      if (r.value("operation", "") == "UpgradeDriver") return r.value("phase", "") == "Succeeded";
    return false;
  }));
  Json record;
  const Json records = h.pool("p")["status"]["records"];
  for (const auto& r : records)
    if (r.value("operation", "") == "UpgradeDriver") record = r;
  INFO(record.dump());
  CHECK(record["nodes"].size() == 3);
  std::map<std::string, int> steps;
  for (const auto& step : record["steps"])
    ++steps[step.value("step", "") + " " + step.value("node", "")];
  CHECK(steps["Started "] == 1);
  for (const std::string n : {"g-1", "g-2", "g-3"}) {
    CHECK(steps["NodeStarted " + n] == 1);
    CHECK(steps["NodeUpgraded " + n] == 1);
  }
  // The nodes by upgrade state, as a metric.
  CHECK(h.manager().metrics().render().find(
            R"(respool_driver_upgrade_nodes{pool="p",state="upgrade-done"} 3)") !=
        std::string::npos);
}

TEST_CASE("D1 Force: the jobs on a node are stopped and listed", "[reconcilers][driver][rule:D1]") {
  Harness h({.nodes_yaml = gpu_nodes(2), .time_scale = 20});
  gpu_pool(h, "p", 2, "Force", Json());
  run_job(h, "train-0", "g-2", 36000);  // ten simulated hours: Force does not wait
  upgrade_to(h, "p", kNew);
  REQUIRE(h.eventually([&] { return all_upgraded(h, "p", kNew); }, std::chrono::seconds(120)));
  CHECK(pod_gone_or_ended(h, "train-0"));
  CHECK(event_mentions(h, "p", "DriverUpgradeStoppedJobs", "default/train-0"));
}

TEST_CASE("D2: the batch is never exceeded, and a pool at 25% of 8 upgrades 2 at a time",
          "[reconcilers][driver][rule:D2]") {
  Harness h({.nodes_yaml = gpu_nodes(8), .time_scale = 20});
  gpu_pool(h, "p", 8, "Secure", Json("25%"));
  NodeWatch watch(h.client(), "p");
  upgrade_to(h, "p", kNew);
  REQUIRE(h.eventually([&] { return all_upgraded(h, "p", kNew); }, std::chrono::seconds(180)));
  INFO(watch.log());
  CHECK(watch.most("upgrade") == 2);
  // The pool's status follows the nodes a moment later.
  CHECK(h.eventually([&] { return driver_status(h, "p")["nodes"].value("upgraded", 0) == 8; }));
}

TEST_CASE("a driver that never becomes Ready fails its node while the rest finish",
          "[reconcilers][driver][rule:D4]") {
  Harness h({.nodes_yaml = gpu_nodes(3), .time_scale = 30});
  gpu_pool(h, "p", 3, "Secure", Json(3));
  // An administrator cordoned g-3 before the upgrade: it is upgraded and left cordoned.
  REQUIRE(h.client().patch(kube::resources::nodes, "", "g-3", kube::PatchType::Merge,
                           Json{{"spec", {{"unschedulable", true}}}}));
  REQUIRE(h.client().patch(
      kube::resources::nodes, "", "g-2", kube::PatchType::Merge,
      Json{{"metadata", {{"annotations", {{"sandbox.respool.io/driver-fails", kNew}}}}}}));
  upgrade_to(h, "p", kNew);
  // Validation gives up after 10 simulated minutes (20 s here).
  REQUIRE(h.eventually(
      [&] { return state_of(h.get(kube::resources::nodes, "g-2")) == "upgrade-failed"; },
      std::chrono::seconds(120)));
  REQUIRE(h.eventually([&] {
    for (const std::string n : {"g-1", "g-3"})
      if (state_of(h.get(kube::resources::nodes, n)) != "upgrade-done") return false;
    return true;
  }));
  auto g3 = h.get(kube::resources::nodes, "g-3");
  CHECK(g3["spec"].value("unschedulable", false));  // still the administrator's cordon
  CHECK_FALSE(
      g3["metadata"].value("annotations", Json::object()).contains("respool.io/cordoned-by"));
  CHECK_FALSE(h.get(kube::resources::nodes, "g-1")["spec"].value("unschedulable", false));
  auto g2 = h.get(kube::resources::nodes, "g-2");
  CHECK(g2["spec"].value("unschedulable", false));  // a failed node stays out of use
  CHECK_FALSE(has_taint(g2, "isolation.respool.io/A200001"));
  const std::string failure =
      g2["metadata"]["annotations"].value("respool.io/driver-upgrade-failure", "");
  CHECK(failure.starts_with("ValidationTimeout: "));
  CHECK(failure.find("not Ready") != std::string::npos);
  // The pool says Degraded naming it, and lists it with its cause.
  REQUIRE(h.eventually([&] {
    for (const auto& c : h.pool("p")["status"].value("conditions", Json::array()))
      if (c["type"] == "Degraded" && c["status"] == "True" &&
          c.value("message", "").find("g-2 (driver upgrade failed: ValidationTimeout)") !=
              std::string::npos)
        return true;
    return false;
  }));
  auto s = driver_status(h, "p");
  REQUIRE(s["failedNodes"].size() == 1);
  CHECK(s["failedNodes"][0].value("name", "") == "g-2");
  CHECK(s["failedNodes"][0].value("reason", "") == "ValidationTimeout");
  CHECK(event_mentions(h, "g-2", "DriverUpgradeFailed", "ValidationTimeout"));
  // Once the node's trouble is over, a retry (after 5 simulated minutes) brings it through.
  REQUIRE(h.client().patch(
      kube::resources::nodes, "", "g-2", kube::PatchType::Merge,
      Json{{"metadata", {{"annotations", {{"sandbox.respool.io/driver-fails", nullptr}}}}}}));
  REQUIRE(
      h.eventually([&] { return all_upgraded(h, "p", kNew, {"g-3"}); }, std::chrono::seconds(120)));
}

TEST_CASE("a version changed mid-upgrade retargets without repeating finished nodes",
          "[reconcilers][driver][rule:D1][rule:D2]") {
  Harness h({.nodes_yaml = gpu_nodes(4), .time_scale = 20});
  gpu_pool(h, "p", 4, "Secure", Json(1));
  NodeWatch watch(h.client(), "p");
  upgrade_to(h, "p", kNew);
  // Once the first node runs the new driver, the pool's owner rolls back to the old one.
  std::string first;
  REQUIRE(h.eventually([&] {
    for (const auto& n : h.pool_nodes("p"))
      if (label(n, "respool.io/driver-version") == kNew && state_of(n) == "upgrade-done")
        first = n["metadata"]["name"];
    return !first.empty();
  }));
  upgrade_to(h, "p", kOld);
  REQUIRE(h.eventually([&] { return all_upgraded(h, "p", kOld); }, std::chrono::seconds(120)));
  // Only the nodes the first target reached went through the machine again; the others, already
  // at the old version, were never cordoned.
  INFO(watch.log());
  const std::set<std::string> moved = watch.ever("upgrade");
  CHECK(moved.contains(first));
  CHECK(moved.size() <= 2);  // the first, and at most the one in flight at the rollback
  CHECK(watch.most("upgrade") == 1);
  for (const auto& n : h.pool_nodes("p")) {
    const std::string name = n["metadata"]["name"];
    if (!moved.contains(name)) CHECK(label(n, "respool.io/driver-version") == kOld);
  }
  // One record holds both targets.
  REQUIRE(h.eventually([&] {
    for (const auto& r : h.pool("p")["status"].value("records", Json::array()))
      if (r.value("operation", "") == "UpgradeDriver" && r.value("phase", "") == "Succeeded")
        return r.dump().find("Retargeted") != std::string::npos;
    return false;
  }));
}

TEST_CASE("a node labelled respool.io/driver-upgrade.skip=true is left out",
          "[reconcilers][driver][rule:D1]") {
  Harness h({.nodes_yaml = gpu_nodes(3), .time_scale = 20});
  gpu_pool(h, "p", 3, "Force", Json());
  REQUIRE(h.client().patch(
      kube::resources::nodes, "", "g-2", kube::PatchType::Merge,
      Json{{"metadata", {{"labels", {{"respool.io/driver-upgrade.skip", "true"}}}}}}));
  NodeWatch watch(h.client(), "p");
  upgrade_to(h, "p", kNew);
  REQUIRE(h.eventually(
      [&] {
        for (const std::string n : {"g-1", "g-3"}) {
          auto node = h.get(kube::resources::nodes, n);
          if (label(node, "respool.io/driver-version") != kNew || state_of(node) != "upgrade-done")
            return false;
        }
        return true;
      },
      std::chrono::seconds(120)));
  auto skipped = h.get(kube::resources::nodes, "g-2");
  CHECK(label(skipped, "respool.io/driver-version") == kOld);
  CHECK(state_of(skipped).empty());
  CHECK_FALSE(skipped["spec"].value("unschedulable", false));
  CHECK_FALSE(watch.ever("upgrade").contains("g-2"));
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));
}
