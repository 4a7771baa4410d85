// The clusterrole-aggregation controller, folded into the engine: a ClusterRole with an
// aggregationRule gets the rules of every ClusterRole its label selectors match (by name,
// duplicates dropped), whenever any ClusterRole changes. And the bootstrap policy's objects.

#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/rbac/bootstrap_policy.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {
namespace {

bool aggregation_selects(const Json& selectors, const Json& role) {
  static const Json empty = Json::object();
  const Json& meta = role.value("metadata", empty);
  const Json labels = meta.is_object() ? meta.value("labels", empty) : empty;
  for (const Json& s : selectors) {
    auto selector = kube::LabelSelector::from_json(s);
    if (selector && selector->matches(labels)) return true;
  }
  return false;
}

}  // namespace

void Engine::aggregate_cluster_roles() {
  if (aggregating_) return;  // the writes below come back through after_change
  aggregating_ = true;
  TypePtr type = registry_.find("rbac.authorization.k8s.io", "v1", "clusterroles");
  for (int round = 0; round < 16; ++round) {
    auto coll = store_.find(type->storage);
    if (!coll) break;
    std::optional<std::pair<std::string, Json>> change;
    for (const auto& [name, stored] : coll->items) {
      const auto role_object = stored.obj();
      const Json& role = *role_object;
      const Json* rule = role.contains("aggregationRule") ? &role["aggregationRule"] : nullptr;
      if (!rule || !rule->is_object() || !rule->contains("clusterRoleSelectors") ||
          !(*rule)["clusterRoleSelectors"].is_array()) {
        continue;
      }
      Json rules = Json::array();
      for (const auto& [other_name, other] : coll->items) {
        if (other_name == name ||
            !aggregation_selects((*rule)["clusterRoleSelectors"], *other.obj()))
          continue;
        const Json& more = other.obj()->value("rules", Json());
        if (!more.is_array()) continue;
        for (const Json& r : more) {
          if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(r);
        }
      }
      const Json current = role.value("rules", Json());
      if (current == rules || (rules.empty() && current.is_null())) continue;
      Json updated = role;
      updated["rules"] = rules.empty() ? Json(nullptr) : rules;
      change = {name, std::move(updated)};
      break;
    }
    if (!change) break;
    commit_put(*type, change->first, std::move(change->second));
  }
  aggregating_ = false;
}

void Engine::bootstrap_rbac() {
  TypePtr roles = registry_.find("rbac.authorization.k8s.io", "v1", "clusterroles");
  TypePtr bindings = registry_.find("rbac.authorization.k8s.io", "v1", "clusterrolebindings");
  for (Json& role : rbac::bootstrap_cluster_roles()) {
    if (store_.get(roles->storage, object_name(role))) continue;
    (void)create_locked(*roles, "", std::move(role), WriteOptions{});
  }
  for (Json& binding : rbac::bootstrap_cluster_role_bindings()) {
    if (store_.get(bindings->storage, object_name(binding))) continue;
    (void)create_locked(*bindings, "", std::move(binding), WriteOptions{});
  }
}

}  // namespace respool::sandbox
