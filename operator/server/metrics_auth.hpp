#pragma once
// Who may read the secure /metrics: the request's bearer token is reviewed by the API server
// (a TokenReview) and its user's right to the path by a SubjectAccessReview of the non-resource
// URL, as controller-runtime's WithAuthenticationAndAuthorization filter and kube-rbac-proxy do.
// Refusals are worded as kube-rbac-proxy words them. Each answer is cached by the token's
// SHA-256 (never the token itself), the method and the path: a scraper that is allowed costs
// the API server two requests per `cache_ttl`, none per scrape in between.

#include <chrono>
#include <cstddef>
#include <expected>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "operator/runtime/clock.hpp"

namespace respool::server {

// A user as a TokenReview's status.user names it.
struct ReviewedUser {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// The API server's two reviews. One real implementation: ApiReviewer (api_reviewer.hpp); tests
// count calls with their own.
class AccessReviewer {
 public:
  virtual ~AccessReviewer() = default;
  // The token's user; nullopt when the API server says the token is not valid. An error when
  // it gave no answer (unreachable, or the review itself refused: the message says which).
  virtual std::expected<std::optional<ReviewedUser>, std::string> review_token(
      std::string_view token) = 0;
  // Whether `user` may `verb` the non-resource URL `path`.
  virtual std::expected<bool, std::string> review_access(const ReviewedUser& user,
                                                         std::string_view verb,
                                                         std::string_view path) = 0;
};

struct MetricsAuthOptions {
  // How long an allowed token stands without asking again: after a binding is deleted or a
  // token revoked, its scrapes go on at most this long. Zero caches nothing.
  runtime::Duration cache_ttl = std::chrono::minutes(1);
  // How long a refusal (401, 403) stands, at most cache_ttl: a misconfigured scraper costs a
  // review every refusal_ttl, and a binding just created is honoured within it.
  runtime::Duration refusal_ttl = std::chrono::seconds(10);
  // Answers kept at most; beyond it the ones that expire first go (random tokens cannot grow it).
  std::size_t max_entries = 1024;
};

struct AuthDecision {
  int status = 200;   // 200 allowed; 401, 403, or 500 when the API server gave no answer
  std::string body;   // the refusal, as kube-rbac-proxy words it ("" when allowed)
  std::string user;   // the reviewed user, when the token was valid
  std::string error;  // why the API server gave no answer (500), for the log
  bool cached = false;
};

class MetricsAuthorizer {
 public:
  MetricsAuthorizer(AccessReviewer& reviewer, runtime::Clock& clock,
                    MetricsAuthOptions options = {});
  // `authorization` is the request's Authorization header ("" when none), `method` its method
  // (GET and HEAD are the verb get), `path` its path without the query.
  AuthDecision authorize(std::string_view authorization, std::string_view method,
                         std::string_view path);
  // Answers cached now (tests, the benchmark).
  std::size_t cached() const;

 private:
  struct Entry {
    AuthDecision decision;
    runtime::TimePoint expires;
  };
  AuthDecision review(std::string_view token, std::string_view verb, std::string_view path);
  void remember(std::string key, const AuthDecision& decision, runtime::TimePoint now);

  AccessReviewer& reviewer_;
  runtime::Clock& clock_;
  MetricsAuthOptions options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

// The token of an "Authorization: Bearer TOKEN" header (the scheme in any case, as the API
// server reads it); nullopt when there is none or it is empty.
std::optional<std::string_view> bearer_token(std::string_view authorization);

}  // namespace respool::server
