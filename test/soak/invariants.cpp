#include "test/soak/invariants.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "apimachinery/time.hpp"

namespace respool::soak {

namespace {

const Json kEmpty = Json::object();

const Json& field(const Json& o, const char* key) {
  if (!o.is_object()) return kEmpty;
  auto it = o.find(key);
  return it == o.end() ? kEmpty : *it;
}

std::string text(const Json& o, const char* key) {
  const Json& v = field(o, key);
  return v.is_string() ? v.get<std::string>() : "";
}

std::string name_of(const Json& o) {
  return text(field(o, "metadata"), "name");
}

std::string label(const Json& o, const char* key) {
  return text(field(field(o, "metadata"), "labels"), key);
}

std::string annotation(const Json& o, const char* key) {
  return text(field(field(o, "metadata"), "annotations"), key);
}

const Json& ledger(const Json& pool) {
  return field(field(pool, "status"), "nodeOperations");
}

bool in_flight(const std::string& state) {
  static const std::set<std::string> states = {"cordon-required",       "wait-for-jobs-required",
                                               "pod-deletion-required", "driver-restart-required",
                                               "validation-required",   "uncordon-required"};
  return states.contains(state);
}

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The managers of the node's spec and metadata (managedFields), the evidence of who left a mark.
std::string who_wrote(const Json& node) {
  std::string out = "managers:";
  for (const Json& entry : field(field(node, "metadata"), "managedFields")) {
    const Json& fields = field(entry, "fieldsV1");
    std::string owns;
    if (field(fields, "f:spec").contains("f:unschedulable")) owns += " spec.unschedulable";
    if (field(fields, "f:spec").contains("f:taints")) owns += " spec.taints";
    if (!owns.empty())
      out += " " + text(entry, "manager") + " (" + text(entry, "operation") + "," + owns + ")";
  }
  const Json& m = field(node, "metadata");
  return out + "; labels " + field(m, "labels").dump() + "; annotations " +
         field(m, "annotations").dump();
}

}  // namespace

int rounded_down_limit(double share, int total) {
  return std::max(1, static_cast<int>(std::floor(share * total + 1e-9)));
}

int rounded_up_batch(double share, int total) {
  return std::max(1, static_cast<int>(std::ceil(share * total - 1e-9)));
}

int int_or_percent(const Json& value, int total, bool up) {
  if (value.is_number_integer()) return value.get<int>();
  if (!value.is_string()) return 1;
  std::string s = value.get<std::string>();
  if (s.empty() || s.back() != '%') return std::atoi(s.c_str());
  const double share = std::atof(s.substr(0, s.size() - 1).c_str()) / 100.0;
  return up ? rounded_up_batch(share, total) : rounded_down_limit(share, total);
}

int desired_nodes(const Json& pool) {
  int total = 0;
  for (const auto& r : field(field(pool, "spec"), "resources")) {
    const Json& zones = field(r, "zones");
    if (zones.is_array() && !zones.empty()) {
      for (const auto& z : zones)
        total += field(z, "count").is_number() ? z["count"].get<int>() : 0;
    } else if (field(r, "count").is_number()) {
      total += r["count"].get<int>();
    }
  }
  return total;
}

int Invariants::largest_recent_size(const std::string& pool, int now_size, Clock::time_point now) {
  auto& seen = sizes_[pool];
  seen.emplace_back(now, now_size);
  std::erase_if(seen, [&](const auto& s) { return s.first < now - resize_slack_; });
  int largest = now_size;
  for (const auto& [at, size] : seen)
    largest = std::max(largest, size);
  return largest;
}

std::vector<Breach> Invariants::check(const Snapshot& s) {
  std::vector<Breach> out;
  for (const Json& pool : s.pools)
    replacement_limits(pool, s, out);
  reset_limits(s, out);
  upgrade_batches(s, out);
  claims(s, out);
  records(s, out);
  return out;
}

// N1 and N2, from the pool's ledger (status.nodeOperations): a start is a breach when, with it,
// the count passes the limit.
void Invariants::replacement_limits(const Json& pool, const Snapshot& s, std::vector<Breach>& out) {
  const std::string name = name_of(pool);
  const std::string uid = text(field(pool, "metadata"), "uid");
  const int size = largest_recent_size(name, desired_nodes(pool), s.now);
  std::set<std::string> active;
  for (const Json& a : field(ledger(pool), "active")) {
    if (text(a, "type") == "Replace") active.insert(text(a, "operation") + "/" + text(a, "node"));
  }
  auto& before = active_replacements_[name];
  const int concurrent = rounded_down_limit(shares_.concurrent, size);
  for (const auto& key : active) {
    if (before.contains(key) || int(active.size()) <= concurrent) continue;
    out.push_back({"N2", "pool " + name + ": " + std::to_string(active.size()) +
                             " nodes being replaced at once with " + key + " (limit " +
                             std::to_string(concurrent) + " of " + std::to_string(size) +
                             " nodes): " + joined(active)});
    break;
  }
  before = active;
  // N1: every start this soak saw, kept even where the ledger forgets it.
  auto& tally = started_[uid];
  const int per_day = rounded_down_limit(shares_.per_day, size);
  for (const Json& r : field(ledger(pool), "replacements")) {
    const std::string key = text(r, "operation") + "/" + text(r, "node");
    if (tally.contains(key)) continue;
    tally[key] = apimachinery::parse_time(text(r, "startTime")).value_or(s.now);
    int in_window = 0;
    for (const auto& [k, at] : tally)
      in_window += at > s.now - std::chrono::hours(24);
    if (in_window > per_day) {
      out.push_back({"N1", "pool " + name + ": " + std::to_string(in_window) +
                               " replacements started in 24 hours with " + key + " (limit " +
                               std::to_string(per_day) + " of " + std::to_string(size) +
                               " nodes)"});
    }
  }
}

// N7: a Reset's nodes in the ledger at once, against its own maxUnavailable.
void Invariants::reset_limits(const Snapshot& s, std::vector<Breach>& out) {
  std::map<std::string, std::set<std::string>> active;
  for (const Json& pool : s.pools) {
    for (const Json& a : field(ledger(pool), "active")) {
      if (text(a, "type") == "Reset") active[text(a, "operation")].insert(text(a, "node"));
    }
  }
  for (const Json& op : s.operations) {
    const std::string name = name_of(op);
    const Json& spec = field(op, "spec");
    if (text(spec, "type") != "Reset") continue;
    const int nodes = field(spec, "nodes").is_array() ? int(spec["nodes"].size()) : 0;
    const Json& max = field(field(spec, "reset"), "maxUnavailable");
    const int limit = max.is_null() || max.empty() ? 1 : int_or_percent(max, nodes, false);
    const auto& now = active[name];
    const auto& before = active_resets_[name];
    bool grew = std::any_of(now.begin(), now.end(), [&](auto& n) { return !before.contains(n); });
    if (grew && int(now.size()) > std::max(1, limit)) {
      out.push_back({"N7", "reset " + name + ": " + std::to_string(now.size()) +
                               " of its nodes at once (limit " + std::to_string(limit) +
                               "): " + joined(now)});
    }
  }
  active_resets_ = std::move(active);
}

// D2: nodes between cordon and uncordon of the pool's driver upgrade.
void Invariants::upgrade_batches(const Snapshot& s, std::vector<Breach>& out) {
  std::map<std::string, const Json*> pools;
  for (const Json& p : s.pools)
    pools[name_of(p)] = &p;
  std::map<std::string, std::set<std::string>> flying;
  for (const Json& n : s.nodes) {
    const std::string pool = label(n, "respool.io/pool");
    if (!pool.empty() && in_flight(label(n, "respool.io/driver-upgrade-state")))
      flying[pool].insert(name_of(n));
  }
  for (const auto& [pool, nodes] : flying) {
    auto it = pools.find(pool);
    if (it == pools.end()) continue;
    const Json& max = field(field(field(*it->second, "spec"), "driver"), "upgrade");
    const Json& unavailable = field(max, "maxUnavailable");
    if (unavailable.is_null() || unavailable.empty()) continue;  // all at once: no batch
    const int size = largest_recent_size(pool, desired_nodes(*it->second), s.now);
    const int batch = int_or_percent(unavailable, size, true);
    const auto& before = in_flight_[pool];
    bool grew =
        std::any_of(nodes.begin(), nodes.end(), [&](auto& n) { return !before.contains(n); });
    if (grew && int(nodes.size()) > batch) {
      out.push_back({"D2", "pool " + pool + ": " + std::to_string(nodes.size()) +
                               " nodes upgrading at once (batch " + std::to_string(batch) + " of " +
                               std::to_string(size) + "): " + joined(nodes)});
    }
  }
  in_flight_ = std::move(flying);
}

// A retired node never joins a pool again (N9). That a node never goes from one pool to another
// is NodeHistory's, from every version of it.
void Invariants::claims(const Snapshot& s, std::vector<Breach>& out) {
  for (const Json& n : s.nodes) {
    const std::string node = name_of(n);
    const std::string pool = label(n, "respool.io/pool");
    if (!pool.empty() && !label(n, "respool.io/retired").empty() &&
        reported_.insert("retired " + node).second) {
      out.push_back({"claim", "retired node " + node + " is in pool " + pool});
    }
  }
}

void Invariants::records(const Snapshot& s, std::vector<Breach>& out) {
  std::set<std::string> operations;
  for (const Json& op : s.operations)
    operations.insert(name_of(op));
  std::set<std::string> now_unexplained;
  for (const Json& n : s.nodes) {
    for (const auto& mark : unexplained_marks(n, operations)) {
      const std::string key = name_of(n) + ": " + mark;
      now_unexplained.insert(key);
      auto [it, fresh] = unexplained_since_.emplace(key, s.now);
      if (!fresh && s.now - it->second > grace_ && reported_.insert(key).second) {
        out.push_back({"record", key + " for more than " + std::to_string(grace_.count()) + " s; " +
                                     who_wrote(n)});
      }
    }
  }
  std::erase_if(unexplained_since_,
                [&](const auto& e) { return !now_unexplained.contains(e.first); });
}

std::vector<Breach> Invariants::check_final(const Snapshot& s) const {
  std::vector<Breach> out;
  std::set<std::string> operations, pools;
  for (const Json& op : s.operations)
    operations.insert(name_of(op));
  for (const Json& p : s.pools)
    pools.insert(name_of(p));
  for (const Json& n : s.nodes) {
    const std::string node = name_of(n);
    for (const auto& mark : unexplained_marks(n, operations))
      out.push_back({"record", node + ": " + mark + " at the end"});
    const std::string pool = label(n, "respool.io/pool");
    if (!pool.empty() && !pools.contains(pool))
      out.push_back({"record", node + " is still labelled for pool " + pool + ", which is gone"});
    const std::string op = annotation(n, "respool.io/node-operation");
    if (!op.empty() && !operations.contains(op))
      out.push_back(
          {"record", node + " is still marked in NodeOperation " + op + ", which is gone"});
  }
  return out;
}

std::vector<std::string> unexplained_marks(const Json& node,
                                           const std::set<std::string>& operations) {
  std::vector<std::string> out;
  const std::string pool = label(node, "respool.io/pool");
  const std::string upgrade = label(node, "respool.io/driver-upgrade-state");
  const std::string operation = annotation(node, "respool.io/node-operation");
  const bool retired = !label(node, "respool.io/retired").empty();
  std::set<std::string> health;
  std::stringstream codes(annotation(node, "respool.io/health-taints"));
  for (std::string code; std::getline(codes, code, ',');)
    health.insert(code);
  const std::string simulated = annotation(node, "sandbox.respool.io/fault-applied");
  for (const Json& t : field(field(node, "spec"), "taints")) {
    const std::string key = text(t, "key");
    bool explained = true;
    if (key == "respool.io/pool") {
      explained = !pool.empty() && text(t, "value") == pool;
    } else if (key == "respool.io/resetting") {
      explained = operations.contains(operation) &&
                  annotation(node, "respool.io/node-operation-type") == "Reset";
    } else if (key == "respool.io/releasing") {
      explained = !pool.empty();
    } else if (key == "respool.io/retired") {
      explained = retired;
    } else if (key.starts_with("isolation.respool.io/")) {
      const std::string code = key.substr(std::string("isolation.respool.io/").size());
      if (code == "A200008")
        explained = !pool.empty();
      else if (code == "A200001" || code == "A200002")
        explained = !upgrade.empty() && !pool.empty();
      else
        explained = health.contains(code) || simulated.find(code) != std::string::npos;
    }
    if (!explained) out.push_back("taint " + key + " without its record");
  }
  if (field(field(node, "spec"), "unschedulable") == true) {
    const std::string by = annotation(node, "respool.io/cordoned-by");
    const bool explained = retired || !annotation(node, "respool.io/cordon-reason").empty() ||
                           (by == "driver-upgrade" && !upgrade.empty()) ||
                           (!by.empty() && operations.contains(by));
    if (!explained) out.push_back("cordoned (cordoned-by \"" + by + "\") without its record");
  }
  return out;
}

}  // namespace respool::soak
