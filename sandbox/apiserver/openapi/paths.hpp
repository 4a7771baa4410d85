#pragma once
// The paths of OpenAPI documents: one resource's collection, item and subresource operations,
// in v3 (requestBody/content) or v2 (consumes/produces, body parameters) form, with the query
// parameters and extensions kubectl reads (fieldValidation on writes, the patch media types:
// strategic merge patch for built-in kinds, as a real server lists it).

#include <string>

#include "sandbox/apiserver/openapi/schemas.hpp"
#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox {

// Schema names the operations of one resource refer to.
struct ResourceSchemas {
  std::string object;  // "io.k8s.api.apps.v1.Deployment"
  std::string list;    // "io.k8s.api.apps.v1.DeploymentList"
  std::string scale;   // "io.k8s.api.autoscaling.v1.Scale" when it has /scale
};

// Adds the paths of `t` to `paths` (an object keyed by path).
void add_resource_paths(const ResourceType& t, const ResourceSchemas& schemas, OpenApiVersion v,
                        OJson& paths);

}  // namespace respool::sandbox
