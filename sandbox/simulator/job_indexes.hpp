#pragma once
// Completion indexes of Indexed Jobs (pkg/controller/job/indexed_job_utils.go): a pod's index is
// its annotation batch.kubernetes.io/job-completion-index; status.completedIndexes writes a set
// of indexes as ordered intervals, "1,3-5,7".

#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

inline constexpr const char* kCompletionIndexKey = "batch.kubernetes.io/job-completion-index";

// The pod's completion index when its annotation holds a decimal in [0, completions).
std::optional<int> completion_index(const nlohmann::json& pod, int completions);

// "1,3-5,7" from {1,3,4,5,7}; "" for none.
std::string format_indexes(const std::set<int>& indexes);

// The indexes below `completions` that `text` lists; malformed parts are skipped, as the real
// controller skips them (it logs them).
std::set<int> parse_indexes(const std::string& text, int completions);

// The `count` lowest indexes in [0, completions) not in `taken`.
std::set<int> first_pending_indexes(const std::set<int>& taken, int count, int completions);

}  // namespace respool::sandbox::sim
