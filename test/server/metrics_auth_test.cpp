// MetricsAuthorizer's decisions and its cache, with a reviewer that counts its calls and an
// injected clock: who gets 200, 401, 403 or 500, with kube-rbac-proxy's words, and how long an
// answer stands (issue 32).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "operator/server/metrics_auth.hpp"

using namespace respool;
using namespace std::chrono_literals;

namespace {

// Tokens "good-<user>" are valid; the users in `allowed` may get /metrics.
struct CountingReviewer : server::AccessReviewer {
  std::set<std::string> allowed;
  bool unreachable = false;
  int token_reviews = 0;
  int access_reviews = 0;

  std::expected<std::optional<server::ReviewedUser>, std::string> review_token(
      std::string_view token) override {
    ++token_reviews;
    if (unreachable) return std::unexpected("TokenReview: Network: connection refused");
    if (!token.starts_with("good-")) return std::optional<server::ReviewedUser>{};
    server::ReviewedUser user;
    user.name = "system:serviceaccount:monitoring:" + std::string(token.substr(5));
    user.groups = {"system:serviceaccounts", "system:authenticated"};
    return user;
  }
  std::expected<bool, std::string> review_access(const server::ReviewedUser& user,
                                                 std::string_view verb,
                                                 std::string_view path) override {
    ++access_reviews;
    if (unreachable) return std::unexpected("SubjectAccessReview: Network: connection refused");
    return verb == "get" && path == "/metrics" &&
           allowed.contains(user.name.substr(user.name.rfind(':') + 1));
  }
};

}  // namespace

TEST_CASE("the bearer token of an Authorization header", "[server][metrics-auth]") {
  using server::bearer_token;
  CHECK(bearer_token("Bearer abc") == "abc");
  CHECK(bearer_token("bearer abc") == "abc");  // the scheme in any case, as the API server reads it
  CHECK(bearer_token("  Bearer   abc  ") == "abc");
  CHECK_FALSE(bearer_token(""));
  CHECK_FALSE(bearer_token("Bearer"));
  CHECK_FALSE(bearer_token("Bearer "));
  CHECK_FALSE(bearer_token("Basic dXNlcjpwYXNz"));
  CHECK_FALSE(bearer_token("Bearer a b"));
}

TEST_CASE("no token, a malformed one or a forged one is 401 Unauthorized",
          "[server][metrics-auth]") {
  CountingReviewer reviewer;
  runtime::ManualClock clock;
  server::MetricsAuthorizer auth(reviewer, clock);
  for (const char* header : {"", "Basic dXNlcjpwYXNz", "Bearer"}) {
    auto d = auth.authorize(header, "GET", "/metrics");
    CHECK(d.status == 401);
    CHECK(d.body == "Unauthorized\n");
  }
  CHECK(reviewer.token_reviews == 0);  // nothing to review: the API server is not asked
  auto forged = auth.authorize("Bearer forged", "GET", "/metrics");
  CHECK(forged.status == 401);
  CHECK(forged.body == "Unauthorized\n");
  CHECK(reviewer.token_reviews == 1);
  CHECK(reviewer.access_reviews == 0);  // no user, nothing to authorize
}

TEST_CASE("an allowed token is reviewed once per cache_ttl", "[server][metrics-auth]") {
  CountingReviewer reviewer;
  reviewer.allowed = {"prometheus"};
  runtime::ManualClock clock;
  server::MetricsAuthOptions options;
  options.cache_ttl = 60s;
  server::MetricsAuthorizer auth(reviewer, clock, options);
  auto first = auth.authorize("Bearer good-prometheus", "GET", "/metrics");
  CHECK(first.status == 200);
  CHECK(first.user == "system:serviceaccount:monitoring:prometheus");
  CHECK_FALSE(first.cached);
  CHECK(reviewer.token_reviews == 1);
  CHECK(reviewer.access_reviews == 1);
  for (int i = 0; i < 10; ++i) {
    clock.advance(5s);
    auto again = auth.authorize("Bearer good-prometheus", i % 2 ? "HEAD" : "GET", "/metrics");
    CHECK(again.status == 200);
    CHECK(again.cached);
  }
  CHECK(reviewer.token_reviews == 1);  // 50 s of scrapes: no request to the API server
  CHECK(reviewer.access_reviews == 1);
  clock.advance(10s);  // 60 s after the review: it is asked again
  CHECK(auth.authorize("Bearer good-prometheus", "GET", "/metrics").status == 200);
  CHECK(reviewer.token_reviews == 2);
  CHECK(reviewer.access_reviews == 2);
}

