#include "reconcilers/policy/standard_diagnosis.hpp"

#include <algorithm>

#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/training_job_risk.hpp"

namespace respool::policy {
namespace {

void add_code_errors(const JobEvidence& e, const FailureCatalogue* catalogue,
                     std::vector<DiagnosisResult>& out) {
  if (!catalogue) return;
  for (const WorkerEvidence& w : e.workers) {
    if (!w.failure) continue;
    auto finding = match_failure(*catalogue, *w.failure, w.log);
    if (!finding) continue;
    FaultyDevice device;
    device.node = w.node;
    device.pod = w.pod;
    device.worker = w.worker;
    device.exit_code = w.failure->exit_code;
    out.push_back(code_error_result(*catalogue, *finding, std::move(device)));
  }
}

// A node finding under the job: one result per node and code, naming the first worker there.
void add_node_findings(const JobEvidence& e, std::vector<DiagnosisResult>& out) {
  for (const NodeEvidence& n : e.nodes) {
    const WorkerEvidence* on = nullptr;
    for (const WorkerEvidence& w : e.workers)
      if (w.node == n.name && (!on || w.worker < on->worker)) on = &w;
    for (const NodeFinding& f : n.findings) {
      DiagnosisResult r;
      const auto* known = find_isolation_code(f.code);
      r.symptom = "node " + n.name + " reports a fault" +
                  (known ? ": " + std::string(known->fault) : std::string());
      r.fault = f.condition + " False (" + f.code + "): " + f.message;
      r.category = FailureCategory::Hardware;
      r.component = "node";
      r.module = known ? std::string(known->category) : f.condition;
      r.risk = Risk::Medium;
      r.device.node = n.name;
      r.device.accelerator = f.device;
      r.device.isolation_code = f.code;
      if (on) {
        r.device.pod = on->pod;
        r.device.worker = on->worker;
      }
      r.solution = "respool keeps the node isolated (isolation.respool.io/" + f.code +
                   ") while the finding lasts. Have it repaired or replaced (a NodeOperation, or "
                   "the pool's spec.remediation); a fault-tolerant job restarts without it.";
      out.push_back(std::move(r));
    }
  }
}

void add_operations(const JobEvidence& e, std::vector<DiagnosisResult>& out) {
  for (const OperationEvidence& op : e.operations) {
    DiagnosisResult r;
    r.symptom = "a " + op.type + " of the job's nodes ran while it did";
    std::string nodes;
    for (const auto& n : op.nodes)
      nodes += (nodes.empty() ? "" : ", ") + n;
    r.fault = "NodeOperation " + op.name + " (" + op.type + ", " + op.phase + ") on " + nodes;
    r.category = FailureCategory::Environment;
    r.component = "respool";
    r.module = "NodeOperation";
    r.risk = Risk::Low;
    r.device.node = op.nodes.empty() ? "" : op.nodes.front();
    r.solution =
        "A Replace or Reset stops the jobs on its nodes: expect a restart of the job "
        "then (kubectl describe nodeop " +
        op.name + ").";
    out.push_back(std::move(r));
  }
}

void add_warnings(const JobEvidence& e, std::vector<DiagnosisResult>& out) {
  std::vector<const EventEvidence*> kept;
  for (const EventEvidence& w : e.warnings)
    if (w.reason != "Diagnosed") kept.push_back(&w);
  if (kept.empty()) return;
  DiagnosisResult r;
  r.symptom = std::to_string(kept.size()) + " Warning event(s) on the Job";
  r.fault = kept.back()->reason + ": " + kept.back()->note;
  r.category = FailureCategory::Environment;
  r.component = "Kubernetes";
  r.module = "events";
  r.risk = Risk::Low;
  r.solution = "kubectl describe job: the events say what the Job controller and respool did.";
  const std::size_t first = kept.size() > kKeyLines ? kept.size() - kKeyLines : 0;
  for (std::size_t i = first; i < kept.size(); ++i)
    r.key_lines.push_back({"", kept[i]->time, kept[i]->reason + ": " + kept[i]->note});
  out.push_back(std::move(r));
}

}  // namespace

std::vector<DiagnosisResult> standard_results(const JobEvidence& e,
                                              const FailureCatalogue* catalogue) {
  std::vector<DiagnosisResult> out;
  add_code_errors(e, catalogue, out);
  add_node_findings(e, out);
  for (const RunningRecord& record : e.records) {
    if (!record.end_at) continue;
    std::vector<NodeFinding> findings;
    for (const NodeEvidence& n : e.nodes)
      if (n.name == fault_node(record)) findings = n.findings;
    if (auto r = fault_restart_result(record, findings)) out.push_back(std::move(*r));
  }
  add_operations(e, out);
  add_warnings(e, out);
  order_results(out);
  return out;
}

}  // namespace respool::policy
