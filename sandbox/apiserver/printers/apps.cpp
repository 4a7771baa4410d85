// Printers of apps/v1 kinds.

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {

const PrinterDef controller_revision{
    {{"Controller", "string", "Controller of the object"},
     {"Revision", "string", "Revision indicates the revision of the state represented by Data."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string controller = "<none>";
      const Json& refs = at(o, {"metadata", "ownerReferences"});
      if (refs.is_array()) {
        for (const Json& r : refs) {
          if (at(r, {"controller"}) != true) continue;
          std::string api = text(at(r, {"apiVersion"}));
          auto slash = api.find('/');
          std::string group = slash == std::string::npos ? "" : api.substr(0, slash);
          std::string kind = text(at(r, {"kind"}));
          std::string gk = group.empty() ? kind : kind + "." + group;
          for (auto& c : gk)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          controller = gk + std::string("/") + text(at(r, {"name"}));
          break;
        }
      }
      return {name_of(o), controller, number(at(o, {"revision"})), age(o, now)};
    }};

const PrinterDef daemon_set{
    {{"Desired", "integer",
      "The total number of nodes that should be running the daemon pod (including nodes "
      "correctly running the daemon pod)."},
     {"Current", "integer",
      "The number of nodes that are running at least 1 daemon pod and are supposed to run the "
      "daemon pod."},
     {"Ready", "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the "
      "daemon pod running with a Ready Condition."},
     {"Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"},
     {"Available", "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the "
      "daemon pod running and available (ready for at least spec.minReadySeconds)"},
     {"Node Selector", "string",
      "NodeSelector is a selector which must be true for the pod to fit on a node."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string", "A label query over pods that are managed by the daemon set.", 1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o),
              number(at(o, {"status", "desiredNumberScheduled"})),
              number(at(o, {"status", "currentNumberScheduled"})),
              number(at(o, {"status", "numberReady"})),
              number(at(o, {"status", "updatedNumberScheduled"})),
              number(at(o, {"status", "numberAvailable"})),
              format_labels(at(template_pod_spec(o), {"nodeSelector"})),
              age(o, now),
              container_names(template_pod_spec(o)),
              container_images(template_pod_spec(o)),
              format_selector(at(o, {"spec", "selector"}))};
    }};

const PrinterDef deployment{
    {{"Ready", "string", "Number of the pod with ready state"},
     {"Up-to-date", "string",
      "Total number of non-terminated pods targeted by this deployment that have the desired "
      "template spec."},
     {"Available", "string",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this "
      "deployment."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string",
      "Label selector for pods. Existing ReplicaSets whose pods are "
      "selected by this will be the ones affected by this deployment.",
      1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o),
              std::to_string(number(at(o, {"status", "readyReplicas"}))) + "/" +
                  std::to_string(number(at(o, {"spec", "replicas"}))),
              number(at(o, {"status", "updatedReplicas"})),
              number(at(o, {"status", "availableReplicas"})),
              age(o, now),
              container_names(template_pod_spec(o)),
              container_images(template_pod_spec(o)),
              format_selector(at(o, {"spec", "selector"}))};
    }};

const PrinterDef replica_set{
    {{"Desired", "integer",
      "Replicas is the number of desired replicas. This is a pointer to distinguish between "
      "explicit zero and unspecified. Defaults to 1. More info: "
      "https://kubernetes.io/docs/concepts/workloads/controllers/"
      "replicationcontroller/#what-is-a-replicationcontroller"},
     {"Current", "integer",
      "Replicas is the most recently observed number of replicas. More "
      "info: https://kubernetes.io/docs/concepts/workloads/controllers/"
      "replicationcontroller/#what-is-a-replicationcontroller"},
     {"Ready", "integer", "The number of ready replicas for this replica set."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string",
      "Selector is a label query over pods that should match the replica count. If the selector "
      "is empty, it is defaulted to the labels present on the pod template. Label keys and "
      "values that must match in order to be controlled by this replica set. More info: "
      "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o),
              number(at(o, {"spec", "replicas"})),
              number(at(o, {"status", "replicas"})),
              number(at(o, {"status", "readyReplicas"})),
              age(o, now),
              container_names(template_pod_spec(o)),
              container_images(template_pod_spec(o)),
              format_selector(at(o, {"spec", "selector"}))};
    }};

const PrinterDef stateful_set{{{"Ready", "string", "Number of the pod with ready state"},
                               {"Age", "string", kAgeDesc},
                               {"Containers", "string", kContainersDesc, 1},
                               {"Images", "string", kImagesDesc, 1}},
                              [](const Json& o, runtime::TimePoint now) -> OJson {
                                return {name_of(o),
                                        std::to_string(number(at(o, {"status", "readyReplicas"}))) +
                                            "/" +
                                            std::to_string(number(at(o, {"spec", "replicas"}))),
                                        age(o, now), container_names(template_pod_spec(o)),
                                        container_images(template_pod_spec(o))};
                              }};

}  // namespace respool::sandbox::printers
