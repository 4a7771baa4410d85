#pragma once
// Compact views of API objects for the informer cache. They keep what the controllers read and
// drop the rest (managedFields, most of a pod's spec), so that a cluster of 5,000 nodes and
// 150,000 pods fits in little memory. Objects the operator edits as a whole (its own custom
// resources, plug-in manifests) are kept whole as Unstructured.

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apimachinery/quantity.hpp"
#include "apimachinery/time.hpp"
#include "operator/kube/atom.hpp"
#include "operator/kube/shared_value.hpp"

namespace respool::kube {

using apimachinery::TimePoint;

// Hashes and compares the interned values below by their atoms' addresses.
struct AtomPairsHash {
  std::size_t operator()(const std::vector<std::pair<Atom, Atom>>& items) const noexcept;
};
struct QuantitiesHash {
  std::size_t operator()(
      const std::vector<std::pair<Atom, apimachinery::Quantity>>& items) const noexcept;
};
// Exact: a quantity's format too, so that a shared value prints as each holder's own did.
struct QuantitiesEqual {
  bool operator()(const std::vector<std::pair<Atom, apimachinery::Quantity>>& a,
                  const std::vector<std::pair<Atom, apimachinery::Quantity>>& b) const;
};

// Labels or annotations, sorted by key. Immutable and shared between equal maps (the pods of
// one owner carry the same labels); set() makes a changed copy.
class StringMap {
 public:
  using Items = std::vector<std::pair<Atom, Atom>>;
  StringMap() = default;
  // From pairs in any order; of a repeated key, the last value stands.
  explicit StringMap(Items items);
  void set(std::string_view key, std::string_view value);
  std::optional<std::string_view> get(std::string_view key) const;
  bool contains(std::string_view key) const { return get(key).has_value(); }
  std::size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const Items& items() const { return items_.get(); }
  nlohmann::json to_json() const;

 private:
  SharedValue<Items, AtomPairsHash, std::equal_to<Items>> items_;
};

// A UID held inline (36 characters for the RFC 4122 form the API server hands out); longer
// values are cut, which no API server produces.
class Uid {
 public:
  Uid() = default;
  Uid(std::string_view text) { assign(text); }  // NOLINT: implicit, as a string
  Uid& operator=(std::string_view text) {
    assign(text);
    return *this;
  }
  std::string_view view() const { return {chars_.data(), size_}; }
  std::string str() const { return std::string(view()); }
  bool empty() const { return size_ == 0; }
  friend bool operator==(const Uid& a, const Uid& b) { return a.view() == b.view(); }
  friend bool operator==(const Uid& a, std::string_view b) { return a.view() == b; }

 private:
  void assign(std::string_view text) {
    size_ = static_cast<std::uint8_t>(std::min(text.size(), chars_.size()));
    std::copy_n(text.data(), size_, chars_.data());
  }
  std::array<char, 36> chars_{};
  std::uint8_t size_ = 0;
};

// Owner references repeat across the pods of one owner: every field is interned.
struct OwnerReference {
  Atom api_version;
  Atom kind;
  Atom name;
  Atom uid;
  bool controller = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct OwnerReferencesHash {
  std::size_t operator()(const std::vector<OwnerReference>& refs) const noexcept;
};

// An object's owner references: immutable and shared between equal lists (every pod of a
// ReplicaSet or Job has the same); push_back makes a changed copy.
class OwnerReferences {
 public:
  using Items = std::vector<OwnerReference>;
  OwnerReferences() = default;
  explicit OwnerReferences(Items items) : items_(std::move(items)) {}
  void push_back(OwnerReference ref);
  const Items& items() const { return items_.get(); }
  Items::const_iterator begin() const { return items().begin(); }
  Items::const_iterator end() const { return items().end(); }
  std::size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const OwnerReference& operator[](std::size_t i) const { return items()[i]; }

