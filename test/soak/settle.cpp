#include "test/soak/settle.hpp"

#include <cstdio>
#include <set>
#include <stdexcept>
#include <thread>

#include "sandbox/apiserver/handlers/request_counts.hpp"
#include "test/soak/leadership.hpp"

namespace respool::soak {

namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

std::string name_of(const Json& o) {
  return o.value("metadata", Json::object()).value("name", "");
}

bool deleting(const Json& o) {
  return o.value("metadata", Json::object()).contains("deletionTimestamp");
}

void say(const std::string& what) {
  std::printf("respool-soak: %s\n", what.c_str());
  std::fflush(stdout);
}

Json without_managed_fields(Json o) {
  if (o.contains("metadata")) o["metadata"].erase("managedFields");
  return o;
}

// What a run that did not end leaves to look at, before the sandbox goes: every NodeOperation
// that has not ended, the nodes they name or whose driver upgrade has not ended (with the pods
// on them) and the pools of both, one JSON line each.
void say_what_did_not_end(const Snapshot& s, kube::Client& client) {
  std::set<std::string> nodes, pools;
  for (const Json& op : s.operations) {
    const std::string phase = op.value("status", Json::object()).value("phase", "");
    if (phase == "Succeeded" || phase == "Failed" || phase == "Rejected" || phase == "Previewed")
      continue;
    say("did not end: " + without_managed_fields(op).dump());
    const Json spec = op.value("spec", Json::object());
    for (const Json& n : spec.value("nodes", Json::array()))
      if (n.is_string()) nodes.insert(n.get<std::string>());
    pools.insert(spec.value("pool", ""));
  }
  // A pool that did not settle: its status, and below its nodes and their pods.
  std::set<std::string> unsettled;
  for (const Json& p : s.pools) {
    const Json status = p.value("status", Json::object());
    if (status.value("phase", "") == "Running") continue;
    say("pool did not settle: " + name_of(p) + " " + status.dump());
    unsettled.insert(name_of(p));
  }
  for (const Json& n : s.nodes) {
    const Json labels = n.value("metadata", Json::object()).value("labels", Json::object());
    const std::string state = labels.value("respool.io/driver-upgrade-state", "");
    if (nodes.contains(name_of(n)) || unsettled.contains(labels.value("respool.io/pool", "")) ||
        (!state.empty() && state != "upgrade-done" && state != "upgrade-failed")) {
      nodes.insert(name_of(n));
      pools.insert(labels.value("respool.io/pool", ""));
      say("node: " + without_managed_fields(n).dump());
    }
  }
  for (const auto& node : nodes) {
    kube::ListOptions on_node;
    on_node.field_selector = "spec.nodeName=" + node;
    auto pods = client.list(kube::resources::pods, "", on_node);
    if (!pods) continue;
    for (const Json& pod : (*pods)["items"]) {
      say("pod on " + node + ": " + name_of(pod) + " " +
          pod.value("status", Json::object()).dump());
    }
  }
  for (const Json& p : s.pools) {
    if (pools.contains(name_of(p)))
      say("pool: " + name_of(p) + " spec " + p.value("spec", Json::object()).dump() + " status " +
          p.value("status", Json::object()).dump());
  }
}

}  // namespace

void wait_for_nodes(const Monitor& monitor, std::size_t count) {
  const auto deadline = Steady::now() + 60s;
  while (monitor.snapshot().nodes.size() < count) {
    if (Steady::now() > deadline) throw std::runtime_error("the sandbox's nodes never registered");
    std::this_thread::sleep_for(100ms);
  }
}

std::vector<std::string> not_ended(const Snapshot& s, std::vector<std::string>* waiting) {
  static const std::set<std::string> allowed_waits = {"ReplaceLimitPerDay", "NoIdleNode",
                                                      "WaitingForIdleNode"};
  std::vector<std::string> out;
  for (const Json& p : s.pools) {
    const Json status = p.value("status", Json::object());
    const std::string phase = status.value("phase", "");
    const int queuing = status.value("nodes", Json::object()).value("queuing", 0);
    if (deleting(p))
      out.push_back("pool " + name_of(p) + " is still being deleted");
    else if (phase != "Running" && queuing == 0)
      out.push_back("pool " + name_of(p) + " is " + phase);
  }
  for (const Json& op : s.operations) {
    const Json status = op.value("status", Json::object());
    const std::string phase = status.value("phase", "");
    if (phase == "Succeeded" || phase == "Failed" || phase == "Rejected" || phase == "Previewed")
      continue;
    if (!deleting(op) && allowed_waits.contains(status.value("reason", ""))) {
      if (waiting) waiting->push_back(name_of(op));
      continue;
    }
    out.push_back("NodeOperation " + name_of(op) + " is " + (phase.empty() ? "new" : phase) + " (" +
                  status.value("reason", "") + ")");
  }
  for (const Json& n : s.nodes) {
    const std::string state =
        n["metadata"].value("labels", Json::object()).value("respool.io/driver-upgrade-state", "");
    if (!state.empty() && state != "upgrade-done" && state != "upgrade-failed")
      out.push_back("node " + name_of(n) + "'s driver upgrade is at " + state);
  }
  return out;
}

