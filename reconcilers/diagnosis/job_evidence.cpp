#include "reconcilers/diagnosis/job_evidence.hpp"

#include <charconv>
#include <set>

#include "operator/kube/resource.hpp"
#include "reconcilers/diagnosis/worker_failure.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/time.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"

namespace respool::reconcilers {
namespace {

using Json = nlohmann::json;

std::optional<int> completion_index(const Json& pod) {
  const std::string text = pod["metadata"]
                               .value("labels", Json::object())
                               .value("batch.kubernetes.io/job-completion-index", "");
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Outcome<void> gather_workers(const Context& ctx, const kube::Unstructured& job, Gathering& g,
                             std::set<std::string>& nodes) {
  const std::string ns = job.meta.namespace_.str();
  kube::ListOptions options;
  options.label_selector = "batch.kubernetes.io/controller-uid=" + job.meta.uid.str();
  auto pods = ctx.client->list(kube::resources::pods, ns, options);
  ++g.requests;
  if (!pods) return failed("listing the pods of job " + ns + "/" + job.meta.name, pods.error());
  for (const auto& pod : (*pods)["items"]) {
    ++g.pods;
    policy::WorkerEvidence w;
    w.pod = pod["metadata"].value("name", "");
    w.node = pod.value("spec", Json::object()).value("nodeName", "");
    w.worker = completion_index(pod);
    if (!w.node.empty()) nodes.insert(w.node);
    if (auto run = failed_run_of(pod, default_container(pod))) {
      auto read = read_run_log(*ctx.client, ns, w.pod, *run);
      g.requests += run->requests;
      g.log_bytes += run->log_bytes;
      if (!read && !lost_race(read.error()))
        return failed("reading the log of pod " + ns + "/" + w.pod, read.error());
      w.failure = run->failure;
      w.log = std::move(run->log);
    }
    g.evidence.workers.push_back(std::move(w));
  }
  return {};
}

Outcome<void> gather_nodes(const Context& ctx, const std::set<std::string>& nodes, Gathering& g) {
  for (const std::string& name : nodes) {
    policy::NodeEvidence n;
    n.name = name;
    auto node = ctx.client->get(kube::resources::nodes, "", name);
    ++g.requests;
    if (node)
      n.findings = policy::node_findings(*node);
    else if (node.error().is(kube::Error::Kind::NotFound))
      n.missing = true;
    else
      return failed("reading node " + name, node.error());
    g.evidence.nodes.push_back(std::move(n));
  }
  return {};
}

void gather_operations(const Context& ctx, const kube::Unstructured& job,
                       const std::set<std::string>& nodes, Gathering& g) {
  for (const auto& op : ctx.caches.operations->store().list()) {
    if (op->meta.creation_timestamp < job.meta.creation_timestamp) continue;
    policy::OperationEvidence e;
    const Json spec = op->object.value("spec", Json::object());
    for (const auto& n : spec.value("nodes", Json::array()))
      if (n.is_string() && nodes.contains(n.get<std::string>())) e.nodes.push_back(n);
    if (e.nodes.empty()) continue;
    e.name = op->meta.name;
    e.type = spec.value("type", "");
    e.phase = op->object.value("status", Json::object()).value("phase", "Pending");
    g.evidence.operations.push_back(std::move(e));
  }
}

Outcome<void> gather_events(const Context& ctx, const kube::Unstructured& job, Gathering& g) {
  const std::string ns = job.meta.namespace_.str();
  kube::ListOptions options;
  options.field_selector = "involvedObject.uid=" + job.meta.uid.str();
  auto events = ctx.client->list(kube::resources::events, ns, options);
  ++g.requests;
  if (!events)
    return failed("listing the events of job " + ns + "/" + job.meta.name, events.error());
  for (const auto& e : (*events)["items"]) {
    if (e.value("type", "") != "Warning") continue;
    auto text = [&e](const char* key) {
      auto it = e.find(key);
      return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    std::string time = text("lastTimestamp");
    if (time.empty()) time = text("eventTime");
    g.evidence.warnings.push_back({time, text("reason"), text("message")});
  }
  std::stable_sort(g.evidence.warnings.begin(), g.evidence.warnings.end(),
                   [](const auto& a, const auto& b) { return a.time < b.time; });
  return {};
}

}  // namespace

Outcome<Gathering> gather_job_evidence(const Context& ctx, const kube::Unstructured& job) {
  Gathering g;
  std::set<std::string> nodes;
  if (auto r = gather_workers(ctx, job, g, nodes); !r) return std::unexpected(r.error());
  if (auto r = gather_nodes(ctx, nodes, g); !r) return std::unexpected(r.error());
  if (auto v = job.meta.annotations.get(policy::kRunningRecordsAnnotation))
    g.evidence.records = policy::running_records_from_json(Json::parse(*v, nullptr, false));
  gather_operations(ctx, job, nodes, g);
  if (auto r = gather_events(ctx, job, g); !r) return std::unexpected(r.error());
  return g;
}

}  // namespace respool::reconcilers
