// Printers of core/v1 kinds.

#include <set>

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {
namespace {

const char* kNodeAddressDesc =
    "List of addresses reachable to the node. Queried from cloud provider, if available. More "
    "info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is "
    "declared as mergeable, but the merge key is not sufficiently unique, which can cause data "
    "corruption when it is merged. Callers should instead use a full-replacement patch. See "
    "https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change "
    "during the lifetime of a Node. However, there are some exceptions where this may not be "
    "possible, such as Pods that inherit a Node's address in its own status or consumers of the "
    "downward API (status.hostIP).";

std::size_t core_size_of(const Json& v) {
  return v.is_object() || v.is_array() ? v.size() : 0;
}

OJson node_row(const Json& o, runtime::TimePoint now) {
  std::string ready = condition_status(o, "Ready");
  std::string status = ready == "True" ? "Ready" : ready.empty() ? "Unknown" : "NotReady";
  if (at(o, {"spec", "unschedulable"}) == true) status += ",SchedulingDisabled";
  std::set<std::string> roles;
  const Json& labels = at(o, {"metadata", "labels"});
  if (labels.is_object()) {
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      if (it.key().rfind("node-role.kubernetes.io/", 0) == 0 && it.key().size() > 24) {
        roles.insert(it.key().substr(24));
      } else if (it.key() == "kubernetes.io/role" && !text(it.value()).empty()) {
        roles.insert(text(it.value()));
      }
    }
  }
  auto address = [&](const char* type) {
    const Json& list = at(o, {"status", "addresses"});
    if (list.is_array()) {
      for (const Json& a : list) {
        if (a.is_object() && a.value("type", std::string()) == type) return text(a["address"]);
      }
    }
    return std::string("<none>");
  };
  return {name_of(o),
          status,
          roles.empty() ? "<none>" : join({roles.begin(), roles.end()}, ","),
          age(o, now),
          text(at(o, {"status", "nodeInfo", "kubeletVersion"})),
          address("InternalIP"),
          address("ExternalIP"),
          text(at(o, {"status", "nodeInfo", "osImage"}), "<unknown>"),
          text(at(o, {"status", "nodeInfo", "kernelVersion"}), "<unknown>"),
          text(at(o, {"status", "nodeInfo", "containerRuntimeVersion"}), "<unknown>")};
}

OJson pod_row(const Json& o, runtime::TimePoint now) {
  const Json& containers = at(o, {"spec", "containers"});
  long long total = static_cast<long long>(core_size_of(containers));
  long long ready = 0, restarts = 0;
  std::string phase = text(at(o, {"status", "phase"}));
  std::string reason = text(at(o, {"status", "reason"}), phase);
  const Json& statuses = at(o, {"status", "containerStatuses"});
  bool running = false;
  if (statuses.is_array()) {
    for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
      const Json& s = *it;
      if (!s.is_object()) continue;
      restarts += number(s.value("restartCount", Json(0)));
      std::string waiting = text(at(s, {"state", "waiting", "reason"}));
      std::string terminated = text(at(s, {"state", "terminated", "reason"}));
      if (!waiting.empty()) {
        reason = waiting;
      } else if (!terminated.empty()) {
        reason = terminated;
      } else if (at(s, {"state", "terminated"}).is_object()) {
        reason = std::string("ExitCode:") +
                 std::to_string(number(at(s, {"state", "terminated", "exitCode"})));
      } else if (s.value("ready", false) && at(s, {"state", "running"}).is_object()) {
        running = true;
        ++ready;
      }
    }
  }
  if (reason == "Completed" && running) {
    reason = condition_status(o, "Ready") == "True" ? "Running" : "NotReady";
  }
  bool terminal = phase == "Succeeded" || phase == "Failed";
  if (!at(o, {"metadata", "deletionTimestamp"}).is_null()) {
    if (text(at(o, {"status", "reason"})) == "NodeLost") {
      reason = "Unknown";
    } else if (!terminal) {
      reason = "Terminating";
    }
  }
  std::string ip = text(at(o, {"status", "podIP"}), "<none>");
  const Json& ips = at(o, {"status", "podIPs"});
  if (ips.is_array() && !ips.empty()) ip = text(at(ips[0], {"ip"}), "<none>");
  std::string gates = "<none>";
  const Json& rg = at(o, {"spec", "readinessGates"});
  if (rg.is_array() && !rg.empty()) {
    long long ok = 0;
    for (const Json& g : rg) {
      if (condition_status(o, text(at(g, {"conditionType"}))) == "True") ++ok;
    }
    gates = std::to_string(ok) + std::string("/") + std::to_string(rg.size());
  }
  return {name_of(o),
          std::to_string(ready) + std::string("/") + std::to_string(total),
          reason,
          std::to_string(restarts),
          age(o, now),
          ip,
          text(at(o, {"spec", "nodeName"}), "<none>"),
          text(at(o, {"status", "nominatedNodeName"}), "<none>"),
          gates};
}

