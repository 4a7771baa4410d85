#pragma once
// The Kubernetes API client: typed errors, retries with backoff, an optional QPS limiter, and
// watches read line by line. Objects are nlohmann::json; the informers decode list pages and
// watch lines themselves (see raw calls) to build compact cached objects.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "operator/kube/config.hpp"
#include "operator/kube/error.hpp"
#include "operator/kube/exec.hpp"
#include "operator/kube/resource.hpp"

namespace respool::kube {

struct ClientOptions {
  std::string user_agent = "respool/" RESPOOL_VERSION;
  double qps = 0;       // client-side limit; 0 = unlimited
  int burst = 0;        // tokens the limiter holds when qps > 0
  int max_retries = 5;  // for 429, 5xx and network errors (network and 5xx: idempotent only)
  std::chrono::milliseconds request_timeout{30'000};
  std::chrono::milliseconds initial_backoff{200};  // doubles per retry, with jitter
  std::chrono::milliseconds max_backoff{10'000};
  // Called after every HTTP exchange (metrics): method, host, code (0 = no answer), seconds.
  std::function<void(std::string_view, std::string_view, int, double)> observe;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 0;  // page size; list() follows continue tokens to the end
  std::string continue_token;
  std::string resource_version;  // "" = most recent (quorum read), "0" = any
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // events strictly after this version
  bool allow_bookmarks = true;
  int timeout_seconds = 0;  // 0 = the server's default
};

enum class PatchType { Merge, Json, Strategic };
std::string_view content_type(PatchType type);

struct WriteOptions {
  bool dry_run = false;
  std::string field_manager;  // "" = none
  std::string subresource;    // "" or "status" / "scale"
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::optional<std::string> propagation_policy;  // Foreground | Background | Orphan
  std::optional<std::int64_t> grace_period_seconds;
  bool dry_run = false;
  Json to_json() const;  // a DeleteOptions object
};

// A watch answer, read line by line. Each line is one JSON event {"type":..., "object":...}.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // The next event line; std::nullopt when the server ended the watch cleanly (timeout).
  // Errors: Network, Timeout (nothing arrived in idle_timeout), Cancelled.
  virtual Result<std::optional<std::string>> next_line(std::chrono::milliseconds idle_timeout) = 0;
  // Thread-safe; unblocks next_line at once.
  virtual void cancel() = 0;
};

class Client {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };
  struct Impl;

 public:
  Client(Key, std::unique_ptr<Impl> impl);
  static Result<std::unique_ptr<Client>> create(ClusterConfig config, ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  Result<Json> get(const Resource& r, std::string_view ns, std::string_view name,
                   std::string_view subresource = {});
  // Every page, following continue tokens: one List whose metadata.resourceVersion is the first
  // page's. A continue token that expired (410) restarts the list once.
  Result<Json> list(const Resource& r, std::string_view ns, ListOptions options = {});
  // One page at a time, as the server sent it, for callers that decode lists themselves.
  // The callback returns false to stop early.
  Result<void> list_pages(const Resource& r, std::string_view ns, ListOptions options,
                          const std::function<bool(std::string_view page)>& on_page);
  Result<Json> create(const Resource& r, std::string_view ns, const Json& object,
                      const WriteOptions& options = {});
  // PUT of the whole object (its metadata.name); options.subresource "status" updates status.
  Result<Json> update(const Resource& r, std::string_view ns, const Json& object,
                      const WriteOptions& options = {});
  Result<Json> update_status(const Resource& r, std::string_view ns, const Json& object);
  Result<Json> patch(const Resource& r, std::string_view ns, std::string_view name, PatchType type,
                     const Json& patch, const WriteOptions& options = {});
  // The server's answer: the object (still present with a deletionTimestamp while finalizers
  // hold it) or a Status.
  Result<Json> remove(const Resource& r, std::string_view ns, std::string_view name,
                      const DeleteOptions& options = {});
  // POST pods/eviction. TooManyRequests when a PodDisruptionBudget forbids it.
  Result<void> evict(std::string_view ns, std::string_view pod, const DeleteOptions& options = {});
  Result<std::unique_ptr<WatchStream>> watch(const Resource& r, std::string_view ns,
                                             const WatchOptions& options);
  // Runs `command` in a container of a pod through pods/exec (a WebSocket, see exec.hpp) and
  // waits for it to end. A non-zero exit is a result (exit_code), not an error. Errors: the
  // server's refusal (NotFound pod, Forbidden, BadRequest container), Timeout, Cancelled,
  // Network. Counted by the limiter and `observe` as a "GET" (observed at the handshake). Not
  // retried once the request went out (a command may not be idempotent); a connection that
  // could not be opened at all is tried again, as other requests are.
  Result<ExecResult> exec(std::string_view ns, std::string_view pod, std::string_view container,
                          const std::vector<std::string>& command, const ExecOptions& options = {});

  // Any request, with auth, limiter and retries; for what the typed calls do not cover.
  Result<http::Response> request(std::string_view method, std::string_view target,
                                 std::string body = {}, std::string_view content_type = {});

  const ClusterConfig& config() const;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace respool::kube

namespace respool::kube {

// Runs `attempt` again while it fails with Conflict, re-reading inside `attempt` each time
// (client-go's retry.RetryOnConflict with DefaultRetry: 5 tries, 10 ms doubling).
template <class Attempt>
auto retry_on_conflict(Attempt&& attempt, int tries = 5) -> decltype(attempt()) {
  auto delay = std::chrono::milliseconds(10);
  for (int i = 1;; ++i) {
    auto result = attempt();
    if (result || !result.error().is(Error::Kind::Conflict) || i >= tries) return result;
    std::this_thread::sleep_for(delay);
    delay *= 2;
  }
}

}  // namespace respool::kube
