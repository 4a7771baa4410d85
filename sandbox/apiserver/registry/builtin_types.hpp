#pragma once
// The built-in kinds served: every group and kind of kube-apiserver v1.32 (builtin_types.cpp has
// one row per resource).

#include <string>
#include <vector>

#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox {

std::vector<ResourceType> builtin_types();
// The built-in groups in the order of /apis, each with its versions (preferred first).
const std::vector<GroupVersions>& builtin_groups();

}  // namespace respool::sandbox