std::string svc_external_ip(const Json& o) {
  std::string type = text(at(o, {"spec", "type"}));
  std::vector<std::string> external;
  const Json& ext = at(o, {"spec", "externalIPs"});
  if (ext.is_array()) {
    for (const Json& e : ext)
      external.push_back(text(e));
  }
  if (type == "ClusterIP" || type == "NodePort") {
    return external.empty() ? "<none>" : join(external, ",");
  }
  if (type == "LoadBalancer") {
    std::set<std::string> lb;
    const Json& ing = at(o, {"status", "loadBalancer", "ingress"});
    if (ing.is_array()) {
      for (const Json& i : ing) {
        std::string v = text(at(i, {"ip"}), text(at(i, {"hostname"})));
        if (!v.empty()) lb.insert(v);
      }
    }
    std::vector<std::string> all(lb.begin(), lb.end());
    all.insert(all.end(), external.begin(), external.end());
    return all.empty() ? "<pending>" : join(all, ",");
  }
  if (type == "ExternalName") return text(at(o, {"spec", "externalName"}));
  return "<unknown>";
}

OJson service_row(const Json& o, runtime::TimePoint now) {
  std::vector<std::string> ports;
  const Json& list = at(o, {"spec", "ports"});
  if (list.is_array()) {
    for (const Json& p : list) {
      std::string port = int_or_string(at(p, {"port"}), "0");
      long long node_port = number(at(p, {"nodePort"}));
      if (node_port > 0) port += std::string(":") + std::to_string(node_port);
      ports.push_back(port + std::string("/") + text(at(p, {"protocol"})));
    }
  }
  std::string ip = "<none>";
  const Json& ips = at(o, {"spec", "clusterIPs"});
  if (ips.is_array() && !ips.empty()) ip = text(ips[0]);
  return {name_of(o),
          text(at(o, {"spec", "type"})),
          ip,
          svc_external_ip(o),
          ports.empty() ? "<none>" : join(ports, ","),
          age(o, now),
          format_labels(at(o, {"spec", "selector"}))};
}

OJson event_row(const Json& o, runtime::TimePoint now) {
  bool v1 = o.contains("regarding");
  const Json& about = v1 ? o["regarding"] : at(o, {"involvedObject"});
  std::string kind = text(at(about, {"kind"}));
  for (auto& c : kind)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string object = text(at(about, {"name"})).empty()
                           ? kind
                           : kind + std::string("/") + text(at(about, {"name"}));
  Json first = o.value(v1 ? "deprecatedFirstTimestamp" : "firstTimestamp", Json());
  std::string first_seen = since(first.is_string() ? first : o.value("eventTime", Json()), now);
  Json last = o.value(v1 ? "deprecatedLastTimestamp" : "lastTimestamp", Json());
  std::string seen = last.is_string() ? since(last, now) : first_seen;
  const Json& series = at(o, {"series"});
  if (series.is_object()) seen = since(at(series, {"lastObservedTime"}), now);
  std::string message = text(o.value(v1 ? "note" : "message", Json()));
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back())))
    message.pop_back();
  return {seen, text(o.value("type", Json())), text(o.value("reason", Json())), object, message};
}

