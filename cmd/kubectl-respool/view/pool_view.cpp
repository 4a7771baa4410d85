#include "cmd/kubectl-respool/view/pool_view.hpp"

#include <algorithm>

#include "apimachinery/time.hpp"
#include "cmd/kubectl-respool/view/nodes_view.hpp"
#include "cmd/kubectl-respool/view/object_read.hpp"

namespace respool::kubectl {
namespace {

using namespace read;

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
    NodeInfo info = node_state(node);
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

}  // namespace

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

}  // namespace respool::kubectl
