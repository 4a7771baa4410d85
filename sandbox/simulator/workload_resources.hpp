#pragma once
// Where the kinds the workload controllers handle live in the REST API, besides those of
// operator/kube/resource.hpp.

#include "operator/kube/resource.hpp"

namespace respool::sandbox::sim::workload {

inline const kube::Resource replicasets{"apps", "v1", "replicasets", "ReplicaSet", true};
inline const kube::Resource replicationcontrollers{"", "v1", "replicationcontrollers",
                                                   "ReplicationController", true};
inline const kube::Resource statefulsets{"apps", "v1", "statefulsets", "StatefulSet", true};
inline const kube::Resource controllerrevisions{"apps", "v1", "controllerrevisions",
                                                "ControllerRevision", true};
inline const kube::Resource cronjobs{"batch", "v1", "cronjobs", "CronJob", true};
inline const kube::Resource endpoints{"", "v1", "endpoints", "Endpoints", true};
inline const kube::Resource endpointslices{"discovery.k8s.io", "v1", "endpointslices",
                                           "EndpointSlice", true};
inline const kube::Resource horizontalpodautoscalers{
    "autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true};
inline const kube::Resource persistentvolumeclaims{"", "v1", "persistentvolumeclaims",
                                                   "PersistentVolumeClaim", true};

}  // namespace respool::sandbox::sim::workload