std::string endpoints_list(const Json& o) {
  const Json& subsets = at(o, {"subsets"});
  if (!subsets.is_array() || subsets.empty()) return "<none>";
  std::vector<std::string> list;
  std::size_t count = 0, max = 3;
  for (const Json& ss : subsets) {
    const Json& addrs = at(ss, {"addresses"});
    const Json& ports = at(ss, {"ports"});
    if (!addrs.is_array()) continue;
    if (!ports.is_array() || ports.empty()) {
      count += addrs.size();
      for (const Json& a : addrs) {
        if (list.size() < max) list.push_back(text(at(a, {"ip"})));
      }
      continue;
    }
    for (const Json& p : ports) {
      count += addrs.size();
      for (const Json& a : addrs) {
        if (list.size() < max) {
          list.push_back(text(at(a, {"ip"})) + std::string(":") +
                         std::to_string(number(at(p, {"port"}))));
        }
      }
    }
  }
  std::string out = join(list, ",");
  if (count > max) out += std::string(" + ") + std::to_string(count - max) + " more...";
  return out;
}

std::string pv_access_modes(const Json& modes) {
  std::vector<std::string> out;
  auto has = [&](const char* m) {
    if (!modes.is_array()) return false;
    for (const Json& x : modes) {
      if (x == m) return true;
    }
    return false;
  };
  if (has("ReadWriteOnce")) out.push_back("RWO");
  if (has("ReadOnlyMany")) out.push_back("ROX");
  if (has("ReadWriteMany")) out.push_back("RWX");
  if (has("ReadWriteOncePod")) out.push_back("RWOP");
  return join(out, ",");
}

std::string pv_storage_class(const Json& o) {
  std::string annotated =
      text(at(o, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"}));
  return annotated.empty() ? text(at(o, {"spec", "storageClassName"})) : annotated;
}

std::string pv_phase(const Json& o) {
  if (!at(o, {"metadata", "deletionTimestamp"}).is_null()) return "Terminating";
  return text(at(o, {"status", "phase"}));
}

OJson pv_row(const Json& o, runtime::TimePoint now) {
  const Json& ref = at(o, {"spec", "claimRef"});
  std::string claim =
      ref.is_object() ? text(at(ref, {"namespace"})) + std::string("/") + text(at(ref, {"name"}))
                      : "";
  return {name_of(o),
          int_or_string(at(o, {"spec", "capacity", "storage"}), "0"),
          pv_access_modes(at(o, {"spec", "accessModes"})),
          text(at(o, {"spec", "persistentVolumeReclaimPolicy"})),
          pv_phase(o),
          claim,
          pv_storage_class(o),
          text(at(o, {"spec", "volumeAttributesClassName"}), "<unset>"),
          text(at(o, {"status", "reason"})),
          age(o, now),
          text(at(o, {"spec", "volumeMode"}), "<unset>")};
}

OJson pvc_row(const Json& o, runtime::TimePoint now) {
  std::string volume = text(at(o, {"spec", "volumeName"}));
  std::string capacity, modes;
  if (!volume.empty()) {
    modes = pv_access_modes(at(o, {"status", "accessModes"}));
    capacity = int_or_string(at(o, {"status", "capacity", "storage"}), "0");
  }
  return {name_of(o),
          pv_phase(o),
          volume,
          capacity,
          modes,
          pv_storage_class(o),
          text(at(o, {"spec", "volumeAttributesClassName"}), "<unset>"),
          age(o, now),
          text(at(o, {"spec", "volumeMode"}), "<unset>")};
}

OJson quota_row(const Json& o, runtime::TimePoint now) {
  const Json& hard = at(o, {"status", "hard"});
  const Json& used = at(o, {"status", "used"});
  std::vector<std::string> requests, limits;
  if (hard.is_object()) {
    for (auto it = hard.begin(); it != hard.end(); ++it) {
      std::string cell = it.key() + ": " + int_or_string(at(used, {it.key().c_str()}), "0") + "/" +
                         int_or_string(it.value(), "0");
      (it.key().rfind("limits.", 0) == 0 ? limits : requests).push_back(cell);
    }
  }
  return {name_of(o), join(requests, ", "), join(limits, ", "), age(o, now)};
}

}  // namespace

const PrinterDef component_status{{{"Status", "string", "Status of the component conditions"},
                                   {"Message", "string", "Message of the component conditions"},
                                   {"Error", "string", "Error of the component conditions"}},
                                  [](const Json& o, runtime::TimePoint) -> OJson {
                                    std::string status = "Unknown", message, error;
                                    const Json& conds = at(o, {"conditions"});
                                    if (conds.is_array()) {
                                      for (const Json& c : conds) {
                                        if (text(at(c, {"type"})) != "Healthy") continue;
                                        status = text(at(c, {"status"})) == "True" ? "Healthy"
                                                                                   : "Unhealthy";
                                        message = text(at(c, {"message"}));
                                        error = text(at(c, {"error"}));
                                        break;
                                      }
                                    }
                                    return {name_of(o), status, message, error};
                                  }};

const PrinterDef config_map{
    {{"Data", "string",
      "Data contains the configuration data. Each key must consist of alphanumeric characters, "
      "'-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The "
      "keys stored in Data must not overlap with the keys in the BinaryData field, this is "
      "enforced during validation process."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), core_size_of(at(o, {"data"})) + core_size_of(at(o, {"binaryData"})),
              age(o, now)};
    }};

