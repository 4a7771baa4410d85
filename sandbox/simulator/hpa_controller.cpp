#include "sandbox/simulator/hpa_controller.hpp"

#include "operator/kube/error.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_io.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

namespace {

constexpr std::chrono::seconds kHpaSyncPeriod{15};

// The path of the scale subresource of `name` in `ns`, of the resource serving `kind` in
// `api_version` as the API's discovery says (as the RESTMapper finds it), or the mapper's error.
std::expected<std::string, std::string> hpa_scale_path(kube::Client& client,
                                                       const std::string& api_version,
                                                       const std::string& kind,
                                                       const std::string& ns,
                                                       const std::string& name) {
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string base = group.empty() ? "/api/" + api_version : "/apis/" + api_version;
  const std::string no_match = "no matches for kind \"" + kind + "\" in group \"" + group + "\"";
  auto answer = client.request("GET", base);
  if (!answer) return std::unexpected(answer.error().message);
  if (answer->status == 404) return std::unexpected(no_match);
  if (answer->status != 200)
    return std::unexpected(kube::error_from_response(answer->status, answer->body).message);
  const Json list = Json::parse(answer->body, nullptr, false);
  for (const Json& r : at_path(list, {"resources"})) {
    const std::string plural = string_at(r, {"name"});
    if (string_at(r, {"kind"}) == kind && plural.find('/') == std::string::npos)
      return base + "/namespaces/" + ns + "/" + plural + "/" + name + "/scale";
  }
  return std::unexpected(no_match);
}

}  // namespace

HpaController::HpaController(Cluster& cluster, ObjectInformer& hpas, runtime::EventRecorder& events)
    : SimController(cluster, "sandbox-hpa", 1), hpas_(hpas), events_(events) {
  controller_.watch<kube::Unstructured>(hpas_);
}

HpaTarget HpaController::read_target(const Json& hpa, Json& scale, std::string& scale_path) {
  const Json& ref = at_path(hpa, {"spec", "scaleTargetRef"});
  auto path = hpa_scale_path(cluster_.client, string_at(ref, {"apiVersion"}),
                             string_at(ref, {"kind"}), namespace_of(hpa), string_at(ref, {"name"}));
  if (!path) return {std::nullopt, "", path.error()};
  scale_path = *path;
  auto answer = cluster_.client.request("GET", scale_path);
  if (!answer) return {std::nullopt, "", answer.error().message};
  if (answer->status != 200)
    return {std::nullopt, "", kube::error_from_response(answer->status, answer->body).message};
  scale = Json::parse(answer->body, nullptr, false);
  return {static_cast<int>(int_at(scale, {"spec", "replicas"}, 0)),
          string_at(scale, {"status", "selector"}), ""};
}

std::expected<ReconcileResult, std::string> HpaController::reconcile(const std::string& key) {
  ObjectPtr cached = hpas_.store().get(key);
  if (!cached) {
    synced_.erase(key);
    return ReconcileResult::done();
  }
  const Json& hpa = cached->object;
  const runtime::TimePoint now = cluster_.clock.now();
  const std::int64_t generation = int_at(hpa, {"metadata", "generation"}, 0);
  if (auto last = synced_.find(key); last != synced_.end() && last->second.first == generation &&
                                     now < last->second.second + kHpaSyncPeriod)
    return ReconcileResult::after(last->second.second + kHpaSyncPeriod - now);
  synced_[key] = {generation, now};
  const runtime::ObjectReference regarding{"autoscaling/v2", "HorizontalPodAutoscaler",
                                           cached->meta.name, cached->meta.namespace_.str(),
                                           cached->meta.uid.str()};
  Json scale;
  std::string scale_path;
  const HpaTarget target = read_target(hpa, scale, scale_path);
  HpaPlan plan = plan_hpa(hpa, target, now);
  if (plan.scale_to) {
    scale["spec"]["replicas"] = *plan.scale_to;
    auto written = cluster_.client.request("PUT", scale_path, scale.dump(), "application/json");
    std::string error;
    if (!written) {
      error = written.error().message;
    } else if (written->status != 200) {
      error = kube::error_from_response(written->status, written->body).message;
    }
    if (!error.empty()) rescale_failed(plan, hpa, *target.replicas, error, now);
  }
  for (const auto& e : plan.events)
    events_.event(regarding,
                  e.type == "Warning" ? runtime::EventType::Warning : runtime::EventType::Normal,
                  e.reason, e.reason, e.message);
  if (auto w = write_status(cluster_.client, workload::horizontalpodautoscalers, hpa, plan.status);
      !w)
    return std::unexpected("horizontalpodautoscaler " + key + ": " + w.error());
  return ReconcileResult::after(kHpaSyncPeriod);
}

}  // namespace respool::sandbox::sim
