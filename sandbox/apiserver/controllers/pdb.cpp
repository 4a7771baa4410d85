#include "sandbox/apiserver/controllers/pdb.hpp"

#include <set>

#include "apimachinery/time.hpp"
#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox {

long scaled_value(const Json& value, long total) {
  if (value.is_number_integer()) return static_cast<long>(value.get<long long>());
  if (!value.is_string()) return -1;
  std::string s = value.get<std::string>();
  if (s.empty() || s.back() != '%') return -1;
  long pct = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
    pct = pct * 10 + (s[i] - '0');
    if (pct > 1'000'000) return -1;
  }
  return (pct * total + 99) / 100;
}

Json pdb_status(const Json& pdb, const std::vector<const Json*>& pods, runtime::TimePoint now) {
  const Json spec = pdb.value("spec", Json::object());
  Json old = pdb.value("status", Json::object());
  if (!old.is_object()) old = Json::object();
  long expected = static_cast<long>(pods.size());
  long desired = 0;
  if (spec.contains("maxUnavailable") && !spec["maxUnavailable"].is_null()) {
    long max_unavailable = scaled_value(spec["maxUnavailable"], expected);
    desired = std::max(0L, expected - std::max(0L, max_unavailable));
  } else if (spec.contains("minAvailable") && !spec["minAvailable"].is_null()) {
    desired = std::max(0L, scaled_value(spec["minAvailable"], expected));
  }

  // Evictions not yet seen through: kept while the pod exists, for at most two minutes.
  Json disrupted = Json::object();
  std::set<std::string> names;
  for (const Json* p : pods)
    names.insert(object_name(*p));
  if (old.contains("disruptedPods") && old["disruptedPods"].is_object()) {
    for (auto it = old["disruptedPods"].begin(); it != old["disruptedPods"].end(); ++it) {
      auto when = it.value().is_string() ? apimachinery::parse_time(it.value().get<std::string>())
                                         : std::nullopt;
      if (!names.count(it.key()) || !when) continue;
      if (now - *when > std::chrono::minutes(2)) continue;
      disrupted[it.key()] = it.value();
    }
  }
  long healthy = 0;
  for (const Json* p : pods) {
    if (disrupted.contains(object_name(*p))) continue;
    if (pod_healthy(*p)) ++healthy;
  }
  long allowed = std::max(0L, healthy - desired);

  Json status = Json::object();
  status["observedGeneration"] = pdb["metadata"].value("generation", 1);
  if (!disrupted.empty()) status["disruptedPods"] = disrupted;
  status["disruptionsAllowed"] = allowed;
  status["currentHealthy"] = healthy;
  status["desiredHealthy"] = desired;
  status["expectedPods"] = expected;
  bool ok = allowed > 0;
  Json condition = {{"type", "DisruptionAllowed"},
                    {"status", ok ? "True" : "False"},
                    {"reason", ok ? "SufficientPods" : "InsufficientPods"},
                    {"message", ""},
                    {"observedGeneration", status["observedGeneration"]},
                    {"lastTransitionTime", apimachinery::format_time(now)}};
  if (old.contains("conditions") && old["conditions"].is_array()) {
    for (const Json& c : old["conditions"]) {
      if (c.is_object() && c.value("type", std::string()) == "DisruptionAllowed" &&
          Json(c.value("status", std::string())) == condition["status"]) {
        condition["lastTransitionTime"] = c.value("lastTransitionTime", Json());
      }
    }
  }
  status["conditions"] = Json::array({condition});
  return status;
}

namespace {

std::optional<kube::LabelSelector> pdb_selector(const Json& pdb) {
  const Json spec = pdb.value("spec", Json::object());
  if (!spec.is_object() || !spec.contains("selector") || spec["selector"].is_null()) {
    return std::nullopt;  // policy/v1: a null selector selects no pods
  }
  auto parsed = kube::LabelSelector::from_json(spec["selector"]);
  if (!parsed) return std::nullopt;
  return *parsed;
}

Json labels_of(const Json& obj) {
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) return Json::object();
  return obj["metadata"].value("labels", Json::object());
}

}  // namespace

void Engine::refresh_pdbs(const std::string& ns, const Json* before_labels, const Json* after) {
  TypePtr pdbs = registry_.find("policy", "v1", "poddisruptionbudgets");
  auto coll = store_.find(pdbs->storage);
  if (!coll) return;
  std::vector<std::string> keys;
  std::string prefix = ns + "/";
  for (auto it = coll->items.lower_bound(prefix);
       it != coll->items.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    auto selector = pdb_selector(*it->second.obj());
    if (!selector) continue;
    bool hit = (before_labels && selector->matches(*before_labels)) ||
               (after && selector->matches(labels_of(*after)));
    if (hit) keys.push_back(it->first);
  }
  for (const std::string& key : keys)
    refresh_pdb(key);
}

void Engine::refresh_pdb(const std::string& key) {
  TypePtr pdbs = registry_.find("policy", "v1", "poddisruptionbudgets");
  TypePtr pods = registry_.find("", "v1", "pods");
  const StoredObject* pdb = store_.get(pdbs->storage, key);
  if (!pdb) return;
  const auto budget = pdb->obj();
  std::string ns = object_namespace(*budget);
  std::vector<const Json*> matching;
  std::vector<std::shared_ptr<const Json>> keep;
  if (auto selector = pdb_selector(*budget)) {
    if (auto coll = store_.find(pods->storage)) {
      std::string prefix = ns + "/";
      for (auto it = coll->items.lower_bound(prefix);
           it != coll->items.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
        if (selector->matches(it->second.index ? it->second.index->labels
                                               : labels_of(*it->second.obj()))) {
          keep.push_back(it->second.obj());
          matching.push_back(keep.back().get());
        }
      }
    }
  }
  Json status = pdb_status(*budget, matching, clock_.now());
  if (status == budget->value("status", Json())) return;
  Json updated = *budget;
  updated["status"] = std::move(status);
  commit_put(*pdbs, key, std::move(updated));
}

bool pod_healthy(const Json& pod) {
  if (!pod.is_object()) return false;
  const Json& meta = pod.value("metadata", Json::object());
  if (meta.is_object() && meta.contains("deletionTimestamp") &&
      !meta["deletionTimestamp"].is_null()) {
    return false;
  }
  const Json& status = pod.value("status", Json::object());
  if (!status.is_object() || status.value("phase", std::string()) != "Running") return false;
  if (!status.contains("conditions") || !status["conditions"].is_array()) return false;
  for (const Json& c : status["conditions"]) {
    if (c.is_object() && c.value("type", std::string()) == "Ready") {
      return c.value("status", std::string()) == "True";
    }
  }
  return false;
}

}  // namespace respool::sandbox
