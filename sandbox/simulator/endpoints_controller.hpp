#pragma once
// The Endpoints and EndpointSlice controllers: for every Service with a selector they publish
// endpoints_plan.hpp's Endpoints object (named as the Service) and EndpointSlices (named
// "<service>-<random>", owned by the Service, so that the garbage collector takes them with
// it). Two controllers over the same informers, as kube-controller-manager runs them.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/recent_writes.hpp"

namespace respool::sandbox::sim {

struct ServiceInformers {
  ObjectInformer& services;
  ObjectInformer& endpoints;
  ObjectInformer& slices;
};

class EndpointsController {
 public:
  EndpointsController(Cluster& cluster, ServiceInformers informers);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);

  Cluster& cluster_;
  ServiceInformers informers_;
  runtime::Controller controller_;
};

class EndpointSliceController {
 public:
  EndpointSliceController(Cluster& cluster, ServiceInformers informers);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);

  Cluster& cluster_;
  ServiceInformers informers_;
  RecentWrites written_;  // slices made with generateName must not be made twice
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
