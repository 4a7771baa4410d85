#pragma once
// The parts of ValidatePodSpec (pkg/apis/core/validation, v1.32), one concern per file:
// volumes (validation/volumes.cpp), mounts and devices (validation/mounts.cpp), containers:
// ports, env, probes, lifecycle (validation/containers.cpp), the downward API's selectors
// (validation/downward.cpp), security contexts and `os` (validation/security.cpp), affinity,
// topology spread and DNS (validation/scheduling.cpp), resources, tolerations and the spec itself
// (validation/pod.cpp). Values the sandbox does not default (probe periods, fieldRef apiVersion,
// httpGet path and scheme, token expiry) are taken as their defaults when missing, as decoding
// would set them.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {

// field.NotFound: "Not found: <value>".
Cause field_not_found(std::string field, const Json& value);
// A set pointer as Go's %#v shows it: the sandbox has no addresses, so a fixed one.
inline constexpr const char* kGoPointer = "0xc000000000";

// The volumes that passed validation, the ones a mount or device may name: name -> the key of
// their source ("emptyDir", "persistentVolumeClaim", ...).
using PodVolumes = std::map<std::string, std::string>;

// ValidateVolumes at `at` ("spec.volumes").
PodVolumes volume_rules(const Json& volumes, const std::string& at, std::vector<Cause>& out);
// ValidateVolumeMounts and ValidateVolumeDevices of a container at `at` (".../containers[0]")
// (validation/mounts.cpp).
void volume_mount_rules(const Json& container, const PodVolumes& volumes, const std::string& at,
                        std::vector<Cause>& out);
void volume_device_rules(const Json& container, const PodVolumes& volumes, const std::string& at,
                         std::vector<Cause>& out);
// validateLocalDescendingPath: relative, no ".." element.
void local_descending_path_rules(const std::string& path, const std::string& at,
                                 std::vector<Cause>& out);
// validateObjectFieldSelector (env: `volume` false) and validateContainerResourceFieldSelector.
void object_field_selector_rules(const Json& ref, bool volume, const std::string& at,
                                 std::vector<Cause>& out);
void resource_field_selector_rules(const Json& ref, bool volume, const std::string& at,
                                   std::vector<Cause>& out);

// validateContainers and validateInitContainers of spec at `at` ("spec").
void container_list_rules(const Json& spec, const PodVolumes& volumes, const std::string& at,
                          std::vector<Cause>& out);
// validateResourceRequirements of a container (validation/pod.cpp).
void container_resource_rules(const Json& resources, const std::string& at,
                              std::vector<Cause>& out);
// ValidateSecurityContext of a container (validation/scheduling.cpp); `host_users` unless the
// pod's securityContext.hostUsers is false.
void container_security_rules(const Json& sc, bool host_users, const std::string& at,
                              std::vector<Cause>& out);

// The spec-level rules between dnsPolicy and serviceAccountName: nodeSelector, the pod's
// security context, affinity, dnsConfig, readiness and scheduling gates, topology spread
// (validation/scheduling.cpp); ValidateHostAliases at "<at>".
void pod_scheduling_rules(const Json& spec, const std::string& at, std::vector<Cause>& out);
void pod_host_alias_rules(const Json& spec, const std::string& at, std::vector<Cause>& out);
// validatePodSpecSecurityContext at `at` ("spec.securityContext") and validateOS with the
// linux and windows rules that follow it (validation/security.cpp).
void pod_security_rules(const Json& spec, const std::string& at, std::vector<Cause>& out);
void pod_os_rules(const Json& spec, const std::string& at, std::vector<Cause>& out);

}  // namespace respool::sandbox::kinds
