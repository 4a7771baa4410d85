#pragma once
// Fault injection for reliability tests: in process through this class, and over HTTP through
// the sandbox's control endpoint (POST /sandbox/faults, same authentication as the API).

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox {

struct FaultRule {
  enum class Action {
    ServerError,      // 500 InternalError
    TooManyRequests,  // 429 with Retry-After: retry_after_seconds
    Conflict,         // 409 Conflict
  };
  std::string verb = "*";      // get list watch create update patch delete deletecollection, or *
  std::string resource = "*";  // plural ("nodes", "resourcepools"), or *
  Action action = Action::ServerError;
  int remaining = 1;  // requests still to fail
  int retry_after_seconds = 1;
};

class FaultInjector {
 public:
  // The next `count` requests matching verb and resource fail with `action`.
  void fail_next(FaultRule rule);
  // Every request matching waits `latency` before it is served (0 removes it).
  void set_latency(std::chrono::milliseconds latency, std::string verb = "*",
                   std::string resource = "*");
  // Ends every open watch now (clients see the stream end, as on a server restart).
  void close_watches();
  // The next `count` watches are answered with a 410 Expired ERROR event.
  void expire_next_watches(int count = 1);
  void clear();

  // For the API server: the fault to apply to this request, consuming one count.
  std::optional<FaultRule> take(const std::string& verb, const std::string& resource);
  std::chrono::milliseconds latency_for(const std::string& verb, const std::string& resource);
  bool take_watch_expiry();
  // Bumped by close_watches(); a watch ends when it sees the generation change.
  std::uint64_t watch_generation() const;

  // The control endpoint's body: {"failNext": {"verb","resource","action":"500|429|409",
  // "count","retryAfterSeconds"}} | {"latency": {"ms","verb","resource"}} |
  // {"closeWatches": true} | {"expireNextWatches": N} | {"clear": true}. Error text when bad.
  std::optional<std::string> apply_control(const nlohmann::json& body);

 private:
  mutable std::mutex mu_;
  std::vector<FaultRule> rules_;
  struct Latency {
    std::chrono::milliseconds latency;
    std::string verb, resource;
  };
  std::vector<Latency> latencies_;
  int expire_watches_ = 0;
  std::uint64_t watch_generation_ = 0;
};

}  // namespace respool::sandbox
