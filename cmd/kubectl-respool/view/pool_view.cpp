#include "cmd/kubectl-respool/view/pool_view.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "apimachinery/time.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::kubectl {
namespace {

const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(key);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}
std::string str(const Json& j, std::initializer_list<const char*> path) {
  const Json& v = at(j, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}
std::string num(const Json& j, std::initializer_list<const char*> path, bool zero = true) {
  const Json& v = at(j, path);
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return zero ? "0" : "";
}
const Json& items(const Json& list) {
  static const Json kEmpty = Json::array();
  const Json& v = at(list, {"items"});
  return v.is_array() ? v : kEmpty;
}

struct NodeInfo {
  std::string state;
  std::vector<std::string> codes;
};
NodeInfo classify(const Json& node) {
  // No catalog here: the accelerator-count check (F5) is the operator's, the taints are not.
  auto c = policy::classify_node(policy::node_view_from_json(node), nullptr);
  return {std::string(policy::to_string(c.state)), c.codes};
}

int integer(const Json& j, std::initializer_list<const char*> path) {
  const Json& v = at(j, path);
  return v.is_number_integer() ? v.get<int>() : 0;
}

// "535.104.05", or "535.104.05->550.54.15" while an upgrade targets another version.
std::string driver_version(const Json& pool) {
  const Json& d = at(pool, {"status", "driver"});
  std::string now = str(d, {"gpuVersion"});
  if (now.empty()) now = str(d, {"npuVersion"});
  std::string target = str(d, {"target", "gpuVersion"});
  if (target.empty()) target = str(d, {"target", "npuVersion"});
  if (target.empty() || target == now) return now;
  return (now.empty() ? "?" : now) + "->" + target;
}

// "2/8": nodes upgraded of those the upgrade counts; "" without an upgrade.
std::string driver_progress(const Json& pool) {
  const Json& n = at(pool, {"status", "driver", "nodes"});
  if (!n.is_object()) return "";
  int total = integer(n, {"upgraded"}) + integer(n, {"upgrading"}) + integer(n, {"pending"}) +
              integer(n, {"failed"});
  return std::to_string(integer(n, {"upgraded"})) + "/" + std::to_string(total);
}

// "3/8": replacements started in the 24-hour window of the limit (N1).
std::string replacements(const Json& pool) {
  const Json& b = at(pool, {"status", "nodeOperations"});
  if (!b.is_object()) return "";
  return num(b, {"replacementsInWindow"}) + "/" + num(b, {"replacementLimit"});
}

std::string next_slot(const Json& pool, Clock::time_point now) {
  const Json& t = at(pool, {"status", "nodeOperations", "nextReplacementTime"});
  if (!t.is_string()) return "";
  auto when = apimachinery::parse_time(t.get<std::string>());
  if (!when) return "";
  return "in " + human_duration(std::chrono::duration_cast<std::chrono::seconds>(*when - now));
}

std::string line(const std::string& key, const std::string& value) {
  std::string label = key + ":";
  return label + std::string(label.size() < 16 ? 16 - label.size() : 1, ' ') +
         (value.empty() ? "<none>" : value) + "\n";
}

std::string nodes_line(const Json& pool) {
  const Json& n = at(pool, {"status", "nodes"});
  std::string out;
  for (const char* key : {"total", "available", "abnormal", "creating", "queuing", "deleting"})
    out += (out.empty() ? "" : ", ") + std::string(key) + " " + num(n, {key});
  return out;
}

std::string budget_line(const Json& pool, Clock::time_point now) {
  const Json& b = at(pool, {"status", "nodeOperations"});
  if (!b.is_object()) return "";
  std::string out = num(b, {"replacementsInWindow"}) + " of " + num(b, {"replacementLimit"}) +
                    " replacements in the last 24h, " + num(b, {"replacing"}) +
                    " replacing (at most " + num(b, {"concurrentReplacementLimit"}) +
                    " at once), " + num(b, {"resetting"}) + " resetting";
  std::string slot = next_slot(pool, now);
  if (!slot.empty())
    out += "; next slot frees " + slot + " (" + str(b, {"nextReplacementTime"}) + ")";
  return out;
}

std::string driver_line(const Json& pool) {
  const Json& n = at(pool, {"status", "driver", "nodes"});
  std::string out = driver_version(pool);
  if (n.is_object())
    out += (out.empty() ? "" : ": ") + num(n, {"upgraded"}) + " upgraded, " +
           num(n, {"upgrading"}) + " upgrading, " + num(n, {"pending"}) + " pending, " +
           num(n, {"failed"}) + " failed";
  for (const Json& f : at(pool, {"status", "driver", "failedNodes"}).is_array()
                           ? at(pool, {"status", "driver", "failedNodes"})
                           : Json::array())
    out += "\n  failed: " + str(f, {"name"}) + " (" + str(f, {"reason"}) + ")";
  return out;
}

Table faulty_nodes(const Json& nodes) {
  Table t{{"NODE", "STATE", "CODES"}, {}};
  for (const Json& node : items(nodes)) {
    NodeInfo info = classify(node);
    if (info.state == "Abnormal")
      t.rows.push_back({str(node, {"metadata", "name"}), info.state, join(info.codes)});
  }
  return t;
}

std::string indent(const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    out += "  " + text.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

// A pod's controlling owner as (kind, name); a bare pod is its own.
std::pair<std::string, std::string> owner_of(const Json& pod) {
  const Json& refs = at(pod, {"metadata", "ownerReferences"});
  if (refs.is_array())
    for (const Json& ref : refs)
      if (at(ref, {"controller"}) == true) return {str(ref, {"kind"}), str(ref, {"name"})};
  return {"Pod", str(pod, {"metadata", "name"})};
}

struct RunningJob {
  int pods = 0;
  long long priority = 0;
  Json since;  // the oldest pod's creation
};

std::map<std::tuple<std::string, std::string, std::string>, RunningJob> running_jobs(
    const Json& nodes, const Json& pods) {
  std::vector<std::string> pool_nodes;
  for (const Json& node : items(nodes))
    pool_nodes.push_back(str(node, {"metadata", "name"}));
  std::map<std::tuple<std::string, std::string, std::string>, RunningJob> jobs;
  for (const Json& pod : items(pods)) {
    auto node = policy::running_job_node(pod);
    if (!node || std::ranges::find(pool_nodes, *node) == pool_nodes.end()) continue;
    auto [kind, name] = owner_of(pod);
    RunningJob& job = jobs[{str(pod, {"metadata", "namespace"}), kind, name}];
    ++job.pods;
    const Json& priority = at(pod, {"spec", "priority"});
    if (priority.is_number_integer()) job.priority = priority.get<long long>();
    const Json& created = at(pod, {"metadata", "creationTimestamp"});
    if (job.since.is_null() || (created.is_string() && created < job.since)) job.since = created;
  }
  return jobs;
}

std::string operation_phase(const Json& operations, const std::string& op,
                            const std::string& node) {
  for (const Json& o : items(operations)) {
    if (str(o, {"metadata", "name"}) != op) continue;
    const Json& per_node = at(o, {"status", "nodes"});
    if (per_node.is_array())
      for (const Json& n : per_node)
        if (str(n, {"name"}) == node) return str(n, {"phase"});
    return str(o, {"status", "phase"});
  }
  return "";
}

}  // namespace

std::string age_since(const Json& time, Clock::time_point now) {
  if (!time.is_string()) return "";
  auto t = apimachinery::parse_time(time.get<std::string>());
  if (!t) return "";
  return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

}  // namespace respool::kubectl

namespace respool::kubectl {

Table pools_table(const Json& pools, bool wide, Clock::time_point now) {
  Table t{{"NAME", "PHASE", "AVAILABLE", "TOTAL", "ABNORMAL", "RUNNING", "PENDING", "REPLACEMENTS",
           "DRIVER", "UPGRADED", "AGE"},
          {}};
  if (wide) t.headers.insert(t.headers.end() - 1, {"CREATING", "QUEUING", "DELETING", "NEXT-SLOT"});
  for (const Json& p : items(pools)) {
    std::vector<std::string> row{str(p, {"metadata", "name"}),
                                 str(p, {"status", "phase"}),
                                 num(p, {"status", "nodes", "available"}),
                                 num(p, {"status", "nodes", "total"}),
                                 num(p, {"status", "nodes", "abnormal"}),
                                 num(p, {"status", "jobs", "running"}),
                                 num(p, {"status", "jobs", "pending"}),
                                 replacements(p),
                                 driver_version(p),
                                 driver_progress(p)};
    if (wide)
      row.insert(row.end(),
                 {num(p, {"status", "nodes", "creating"}), num(p, {"status", "nodes", "queuing"}),
                  num(p, {"status", "nodes", "deleting"}), next_slot(p, now)});
    row.push_back(age_since(at(p, {"metadata", "creationTimestamp"}), now));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string pool_page(const Json& pool, const Json& nodes, Clock::time_point now) {
  std::string out = line("Name", str(pool, {"metadata", "name"}));
  out += line("Phase", str(pool, {"status", "phase"}));
  out += line("Nodes", nodes_line(pool));
  Table faulty = faulty_nodes(nodes);
  out += line("Faulty nodes", faulty.rows.empty() ? "" : std::to_string(faulty.rows.size()));
  out += indent(render(faulty));
  out += line("Replacements", budget_line(pool, now));
  out += line("Driver", driver_line(pool));
  const Json& jobs = at(pool, {"status", "jobs"});
  out += line("Jobs", jobs.is_object() ? num(jobs, {"running"}) + " running, " +
                                             num(jobs, {"pending"}) + " pending"
                                       : "");
  out += line("Age", age_since(at(pool, {"metadata", "creationTimestamp"}), now));
  return out;
}

Table jobs_table(const Json& pool, const Json& nodes, const Json& pods, bool wide,
                 Clock::time_point now) {
  Table t{{"NAMESPACE", "NAME", "KIND", "STATUS", "POSITION", "PRIORITY", "PODS", "AGE"}, {}};
  if (wide) t.headers.push_back("WAITING-FOR");
  for (const auto& [key, job] : running_jobs(nodes, pods)) {
    const auto& [ns, kind, name] = key;
    t.rows.push_back({ns, name, kind, "Running", "", std::to_string(job.priority),
                      std::to_string(job.pods), age_since(job.since, now)});
  }
  const Json& queue = at(pool, {"status", "jobs", "queue"});
  for (const Json& q : queue.is_array() ? queue : Json::array()) {
    std::vector<std::string> row{str(q, {"namespace"}), str(q, {"name"}),
                                 str(q, {"kind"}),      "Pending",
                                 num(q, {"position"}),  num(q, {"priority"}),
                                 num(q, {"pods"}),      age_since(at(q, {"since"}), now)};
    if (wide) row.push_back(str(q, {"waitingFor"}));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Json jobs_data(const Json& pool, const Json& nodes, const Json& pods) {
  Json running = Json::array();
  for (const auto& [key, job] : running_jobs(nodes, pods)) {
    const auto& [ns, kind, name] = key;
    running.push_back({{"namespace", ns},
                       {"name", name},
                       {"kind", kind},
                       {"pods", job.pods},
                       {"priority", job.priority},
                       {"since", job.since}});
  }
  const Json& jobs = at(pool, {"status", "jobs"});
  return {{"pool", str(pool, {"metadata", "name"})},
          {"running", std::move(running)},
          {"jobs", jobs.is_object() ? jobs : Json::object()}};
}

Table nodes_table(const Json& nodes, const Json& operations, bool wide, Clock::time_point now) {
  Table t{{"NAME", "STATE", "CODES", "UPGRADE", "OPERATION", "AGE"}, {}};
  if (wide)
    t.headers.insert(t.headers.end() - 1,
                     {"OPERATION-PHASE", "DRIVER", "INSTANCE-TYPE", "ZONE", "REPLACEMENT-FOR"});
  for (const Json& node : items(nodes)) {
    NodeInfo info = classify(node);
    std::string name = str(node, {"metadata", "name"});
    std::string op = str(node, {"metadata", "annotations", "respool.io/node-operation"});
    std::string op_type = str(node, {"metadata", "annotations", "respool.io/node-operation-type"});
    std::vector<std::string> row{
        name, info.state, join(info.codes),
        str(node, {"metadata", "labels", "respool.io/driver-upgrade-state"}),
        op.empty() ? "" : (op_type.empty() ? op : op_type + "/" + op)};
    if (wide)
      row.insert(row.end(), {op.empty() ? "" : operation_phase(operations, op, name),
                             str(node, {"metadata", "labels", "respool.io/driver-version"}),
                             str(node, {"metadata", "labels", "node.kubernetes.io/instance-type"}),
                             str(node, {"metadata", "labels", "topology.kubernetes.io/zone"}),
                             str(node, {"metadata", "annotations", "respool.io/replacement-for"})});
    row.push_back(age_since(at(node, {"metadata", "creationTimestamp"}), now));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace respool::kubectl
