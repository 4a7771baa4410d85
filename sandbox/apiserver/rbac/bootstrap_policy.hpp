#pragma once
// The RBAC objects a real server bootstraps that users meet (bootstrap_policy.cpp says which).

#include <vector>

#include "sandbox/apiserver/registry/store.hpp"

namespace respool::sandbox::rbac {

std::vector<Json> bootstrap_cluster_roles();
std::vector<Json> bootstrap_cluster_role_bindings();

}  // namespace respool::sandbox::rbac
