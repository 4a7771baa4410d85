#pragma once
// The catalogue of known training failures (O7): the catalog's `failures` list, each entry a
// failure respool recognises from a failed worker's exit and the end of its log, with what the
// documents' report names: category, faulty component and module, risk and the recommended
// solution. Patterns are RE2 (linear time: a hostile log cannot stall the operator) and are
// compiled once, when the catalog loads; a bad one refuses the catalog, naming its field.

#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/risk.hpp"

namespace re2 {
class RE2;
}

namespace respool::policy {

enum class FailureCategory { Code, Framework, Communication, Hardware, Environment };
std::string_view to_string(FailureCategory category);
std::optional<FailureCategory> parse_failure_category(std::string_view text);

struct FailureEntry {
  std::string name;     // unique, lower-case words joined by '-' ("cuda-out-of-memory")
  std::string symptom;  // one line: what the owner sees ("the GPU ran out of memory")
  FailureCategory category = FailureCategory::Code;
  std::string component,
      module;  // the faulty component ("PyTorch") and module ("CUDA caching allocator")
  Risk risk = Risk::Medium;  // Low, Medium or High
  std::string solution;
  // The entry matches a failed worker when any log line matches any pattern, or its exit code
  // is listed, or its container's terminated reason is listed (any one is enough).
  std::vector<std::string> log_patterns;
  std::vector<int> exit_codes;
  std::vector<std::string> reasons;  // "OOMKilled"
};

class FailureCatalogue {
 public:
  // `failures`: the catalog's list (absent: an empty catalogue, nothing recognised). Errors name
  // the field: "failures[3].match.log[0]: missing ): ...".
  static std::expected<FailureCatalogue, std::string> parse(const nlohmann::json& failures);

  FailureCatalogue();
  FailureCatalogue(FailureCatalogue&&) noexcept;
  FailureCatalogue& operator=(FailureCatalogue&&) noexcept;
  ~FailureCatalogue();

  const std::vector<FailureEntry>& entries() const { return entries_; }
  // Whether entry `index`'s patterns match `line` (any of them).
  bool line_matches(std::size_t index, std::string_view line) const;

 private:
  std::vector<FailureEntry> entries_;
  std::vector<std::vector<std::unique_ptr<re2::RE2>>> patterns_;  // per entry, compiled
};

}  // namespace respool::policy
