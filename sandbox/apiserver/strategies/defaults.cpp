// Defaults and server-set fields per kind, and what each endpoint may change.

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"
#include "sandbox/apiserver/strategies/service.hpp"

namespace respool::sandbox::kinds {
namespace {

bool has_tag(const std::string& image) {
  auto slash = image.rfind('/');
  auto colon = image.rfind(':');
  return (colon != std::string::npos && (slash == std::string::npos || colon > slash)) ||
         image.find('@') != std::string::npos;
}

void default_container(Json& c) {
  if (!c.is_object()) return;
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  set_default(c, "resources", Json::object());
  if (!c.contains("imagePullPolicy")) {
    std::string image = c.value("image", std::string());
    bool latest = !has_tag(image) || (image.size() >= 7 && image.ends_with(":latest"));
    c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
  }
  if (c.contains("ports") && c["ports"].is_array()) {
    for (Json& p : c["ports"]) {
      if (p.is_object()) set_default(p, "protocol", "TCP");
    }
  }
}

void default_pod_spec(Json& spec) {
  if (!spec.is_object()) return;
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "securityContext", Json::object());
  set_default(spec, "schedulerName", "default-scheduler");
  set_default(spec, "enableServiceLinks", true);
  set_default(spec, "preemptionPolicy", "PreemptLowerPriority");
  set_default(spec, "priority", 0);
  if (spec.contains("serviceAccountName") && !spec.contains("serviceAccount")) {
    spec["serviceAccount"] = spec["serviceAccountName"];
  }
  // Fields of features a default 1.32 server has off are dropped, as dropDisabledPodFields
  // drops them: pod-level resources (PodLevelResources) and a container's resizePolicy
  // (InPlacePodVerticalScaling), both alpha.
  spec.erase("resources");
  for (const char* list : {"containers", "initContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (Json& c : spec[list]) {
        default_container(c);
        if (c.is_object()) c.erase("resizePolicy");
      }
    }
  }
}

// SetDefaults_Pod: a container's limits default its missing requests (pods only, never
// templates: the template's pods get it when they are written).
void default_requests_from_limits(Json& spec) {
  if (!spec.is_object()) return;
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (Json& c : spec[list]) {
      if (!c.is_object() || !c.contains("resources") || !c["resources"].is_object()) continue;
      Json& res = c["resources"];
      if (!res.contains("limits") || !res["limits"].is_object()) continue;
      Json& requests = res["requests"];
      if (!requests.is_object()) requests = Json::object();
      for (auto it = res["limits"].begin(); it != res["limits"].end(); ++it) {
        if (!requests.contains(it.key())) requests[it.key()] = it.value();
      }
    }
  }
}

void default_template(Json& spec) {
  if (!spec.is_object() || !spec.contains("template") || !spec["template"].is_object()) return;
  Json& tmpl = spec["template"];
  set_default(tmpl, "metadata", Json::object());
  if (tmpl["metadata"].is_object()) set_default(tmpl["metadata"], "creationTimestamp", nullptr);
  if (tmpl.contains("spec")) default_pod_spec(tmpl["spec"]);
}

