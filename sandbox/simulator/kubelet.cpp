#include "sandbox/simulator/kubelet.hpp"

#include <charconv>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/conditions.hpp"
#include "sandbox/simulator/container_log.hpp"
#include "sandbox/simulator/failure_samples.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/pod_status.hpp"

namespace respool::sandbox::sim {
namespace {

using runtime::ReconcileResult;

std::optional<double> number_annotation(const Json& pod, const char* key) {
  auto text = annotation(pod, key);
  if (!text) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < 0) return std::nullopt;
  return v;
}

int exit_code_of(const Json& pod, const Json& node) {
  auto text = annotation(pod, kExitCodeAnnotation);
  if (!text) {
    auto failure = annotation(pod, kFailureAnnotation);
    if (const FailureSample* sample = failure ? find_failure_sample(*failure) : nullptr)
      return sample->exit_code;
  }
  if (!text && annotation(pod, kResetOsAnnotation))
    text = annotation(node, kResetExitCodeAnnotation);
  if (!text) return 0;
  int v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  return ec == std::errc() && end == text->data() + text->size() ? v : 1;
}

std::string host_ip(const Json& node) {
  const Json& addresses = at_path(node, {"status", "addresses"});
  if (addresses.is_array()) {
    for (const auto& a : addresses)
      if (a.value("type", std::string()) == "InternalIP") return a.value("address", std::string());
  }
  return {};
}

}  // namespace

Kubelet::Kubelet(Cluster& cluster, int workers)
    : SimController(cluster, "sandbox-kubelet", workers) {
  controller_.watch<kube::Unstructured>(cluster.pods, [](const kube::Unstructured& pod) {
    if (string_at(pod.object, {"spec", "nodeName"}).empty()) return std::vector<std::string>{};
    return std::vector<std::string>{pod.meta.key()};
  });
  // A node's changes (Ready again, deleted) move its pods.
  controller_.watch<kube::Unstructured>(cluster.nodes, [&cluster](const kube::Unstructured& node) {
    std::vector<std::string> keys;
    for (const auto& pod : cluster.pods.store().by_index(kByNode, node.meta.name))
      keys.push_back(pod->meta.key());
    return keys;
  });
}

std::expected<void, std::string> Kubelet::write_status(const Json& pod, Json status) {
  Json next = pod;
  next["status"] = std::move(status);
  auto written = cluster_.client.update_status(kube::resources::pods,
                                               string_at(pod, {"metadata", "namespace"}), next);
  if (!written && !written.error().is(kube::Error::Kind::NotFound))
    return std::unexpected("pod status: " + written.error().describe());
  return {};
}

std::expected<ReconcileResult, std::string> Kubelet::terminate(const Json& pod) {
  const auto deleting = apimachinery::parse_time(string_at(pod, {"metadata", "deletionTimestamp"}));
  const Json& grace_json = at_path(pod, {"metadata", "deletionGracePeriodSeconds"});
  const std::int64_t grace = grace_json.is_number_integer() ? grace_json.get<std::int64_t>() : 0;
  const auto now = cluster_.clock.now();
  if (deleting && grace > 0) {
    // The delete came at deletionTimestamp - grace; the containers take a moment to stop.
    const auto asked = *deleting - std::chrono::seconds(grace);
    const auto stop_at = asked + std::min<runtime::Duration>(std::chrono::seconds(grace),
                                                             cluster_.timing.termination);
    if (now < stop_at) return ReconcileResult::after(stop_at - now);
  }
  if (!pod_terminal(pod)) {
    // Stopped by a signal: exit 143 (SIGTERM), as most processes end.
    if (auto w = write_status(pod, terminated_status(pod, 143, now)); !w)
      return std::unexpected(w.error());
  }
  const Json& finalizers = at_path(pod, {"metadata", "finalizers"});
  if (grace == 0 && finalizers.is_array() && !finalizers.empty())
    return ReconcileResult::done();  // deleted at once already; its finalizers hold it
  kube::DeleteOptions options;
  options.grace_period_seconds = 0;
  options.precondition_uid = string_at(pod, {"metadata", "uid"});
  auto removed =
      cluster_.client.remove(kube::resources::pods, string_at(pod, {"metadata", "namespace"}),
                             string_at(pod, {"metadata", "name"}), options);
  if (!removed && !removed.error().is(kube::Error::Kind::NotFound) &&
      !removed.error().is(kube::Error::Kind::Conflict))
    return std::unexpected("pod delete: " + removed.error().describe());
  return ReconcileResult::done();
}

