// Observe: a Job and its workers from the caches, as the policy reads them.
#include "reconcilers/trainingjob/training_job_observed.hpp"

#include <charconv>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/restart_ledger.hpp"

namespace respool::reconcilers {

namespace {

int int_label(const kube::StringMap& labels, std::string_view key, int fallback) {
  auto text = labels.get(key);
  if (!text) return fallback;
  int value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  return ec == std::errc() && end == text->data() + text->size() ? value : fallback;
}

std::map<std::string, std::string> annotations_of(const kube::ObjectMeta& meta) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : meta.annotations.items())
    out.emplace(k.str(), v.str());
  return out;
}

// Why the node is abnormal (F1, F2), and whether its kubelet is out of reach (F2).
void node_state(const Context& ctx, std::string_view name, policy::Worker& w) {
  auto node = ctx.caches.nodes->store().get(name);
  if (!node) {
    w.node_fault = "gone";
    w.node_unreachable = true;
    return;
  }
  auto view = ctx.node_views->view(node);
  auto catalog = ctx.catalog->get();
  const policy::NodeClass state = policy::pool_node(*view, *catalog, 0).state;
  if (state.state != policy::NodeState::Abnormal) return;
  std::string codes;
  for (const std::string& code : state.codes) {
    if (code == policy::kNotReadyCode) w.node_unreachable = true;
    const auto* known = policy::find_isolation_code(code);
    codes += (codes.empty() ? "" : ", ") +
             (known ? std::string(known->fault) + " (" + code + ")" : code);
  }
  w.node_fault = "abnormal: " + codes;
}

}  // namespace

Keys controlling_job(const kube::Pod& p) {
  const auto* owner = p.meta.controller_ref();
  if (!owner || owner->kind != "Job") return {};
  return {p.meta.namespace_.str() + "/" + owner->name.str()};
}

std::string default_container(const kube::Json& pod) {
  const kube::Json none = kube::Json::object();
  const kube::Json& meta =
      pod.contains("metadata") && pod["metadata"].is_object() ? pod["metadata"] : none;
  std::string name =
      meta.value("annotations", none).value("kubectl.kubernetes.io/default-container", "");
  const kube::Json& spec = pod.contains("spec") && pod["spec"].is_object() ? pod["spec"] : none;
  const kube::Json containers = spec.value("containers", kube::Json::array());
  if (name.empty() && !containers.empty() && containers[0].is_object())
    name = containers[0].value("name", "");
  return name;
}

std::optional<std::string> training_pool(const kube::Json& job) {
  const auto* selector = job.contains("spec") ? &job["spec"] : nullptr;
  for (const char* key : {"template", "spec", "nodeSelector"}) {
    if (!selector || !selector->is_object() || !selector->contains(key)) return std::nullopt;
    selector = &(*selector)[key];
  }
  auto it = selector->find(policy::kPoolLabel);
  if (it == selector->end() || !it->is_string() || it->get<std::string>().empty())
    return std::nullopt;
  return it->get<std::string>();
}

std::optional<ObservedJob> observe_job(const Context& ctx, const std::string& key) {
  auto job = ctx.caches.training_jobs->store().get(key);
  if (!job) return std::nullopt;
  ObservedJob o;
  o.job = job;
  o.key = key;
  auto pool = training_pool(job->object);
  if (!pool) return std::nullopt;
  o.pool = *pool;
  const auto annotations = annotations_of(job->meta);
  o.reading = policy::read_fault_tolerance(annotations);
  if (!o.reading.tolerance) return o;  // not one of ours, or its values are wrong (J1)

  const kube::Json& spec = job->object.value("spec", kube::Json::object());
  const kube::Json& status = job->object.value("status", kube::Json::object());
  const kube::Json& pod_spec =
      spec.value("template", kube::Json::object()).value("spec", kube::Json::object());
  policy::TrainingJob& t = o.training;
  t.tolerance = *o.reading.tolerance;
  if (auto v = job->meta.annotations.get(policy::kFaultToleranceStateAnnotation)) {
    o.has_ledger = true;
    t.ledger = policy::restart_ledger_from_json(kube::Json::parse(*v, nullptr, false));
  }
  if (auto v = job->meta.annotations.get(policy::kRunningRecordsAnnotation))
    t.records = policy::running_records_from_json(kube::Json::parse(*v, nullptr, false));
  t.suspended = spec.value("suspend", false);
  t.start_time_set = status.contains("startTime") && !status["startTime"].is_null();
  t.restart_policy_never = pod_spec.value("restartPolicy", "") == "Never";
  for (const auto& c : status.value("conditions", kube::Json::array())) {
    if (c.value("status", "") != "True") continue;
    const std::string type = c.value("type", "");
    if (type == "Complete") t.finished = "job completed";
    if (type == "Failed") t.finished = "job failed: " + c.value("reason", std::string("Failed"));
  }
  o.rules.backoff_limit = spec.value("backoffLimit", 6);
  for (const auto& rule :
       spec.value("podFailurePolicy", kube::Json::object()).value("rules", kube::Json::array()))
    if (rule.value("action", "") == "FailJob") o.rules.pod_failure_fail_job = true;
  o.affinity = pod_spec.value("affinity", kube::Json::object());
  o.container = default_container(spec.value("template", kube::Json::object()));
  o.performance = policy::read_performance_monitoring(annotations);

  for (const auto& pod : ctx.caches.pods->store().by_index(kByJob, key)) {
    const auto* owner = pod->meta.controller_ref();
    if (!owner || owner->uid.view() != job->meta.uid.view()) continue;  // an earlier Job's
    policy::Worker w;
    w.index = int_label(pod->meta.labels, "batch.kubernetes.io/job-completion-index", -1);
    w.run = int_label(pod->meta.labels, policy::kRunLabel, 0);
    w.pod = pod->meta.name;
    w.node = pod->node_name.str();
    w.deleting = pod->meta.deletion_timestamp.has_value();
    w.running = pod->phase == "Running" && !w.deleting;
    w.succeeded = pod->phase == "Succeeded";
    w.failed = pod->phase == "Failed";
    if (pod->exit_code) w.exit_code = *pod->exit_code;
    w.disruption = pod->disruption.str();
    w.restart_count = pod->restart_count;
    if (!w.node.empty() && !w.succeeded) node_state(ctx, w.node, w);
    // A running pod's start, over a failed one's of the same index (restartPolicy Never keeps
    // the failed pod beside its replacement).
    if (w.running || !o.started_at.contains(w.index)) o.started_at[w.index] = pod->started_at;
    t.workers.push_back(std::move(w));
  }
  return o;
}

}  // namespace respool::reconcilers