TEST_CASE("a deleted binding refuses within cache_ttl; a new one admits within refusal_ttl",
          "[server][metrics-auth]") {
  CountingReviewer reviewer;
  reviewer.allowed = {"prometheus"};
  runtime::ManualClock clock;
  server::MetricsAuthOptions options;
  options.cache_ttl = 30s;
  options.refusal_ttl = 10s;
  server::MetricsAuthorizer auth(reviewer, clock, options);
  REQUIRE(auth.authorize("Bearer good-prometheus", "GET", "/metrics").status == 200);
  reviewer.allowed.clear();  // the ClusterRoleBinding deleted
  clock.advance(29s);
  CHECK(auth.authorize("Bearer good-prometheus", "GET", "/metrics").status == 200);
  clock.advance(1s);
  auto refused = auth.authorize("Bearer good-prometheus", "GET", "/metrics");
  CHECK(refused.status == 403);
  CHECK(refused.body ==
        "Forbidden (user=system:serviceaccount:monitoring:prometheus, verb=get, resource=, "
        "subresource=)\n");
  reviewer.allowed = {"prometheus"};  // bound again
  clock.advance(9s);
  CHECK(auth.authorize("Bearer good-prometheus", "GET", "/metrics").status == 403);
  clock.advance(1s);
  CHECK(auth.authorize("Bearer good-prometheus", "GET", "/metrics").status == 200);
}

TEST_CASE("a refused token costs a review every refusal_ttl, at most cache_ttl",
          "[server][metrics-auth]") {
  CountingReviewer reviewer;
  runtime::ManualClock clock;
  server::MetricsAuthOptions options;
  options.cache_ttl = 4s;  // shorter than the refusal's 10 s: it bounds it
  server::MetricsAuthorizer auth(reviewer, clock, options);
  CHECK(auth.authorize("Bearer forged", "GET", "/metrics").status == 401);
  clock.advance(3s);
  CHECK(auth.authorize("Bearer forged", "GET", "/metrics").status == 401);
  CHECK(reviewer.token_reviews == 1);
  clock.advance(1s);
  CHECK(auth.authorize("Bearer forged", "GET", "/metrics").status == 401);
  CHECK(reviewer.token_reviews == 2);
}

TEST_CASE("an API server that does not answer is 500, never cached", "[server][metrics-auth]") {
  CountingReviewer reviewer;
  reviewer.allowed = {"prometheus"};
  reviewer.unreachable = true;
  runtime::ManualClock clock;
  server::MetricsAuthorizer auth(reviewer, clock);
  auto d = auth.authorize("Bearer good-prometheus", "GET", "/metrics");
  CHECK(d.status == 500);
  CHECK(d.body == "Authentication failed\n");
  CHECK(d.error == "TokenReview: Network: connection refused");
  CHECK(auth.cached() == 0);
  reviewer.unreachable = false;
  CHECK(auth.authorize("Bearer good-prometheus", "GET", "/metrics").status == 200);
  CHECK(reviewer.token_reviews == 2);
}

TEST_CASE("each path is its own decision; other methods are 405", "[server][metrics-auth]") {
  CountingReviewer reviewer;
  reviewer.allowed = {"prometheus"};
  runtime::ManualClock clock;
  server::MetricsAuthorizer auth(reviewer, clock);
  CHECK(auth.authorize("Bearer good-prometheus", "GET", "/metrics").status == 200);
  CHECK(auth.authorize("Bearer good-prometheus", "GET", "/debug/pprof").status == 403);
  CHECK(auth.authorize("Bearer good-prometheus", "POST", "/metrics").status == 405);
  CHECK(reviewer.access_reviews == 2);
}

TEST_CASE("the cache holds max_entries; zero cache_ttl reviews every request",
          "[server][metrics-auth]") {
  CountingReviewer reviewer;
  runtime::ManualClock clock;
  server::MetricsAuthOptions bounded;
  bounded.max_entries = 3;
  server::MetricsAuthorizer auth(reviewer, clock, bounded);
  for (int i = 0; i < 20; ++i) {
    auth.authorize("Bearer random-" + std::to_string(i), "GET", "/metrics");
    clock.advance(1ms);
  }
  CHECK(auth.cached() == 3);
  CHECK(reviewer.token_reviews == 20);

  CountingReviewer uncached_reviewer;
  uncached_reviewer.allowed = {"prometheus"};
  server::MetricsAuthOptions none;
  none.cache_ttl = 0s;
  server::MetricsAuthorizer uncached(uncached_reviewer, clock, none);
  for (int i = 0; i < 3; ++i)
    CHECK(uncached.authorize("Bearer good-prometheus", "GET", "/metrics").status == 200);
  CHECK(uncached_reviewer.token_reviews == 3);
  CHECK(uncached.cached() == 0);
}
