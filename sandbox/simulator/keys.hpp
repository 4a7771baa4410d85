#pragma once
// The labels, annotations and taints the simulator reads and writes. The sandbox.respool.io
// ones are the simulator's own controls; the others are those of a real cluster.

namespace respool::sandbox::sim {

// On a node: "true" when the simulator plays its kubelet (set on the nodes it creates). Pods on
// other nodes stay as their creator left them, as on a node whose kubelet never runs.
inline constexpr const char* kSimulatedAnnotation = "sandbox.respool.io/simulated";
// On a pod: seconds (simulated) it runs before it ends; absent = it runs until deleted.
inline constexpr const char* kRunSecondsAnnotation = "sandbox.respool.io/run-seconds";
// On a pod: the exit code it ends with after run-seconds; non-zero = the pod Fails.
inline constexpr const char* kExitCodeAnnotation = "sandbox.respool.io/exit-code";
// On a pod: a failure to end with (failure_samples.hpp: cuda-oom, nccl-timeout, traceback,
// segfault, host-oom): the last lines of its log as the framework prints them, and the exit code
// and reason the kubelet reports (unless kExitCodeAnnotation says another code). It ends after
// kRunSecondsAnnotation, as any pod. For respool's code-error detection (tests, demo).
inline constexpr const char* kFailureAnnotation = "sandbox.respool.io/failure";
// On a pod: seconds (simulated, may be fractional) between two lines of each container's log;
// default kDefaultLogInterval. A Job template carrying it runs until stopped (a worker).
inline constexpr const char* kLogIntervalAnnotation = "sandbox.respool.io/log-interval";
inline constexpr double kDefaultLogInterval = 10;
// On a pod: "true" = its containers hang: their output stops from the moment the kubelet saw
// the annotation and goes on once it is removed. The kubelet records those moments in
// kSilencesAnnotation ("FROM/TO,FROM/" in RFC 3339, the latest 16), which the logs read.
inline constexpr const char* kHangAnnotation = "sandbox.respool.io/hang";
inline constexpr const char* kSilencesAnnotation = "sandbox.respool.io/silences";
// On a node: the faults to play, comma-separated (NotReady, Unreachable, Isolate=CODE,
// AcceleratorLoss=N). Removing an item heals it.
inline constexpr const char* kFaultAnnotation = "sandbox.respool.io/fault";
// On a node: what the simulator changed to play the faults (JSON), so that healing restores
// exactly that, across restarts of the simulator.
inline constexpr const char* kFaultAppliedAnnotation = "sandbox.respool.io/fault-applied";

// Node resets (respool's NodeOperation runs a Job whose pod is annotated respool.io/reset-os on
// the node): on a node, how long its reset takes (simulated seconds) and the exit code it ends
// with (non-zero: the reset fails), to play slow and failing resets on demand.
inline constexpr const char* kResetOsAnnotation = "respool.io/reset-os";
inline constexpr const char* kResetSecondsAnnotation = "sandbox.respool.io/reset-seconds";
inline constexpr const char* kResetExitCodeAnnotation = "sandbox.respool.io/reset-exit-code";

// The driver version: on a driver pod (annotation) and on the node that runs it (label).
inline constexpr const char* kDriverVersion = "respool.io/driver-version";
// On a node: driver pods of this version ("*": of any version) crash-loop there (Running, never
// Ready), as a driver that does not load on that hardware: a failed driver upgrade to play.
inline constexpr const char* kDriverFailsAnnotation = "sandbox.respool.io/driver-fails";
inline constexpr const char* kIsolationTaintPrefix = "isolation.respool.io/";

// Taints of the node lifecycle controller (kube-controller-manager).
inline constexpr const char* kTaintNotReady = "node.kubernetes.io/not-ready";
inline constexpr const char* kTaintUnreachable = "node.kubernetes.io/unreachable";
inline constexpr const char* kTaintUnschedulable = "node.kubernetes.io/unschedulable";
inline constexpr const char* kTaintMemoryPressure = "node.kubernetes.io/memory-pressure";
inline constexpr const char* kTaintDiskPressure = "node.kubernetes.io/disk-pressure";
inline constexpr const char* kTaintPidPressure = "node.kubernetes.io/pid-pressure";
inline constexpr const char* kTaintNetworkUnavailable = "node.kubernetes.io/network-unavailable";

// What the DaemonSet and Job controllers put on their pods.
inline constexpr const char* kControllerRevisionHash = "controller-revision-hash";
inline constexpr const char* kPodTemplateGeneration = "pod-template-generation";
inline constexpr const char* kJobTrackingFinalizer = "batch.kubernetes.io/job-tracking";

inline constexpr const char* kDefaultScheduler = "default-scheduler";

}  // namespace respool::sandbox::sim
