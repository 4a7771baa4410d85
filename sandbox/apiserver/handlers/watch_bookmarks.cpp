// The zero-value object a BOOKMARK event carries, per kind, as the watch cache's NewFunc makes it.

#include "sandbox/apiserver/handlers/watch.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox {

Json bookmark_object(const ResourceType& type) {
  Json o;
  o["kind"] = type.kind;
  o["apiVersion"] = type.api_version();
  o["metadata"] = Json::object();
  if (type.custom()) return o;
  o["metadata"]["creationTimestamp"] = nullptr;
  Json empty_template = {{"metadata", {{"creationTimestamp", nullptr}}},
                         {"spec", {{"containers", nullptr}}}};
  switch (type.id) {
    case KindId::Node:
      o["spec"] = Json::object();
      o["status"] = {{"daemonEndpoints", kinds::empty_daemon_endpoints()},
                     {"nodeInfo", kinds::empty_node_info()}};
      break;
    case KindId::Pod:
      o["spec"] = {{"containers", nullptr}};
      o["status"] = Json::object();
      break;
    case KindId::Namespace:
      o["spec"] = Json::object();
      o["status"] = Json::object();
      break;
    case KindId::Service:
      o["spec"] = Json::object();
      o["status"] = {{"loadBalancer", Json::object()}};
      break;
    case KindId::DaemonSet:
      o["spec"] = {{"selector", nullptr}, {"template", empty_template}};
      o["status"] = {{"currentNumberScheduled", 0},
                     {"numberMisscheduled", 0},
                     {"desiredNumberScheduled", 0},
                     {"numberReady", 0}};
      break;
    case KindId::Deployment:
      o["spec"] = {
          {"selector", nullptr}, {"template", empty_template}, {"strategy", Json::object()}};
      o["status"] = Json::object();
      break;
    case KindId::Job:
      o["spec"] = {{"template", empty_template}};
      o["status"] = Json::object();
      break;
    case KindId::Lease:
      o["spec"] = Json::object();
      break;
    case KindId::PodDisruptionBudget:
      o["spec"] = Json::object();
      o["status"] = {{"disruptionsAllowed", 0},
                     {"currentHealthy", 0},
                     {"desiredHealthy", 0},
                     {"expectedPods", 0}};
      break;
    case KindId::Event:
      o["involvedObject"] = Json::object();
      o["source"] = Json::object();
      o["firstTimestamp"] = nullptr;
      o["lastTimestamp"] = nullptr;
      o["eventTime"] = nullptr;
      o["reportingComponent"] = "";
      o["reportingInstance"] = "";
      break;
    case KindId::EventV1:
      o["eventTime"] = nullptr;
      o["reportingController"] = "";
      o["reportingInstance"] = "";
      o["regarding"] = Json::object();
      o["deprecatedSource"] = Json::object();
      o["deprecatedFirstTimestamp"] = nullptr;
      o["deprecatedLastTimestamp"] = nullptr;
      break;
    case KindId::CustomResourceDefinition:
      o["spec"] = {{"group", ""},
                   {"names", {{"plural", ""}, {"kind", ""}}},
                   {"scope", ""},
                   {"versions", nullptr}};
      o["status"] = {{"conditions", nullptr},
                     {"acceptedNames", {{"plural", ""}, {"kind", ""}}},
                     {"storedVersions", nullptr}};
      break;
    default:
      break;
  }
  return o;
}

}  // namespace respool::sandbox
