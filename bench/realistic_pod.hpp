#pragma once
// A pod of realistic size, as a training job's worker is served by a real API server: projected
// service-account volume, a dataset claim, env, resources, tolerations, and the status a kubelet
// reports once it runs. bench_sandbox_store and bench_scale store many of them. Not a program.

#include <nlohmann/json.hpp>

namespace respool::bench {

inline const nlohmann::json& pod_template() {
  static const nlohmann::json pod =
      nlohmann::json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{
    "labels":{"app":"train-job","pod-template-hash":"7f9c4d8b6"},
    "annotations":{"kubernetes.io/psp":"restricted","prometheus.io/scrape":"true"}},
    "spec":{"volumes":[{"name":"kube-api-access-9x7zq","projected":{"sources":[
      {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
      {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
      {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],
      "defaultMode":420}},{"name":"dataset","persistentVolumeClaim":{"claimName":"imagenet"}}],
    "containers":[{"name":"trainer","image":"registry.example/vision/resnet-train:2.4.1",
      "command":["python","-m","train"],"args":["--epochs","90","--batch-size","256"],
      "env":[{"name":"NCCL_DEBUG","value":"INFO"},{"name":"MASTER_ADDR","value":"job-master-0"}],
      "resources":{"limits":{"nvidia.com/gpu":"8"},"requests":{"cpu":"32","memory":"256Gi","nvidia.com/gpu":"8"}},
      "volumeMounts":[{"name":"dataset","mountPath":"/data"},{"name":"kube-api-access-9x7zq","readOnly":true,
        "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],
    "restartPolicy":"Never","serviceAccountName":"default",
    "tolerations":[{"key":"respool.io/pool","operator":"Exists","effect":"NoSchedule"},
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}})");
  return pod;
}

inline nlohmann::json running_status() {
  static const nlohmann::json status = nlohmann::json::parse(R"({"phase":"Running","conditions":[
    {"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:01Z"},
    {"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:05Z"},
    {"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:05Z"},
    {"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:00Z"}],
    "hostIP":"10.0.3.4","podIP":"10.0.3.17","podIPs":[{"ip":"10.0.3.17"}],"startTime":"2026-11-01T10:00:00Z",
    "containerStatuses":[{"name":"trainer","state":{"running":{"startedAt":"2026-11-01T10:00:04Z"}},"lastState":{},
    "ready":true,"restartCount":0,"image":"registry.example/vision/resnet-train:2.4.1",
    "imageID":"registry.example/vision/resnet-train@sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "containerID":"containerd://5d4c3b2a19f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5","started":true}],
    "qosClass":"Burstable"})");
  return status;
}

}  // namespace respool::bench
