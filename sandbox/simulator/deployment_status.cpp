#include "sandbox/simulator/deployment_status.hpp"

#include <climits>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/deployment_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

std::int64_t sum_of(const std::vector<const Json*>& sets, std::string_view field) {
  std::int64_t total = 0;
  for (const Json* s : sets)
    if (s) total += int_at(*s, {"status", field}, 0);
  return total;
}

std::int64_t spec_replicas_of(const std::vector<const Json*>& sets) {
  std::int64_t total = 0;
  for (const Json* s : sets)
    if (s) total += int_at(*s, {"spec", "replicas"}, 1);
  return total;
}

void set_or_erase(Json& status, const char* key, std::int64_t value) {
  if (value == 0) {
    status.erase(key);
  } else {
    status[key] = value;
  }
}

// DeploymentProgressing: more updated or available replicas, or fewer old ones, than before.
bool deployment_progressing(const Json& d, const Json& next) {
  const Json& old = at_path(d, {"status"});
  const auto old_old = int_at(old, {"replicas"}, 0) - int_at(old, {"updatedReplicas"}, 0);
  const auto new_old = int_at(next, {"replicas"}, 0) - int_at(next, {"updatedReplicas"}, 0);
  return int_at(next, {"updatedReplicas"}, 0) > int_at(old, {"updatedReplicas"}, 0) ||
         new_old < old_old ||
         int_at(next, {"availableReplicas"}, 0) > int_at(old, {"availableReplicas"}, 0);
}

bool deployment_timed_out(const Json& d, const Json& next, TimePoint now) {
  if (!has_progress_deadline(d)) return false;
  const Json* cond = deployment_condition_of(next, "Progressing");
  if (!cond) return false;
  if (cond->value("reason", "") == "ProgressDeadlineExceeded") return true;
  auto from = apimachinery::parse_time(cond->value("lastUpdateTime", ""));
  if (!from) return false;
  return *from + std::chrono::seconds(int_at(d, {"spec", "progressDeadlineSeconds"}, 600)) < now;
}

}  // namespace

Json deployment_condition(const std::string& type, const std::string& status,
                          const std::string& reason, const std::string& message, TimePoint now) {
  const std::string t = apimachinery::format_time(now);
  return {{"type", type},     {"status", status},  {"lastUpdateTime", t}, {"lastTransitionTime", t},
          {"reason", reason}, {"message", message}};
}

const Json* deployment_condition_of(const Json& status, const std::string& type) {
  const Json& conditions = at_path(status, {"conditions"});
  if (!conditions.is_array()) return nullptr;
  for (const auto& c : conditions)
    if (c.is_object() && c.value("type", "") == type) return &c;
  return nullptr;
}

void remove_deployment_condition(Json& status, const std::string& type) {
  if (!status.contains("conditions") || !status["conditions"].is_array()) return;
  Json kept = Json::array();
  for (const auto& c : status["conditions"])
    if (c.value("type", "") != type) kept.push_back(c);
  if (kept.empty()) {
    status.erase("conditions");
  } else {
    status["conditions"] = kept;
  }
}

void set_deployment_condition(Json& status, Json condition) {
  const std::string type = condition.value("type", "");
  if (const Json* current = deployment_condition_of(status, type)) {
    if (current->value("status", "") == condition.value("status", "") &&
        current->value("reason", "") == condition.value("reason", ""))
      return;
    if (current->value("status", "") == condition.value("status", ""))
      condition["lastTransitionTime"] = current->value("lastTransitionTime", "");
  }
  remove_deployment_condition(status, type);
  status["conditions"].push_back(std::move(condition));
}

bool has_progress_deadline(const Json& d) {
  const Json& v = at_path(d, {"spec", "progressDeadlineSeconds"});
  return v.is_number_integer() && v.get<std::int64_t>() != INT_MAX;
}

bool deployment_complete(const Json& d, const Json& status) {
  const auto replicas = int_at(d, {"spec", "replicas"}, 1);
  return int_at(status, {"updatedReplicas"}, 0) == replicas &&
         int_at(status, {"replicas"}, 0) == replicas &&
         int_at(status, {"availableReplicas"}, 0) == replicas &&
         int_at(status, {"observedGeneration"}, 0) >= int_at(d, {"metadata", "generation"}, 0);
}