const PrinterDef endpoints{
    {{"Endpoints", "string",
      "The set of all endpoints is the union of all subsets. Addresses are placed into subsets "
      "according to the IPs they share. A single address with multiple ports, some of which are "
      "ready and some of which are not (because they come from different containers) will "
      "result in the address being displayed in different subsets for the different ports. No "
      "address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of "
      "addresses and ports that comprise a service."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), endpoints_list(o), age(o, now)};
    }};

const PrinterDef event{
    {{"Last Seen", "string", "Time when this Event was last seen"},
     {"Type", "string",
      "Type of this event (Normal, Warning), new types could be added in the future."},
     {"Reason", "string",
      "This should be a short, machine understandable string that gives the reason for this "
      "event being generated."},
     {"Object", "string", "The object that this event is about."},
     {"Message", "string", "A human-readable description of the status of this operation."}},
    event_row};

const PrinterDef namespace_{
    {{"Status", "string", "The status of the namespace"}, {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), text(at(o, {"status", "phase"})), age(o, now)};
    }};

const PrinterDef node{
    {{"Status", "string", "The status of the node"},
     {"Roles", "string", "The roles of the node"},
     {"Age", "string", kAgeDesc},
     {"Version", "string", "Kubelet Version reported by the node."},
     {"Internal-IP", "string", kNodeAddressDesc, 1},
     {"External-IP", "string", kNodeAddressDesc, 1},
     {"OS-Image", "string",
      "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
     {"Kernel-Version", "string",
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
     {"Container-Runtime", "string",
      "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
      "containerd://1.4.2).",
      1}},
    node_row};

const PrinterDef persistent_volume_claim{
    {{"Status", "string", "phase represents the current phase of PersistentVolumeClaim."},
     {"Volume", "string",
      "volumeName is the binding reference to the PersistentVolume backing this claim."},
     {"Capacity", "string", "capacity represents the actual resources of the underlying volume."},
     {"Access Modes", "string",
      "accessModes contains the actual access modes the volume backing the PVC has."},
     {"StorageClass", "string", "StorageClass of the pvc"},
     {"VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"},
     {"Age", "string", kAgeDesc},
     {"VolumeMode", "string",
      "volumeMode defines what type of volume is required by the claim. Value of Filesystem is "
      "implied when not included in claim spec.",
      1}},
    pvc_row};

const PrinterDef persistent_volume{
    {{"Capacity", "string",
      "capacity is the description of the persistent volume's resources "
      "and capacity."},
     {"Access Modes", "string", "accessModes contains all ways the volume can be mounted."},
     {"Reclaim Policy", "string",
      "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released "
      "from its claim."},
     {"Status", "string",
      "phase indicates if a volume is available, bound to a claim, or "
      "released by a claim."},
     {"Claim", "string",
      "claimRef is part of a bi-directional binding between PersistentVolume "
      "and PersistentVolumeClaim."},
     {"StorageClass", "string", "StorageClass of the pv"},
     {"VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"},
     {"Reason", "string",
      "reason is a brief CamelCase string that describes any failure and is "
      "meant for machine parsing and tidy display in the CLI."},
     {"Age", "string", kAgeDesc},
     {"VolumeMode", "string",
      "volumeMode defines if a volume is intended to be used with a "
      "formatted filesystem or to remain in raw block state.",
      1}},
    pv_row};

const PrinterDef pod{
    {{"Ready", "string", "The aggregate readiness state of this pod for accepting traffic."},
     {"Status", "string", "The aggregate status of the containers in this pod."},
     {"Restarts", "string",
      "The number of times the containers in this pod have been restarted and when the last "
      "container in this pod has restarted."},
     {"Age", "string", kAgeDesc},
     {"IP", "string", "The IP address of the pod", 1},
     {"Node", "string", "The name of the node where the pod is scheduled", 1},
     {"Nominated Node", "string", "The name of the node where the pod is nominated", 1},
     {"Readiness Gates", "string", "The readiness gates of the pod", 1}},
    pod_row};

const PrinterDef pod_template{{{"Containers", "string", kContainersDesc},
                               {"Images", "string", kImagesDesc},
                               {"Pod Labels", "string", "The labels for the pod template."}},
                              [](const Json& o, runtime::TimePoint) -> OJson {
                                const Json& spec = at(o, {"template", "spec"});
                                return {name_of(o), container_names(spec), container_images(spec),
                                        format_labels(at(o, {"template", "metadata", "labels"}))};
                              }};

const PrinterDef replication_controller{
    {{"Desired", "integer", "Replicas is the number of desired replicas."},
     {"Current", "integer", "Replicas is the most recently observed number of replicas."},
     {"Ready", "integer", "The number of ready replicas for this replication controller."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string",
      "Selector is a label query over pods that should match the Replicas "
      "count.",
      1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& spec = at(o, {"spec", "template", "spec"});
      return {name_of(o),
              number(at(o, {"spec", "replicas"})),
              number(at(o, {"status", "replicas"})),
              number(at(o, {"status", "readyReplicas"})),
              age(o, now),
              container_names(spec),
              container_images(spec),
              format_labels(at(o, {"spec", "selector"}))};
    }};

const PrinterDef resource_quota{
    {{"Request", "string",
      "Request represents a minimum amount of cpu/memory that a container may consume."},
     {"Limit", "string",
      "Limits control the maximum amount of cpu/memory that a container may use independent of "
      "contention on the node."},
     {"Age", "string", kAgeDesc}},
    quota_row};

const PrinterDef secret{
    {{"Type", "string", "Used to facilitate programmatic handling of secret data."},
     {"Data", "string", "Data contains the secret data."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), text(at(o, {"type"})), core_size_of(at(o, {"data"})), age(o, now)};
    }};

const PrinterDef service_account{
    {{"Secrets", "string",
      "Secrets is a list of the secrets in the same namespace that pods running using this "
      "ServiceAccount are allowed to use."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), core_size_of(at(o, {"secrets"})), age(o, now)};
    }};

const PrinterDef service{{{"Type", "string", "The type of the service"},
                          {"Cluster-IP", "string", "The cluster IP of the service"},
                          {"External-IP", "string", "The external IP of the service"},
                          {"Port(s)", "string", "The ports of the service"},
                          {"Age", "string", kAgeDesc},
                          {"Selector", "string", "The selector of the service", 1}},
                         service_row};

}  // namespace respool::sandbox::printers
