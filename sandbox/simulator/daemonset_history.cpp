#include "sandbox/simulator/daemonset_history.hpp"

#include <algorithm>
#include <set>

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {

using Json = nlohmann::json;

namespace {

Json daemonset_revision(const Json& ds, const std::string& hash, std::int64_t number) {
  Json pod_template = at_path(ds, {"spec", "template"});
  if (!pod_template.is_object()) pod_template = Json::object();
  pod_template["$patch"] = "replace";
  Json labels = at_path(ds, {"spec", "template", "metadata", "labels"});
  if (!labels.is_object()) labels = Json::object();
  labels[kControllerRevisionHash] = hash;
  Json metadata = {
      {"name", name_of(ds) + "-" + hash},
      {"namespace", namespace_of(ds)},
      {"labels", labels},
      {"ownerReferences", Json::array({controller_reference(ds, "apps/v1", "DaemonSet")})}};
  const Json& annotations = at_path(ds, {"metadata", "annotations"});
  if (annotations.is_object() && !annotations.empty()) metadata["annotations"] = annotations;
  return {{"apiVersion", "apps/v1"},
          {"kind", "ControllerRevision"},
          {"metadata", metadata},
          {"data", {{"spec", {{"template", pod_template}}}}},
          {"revision", number}};
}

}  // namespace

DaemonSetHistoryPlan plan_daemonset_history(const Json& ds, const std::vector<const Json*>& list,
                                            const std::vector<const Json*>& pods,
                                            const std::string& hash) {
  DaemonSetHistoryPlan plan;
  std::vector<const Json*> revisions = list;
  std::stable_sort(revisions.begin(), revisions.end(), [](const Json* a, const Json* b) {
    return int_at(*a, {"revision"}, 0) < int_at(*b, {"revision"}, 0);
  });
  const std::int64_t last = revisions.empty() ? 0 : int_at(*revisions.back(), {"revision"}, 0);
  Json current = daemonset_revision(ds, hash, last + 1);
  const Json* equal = nullptr;
  for (const Json* r : revisions)
    if (semantic_equal(at_path(*r, {"data"}), current["data"])) equal = r;
  const Json* named = nullptr;
  for (const Json* r : revisions)
    if (name_of(*r) == name_of(current)) named = r;
  if (equal && equal != revisions.back()) {
    Json renumbered = *equal;
    renumbered["revision"] = last + 1;
    plan.renumber = std::move(renumbered);
  } else if (!equal && !named) {
    plan.create = current;
  }
  const std::string current_name = equal ? name_of(*equal) : name_of(current);

  std::set<std::string> live;  // hashes pods run
  for (const Json* p : pods)
    if (!marked_for_deletion(*p)) live.insert(label(*p, kControllerRevisionHash).value_or(""));
  std::vector<const Json*> history;
  for (const Json* r : revisions)
    if (name_of(*r) != current_name &&
        !live.contains(label(*r, kControllerRevisionHash).value_or("")))
      history.push_back(r);
  const std::int64_t limit = int_at(ds, {"spec", "revisionHistoryLimit"}, 10);
  for (std::size_t i = 0; static_cast<std::int64_t>(history.size() - i) > limit; ++i)
    plan.remove.push_back(name_of(*history[i]));
  return plan;
}

}  // namespace respool::sandbox::sim
