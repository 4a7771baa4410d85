#pragma once
// The built-in kinds served (core/v1, apps/v1, batch/v1, policy/v1, coordination.k8s.io/v1,
// events.k8s.io/v1, apiextensions.k8s.io/v1).

#include <string>
#include <vector>

#include "sandbox/apiserver/registry.hpp"

namespace respool::sandbox {

std::vector<ResourceType> builtin_types();
std::vector<std::string> builtin_group_order();

}  // namespace respool::sandbox
