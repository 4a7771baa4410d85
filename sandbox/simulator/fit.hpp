#pragma once
// Whether a pod may run on a node, as the scheduler's filter plugins and the DaemonSet
// controller decide it: taints and tolerations (v1helper.ToleratesTaint), nodeSelector and
// required node affinity (nodeaffinity.RequiredNodeAffinity), and resource requests
// (resourcehelper.PodRequests). Pure functions over the API objects as JSON.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/kube/objects.hpp"

namespace respool::sandbox::sim {

using Json = nlohmann::json;

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
  friend bool operator==(const Taint&, const Taint&) = default;
};

std::vector<Taint> node_taints(const Json& node);
Json taint_to_json(const Taint& taint);

// One toleration (a JSON object of the pod spec) against one taint.
bool tolerates(const Json& toleration, const Taint& taint);
// Whether any of `tolerations` (a JSON array, or null) tolerates `taint`.
bool tolerated(const Json& tolerations, const Taint& taint);

enum class Effects { NoScheduleAndNoExecute, NoExecuteOnly };
// The first taint with a considered effect that no toleration tolerates.
std::optional<Taint> untolerated_taint(const std::vector<Taint>& taints, const Json& tolerations,
                                       Effects effects);

// spec.nodeSelector: every key=value is among the node's labels.
bool matches_node_selector(const Json& pod_spec, const Json& node);
// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: terms are ORed,
// the expressions (In, NotIn, Exists, DoesNotExist, Gt, Lt) and fields (metadata.name) of one
// term ANDed; a term with neither matches no node. Absent = every node.
bool matches_required_affinity(const Json& pod_spec, const Json& node);
bool matches_node_selector_term(const Json& term, const Json& node);

// What a pod asks of its node: the containers' requests summed (a container's limit stands in
// for a missing request, as API defaulting does), at least any one init container's, plus the
// pod overhead. Unparseable quantities count as zero (the API server rejects them anyway).
kube::ResourceList pod_requests(const Json& pod_spec);
// status.allocatable (resources), status.capacity when allocatable is absent.
kube::ResourceList node_allocatable(const Json& node);
kube::ResourceList resource_list(const Json& object);  // {"cpu":"4",...}

// The status of a condition type ("Ready") of a node or a pod; Unknown when absent.
kube::ConditionStatus condition_status(const Json& object, std::string_view type);
const Json* find_condition(const Json& object, std::string_view type);

// Small readers that tolerate absent or mistyped fields.
std::string string_at(const Json& object, std::initializer_list<std::string_view> path);
// The same without a copy: a view into `object`, valid while it lives.
std::string_view string_view_at(const Json& object, std::initializer_list<std::string_view> path);
// A pod whose phase is Succeeded or Failed: its containers ended for good.
bool pod_terminal(const Json& pod);
const Json& at_path(const Json& object, std::initializer_list<std::string_view> path);
std::optional<std::string> annotation(const Json& object, std::string_view key);
std::optional<std::string> label(const Json& object, std::string_view key);

}  // namespace respool::sandbox::sim
