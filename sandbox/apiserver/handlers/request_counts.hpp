#pragma once
// What the API server was asked, counted by client, verb and resource: the evidence for "a
// converged operator writes nothing" and for the write counts a benchmark reports. The client is
// the first token of the User-Agent ("respool/0.1.0" → "respool", "kubectl/v1.32.5" → "kubectl").

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace respool::sandbox {

struct RequestKey {
  std::string agent;     // "respool", "kubectl", "respool-sandbox-simulator", "" if none sent
  std::string verb;      // get, list, watch, create, update, patch, delete, deletecollection
  std::string resource;  // "nodes", "pods/eviction", "resourcepools/status"; "" off the API
  friend auto operator<=>(const RequestKey&, const RequestKey&) = default;
};

class RequestCounts {
 public:
  void count(std::string_view user_agent, std::string_view verb, std::string_view resource);
  std::map<RequestKey, std::uint64_t> snapshot() const;
  // Requests of `agent` that change state (create, update, patch, delete, deletecollection).
  std::uint64_t writes(std::string_view agent) const;
  void reset();

 private:
  mutable std::mutex mu_;
  std::map<RequestKey, std::uint64_t> counts_;
};

bool is_write_verb(std::string_view verb);

}  // namespace respool::sandbox
