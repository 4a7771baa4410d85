#pragma once
// The warnings a kind's strategy adds to a create (WarningsOnCreate), as Warning headers.

#include <string>
#include <vector>

#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox::kinds {

// Pods, Deployments, ReplicaSets, Jobs, CronJobs and ReplicationControllers whose name is not a
// DNS label: "metadata.name: this is used in ..., a DNS label is recommended: [...]".
std::vector<std::string> create_warnings(const ResourceType& type, const Json& obj);

}  // namespace respool::sandbox::kinds
