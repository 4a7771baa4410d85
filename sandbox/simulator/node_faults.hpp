#pragma once
// Node faults played on demand. The annotation sandbox.respool.io/fault on a node lists them,
// comma-separated:
//   NotReady            Ready=False (the kubelet reports itself not ready)
//   Unreachable         Ready and the pressure conditions Unknown (the kubelet went silent)
//   Isolate=A050101     taint isolation.respool.io/A050101:NoSchedule (a fault detector)
//   AcceleratorLoss=N   allocatable of the node's accelerator (its first extended resource,
//                       e.g. nvidia.com/gpu) N below its capacity (rule F5)
// Removing an item heals it: conditions back to a healthy kubelet's, the taints the simulator
// added removed (never one it found there), allocatable restored. What the simulator changed is
// recorded in sandbox.respool.io/fault-applied, so healing works across restarts.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox {

struct NodeFaults {
  bool not_ready = false;
  bool unreachable = false;
  std::vector<std::string> isolation_codes;  // "A050101"
  int accelerator_loss = 0;

  bool empty() const {
    return !not_ready && !unreachable && isolation_codes.empty() && accelerator_loss == 0;
  }
  friend bool operator==(const NodeFaults&, const NodeFaults&) = default;
};

struct ParsedFaults {
  NodeFaults faults;
  std::vector<std::string> errors;  // items that were not understood (and are ignored)
};
ParsedFaults parse_faults(std::string_view annotation);
std::string format_faults(const NodeFaults& faults);  // the annotation's value

namespace sim {

// The node as it should be with the faults of its annotation: conditions, isolation taints,
// allocatable and the record. Returns a copy; `node` is left alone.
nlohmann::json apply_faults(const nlohmann::json& node, std::chrono::system_clock::time_point now,
                            std::vector<std::string>* errors = nullptr);

// The node's accelerator resource: its first extended resource (a name with a '/') in
// capacity; "" when it has none.
std::string accelerator_resource(const nlohmann::json& node);

}  // namespace sim
}  // namespace respool::sandbox