std::vector<Breach> settle_and_end(Monitor& monitor, kube::Client& client, Replicas& replicas,
                                   std::chrono::nanoseconds settle) {
  (void)replicas;
  const auto began = Steady::now();
  std::vector<std::string> left, waiting;
  for (;;) {
    waiting.clear();
    left = not_ended(monitor.snapshot(), &waiting);
    if (left.empty() || Steady::now() - began > settle) break;
    std::this_thread::sleep_for(1s);
  }
  std::vector<Breach> out;
  for (const auto& what : left)
    out.push_back({"ended", what + " after the settle time"});
  if (!out.empty()) {
    say_what_did_not_end(monitor.snapshot(), client);
    return out;
  }
  say("everything ended in " +
      std::to_string(
          std::chrono::duration_cast<std::chrono::seconds>(Steady::now() - began).count()) +
      " s; " + std::to_string(waiting.size()) + " operations wait as N1 or N3 allow: deleted");
  for (const auto& op : waiting)
    (void)client.remove(kube::resources::nodeoperations, "", op);
  const auto deadline = Steady::now() + 60s;
  for (;;) {
    std::set<std::string> present;
    for (const Json& op : monitor.snapshot().operations)
      present.insert(name_of(op));
    std::vector<std::string> stuck;
    for (const auto& op : waiting)
      if (present.contains(op)) stuck.push_back(op);
    left = not_ended(monitor.snapshot(), nullptr);
    if (stuck.empty() && left.empty()) return out;
    if (Steady::now() > deadline) {
      for (const auto& op : stuck)
        out.push_back({"ended", "NodeOperation " + op + " deleted but still there after 60 s"});
      for (const auto& what : left)
        out.push_back({"ended", what + " after its operations were deleted"});
      return out;
    }
    std::this_thread::sleep_for(500ms);
  }
}

namespace {

// Every node the soak saw join or leave a pool has its audit record (addClusterNode or
// deleteClusterNode, the pool as resource) in some run's audit log.
// Every pool that got nodes has its CreatePoolV2, and every pool whose deletion completed its
// DeletePoolV2.
std::vector<Breach> audit_breaches(const Monitor& monitor,
                                   const std::vector<AuditRecord>& records) {
  const NodeHistory& history = monitor.node_history();
  std::set<std::string> audited;
  for (const auto& r : records) {
    const Json line = Json::parse(r.line, nullptr, false);
    if (!line.is_object()) continue;
    audited.insert(line.value("operation", "") + " " + line.value("resource", "") + "/" +
                   line.value("node", ""));
    audited.insert(line.value("operation", "") + " " + line.value("resource", ""));
  }
  std::vector<Breach> out;
  std::set<std::string> pools;
  for (const auto& [pool, node] : history.joins())
    pools.insert(pool);
  for (const auto& pool : pools)
    if (!audited.contains("CreatePoolV2 " + pool))
      out.push_back({"audit", "no audit record CreatePoolV2 " + pool});
  for (const auto& pool : monitor.deleted_pools())
    if (!audited.contains("DeletePoolV2 " + pool))
      out.push_back({"audit", "no audit record DeletePoolV2 " + pool});
  auto need = [&](const char* operation,
                  const std::vector<std::pair<std::string, std::string>>& seen) {
    for (const auto& [pool, node] : seen) {
      const std::string key = std::string(operation) + " " + pool + "/" + node;
      if (!audited.contains(key)) out.push_back({"audit", "no audit record " + key});
    }
  };
  need("addClusterNode", history.joins());
  need("deleteClusterNode", history.leaves());
  return out;
}

// The fresh operator's writes once settled: none but its Lease and events.
std::vector<Breach> fresh_operator(Monitor& monitor, Replicas& replicas,
                                   sandbox::ApiServer& server) {
  replicas.start(0);
  const auto deadline = Steady::now() + 60s;
  for (;;) {
    const auto terms = monitor.lease_history().terms();
    const std::string holder = terms.empty() ? "" : terms.back().holder;
    if (!holder.empty() && replicas.slot_of(holder) == 0) break;
    if (Steady::now() > deadline) return {{"converged", "the fresh operator never took the Lease"}};
    std::this_thread::sleep_for(250ms);
  }
  std::this_thread::sleep_for(10s);  // its first reconciles: a converged cluster needs none
  server.request_counts().reset();
  std::this_thread::sleep_for(15s);
  std::string writes;
  for (const auto& [key, n] : server.request_counts().snapshot()) {
    if (key.agent != "respool" || !sandbox::is_write_verb(key.verb)) continue;
    if (key.resource == "leases" || key.resource == "events") continue;
    writes += " " + key.verb + " " + key.resource + " x" + std::to_string(n) + ";";
  }
  if (writes.empty()) return {};
  return {{"converged", "a fresh operator found work left in the settled cluster:" + writes}};
}

}  // namespace

std::vector<Breach> check_the_end(Monitor& monitor, kube::Client& client, Replicas& replicas,
                                  sandbox::ApiServer& server) {
  std::vector<Breach> out = monitor.check_final();
  for (const auto& crash : replicas.crashes())
    out.push_back({"crash", crash});
  monitor.stop_checking();
  replicas.stop_all();
  std::vector<AuditRecord> records;
  for (const auto& run : replicas.runs()) {
    auto read = read_audit(run.audit.string(), run.identity);
    records.insert(records.end(), read.begin(), read.end());
  }
  auto audits = audit_breaches(monitor, records);
  out.insert(out.end(), audits.begin(), audits.end());
  auto leaders = leadership_breaches(monitor.lease_history(), records, 1500ms);
  out.insert(out.end(), leaders.begin(), leaders.end());
  say(std::to_string(records.size()) + " audit records of " +
      std::to_string(replicas.runs().size()) + " runs checked; " +
      std::to_string(monitor.lease_history().terms().size()) + " Lease terms");
  if (auto differs = monitor.cache_difference(client); !differs.empty())
    out.push_back({"cache", "the soak's watches and the server differ: " + differs});
  auto fresh = fresh_operator(monitor, replicas, server);
  out.insert(out.end(), fresh.begin(), fresh.end());
  return out;
}

}  // namespace respool::soak
