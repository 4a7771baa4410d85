#include "agent/report/node_reporter.hpp"

#include <fmt/format.h>

#include "operator/kube/resource.hpp"
#include "operator/runtime/log.hpp"

namespace respool::agent {

NodeReporter::NodeReporter(kube::Client& client, std::string node_name,
                           runtime::EventRecorder* events, runtime::Clock& clock,
                           std::chrono::seconds heartbeat_period)
    : client_(client),
      node_name_(std::move(node_name)),
      events_(events),
      clock_(clock),
      heartbeat_period_(heartbeat_period) {}

kube::Result<std::map<std::string, std::string>> NodeReporter::node_labels() {
  auto now = clock_.now();
  if (!stale_ && now - last_read_ < heartbeat_period_) return labels_;
  auto node = client_.get(kube::resources::nodes, "", node_name_);
  if (!node) return std::unexpected(node.error());
  auto meta = node->value("metadata", kube::Json::object());
  uid_ = meta.value("uid", "");
  labels_.clear();
  const auto labels = meta.value("labels", kube::Json::object());  // named: items() needs it alive
  for (const auto& [k, v] : labels.items()) {
    if (v.is_string()) labels_[k] = v.get<std::string>();
  }
  conditions_ = agent_conditions(*node);
  stale_ = false;
  last_read_ = now;
  return labels_;
}

kube::Result<ConditionPlan> NodeReporter::report(const std::vector<FamilyResult>& results) {
  if (stale_) {
    if (auto read = node_labels(); !read) return std::unexpected(read.error());
  }
  auto plan = plan_conditions(conditions_, results, clock_.now(), heartbeat_period_);
  if (plan.patch.is_null()) return plan;
  kube::WriteOptions options;
  options.subresource = "status";
  options.field_manager = "respool-node-agent";
  auto written = client_.patch(kube::resources::nodes, "", node_name_, kube::PatchType::Strategic,
                               plan.patch, options);
  if (!written) {
    stale_ = true;  // the Node may have changed under us: read it before planning again
    return std::unexpected(written.error());
  }
  conditions_ = agent_conditions(*written);
  record_events(plan.transitions);
  return plan;
}

void NodeReporter::record_events(const std::vector<Transition>& transitions) {
  for (const auto& t : transitions) {
    const bool fault = t.to.status == "False";
    if (!fault && t.from.empty()) continue;  // a first True says nothing new
    runtime::log::write(
        fault ? runtime::log::Level::Warn : runtime::log::Level::Info, "report",
        fault ? "fault found" : "fault cleared",
        {{"condition", t.to.type}, {"reason", t.to.reason}, {"message", t.to.message}});
    if (!events_) continue;
    events_->event({"v1", "Node", node_name_, "", uid_},
                   fault ? runtime::EventType::Warning : runtime::EventType::Normal,
                   fault ? "NodeHealthFault" : "NodeHealthRecovered", "Check",
                   fault ? fmt::format("{} is False ({}): {}", t.to.type, t.to.reason, t.to.message)
                         : fmt::format("{} is True: no fault found", t.to.type));
  }
}

}  // namespace respool::agent
