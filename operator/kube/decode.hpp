#pragma once
// Decoding of list pages and watch events straight into cached objects (simdjson on-demand:
// no intermediate document), for Node, Pod and Unstructured.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operator/kube/error.hpp"
#include "operator/kube/objects.hpp"

namespace respool::kube {

// What the transform keeps of an object beyond what its compact type always holds.
struct DecodeOptions {
  // Annotation keys kept (exact keys, or prefixes ending in "/"). Empty: every annotation for
  // nodes and unstructured objects, none for pods (whose annotations are rarely needed).
  std::vector<std::string> keep_annotations;
  // Pods: node label keys whose required value (nodeSelector, required node affinity `In` with
  // one value) and toleration (operator Equal) are kept; empty: none. The caller names its own
  // keys, so that the cache keeps only what some controller reads of a pod's placement.
  std::vector<std::string> keep_scheduling_keys;
  // Nodes: condition types kept whole in Node::conditions (Ready is always read, into ready);
  // empty: none.
  std::vector<std::string> keep_condition_types;
};

struct PageInfo {
  std::string resource_version;
  std::string continue_token;
};

template <class T>
struct WatchEvent {
  enum class Type { Added, Modified, Deleted, Bookmark, Error };
  Type type = Type::Added;
  std::optional<T> object;          // Added, Modified, Deleted
  std::string resource_version;     // every type but Error
  std::optional<Error> error;       // Error: the Status it carried (410 Expired → Gone)
  bool initial_events_end = false;  // a bookmark annotated k8s.io/initial-events-end
};

// Decodes one page of a List; calls on_item for each item in order.
template <class T>
Result<PageInfo> decode_list_page(std::string_view page, const DecodeOptions& options,
                                  const std::function<void(T&&)>& on_item);

// Decodes one line of a watch stream.
template <class T>
Result<WatchEvent<T>> decode_watch_event(std::string_view line, const DecodeOptions& options);

// Decodes one object (for tests and one-off reads).
template <class T>
Result<T> decode_object(std::string_view json, const DecodeOptions& options);

}  // namespace respool::kube