std::expected<ReconcileResult, std::string> Kubelet::reconcile(const std::string& key) {
  ObjectPtr cached = cluster_.pods.store().get(key);
  if (!cached) return ReconcileResult::done();
  const Json& pod = cached->object;
  const std::string node_name = string_at(pod, {"spec", "nodeName"});
  if (node_name.empty()) return ReconcileResult::done();
  ObjectPtr node = cluster_.nodes.store().get(node_name);
  if (!node) {
    if (auto gc = collect_orphan(cluster_, pod); !gc) return std::unexpected(gc.error());
    return ReconcileResult::done();
  }
  if (!simulated(node->object)) return ReconcileResult::done();
  if (condition_status(node->object, "Ready") != kube::ConditionStatus::True)
    return ReconcileResult::done();  // the node's recovery enqueues its pods again

  if (cached->meta.deletion_timestamp) return terminate(pod);
  if (pod_terminal(pod)) return ReconcileResult::done();
  const auto now = cluster_.clock.now();
  const auto driver = annotation(pod, kDriverVersion);
  const auto fails = annotation(node->object, kDriverFailsAnnotation);
  const bool crash = driver && fails && (*fails == "*" || *fails == *driver);
  const Json* ready = find_condition(pod, "Ready");
  const bool not_ready = !ready || ready->value("status", std::string()) != "True";
  if (string_at(pod, {"status", "phase"}) == "Running" && driver && !crash && not_ready) {
    // The node's driver trouble is over: the next restart loads it.
    if (auto w = write_status(pod, running_status(pod, host_ip(node->object), now)); !w)
      return std::unexpected(w.error());
    return ReconcileResult::done();
  }
  if (string_at(pod, {"status", "phase"}) != "Running") {
    if (auto w = write_status(pod, crash ? crash_looping_status(pod, host_ip(node->object), now)
                                         : running_status(pod, host_ip(node->object), now));
        !w)
      return std::unexpected(w.error());
    return ReconcileResult::done();  // the update comes back and schedules the end
  }
  if (auto silences = silences_patch(pod, now)) {
    // A hang began or ended: recorded on the pod, where its logs read it (container_log.hpp).
    auto patched = cluster_.client.patch(
        kube::resources::pods, string_at(pod, {"metadata", "namespace"}),
        string_at(pod, {"metadata", "name"}), kube::PatchType::Merge, *silences);
    if (!patched && !patched.error().is(kube::Error::Kind::NotFound))
      return std::unexpected("pod silences: " + patched.error().describe());
  }
  auto run_seconds = number_annotation(pod, kRunSecondsAnnotation);
  if (!run_seconds && annotation(pod, kResetOsAnnotation)) {
    // A node reset: as long as its node says, else the simulator's reset time.
    run_seconds = number_annotation(node->object, kResetSecondsAnnotation);
    if (!run_seconds)
      run_seconds = std::chrono::duration<double>(cluster_.timing.node_reset).count();
  }
  if (!run_seconds) return ReconcileResult::done();
  auto started = apimachinery::parse_time(string_at(pod, {"status", "startTime"}));
  if (!started) started = now;
  const auto end = *started + seconds(*run_seconds);
  if (now < end) return ReconcileResult::after(end - now);
  // Ended at its time, not when this reconcile ran: its log (container_log.hpp) ends there.
  if (auto w = write_status(pod, terminated_status(pod, exit_code_of(pod, node->object), end)); !w)
    return std::unexpected(w.error());
  return ReconcileResult::done();
}

std::expected<void, std::string> collect_orphan(Cluster& cluster, const Json& pod) {
  const std::string node_name = string_at(pod, {"spec", "nodeName"});
  // The node cache may lag behind the pod cache: only the API server can say it is gone.
  auto node = cluster.client.get(kube::resources::nodes, "", node_name);
  if (node) return {};
  if (!node.error().is(kube::Error::Kind::NotFound))
    return std::unexpected("node lookup: " + node.error().describe());
  const std::string ns = string_at(pod, {"metadata", "namespace"});
  const std::string name = string_at(pod, {"metadata", "name"});
  const auto now = cluster.clock.now();
  if (!pod_terminal(pod)) {
    Json next = pod;
    next["status"]["phase"] = "Failed";
    set_condition(next,
                  {"DisruptionTarget", "True", "DeletionByPodGC", "PodGC: node no longer exists"},
                  now, ConditionStyle::Pod);
    auto written = cluster.client.update_status(kube::resources::pods, ns, next);
    if (!written && !written.error().is(kube::Error::Kind::NotFound))
      return std::unexpected("pod status: " + written.error().describe());
  }
  kube::DeleteOptions options;
  options.grace_period_seconds = 0;
  options.precondition_uid = string_at(pod, {"metadata", "uid"});
  auto removed = cluster.client.remove(kube::resources::pods, ns, name, options);
  if (!removed && !removed.error().is(kube::Error::Kind::NotFound) &&
      !removed.error().is(kube::Error::Kind::Conflict))
    return std::unexpected("pod delete: " + removed.error().describe());
  return {};
}

}  // namespace respool::sandbox::sim
