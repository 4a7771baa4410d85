#include "sandbox/apiserver/tables.hpp"

#include <functional>

#include "operator/kube/time.hpp"
#include "sandbox/apiserver/jsonpath.hpp"
#include "sandbox/apiserver/store.hpp"

namespace respool::sandbox {
namespace {

const char* kNameDesc =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const char* kAgeDesc =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";
const char* kAddrDesc =
    "List of addresses reachable to the node. Queried from cloud provider, if available. More "
    "info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is "
    "declared as mergeable, but the merge key is not sufficiently unique, which can cause data "
    "corruption when it is merged. Callers should instead use a full-replacement patch. See "
    "https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change "
    "during the lifetime of a Node. However, there are some exceptions where this may not be "
    "possible, such as Pods that inherit a Node's address in its own status or consumers of the "
    "downward API (status.hostIP).";

struct Column {
  std::string name, type, format, description;
  int priority;
};

using Cells = std::function<OJson(const Json&, runtime::TimePoint)>;

const Json& at(const Json& obj, std::initializer_list<const char*> path) {
  static const Json null;
  const Json* v = &obj;
  for (const char* k : path) {
    if (!v->is_object()) return null;
    auto it = v->find(k);
    if (it == v->end()) return null;
    v = &*it;
  }
  return *v;
}

std::string text(const Json& v, const std::string& fallback = "") {
  return v.is_string() && !v.get<std::string>().empty() ? v.get<std::string>() : fallback;
}

std::string age(const Json& obj, runtime::TimePoint now) {
  const Json& ts = at(obj, {"metadata", "creationTimestamp"});
  auto t = ts.is_string() ? kube::parse_time(ts.get<std::string>()) : std::nullopt;
  if (!t) return "<unknown>";
  return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string condition_status(const Json& obj, const std::string& type) {
  const Json& conds = at(obj, {"status", "conditions"});
  if (!conds.is_array()) return "";
  for (const Json& c : conds) {
    if (c.is_object() && c.value("type", std::string()) == type) {
      return c.value("status", std::string());
    }
  }
  return "";
}

long number(const Json& v) {
  return v.is_number_integer() ? v.get<long>() : 0;
}

std::string int_or_string(const Json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return text(v, "N/A");
}

OJson node_cells(const Json& o, runtime::TimePoint now) {
  std::string ready = condition_status(o, "Ready");
  std::string status = ready == "True" ? "Ready" : ready == "False" ? "NotReady" : "Unknown";
  if (at(o, {"spec", "unschedulable"}) == true) status += ",SchedulingDisabled";
  std::string roles;
  const Json& labels = at(o, {"metadata", "labels"});
  if (labels.is_object()) {
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      std::string role;
      if (it.key().rfind("node-role.kubernetes.io/", 0) == 0) {
        role = it.key().substr(24);
      } else if (it.key() == "kubernetes.io/role" && it.value().is_string()) {
        role = it.value().get<std::string>();
      }
      if (!role.empty()) roles += (roles.empty() ? "" : ",") + role;
    }
  }
  auto address = [&](const char* type) {
    const Json& list = at(o, {"status", "addresses"});
    if (list.is_array()) {
      for (const Json& a : list) {
        if (a.is_object() && a.value("type", std::string()) == type)
          return text(a["address"], "<none>");
      }
    }
    return std::string("<none>");
  };
  return {at(o, {"metadata", "name"}),
          status,
          roles.empty() ? "<none>" : roles,
          age(o, now),
          text(at(o, {"status", "nodeInfo", "kubeletVersion"})),
          address("InternalIP"),
          address("ExternalIP"),
          text(at(o, {"status", "nodeInfo", "osImage"}), "<unknown>"),
          text(at(o, {"status", "nodeInfo", "kernelVersion"}), "<unknown>"),
          text(at(o, {"status", "nodeInfo", "containerRuntimeVersion"}), "<unknown>")};
}

OJson pod_cells(const Json& o, runtime::TimePoint now) {
  const Json& containers = at(o, {"spec", "containers"});
  long total = containers.is_array() ? static_cast<long>(containers.size()) : 0;
  long ready = 0, restarts = 0;
  std::string reason =
      text(at(o, {"status", "reason"}), text(at(o, {"status", "phase"}), "Unknown"));
  const Json& statuses = at(o, {"status", "containerStatuses"});
  if (statuses.is_array()) {
    for (const Json& s : statuses) {
      if (!s.is_object()) continue;
      if (s.value("ready", false)) ++ready;
      restarts += number(s.value("restartCount", Json(0)));
      std::string waiting = text(at(s, {"state", "waiting", "reason"}));
      std::string terminated = text(at(s, {"state", "terminated", "reason"}));
      if (!waiting.empty())
        reason = waiting;
      else if (!terminated.empty())
        reason = terminated;
    }
  }
  if (!at(o, {"metadata", "deletionTimestamp"}).is_null()) reason = "Terminating";
  return {at(o, {"metadata", "name"}),
          std::to_string(ready) + "/" + std::to_string(total),
          reason,
          std::to_string(restarts),
          age(o, now),
          text(at(o, {"status", "podIP"}), "<none>"),
          text(at(o, {"spec", "nodeName"}), "<none>"),
          text(at(o, {"status", "nominatedNodeName"}), "<none>"),
          "<none>"};
}

struct Printer {
  std::vector<Column> columns;  // after Name
  Cells cells;
};

Printer printer_for(const ResourceType& type) {
  auto name = [](const Json& o) { return at(o, {"metadata", "name"}); };
  const Column age_col{"Age", "string", "", kAgeDesc, 0};
  switch (type.id) {
    case KindId::Node:
      return {{{"Status", "string", "", "The status of the node", 0},
               {"Roles", "string", "", "The roles of the node", 0},
               age_col,
               {"Version", "string", "", "Kubelet Version reported by the node.", 0},
               {"Internal-IP", "string", "", kAddrDesc, 1},
               {"External-IP", "string", "", kAddrDesc, 1},
               {"OS-Image", "string", "",
                "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
                "(wheezy)).",
                1},
               {"Kernel-Version", "string", "",
                "Kernel Version reported by the node from 'uname -r' (e.g. "
                "3.16.0-0.bpo.4-amd64).",
                1},
               {"Container-Runtime", "string", "",
                "ContainerRuntime Version reported by the node through runtime remote API "
                "(e.g. containerd://1.4.2).",
                1}},
              node_cells};
    case KindId::Pod:
      return {
          {{"Ready", "string", "",
            "The aggregate readiness state of this pod for accepting traffic.", 0},
           {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
           {"Restarts", "string", "",
            "The number of times the containers in this pod have been restarted and when the last "
            "container in this pod has restarted.",
            0},
           age_col,
           {"IP", "string", "", "The IP address of the pod", 1},
           {"Node", "string", "", "The name of the node where the pod is scheduled", 1},
           {"Nominated Node", "string", "", "The name of the node where the pod is nominated", 1},
           {"Readiness Gates", "string", "", "The readiness gates of the pod", 1}},
          pod_cells};
    case KindId::ConfigMap:
      return {{{"Data", "string", "",
                "Data contains the configuration data. Each key must consist of alphanumeric "
                "characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
                "BinaryData field. The keys stored in Data must not overlap with the keys in the "
                "BinaryData field, this is enforced during validation process.",
                0},
               age_col},
              [=](const Json& o, runtime::TimePoint now) {
                std::size_t n = 0;
                for (const char* f : {"data", "binaryData"}) {
                  if (o.contains(f) && o[f].is_object()) n += o[f].size();
                }
                return OJson{name(o), n, age(o, now)};
              }};
    case KindId::Secret:
      return {
          {{"Type", "string", "", "Used to facilitate programmatic handling of secret data.", 0},
           {"Data", "string", "", "Data contains the secret data.", 0},
           age_col},
          [=](const Json& o, runtime::TimePoint now) {
            std::size_t n = o.contains("data") && o["data"].is_object() ? o["data"].size() : 0;
            return OJson{name(o), text(o.value("type", Json())), n, age(o, now)};
          }};
    case KindId::Namespace:
      return {{{"Status", "string", "", "The status of the namespace", 0}, age_col},
              [=](const Json& o, runtime::TimePoint now) {
                return OJson{name(o), text(at(o, {"status", "phase"})), age(o, now)};
              }};
    case KindId::ServiceAccount:
      return {{{"Secrets", "string", "",
                "Secrets is a list of the secrets in the same namespace that pods running using "
                "this ServiceAccount are allowed to use.",
                0},
               age_col},
              [=](const Json& o, runtime::TimePoint now) {
                std::size_t n =
                    o.contains("secrets") && o["secrets"].is_array() ? o["secrets"].size() : 0;
                return OJson{name(o), n, age(o, now)};
              }};
    case KindId::Service:
      return {{{"Type", "string", "", "The type of the service", 0},
               {"Cluster-IP", "string", "", "The cluster IP of the service", 0},
               {"External-IP", "string", "", "The external IP of the service", 0},
               {"Port(s)", "string", "", "The ports of the service", 0},
               age_col,
               {"Selector", "string", "", "The selector of the service", 1}},
              [=](const Json& o, runtime::TimePoint now) {
                std::string ports;
                const Json& list = at(o, {"spec", "ports"});
                if (list.is_array()) {
                  for (const Json& p : list) {
                    if (!p.is_object()) continue;
                    if (!ports.empty()) ports += ",";
                    ports += int_or_string(p.value("port", Json())) + "/" +
                             p.value("protocol", std::string("TCP"));
                  }
                }
                std::string selector;
                const Json& sel = at(o, {"spec", "selector"});
                if (sel.is_object()) {
                  for (auto it = sel.begin(); it != sel.end(); ++it) {
                    selector += (selector.empty() ? "" : ",") + it.key() + "=" + text(it.value());
                  }
                }
                return OJson{name(o),
                             text(at(o, {"spec", "type"})),
                             text(at(o, {"spec", "clusterIP"}), "<none>"),
                             "<none>",
                             ports.empty() ? "<none>" : ports,
                             age(o, now),
                             selector.empty() ? "<none>" : selector};
              }};
    case KindId::Deployment:
      return {{{"Ready", "string", "", "Number of the pod with ready state", 0},
               {"Up-to-date", "string", "",
                "Total number of non-terminated pods targeted by this deployment that have the "
                "desired template spec.",
                0},
               {"Available", "string", "",
                "Total number of available pods (ready for at least minReadySeconds) targeted by "
                "this deployment.",
                0},
               age_col},
              [=](const Json& o, runtime::TimePoint now) {
                return OJson{name(o),
                             std::to_string(number(at(o, {"status", "readyReplicas"}))) + "/" +
                                 std::to_string(number(at(o, {"spec", "replicas"}))),
                             number(at(o, {"status", "updatedReplicas"})),
                             number(at(o, {"status", "availableReplicas"})), age(o, now)};
              }};
    case KindId::DaemonSet:
      return {{{"Desired", "integer", "",
                "The total number of nodes that should be running the daemon pod (including nodes "
                "correctly running the daemon pod).",
                0},
               {"Current", "integer", "",
                "The number of nodes that are running at least 1 daemon pod and are supposed to "
                "run the daemon pod.",
                0},
               {"Ready", "integer", "",
                "The number of nodes that should be running the daemon pod and have one or more of "
                "the daemon pod running with a Ready Condition.",
                0},
               {"Up-to-date", "integer", "",
                "The total number of nodes that are running updated daemon pod", 0},
               {"Available", "integer", "",
                "The number of nodes that should be running the daemon pod and have one or more of "
                "the daemon pod running and available (ready for at least spec.minReadySeconds)",
                0},
               {"Node Selector", "string", "",
                "NodeSelector is a selector which must be true for the pod to fit on a node.", 0},
               age_col},
              [=](const Json& o, runtime::TimePoint now) {
                std::string selector;
                const Json& sel = at(o, {"spec", "template", "spec", "nodeSelector"});
                if (sel.is_object()) {
                  for (auto it = sel.begin(); it != sel.end(); ++it) {
                    selector += (selector.empty() ? "" : ",") + it.key() + "=" + text(it.value());
                  }
                }
                return OJson{name(o),
                             number(at(o, {"status", "desiredNumberScheduled"})),
                             number(at(o, {"status", "currentNumberScheduled"})),
                             number(at(o, {"status", "numberReady"})),
                             number(at(o, {"status", "updatedNumberScheduled"})),
                             number(at(o, {"status", "numberAvailable"})),
                             selector.empty() ? "<none>" : selector,
                             age(o, now)};
              }};
    case KindId::Job:
      return {{{"Status", "string", "", "Status of the job.", 0},
               {"Completions", "string", "",
                "The desired number of successfully finished pods the job should be run with.", 0},
               {"Duration", "string", "", "Time required to complete the job.", 0},
               age_col},
              [=](const Json& o, runtime::TimePoint now) {
                std::string status = condition_status(o, "Complete") == "True" ? "Complete"
                                     : condition_status(o, "Failed") == "True" ? "Failed"
                                                                               : "Running";
                return OJson{name(o), status,
                             std::to_string(number(at(o, {"status", "succeeded"}))) + "/" +
                                 std::to_string(number(at(o, {"spec", "completions"}))),
                             "", age(o, now)};
              }};
    case KindId::Lease:
      return {{{"Holder", "string", "",
                "HolderIdentity contains the identity of the holder of a current lease.", 0},
               age_col},
              [=](const Json& o, runtime::TimePoint now) {
                return OJson{name(o), text(at(o, {"spec", "holderIdentity"})), age(o, now)};
              }};
    case KindId::PodDisruptionBudget:
      return {
          {{"Min Available", "string", "", "The minimum number of pods that must be available.", 0},
           {"Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.",
            0},
           {"Allowed Disruptions", "integer", "",
            "Calculated number of pods that may be disrupted at this time.", 0},
           age_col},
          [=](const Json& o, runtime::TimePoint now) {
            return OJson{name(o), int_or_string(at(o, {"spec", "minAvailable"})),
                         int_or_string(at(o, {"spec", "maxUnavailable"})),
                         number(at(o, {"status", "disruptionsAllowed"})), age(o, now)};
          }};
    case KindId::Event:
    case KindId::EventV1:
      return {{{"Last Seen", "string", "", "Time when this Event was last seen", 0},
               {"Type", "string", "",
                "Type of this event (Normal, Warning), new types could be added in the future.", 0},
               {"Reason", "string", "",
                "This should be a short, machine understandable string that gives the reason for "
                "this event being generated.",
                0},
               {"Object", "string", "", "The object that this event is about.", 0},
               {"Message", "string", "",
                "A human-readable description of the status of this operation.", 0}},
              [=](const Json& o, runtime::TimePoint now) {
                bool v1 = o.contains("regarding");
                const Json& about = v1 ? o["regarding"] : at(o, {"involvedObject"});
                std::string object = text(at(about, {"kind"})) + "/" + text(at(about, {"name"}));
                for (auto& c : object)
                  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                Json last = o.value(v1 ? "deprecatedLastTimestamp" : "lastTimestamp", Json());
                if (last.is_null()) last = o.value("eventTime", Json());
                auto t =
                    last.is_string() ? kube::parse_time(last.get<std::string>()) : std::nullopt;
                std::string seen =
                    t ? human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t))
                      : "<unknown>";
                return OJson{seen, text(o.value("type", Json())), text(o.value("reason", Json())),
                             object, text(o.value(v1 ? "note" : "message", Json()))};
              }};
    default:
      break;
  }
  // The default table convertor: Name and Created At.
  return {{{"Created At", "date", "", kAgeDesc, 0}}, [=](const Json& o, runtime::TimePoint) {
            return OJson{name(o), at(o, {"metadata", "creationTimestamp"})};
          }};
}

Printer custom_printer(const ResourceType& type) {
  Printer p;
  for (const PrinterColumn& c : type.printer_columns) {
    p.columns.push_back({c.name, c.type, c.format, c.description, c.priority});
  }
  std::vector<PrinterColumn> cols = type.printer_columns;
  p.cells = [cols](const Json& o, runtime::TimePoint now) {
    OJson cells = OJson::array({at(o, {"metadata", "name"})});
    for (const PrinterColumn& c : cols) {
      const Json* v = json_path_first(o, c.json_path);
      if (!v || v->is_null()) {
        cells.push_back(nullptr);
      } else if (c.type == "date" && v->is_string()) {
        auto t = kube::parse_time(v->get<std::string>());
        cells.push_back(
            t ? human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t))
              : "<unknown>");
      } else if (v->is_object() || v->is_array()) {
        cells.push_back(v->dump());
      } else {
        cells.push_back(OJson::parse(v->dump()));
      }
    }
    return cells;
  };
  return p;
}

}  // namespace