Json calculate_deployment_status(const std::vector<const Json*>& sets, const Json* new_set,
                                 const Json& d, TimePoint now) {
  const std::int64_t available = sum_of(sets, "availableReplicas");
  const std::int64_t unavailable = std::max<std::int64_t>(0, spec_replicas_of(sets) - available);
  Json status = Json::object();
  set_or_erase(status, "observedGeneration", int_at(d, {"metadata", "generation"}, 0));
  set_or_erase(status, "replicas", sum_of(sets, "replicas"));
  set_or_erase(status, "updatedReplicas",
               new_set ? int_at(*new_set, {"status", "replicas"}, 0) : 0);
  set_or_erase(status, "readyReplicas", sum_of(sets, "readyReplicas"));
  set_or_erase(status, "availableReplicas", available);
  set_or_erase(status, "unavailableReplicas", unavailable);
  const Json& collisions = at_path(d, {"status", "collisionCount"});
  if (collisions.is_number_integer()) status["collisionCount"] = collisions;
  const Json& conditions = at_path(d, {"status", "conditions"});
  if (conditions.is_array() && !conditions.empty()) status["conditions"] = conditions;
  const auto replicas = int_at(d, {"spec", "replicas"}, 1);
  if (available >= replicas - deployment_fenceposts(d).unavailable) {
    set_deployment_condition(status,
                             deployment_condition("Available", "True", "MinimumReplicasAvailable",
                                                  "Deployment has minimum availability.", now));
  } else {
    set_deployment_condition(
        status, deployment_condition("Available", "False", "MinimumReplicasUnavailable",
                                     "Deployment does not have minimum availability.", now));
  }
  return status;
}

Json rollout_status(const std::vector<const Json*>& sets, const Json* new_set, const Json& d,
                    TimePoint now, std::chrono::system_clock::duration& recheck) {
  Json next = calculate_deployment_status(sets, new_set, d, now);
  if (!has_progress_deadline(d)) remove_deployment_condition(next, "Progressing");
  const Json* current = deployment_condition_of(at_path(d, {"status"}), "Progressing");
  const bool complete_before =
      int_at(next, {"replicas"}, 0) == int_at(next, {"updatedReplicas"}, 0) && current &&
      current->value("reason", "") == "NewReplicaSetAvailable";
  const std::string who =
      new_set ? "ReplicaSet \"" + name_of(*new_set) + "\"" : "Deployment \"" + name_of(d) + "\"";
  if (has_progress_deadline(d) && !complete_before) {
    if (deployment_complete(d, next)) {
      set_deployment_condition(next,
                               deployment_condition("Progressing", "True", "NewReplicaSetAvailable",
                                                    who + " has successfully progressed.", now));
    } else if (deployment_progressing(d, next)) {
      // Progress moves lastUpdateTime even when the reason stays ReplicaSetUpdated.
      Json condition = deployment_condition("Progressing", "True", "ReplicaSetUpdated",
                                            who + " is progressing.", now);
      if (current && current->value("status", "") == "True")
        condition["lastTransitionTime"] = current->value("lastTransitionTime", "");
      remove_deployment_condition(next, "Progressing");
      set_deployment_condition(next, condition);
    } else if (deployment_timed_out(d, next, now)) {
      set_deployment_condition(
          next, deployment_condition("Progressing", "False", "ProgressDeadlineExceeded",
                                     who + " has timed out progressing.", now));
    }
  }
  // The ReplicaFailure of the new ReplicaSet, else of any old one.
  const Json* failure = nullptr;
  if (new_set) failure = find_condition(*new_set, "ReplicaFailure");
  for (const Json* s : sets)
    if (!failure && s) failure = find_condition(*s, "ReplicaFailure");
  if (failure) {
    Json condition = *failure;
    condition["lastUpdateTime"] = failure->value("lastTransitionTime", "");
    set_deployment_condition(next, condition);
  } else {
    remove_deployment_condition(next, "ReplicaFailure");
  }
  // requeueStuckDeployment: look again when the deadline passes without progress.
  if (current && has_progress_deadline(d) && !deployment_complete(d, next) &&
      current->value("reason", "") != "ProgressDeadlineExceeded") {
    if (auto updated = apimachinery::parse_time(current->value("lastUpdateTime", ""))) {
      auto after = *updated +
                   std::chrono::seconds(int_at(d, {"spec", "progressDeadlineSeconds"}, 600)) - now;
      recheck = std::max<std::chrono::system_clock::duration>(after, std::chrono::seconds(0)) +
                std::chrono::seconds(1);
    }
  }
  return next;
}

}  // namespace respool::sandbox::sim
