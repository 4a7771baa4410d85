#pragma once
// What the workload controllers (ReplicaSets, Deployments, StatefulSets, CronJobs, endpoints)
// share, pure: label selectors of specs, controller references and adoption
// (controller.ClaimObjects), pod predicates (podutil.IsPodReady, controller.IsPodActive),
// int-or-percent values, status merge patches, and the semantic equality of templates.

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/kube/selector.hpp"

namespace respool::sandbox::sim {

using TimePoint = std::chrono::system_clock::time_point;

// spec.selector as a metav1.LabelSelector; absent, null or invalid selects nothing
// (metav1.LabelSelectorAsSelector), as for ReplicaSets, Deployments and StatefulSets.
kube::LabelSelector spec_selector(const nlohmann::json& object);
// A map of labels (ReplicationController spec.selector, Service spec.selector) as a selector;
// an absent or empty map selects nothing.
kube::LabelSelector map_selector(const nlohmann::json& labels);

// The ownerReferences entry with controller: true, or nullptr.
const nlohmann::json* controller_of(const nlohmann::json& object);
// metav1.NewControllerRef: controller and blockOwnerDeletion set.
nlohmann::json controller_reference(const nlohmann::json& owner, std::string_view api_version,
                                    std::string_view kind);

// What a controller claims among the objects its selector could match (ClaimObjects): those it
// controls and still selects, orphans it adopts, and those it controls but no longer selects
// (released). Objects being deleted are not adopted; a deleting owner adopts nothing and
// releases nothing.
struct Claimed {
  std::vector<const nlohmann::json*> owned;
  std::vector<const nlohmann::json*> adopt;
  std::vector<const nlohmann::json*> release;
};
Claimed claim_objects(const nlohmann::json& owner, const kube::LabelSelector& selector,
                      const std::vector<const nlohmann::json*>& candidates);
// Merge patches, guarded by the object's resourceVersion: add `reference` (adoption), or drop
// the reference to `owner_uid` (release).
nlohmann::json adopt_patch(const nlohmann::json& object, const nlohmann::json& reference);
nlohmann::json release_patch(const nlohmann::json& object, std::string_view owner_uid);

// The merge patch that turns `current` into `next` at the top level (keys gone become null).
nlohmann::json object_merge_patch(const nlohmann::json& current, const nlohmann::json& next);

// Equality as apimachinery's Semantic.DeepEqual sees typed objects: a null, an empty object
// and an empty list equal an absent field.
bool semantic_equal(const nlohmann::json& a, const nlohmann::json& b);

bool marked_for_deletion(const nlohmann::json& object);
bool pod_is_ready(const nlohmann::json& pod);
// Not Succeeded, not Failed, not being deleted (controller.IsPodActive).
bool pod_is_active(const nlohmann::json& pod);

std::int64_t int_at(const nlohmann::json& object, std::initializer_list<std::string_view> path,
                    std::int64_t fallback);
std::optional<TimePoint> time_at(const nlohmann::json& object,
                                 std::initializer_list<std::string_view> path);
std::string name_of(const nlohmann::json& object);
std::string namespace_of(const nlohmann::json& object);
std::string uid_of(const nlohmann::json& object);

// intstr.GetScaledValueFromIntOrPercent: an int, or "N%" of `total` rounded up or down; a
// malformed value gives `fallback`.
int scaled_int_or_percent(const nlohmann::json& value, int total, bool round_up, int fallback);

// Orders by metadata.creationTimestamp, then name (controller.ByCreationTimestamp).
bool created_before(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace respool::sandbox::sim
