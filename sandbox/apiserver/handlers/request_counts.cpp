#include "sandbox/apiserver/handlers/request_counts.hpp"

namespace respool::sandbox {

bool is_write_verb(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" ||
         verb == "deletecollection";
}

void RequestCounts::count(std::string_view user_agent, std::string_view verb,
                          std::string_view resource) {
  const std::string_view agent = user_agent.substr(0, user_agent.find('/'));
  std::lock_guard lock(mu_);
  ++counts_[RequestKey{std::string(agent), std::string(verb), std::string(resource)}];
}

std::map<RequestKey, std::uint64_t> RequestCounts::snapshot() const {
  std::lock_guard lock(mu_);
  return counts_;
}

std::uint64_t RequestCounts::writes(std::string_view agent) const {
  std::lock_guard lock(mu_);
  std::uint64_t total = 0;
  for (const auto& [key, n] : counts_) {
    if (key.agent == agent && is_write_verb(key.verb)) total += n;
  }
  return total;
}

void RequestCounts::reset() {
  std::lock_guard lock(mu_);
  counts_.clear();
}

}  // namespace respool::sandbox
