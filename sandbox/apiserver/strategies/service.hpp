#pragma once
// What kube-apiserver's Service REST storage does to a Service before validating it: the
// defaults of SetDefaults_Service (on every write), cluster IP and node port allocation, and on
// update the strategy's dropTypeDependentFields and the storage's patchAllocatedValues and
// normalizeClusterIPs.

#include <nlohmann/json.hpp>

namespace respool::sandbox::kinds {

using Json = nlohmann::json;

void prepare_service_create(Json& service);
void prepare_service_update(Json& service, const Json& old);

}  // namespace respool::sandbox::kinds
