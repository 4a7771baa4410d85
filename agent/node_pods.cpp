#include "agent/node_pods.hpp"

namespace respool::agent {

namespace {

using Json = nlohmann::json;
constexpr const char* kByUid = "uid";

runtime::InformerOptions options_for(const std::string& node) {
  runtime::InformerOptions o;
  o.resource = kube::resources::pods;
  o.field_selector = "spec.nodeName=" + node;
  o.decode.keep_annotations = {"batch.kubernetes.io/job-completion-index"};
  return o;
}

Json kept(const Json& from, std::initializer_list<const char*> keys) {
  Json out = Json::object();
  for (const char* key : keys) {
    if (auto it = from.find(key); it != from.end()) out[key] = *it;
  }
  return out;
}

}  // namespace

void trim_pod(kube::Unstructured& pod) {
  const auto& o = pod.object;
  Json meta = kept(o.value("metadata", Json::object()),
                   {"name", "namespace", "uid", "labels", "ownerReferences"});
  auto annotations = o.value("metadata", Json::object()).value("annotations", Json::object());
  meta["annotations"] = kept(annotations, {"batch.kubernetes.io/job-completion-index"});
  Json status = Json::object();
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& c : o.value("status", Json::object()).value(list, Json::array())) {
      status[list].push_back(kept(c, {"name", "containerID"}));
    }
  }
  pod.object = Json{{"metadata", std::move(meta)}, {"status", std::move(status)}};
}

NodePods::NodePods(kube::Client& client, runtime::Clock& clock, const std::string& node_name)
    : clock_(clock), informer_(client, clock, options_for(node_name), trim_pod) {
  informer_.store().add_index(kByUid, [](const kube::Unstructured& pod) {
    return std::vector<std::string>{pod.meta.uid.str()};
  });
}

bool NodePods::wait_until_listed(runtime::Duration timeout) {
  const auto deadline = clock_.now() + timeout;
  while (!informer_.has_synced() && !informer_.last_failure() && clock_.now() < deadline) {
    clock_.sleep_for(std::chrono::milliseconds(50));
  }
  return informer_.has_synced();
}

std::optional<usage::PodInfo> NodePods::by_uid(std::string_view uid) const {
  auto pods = informer_.store().by_index(kByUid, uid);
  if (pods.empty()) return std::nullopt;
  return usage::pod_info_from_json(pods.front()->object);
}

}  // namespace respool::agent
