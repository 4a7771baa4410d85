#pragma once
// The cluster simulator: plays everything of a Kubernetes cluster besides its API server, and
// talks to that server only through the Kubernetes API, as kubelets, the scheduler and the
// controllers do. It registers free nodes (node_set.hpp), runs their kubelets (pods start,
// finish after sandbox.respool.io/run-seconds, stop when deleted), schedules pending pods, runs
// DaemonSets and Jobs, labels nodes with the driver version their driver pod runs, keeps the
// lifecycle taints in step with node conditions, and plays node faults on demand
// (sandbox.respool.io/fault, see node_faults.hpp; kubectl can drive them too).
//
// Everything timed runs on the injected clock, so that a ScaledClock makes a ten-minute job
// take ten seconds at 60x.

#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "operator/kube/config.hpp"
#include "operator/runtime/clock.hpp"
#include "sandbox/simulator/node_faults.hpp"
#include "sandbox/simulator/node_set.hpp"

namespace respool::sandbox {

struct SimulatorOptions {
  runtime::Clock* clock = nullptr;  // nullptr = the real clock
  std::string nodes_yaml{};         // nodes registered at start (node_set.hpp), optional
  int kubelet_workers = 4;
  // Simulated durations: a deleted pod's containers stop within `termination` (or its grace
  // period if shorter); a driver pod runs `driver_install` before the node's label changes.
  runtime::Duration termination = std::chrono::seconds(1);
  runtime::Duration driver_install = std::chrono::seconds(10);
  // A node reset pod runs this long (see keys.hpp for the per-node controls).
  runtime::Duration node_reset = std::chrono::seconds(60);
  // Real time allowed for the first list of every informer.
  std::chrono::seconds sync_timeout{60};
};

class Simulator {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };
  struct Impl;

 public:
  Simulator(Key, std::unique_ptr<Impl> impl);
  static std::expected<std::unique_ptr<Simulator>, std::string> start(kube::ClusterConfig config,
                                                                      SimulatorOptions options);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Registers the nodes of a set (labels as the inventory names them); nodes that exist already
  // are left as they are, so a restart with the same inventory changes nothing. Returns the
  // names of the set's nodes.
  std::expected<std::vector<std::string>, std::string> add_nodes(const NodeSetSpec& set);
  std::expected<std::vector<std::string>, std::string> add_nodes(const NodeInventory& inventory);
  std::expected<std::vector<std::string>, std::string> load_nodes_yaml(std::string_view yaml);
  std::expected<std::vector<std::string>, std::string> load_nodes_file(
      const std::filesystem::path& path);

  // Faults, through the node's sandbox.respool.io/fault annotation (exactly what kubectl
  // annotate does): set_faults replaces the list, add_fault adds one item ("NotReady",
  // "Isolate=A050101"), heal removes one item, heal_all removes the annotation.
  std::expected<void, std::string> set_faults(const std::string& node, const NodeFaults& faults);
  std::expected<void, std::string> add_fault(const std::string& node, std::string_view fault);
  std::expected<void, std::string> heal(const std::string& node, std::string_view fault);
  std::expected<void, std::string> heal_all(const std::string& node);

  runtime::Clock& clock();
  // Stops every component (idempotent); the objects it made stay in the API server.
  void stop();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace respool::sandbox
