#pragma once
// What the Endpoints and EndpointSlice controllers publish for a Service with a selector, pure
// (pkg/controller/endpoint, pkg/controller/endpointslice):
//
// - The pods its selector matches in its namespace that have an IP and are not Succeeded or
//   Failed; each service port resolved against the pod (targetPort by number, or by the name of
//   a container port with the same protocol; pods without it are left out of that port).
// - Endpoints "<service>": subsets grouping the pods that offer the same ports, ready pods in
//   addresses and the others in notReadyAddresses (all in addresses with
//   publishNotReadyAddresses); terminating pods are left out unless publishNotReadyAddresses.
//   Labels are the Service's, plus service.kubernetes.io/headless for clusterIP None.
// - EndpointSlices: IPv4, at most 100 endpoints each, one group of slices per set of ports,
//   conditions ready (ready and not terminating), serving and terminating, nodeName, zone (the
//   node's topology.kubernetes.io/zone), hostname when the pod's subdomain is the Service; with
//   no endpoint at all one placeholder slice with null ports and endpoints.
// Subsets, ports and endpoints are ordered by address and name where the real controllers
// order by hashes: the same content, possibly listed in another order.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

// Endpoints.subsets for the service (an empty array when no pod matches).
nlohmann::json endpoints_subsets(const nlohmann::json& service,
                                 const std::vector<const nlohmann::json*>& pods);

struct SliceContent {
  nlohmann::json ports;      // array, or null for the placeholder
  nlohmann::json endpoints;  // array, or null for the placeholder
};

// The slices the service should have; `zone_of` gives a node's zone ("" = none).
std::vector<SliceContent> endpoint_slices(
    const nlohmann::json& service, const std::vector<const nlohmann::json*>& pods,
    const std::function<std::string(const std::string& node)>& zone_of);

// The labels the Endpoints object and slices carry (the Service's, plus the headless label;
// slices also their service-name and managed-by labels).
nlohmann::json endpoints_labels(const nlohmann::json& service);
nlohmann::json endpoint_slice_labels(const nlohmann::json& service);

// endpoints.kubernetes.io/last-change-trigger-time: the latest change of the service and its
// endpoints' pods (creation, readiness) that the tracker would have seen.
std::string last_change_trigger_time(const nlohmann::json& service,
                                     const std::vector<const nlohmann::json*>& pods);

inline constexpr const char* kServiceNameLabel = "kubernetes.io/service-name";
inline constexpr const char* kManagedByLabel = "endpointslice.kubernetes.io/managed-by";
inline constexpr const char* kEndpointSliceController = "endpointslice-controller.k8s.io";
inline constexpr const char* kTriggerTimeAnnotation =
    "endpoints.kubernetes.io/last-change-trigger-time";

}  // namespace respool::sandbox::sim
