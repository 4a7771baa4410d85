#pragma once
// The Endpoints and EndpointSlice controllers: for every Service with a selector they publish
// endpoints_plan.hpp's Endpoints object (named as the Service) and EndpointSlices (named
// "<service>-<random>", owned by the Service, so that the garbage collector takes them with
// it). Two controllers over the same informers, as kube-controller-manager runs them.

#include <expected>
#include <string>

#include "sandbox/simulator/recent_writes.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

struct ServiceInformers {
  ObjectInformer& services;
  ObjectInformer& endpoints;
  ObjectInformer& slices;
};

class EndpointsController : public SimController {
 public:
  EndpointsController(Cluster& cluster, ServiceInformers informers);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;

  ServiceInformers informers_;
};

class EndpointSliceController : public SimController {
 public:
  EndpointSliceController(Cluster& cluster, ServiceInformers informers);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;

  ServiceInformers informers_;
  RecentWrites written_;  // slices made with generateName must not be made twice
};

}  // namespace respool::sandbox::sim