 private:
  SharedValue<Items, OwnerReferencesHash, std::equal_to<Items>> items_;
};

struct ObjectMeta {
  std::string name;
  Atom namespace_;
  Uid uid;
  std::string resource_version;
  std::int64_t generation = 0;
  StringMap labels;
  StringMap annotations;
  TimePoint creation_timestamp{};
  std::optional<TimePoint> deletion_timestamp;
  std::vector<std::string> finalizers;
  OwnerReferences owner_references;

  // "namespace/name", or "name" for cluster-scoped objects: the cache key.
  std::string key() const;
  const OwnerReference* controller_ref() const;
};

struct Taint {
  Atom key;
  Atom value;
  Atom effect;             // NoSchedule | PreferNoSchedule | NoExecute
  std::string time_added;  // NoExecute taints: kept so that rewriting the list preserves it
};

// Extended and standard resources of a node or a pod ("cpu", "nvidia.com/gpu"), in the order
// first set. Immutable and shared between equal lists (the nodes of a flavor, the pods of a
// template); set() and add() make a changed copy.
class ResourceList {
 public:
  using Items = std::vector<std::pair<Atom, apimachinery::Quantity>>;
  ResourceList() = default;
  explicit ResourceList(Items items);  // names distinct
  void set(std::string_view name, apimachinery::Quantity q);
  void add(std::string_view name, apimachinery::Quantity q);
  apimachinery::Quantity get(std::string_view name) const;  // 0 when absent
  const Items& items() const { return items_.get(); }

  // For building a list in place before it is shared: sets `name` in `items`.
  static void set_in(Items& items, std::string_view name, apimachinery::Quantity q);
  static apimachinery::Quantity get_in(const Items& items, std::string_view name);

 private:
  SharedValue<Items, QuantitiesHash, QuantitiesEqual> items_;
};

enum class ConditionStatus : std::uint8_t { Unknown, True, False };

// A node condition kept whole (DecodeOptions::keep_condition_types), e.g. the node agent's.
struct NodeCondition {
  Atom type;
  Atom status;  // True | False | Unknown
  Atom reason;
  std::string message;
  std::optional<TimePoint> heartbeat;  // lastHeartbeatTime
};

struct Node {
  ObjectMeta meta;
  bool unschedulable = false;
  std::vector<Taint> taints;
  ConditionStatus ready = ConditionStatus::Unknown;  // the Ready condition; Unknown when absent
  std::vector<NodeCondition> conditions;             // the kept types only, in the node's order
  ResourceList capacity;
  ResourceList allocatable;

  bool has_taint(std::string_view key) const;
  const Taint* find_taint(std::string_view key) const;
};

struct Pod {
  ObjectMeta meta;  // annotations: only those the transform keeps
  Atom node_name;
  Atom phase;  // Pending | Running | Succeeded | Failed | Unknown
  bool ready = false;
  ResourceList requests;  // what the pod asks of its node (containers summed, init max)
  // What the training-job controller reads of a worker (reconcilers/trainingjob).
  Atom restart_policy;                    // spec.restartPolicy
  Atom disruption;                        // the DisruptionTarget condition's reason, when True
  std::int32_t restart_count = 0;         // the containers' restartCount, summed
  std::optional<std::int32_t> exit_code;  // the first terminated container's failing exit code
  TimePoint started_at{};  // the latest start of a running container (0: none running)
  // What the scheduler's queue reads: spec.priority (set from priorityClassName at admission).
  std::int32_t priority = 0;
  // For the keys DecodeOptions::keep_scheduling_keys names only: the node label value the pod
  // requires (nodeSelector, or a required node-affinity `In` of one value), and the taint
  // value it tolerates (operator Equal). Empty for every other key.
  StringMap node_selector;
  StringMap tolerations;

  bool terminal() const { return phase == "Succeeded" || phase == "Failed"; }
  bool owned_by_daemonset() const;
};

// A whole object, for kinds the operator reads and writes as a whole.
struct Unstructured {
  ObjectMeta meta;
  nlohmann::json object;
};

// Reads metadata from a parsed object (for Unstructured and tests).
ObjectMeta meta_from_json(const nlohmann::json& object);

}  // namespace respool::kube
