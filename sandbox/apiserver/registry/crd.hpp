#pragma once
// CustomResourceDefinitions: their defaults and validation, and the resource types they serve.

#include <vector>

#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox {

inline constexpr const char* kCrdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

// Defaults (names.singular, names.listKind, conversion None) and the initial status.
void crd_prepare_create(Json& crd);
void crd_prepare_update(Json& crd, const Json& old);
// apiextensions validation: names, group, scope, versions, structural schemas, immutability,
// x-kubernetes-validations rules compiled. `warnings` (when given) gets what the Warning header
// and the log say about rules using functions the sandbox does not evaluate.
std::vector<Cause> crd_validate(const Json& crd, const Json* old,
                                std::vector<std::string>* warnings = nullptr);
// A custom resource's validation, one 422's causes in the server's order: metadata (the name an
// RFC 1123 subdomain, labels, annotations), then its schema, then its CEL rules (with `old` on
// update, for transition rules and ratcheting, whose warnings go to `warnings`).
std::vector<Cause> custom_resource_validate(const ResourceType& type, const Json& obj,
                                            const Json* old, std::vector<std::string>& warnings);
// One ResourceType per served version.
std::vector<ResourceType> crd_types(const Json& crd);
// The established status for `crd` given the CRDs it may conflict with (same group).
Json crd_status(const Json& crd, const std::vector<const Json*>& others, const std::string& now);

}  // namespace respool::sandbox
