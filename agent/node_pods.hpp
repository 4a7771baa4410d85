#pragma once
// The pods on the agent's node (list and watch with fieldSelector spec.nodeName=<node>, the
// kubelet's own filter), kept trimmed to what the usage metrics name: metadata and the
// containers' runtime IDs. Why pods and cgroups rather than the kubelet's pod-resources API:
// docs/metrics.md.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "agent/usage/pod_info.hpp"
#include "operator/kube/client.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/informer.hpp"

namespace respool::agent {

class NodePods {
 public:
  NodePods(kube::Client& client, runtime::Clock& clock, const std::string& node_name);
  void start() { informer_.start(); }
  void stop() { informer_.stop(); }
  bool has_synced() const { return informer_.has_synced(); }
  // Waits until the pods are listed, a list or watch fails (no permission: the informer goes on
  // retrying, the checks must not wait), or `timeout`; whether they are listed.
  bool wait_until_listed(runtime::Duration timeout);
  std::optional<usage::PodInfo> by_uid(std::string_view uid) const;

 private:
  runtime::Clock& clock_;
  runtime::Informer<kube::Unstructured> informer_;
};

// The cached pod: only the fields pod_info_from_json reads (a node's 110 pods, each a few
// hundred bytes).
void trim_pod(kube::Unstructured& pod);

}  // namespace respool::agent
