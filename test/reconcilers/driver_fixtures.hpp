#pragma once
// What the driver-upgrade tests against the sandbox share: GPU nodes at the old driver, a
// Running GPU pool upgrading in a given mode and batch, jobs on nodes, and readings of the nodes'
// upgrade labels, the pool's driver status and events.
#include <set>
#include <string>

#include "test/reconcilers/harness.hpp"

namespace respool::test::driver {

using namespace std::chrono_literals;

inline constexpr const char* kOld = "535.104.05";
inline constexpr const char* kNew = "550.54.15";

inline std::string gpu_nodes(int count) {
  return "nodes:\n- {flavor: gpu-8x-a100, zone: az-1, count: " + std::to_string(count) +
         ", namePrefix: g, driverVersion: \"" + kOld +
         "\", capacity: {cpu: \"96\", memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"}}\n";
}

// A Running GPU pool at the old driver, upgrading `mode` in batches of `max_unavailable`.
inline void gpu_pool(Harness& h, const std::string& name, int count, const std::string& mode,
                     const Json& max_unavailable) {
  h.apply(network_manifest("net-" + name), kube::resources::networks);
  Json pool = pool_manifest(name, "net-" + name,
                            Json::array({{{"flavor", "gpu-8x-a100"}, {"count", count}}}));
  pool["spec"]["driver"] = {{"gpuVersion", kOld}, {"upgrade", {{"mode", mode}}}};
  if (!max_unavailable.is_null())
    pool["spec"]["driver"]["upgrade"]["maxUnavailable"] = max_unavailable;
  h.apply(pool, kube::resources::resourcepools);
  REQUIRE(h.eventually(
      [&] { return h.phase(name) == "Running" && h.pool_nodes(name).size() == std::size_t(count); },
      std::chrono::seconds(120)));
}

inline void upgrade_to(Harness& h, const std::string& pool, const std::string& version) {
  h.patch_pool(pool, {{"driver", {{"gpuVersion", version}}}});
}

// A job pod on `node` that runs `seconds` (simulated).
inline void run_job(Harness& h, const std::string& name, const std::string& node, int seconds) {
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", "default"},
        {"annotations", {{"sandbox.respool.io/run-seconds", std::to_string(seconds)}}}}},
      {"spec",
       {{"nodeName", node},
        {"restartPolicy", "Never"},
        {"tolerations", Json::array({{{"key", "respool.io/pool"}, {"operator", "Exists"}}})},
        {"containers", Json::array({{{"name", "train"}, {"image", "trainer:1"}}})}}}};
  h.apply(pod, kube::resources::pods);
  REQUIRE(h.eventually([&] {
    auto p = h.client().get(kube::resources::pods, "default", name);
    return p && p->value("status", Json::object()).value("phase", "") == "Running";
  }));
}

inline std::string state_of(const Json& node) {
  return label(node, "respool.io/driver-upgrade-state");
}

// Every node runs `version`, upgrade-done, uncordoned unless `cordoned`, without the D4 taint.
inline bool all_upgraded(Harness& h, const std::string& pool, const std::string& version,
                         const std::set<std::string>& cordoned = {}) {
  for (const auto& n : h.pool_nodes(pool)) {
    const std::string name = n["metadata"]["name"];
    if (label(n, "respool.io/driver-version") != version || state_of(n) != "upgrade-done" ||
        has_taint(n, "isolation.respool.io/A200001") ||
        n["spec"].value("unschedulable", false) != cordoned.contains(name))
      return false;
  }
  return true;
}

inline Json driver_status(Harness& h, const std::string& pool) {
  return h.pool(pool)["status"].value("driver", Json::object());
}

inline bool pod_gone_or_ended(Harness& h, const std::string& name) {
  auto p = h.client().get(kube::resources::pods, "default", name);
  if (!p) return true;
  const std::string phase = p->value("status", Json::object()).value("phase", "");
  return phase == "Succeeded" || phase == "Failed" ||
         p->at("metadata").contains("deletionTimestamp");
}

inline bool event_mentions(Harness& h, const std::string& pool, const std::string& reason,
                           const std::string& text) {
  for (const auto& e : h.events_for(pool))
    if (e.value("reason", "") == reason && e.value("note", "").find(text) != std::string::npos)
      return true;
  return false;
}

}  // namespace respool::test::driver