std::string human_duration(std::chrono::seconds d) {
  long long seconds = d.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  long long minutes = seconds / 60;
  if (minutes < 10) {
    long long s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m"
                  : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 180) return std::to_string(minutes) + "m";
  long long hours = seconds / 3600;
  if (hours < 8) {
    long long m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h"
                  : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    long long h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d"
                  : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    long long dy = (hours / 24) % 365;
    return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                   : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

OJson partial_metadata(const Json& obj, const std::string& version) {
  OJson out;
  out["kind"] = "PartialObjectMetadata";
  out["apiVersion"] = "meta.k8s.io/" + version;
  out["metadata"] = OJson::parse(to_text(obj.value("metadata", Json::object())));
  return out;
}

OJson make_table(const ResourceType& type, const std::vector<const Json*>& objects,
                 const OJson& list_meta, const TableRequest& request, runtime::TimePoint now) {
  Printer printer = type.custom() ? custom_printer(type) : printer_for(type);
  OJson table;
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/" + request.version;
  table["metadata"] = list_meta;
  if (request.columns) {
    OJson cols = OJson::array();
    cols.push_back({{"name", "Name"},
                    {"type", "string"},
                    {"format", "name"},
                    {"description", kNameDesc},
                    {"priority", 0}});
    for (const Column& c : printer.columns) {
      cols.push_back({{"name", c.name},
                      {"type", c.type},
                      {"format", c.format},
                      {"description", c.description},
                      {"priority", c.priority}});
    }
    table["columnDefinitions"] = std::move(cols);
  } else {
    table["columnDefinitions"] = nullptr;
  }
  OJson rows = OJson::array();
  for (const Json* o : objects) {
    OJson row;
    row["cells"] = printer.cells(*o, now);
    if (request.include == IncludeObject::Metadata) {
      row["object"] = partial_metadata(*o, request.version);
    } else if (request.include == IncludeObject::Object) {
      row["object"] = OJson::parse(to_text(*o));
    }
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace respool::sandbox
