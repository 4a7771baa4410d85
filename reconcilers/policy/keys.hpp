#pragma once
// The label, taint, annotation and finalizer keys respool writes or reads (API.md, "What
// respool puts on Nodes"). The flavor and zone labels are the catalog's, never ours.

#include <string_view>

namespace respool::policy {

inline constexpr std::string_view kApiVersion = "respool.io/v1alpha1";

// Label and taint (value = pool name, effect NoSchedule) of the pool that owns a node.
inline constexpr std::string_view kPoolLabel = "respool.io/pool";
inline constexpr std::string_view kPoolTaintKey = "respool.io/pool";
// "respool.io/job-type.training" = "true" for each job type of the pool.
inline constexpr std::string_view kJobTypeLabelPrefix = "respool.io/job-type.";
// GiB of container engine space the node was claimed with (P5).
inline constexpr std::string_view kContainerEngineSpaceAnnotation =
    "respool.io/container-engine-space";
// Isolation taints: isolation.respool.io/<code>:NoSchedule (F1, F3, D4).
inline constexpr std::string_view kIsolationTaintPrefix = "isolation.respool.io/";
inline constexpr std::string_view kDriverVersionLabel = "respool.io/driver-version";
inline constexpr std::string_view kDriverUpgradeStateLabel = "respool.io/driver-upgrade-state";
inline constexpr std::string_view kDriverUpgradeSkipLabel = "respool.io/driver-upgrade.skip";
// Additions to API.md for driver upgrades (D1–D4), on the nodes they touch:
//   respool.io/driver-upgrade-since     annotation: when the node entered its upgrade state
//   respool.io/driver-upgrade-attempts  annotation: driver restarts retried after a failure
//   respool.io/driver-upgrade-failure   annotation: "<reason>: <message>" of upgrade-failed
//   respool.io/cordoned-by              annotation "driver-upgrade" when the upgrade cordoned it
// and on the driver DaemonSets and their pods: respool.io/driver = GPU | NPU.
inline constexpr std::string_view kDriverUpgradeSinceAnnotation = "respool.io/driver-upgrade-since";
inline constexpr std::string_view kDriverUpgradeAttemptsAnnotation =
    "respool.io/driver-upgrade-attempts";
inline constexpr std::string_view kDriverUpgradeFailureAnnotation =
    "respool.io/driver-upgrade-failure";
inline constexpr std::string_view kCordonedByDriverUpgrade = "driver-upgrade";
inline constexpr std::string_view kDriverLabel = "respool.io/driver";
// A replaced node (label and taint): never free again.
inline constexpr std::string_view kRetiredKey = "respool.io/retired";
// Addition to API.md: a NoSchedule taint on a pool node that is being drained and released
// (scale-in, deletion), so that the choice survives a restart and no new job lands there.
inline constexpr std::string_view kReleasingTaintKey = "respool.io/releasing";
// Additions to API.md for node operations (NodeOperation, N1–N8), on the nodes they touch:
//   respool.io/node-operation        annotation: the NodeOperation the node is in
//   respool.io/node-operation-type   annotation: Replace | Reset | Delete
//   respool.io/cordoned-by           annotation: the NodeOperation that cordoned the node, so
//                                    that only what respool cordoned is uncordoned
//   respool.io/resetting             taint (NoSchedule): the node is being reset (N5–N7)
//   respool.io/replacement-for       annotation on a pool node: the node whose place it took
//                                    (Replace, or a Delete's substitute)
//   respool.io/cordon-reason         annotation: why respool left the node cordoned (a failed
//                                    reset)
//   respool.io/retired               also an annotation on a retired node: by what, when
inline constexpr std::string_view kNodeOperationAnnotation = "respool.io/node-operation";
inline constexpr std::string_view kNodeOperationTypeAnnotation = "respool.io/node-operation-type";
inline constexpr std::string_view kCordonedByAnnotation = "respool.io/cordoned-by";
inline constexpr std::string_view kResettingTaintKey = "respool.io/resetting";
inline constexpr std::string_view kReplacementForAnnotation = "respool.io/replacement-for";
inline constexpr std::string_view kCordonReasonAnnotation = "respool.io/cordon-reason";
// Labels of the reset Jobs respool runs on nodes, and the pod annotation naming the OS.
inline constexpr std::string_view kNodeOperationLabel = "respool.io/node-operation";
inline constexpr std::string_view kNodeLabel = "respool.io/node";
inline constexpr std::string_view kResetOsAnnotation = "respool.io/reset-os";
// Finalizer of NodeOperations: a deleted operation first gives its nodes back.
inline constexpr std::string_view kNodeOperationFinalizer = "respool.io/node-operation";
// Labels of the NodeOperations automatic remediation creates (N12): "auto", and the rule's step
// (counted from 1) and the attempt of that step they carry out.
inline constexpr std::string_view kRemediationLabel = "respool.io/remediation";
inline constexpr std::string_view kRemediationStepLabel = "respool.io/remediation-step";
inline constexpr std::string_view kRemediationAttemptLabel = "respool.io/remediation-attempt";
// Label respool sets on the plug-in objects it installs for a pool, with the job type.
inline constexpr std::string_view kPluginJobTypeLabel = "respool.io/job-type";

// Taints the node lifecycle controller puts on nodes that stop reporting (F2).
inline constexpr std::string_view kUnreachableTaint = "node.kubernetes.io/unreachable";
inline constexpr std::string_view kNotReadyTaint = "node.kubernetes.io/not-ready";

// Finalizers (additions to API.md): a pool releases its nodes and plug-ins before it goes (P14);
// a network stays while a pool uses it (W5).
inline constexpr std::string_view kPoolFinalizer = "respool.io/release-nodes";
inline constexpr std::string_view kNetworkFinalizer = "respool.io/network-in-use";

}  // namespace respool::policy
