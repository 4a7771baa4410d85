#pragma once
// The driver DaemonSets of a pool (issue 14, "Delivery"): one per accelerator type the pool's
// flavors have and spec.driver names a version for, rendered from the catalog's driver image.
// `updateStrategy: OnDelete`: a new version in the template restarts nothing by itself; the
// upgrade controller deletes a node's driver pod when the node's turn comes, and the DaemonSet
// brings the new one. New nodes get the current template, so they start at the target.
//
//   name       <pool>-gpu-driver / <pool>-npu-driver, in the operator's namespace
//   labels     app.kubernetes.io/managed-by=respool, respool.io/pool, respool.io/driver=GPU|NPU
//              (no respool.io/job-type: the pool's plug-in sweep leaves it alone)
//   owner      the pool (controller), so that the garbage collector removes it with the pool
//   template   annotation respool.io/driver-version; nodeSelector respool.io/pool and an
//              affinity on the flavor label values of that type; tolerations for the pool's
//              taint, the upgrade and admission codes, and a cordon

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/plugins.hpp"
#include "reconcilers/policy/spec.hpp"

namespace respool::policy {

struct DriverDaemonSet {
  AcceleratorType type = AcceleratorType::GPU;
  std::string name;
  std::string namespace_name;
  std::string version;
  nlohmann::json manifest;
};

std::string driver_daemonset_name(std::string_view pool, AcceleratorType type);

// The pool's driver DaemonSets (none without spec.driver). Types the catalog has no image for
// are left out (the catalog check refuses flavors without one).
std::vector<DriverDaemonSet> render_driver_daemonsets(const Catalog& catalog, const PoolRef& pool,
                                                      const ResourcePoolSpec& spec,
                                                      std::string_view ns);

// The version a node of `flavor` should run in this pool; "" when none is asked for.
std::string driver_target(const Catalog& catalog, const ResourcePoolSpec& spec,
                          std::string_view flavor);

}  // namespace respool::policy