// BestEffort when no container requests or limits anything; Guaranteed when every container
// limits cpu and memory with requests equal to limits; Burstable otherwise.
std::string qos_class(const Json& spec) {
  bool any = false, guaranteed = true;
  if (!spec.is_object() || !spec.contains("containers") || !spec["containers"].is_array()) {
    return "BestEffort";
  }
  for (const Json& c : spec["containers"]) {
    if (!c.is_object()) continue;
    Json res = c.value("resources", Json::object());
    if (!res.is_object()) continue;
    Json req = res.value("requests", Json::object());
    Json lim = res.value("limits", Json::object());
    if (!req.is_object() || !lim.is_object()) continue;
    if (!req.empty() || !lim.empty()) any = true;
    for (const char* r : {"cpu", "memory"}) {
      if (!lim.contains(r)) {
        guaranteed = false;
      } else if (req.contains(r) && req[r] != lim[r]) {
        guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

// SetDefaults_Deployment, on every write as decoding applies it: replicas, the strategy (a
// RollingUpdate strategy gets 25% / 25%), history and progress deadline.
void default_deployment(Json& obj) {
  Json& spec = obj["spec"];
  if (!spec.is_object()) return;
  set_default(spec, "replicas", 1);
  Json& strategy = spec["strategy"];
  if (!strategy.is_object()) strategy = Json::object();
  if (!strategy.contains("type") || strategy["type"] == "") strategy["type"] = "RollingUpdate";
  if (strategy["type"] == "RollingUpdate") {
    Json& rolling = strategy["rollingUpdate"];
    if (!rolling.is_object()) rolling = Json::object();
    set_default(rolling, "maxUnavailable", "25%");
    set_default(rolling, "maxSurge", "25%");
  }
  set_default(spec, "revisionHistoryLimit", 10);
  set_default(spec, "progressDeadlineSeconds", 600);
  default_template(spec);
}

void prepare_job(Json& obj) {
  Json& spec = obj["spec"];
  if (!spec.is_object()) return;
  std::string uid = obj["metadata"].value("uid", std::string());
  std::string name = obj["metadata"].value("name", std::string());
  if (!spec.contains("completions") && !spec.contains("parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  set_default(spec, "parallelism", 1);
  set_default(spec, "backoffLimit", 6);
  set_default(spec, "completionMode", "NonIndexed");
  set_default(spec, "suspend", false);
  // SetDefaults_Job: Failed with a pod failure policy (the only value it allows).
  const bool failure_policy =
      spec.contains("podFailurePolicy") && !spec["podFailurePolicy"].is_null();
  set_default(spec, "podReplacementPolicy", failure_policy ? "Failed" : "TerminatingOrFailed");
  if (!spec.value("manualSelector", false)) {
    spec["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}};
    Json& tmpl = spec["template"];
    if (tmpl.is_null()) tmpl = Json::object();
    if (tmpl.is_object()) {
      Json& labels = tmpl["metadata"]["labels"];
      if (!labels.is_object()) labels = Json::object();
      labels["batch.kubernetes.io/controller-uid"] = uid;
      labels["controller-uid"] = uid;
      labels["batch.kubernetes.io/job-name"] = name;
      labels["job-name"] = name;
    }
  }
  default_template(spec);
  obj["status"] = Json::object();
}

}  // namespace

void set_default(Json& obj, const char* key, Json value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
}

// A Node's status.daemonEndpoints and status.nodeInfo as the real server shows them empty.
Json empty_daemon_endpoints() {
  return {{"kubeletEndpoint", {{"Port", 0}}}};
}

Json empty_node_info() {
  return {{"machineID", ""},      {"systemUUID", ""},       {"bootID", ""},
          {"kernelVersion", ""},  {"osImage", ""},          {"containerRuntimeVersion", ""},
          {"kubeletVersion", ""}, {"kubeProxyVersion", ""}, {"operatingSystem", ""},
          {"architecture", ""}};
}

void default_pod_template(Json& parent) {
  default_template(parent);
}

void prepare_create(const ResourceType& type, Json& obj, runtime::TimePoint now) {
  apply_defaults(type, obj);
  start_status(type, obj);
  Json& meta = obj["metadata"];
  switch (type.id) {
    case KindId::Namespace: {
      if (!meta.contains("labels") || !meta["labels"].is_object()) meta["labels"] = Json::object();
      meta["labels"]["kubernetes.io/metadata.name"] = meta.value("name", std::string());
      obj["spec"] = {{"finalizers", Json::array({"kubernetes"})}};
      obj["status"] = {{"phase", "Active"}};
      break;
    }
    case KindId::Node: {
      if (!obj.contains("spec") || !obj["spec"].is_object()) obj["spec"] = Json::object();
      if (!obj.contains("status") || !obj["status"].is_object()) obj["status"] = Json::object();
      Json& st = obj["status"];
      set_default(st, "daemonEndpoints", empty_daemon_endpoints());
      set_default(st, "nodeInfo", empty_node_info());
      break;
    }
    case KindId::Pod: {
      if (!obj.contains("spec") || !obj["spec"].is_object()) obj["spec"] = Json::object();
      default_pod_spec(obj["spec"]);
      default_requests_from_limits(obj["spec"]);
      obj["status"] = {{"phase", "Pending"}, {"qosClass", qos_class(obj["spec"])}};
      break;
    }
    case KindId::Service:
      prepare_service_create(obj);
      break;
    case KindId::DaemonSet: {
      Json& spec = obj["spec"];
      if (spec.is_object()) {
        set_default(spec, "updateStrategy",
                    {{"type", "RollingUpdate"},
                     {"rollingUpdate", {{"maxUnavailable", 1}, {"maxSurge", 0}}}});
        set_default(spec, "revisionHistoryLimit", 10);
        default_template(spec);
      }
      obj["status"] = {{"currentNumberScheduled", 0},
                       {"numberMisscheduled", 0},
                       {"desiredNumberScheduled", 0},
                       {"numberReady", 0}};
      break;
    }
    case KindId::Deployment:
      default_deployment(obj);
      obj["status"] = Json::object();
      break;
    case KindId::Job:
      prepare_job(obj);
      break;
    case KindId::PodDisruptionBudget:
      obj["status"] = {{"disruptionsAllowed", 0},
                       {"currentHealthy", 0},
                       {"desiredHealthy", 0},
                       {"expectedPods", 0}};
      break;
    case KindId::Secret:
      set_default(obj, "type", "Opaque");
      break;
    case KindId::Event:
      if (!obj.contains("involvedObject")) obj["involvedObject"] = Json::object();
      set_default(obj, "reportingComponent", "");
      set_default(obj, "reportingInstance", "");
      set_default(obj, "source", Json::object());
      set_default(obj, "firstTimestamp", nullptr);
      set_default(obj, "lastTimestamp", nullptr);
      set_default(obj, "eventTime", nullptr);
      break;
    case KindId::Lease:
      if (!obj.contains("spec")) obj["spec"] = Json::object();
      break;
    default:
      break;
  }
  (void)now;
}

void prepare_update(const ResourceType& type, Json& obj, const Json& old) {
  apply_defaults(type, obj);
  if (type.status_subresource) {
    if (old.contains("status")) {
      obj["status"] = old["status"];
    } else {
      obj.erase("status");
    }
  }
  switch (type.id) {
    case KindId::Namespace:
      if (old.contains("spec")) obj["spec"] = old["spec"];
      if (obj["metadata"].is_object()) {
        if (!obj["metadata"].contains("labels") || !obj["metadata"]["labels"].is_object()) {
          obj["metadata"]["labels"] = Json::object();
        }
        obj["metadata"]["labels"]["kubernetes.io/metadata.name"] =
            old["metadata"].value("name", std::string());
      }
      break;
    case KindId::Pod:
      if (obj.contains("spec") && obj["spec"].is_object()) {
        default_pod_spec(obj["spec"]);
        default_requests_from_limits(obj["spec"]);
      }
      break;
    case KindId::Deployment:
      default_deployment(obj);
      break;
    case KindId::DaemonSet:
      if (obj.contains("spec") && obj["spec"].is_object()) default_template(obj["spec"]);
      break;
    case KindId::Service:
      prepare_service_update(obj, old);
      break;
    default:
      break;
  }
}

void prepare_status_update(const ResourceType& type, Json& obj, const Json& old) {
  if (type.custom()) {
    Json merged = old;
    if (obj.contains("status")) {
      merged["status"] = obj["status"];
    } else {
      merged.erase("status");
    }
    // The request's resourceVersion still decides the optimistic-concurrency check.
    if (obj.contains("metadata") && obj["metadata"].is_object() &&
        obj["metadata"].contains("resourceVersion")) {
      merged["metadata"]["resourceVersion"] = obj["metadata"]["resourceVersion"];
    }
    obj = std::move(merged);
    return;
  }
  for (auto it = old.begin(); it != old.end(); ++it) {
    if (it.key() != "status" && it.key() != "metadata") obj[it.key()] = it.value();
  }
  for (auto it = obj.begin(); it != obj.end();) {
    if (it.key() != "status" && it.key() != "metadata" && !old.contains(it.key())) {
      it = obj.erase(it);
    } else {
      ++it;
    }
  }
  if (type.id == KindId::Pod && obj["metadata"].is_object()) {
    if (old["metadata"].contains("ownerReferences")) {
      obj["metadata"]["ownerReferences"] = old["metadata"]["ownerReferences"];
    } else {
      obj["metadata"].erase("ownerReferences");
    }
  }
}

bool spec_changed(const ResourceType& type, const Json& obj, const Json& old) {
  if (type.custom() || type.id == KindId::Builtin) {
    // Every change outside metadata (and status, when it is a subresource) is a spec change.
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const std::string& k = it.key();
      if (k == "metadata" || (type.status_subresource && k == "status")) continue;
      if (k == "apiVersion" || k == "kind") continue;
      if (!old.contains(k) || old[k] != it.value()) return true;
    }
    for (auto it = old.begin(); it != old.end(); ++it) {
      const std::string& k = it.key();
      if (k == "metadata" || (type.status_subresource && k == "status")) continue;
      if (k == "apiVersion" || k == "kind") continue;
      if (!obj.contains(k)) return true;
    }
    return false;
  }
  Json a = obj.value("spec", Json());
  Json b = old.value("spec", Json());
  return a != b;
}

}  // namespace respool::sandbox::kinds
