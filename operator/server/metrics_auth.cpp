#include "operator/server/metrics_auth.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

namespace respool::server {

namespace {

// The cache's key: SHA-256 of the token, then the verb and path. A dump of the process' memory
// shows no token.
std::string cache_key(std::string_view token, std::string_view verb, std::string_view path) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(token.data(), token.size(), digest, &size, EVP_sha256(), nullptr);
  std::string key(reinterpret_cast<const char*>(digest), size);
  key += '\n';
  key += verb;
  key += ' ';
  key += path;
  return key;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

AuthDecision unauthorized() {
  return {401, "Unauthorized\n", "", "", false};
}

// kube-rbac-proxy's words; a non-resource URL has no resource nor subresource.
std::string forbidden(std::string_view user, std::string_view verb) {
  return "Forbidden (user=" + std::string(user) + ", verb=" + std::string(verb) +
         ", resource=, subresource=)\n";
}

}  // namespace

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
      s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
      s.remove_suffix(1);
    return s;
  };
  authorization = trim(authorization);
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  if (!equals_ignoring_case(authorization.substr(0, space), "bearer")) return std::nullopt;
  std::string_view token = trim(authorization.substr(space + 1));
  if (token.empty() || token.find(' ') != std::string_view::npos) return std::nullopt;
  return token;
}

MetricsAuthorizer::MetricsAuthorizer(AccessReviewer& reviewer, runtime::Clock& clock,
                                     MetricsAuthOptions options)
    : reviewer_(reviewer), clock_(clock), options_(options) {
  options_.refusal_ttl = std::min(options_.refusal_ttl, options_.cache_ttl);
}

AuthDecision MetricsAuthorizer::authorize(std::string_view authorization, std::string_view method,
                                          std::string_view path) {
  const std::optional<std::string_view> token = bearer_token(authorization);
  if (!token) return unauthorized();  // anonymous requests are refused, as the filter's are
  const std::string_view verb = (method == "GET" || method == "HEAD") ? "get" : "";
  if (verb.empty()) return {405, "method not allowed\n", "", "", false};
  std::string key = cache_key(*token, verb, path);
  const runtime::TimePoint now = clock_.now();
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && now < it->second.expires) {
      AuthDecision hit = it->second.decision;
      hit.cached = true;
      return hit;
    }
  }
  // Outside the lock: a slow API server must not hold every other scrape's cached answer.
  AuthDecision decision = review(*token, verb, path);
  remember(std::move(key), decision, now);
  return decision;
}

AuthDecision MetricsAuthorizer::review(std::string_view token, std::string_view verb,
                                       std::string_view path) {
  auto user = reviewer_.review_token(token);
  if (!user) return {500, "Authentication failed\n", "", user.error(), false};
  if (!*user) return unauthorized();
  const std::string& name = (*user)->name;
  auto allowed = reviewer_.review_access(**user, verb, path);
  if (!allowed) {
    return {500,
            "Authorization error (user=" + name + ", verb=" + std::string(verb) +
                ", resource=, subresource=)\n",
            name, allowed.error(), false};
  }
  if (!*allowed) return {403, forbidden(name, verb), name, "", false};
  return {200, "", name, "", false};
}

void MetricsAuthorizer::remember(std::string key, const AuthDecision& decision,
                                 runtime::TimePoint now) {
  if (decision.status == 500 || decision.status == 405) return;  // no answer: ask again next time
  const runtime::Duration ttl = decision.status == 200 ? options_.cache_ttl : options_.refusal_ttl;
  if (ttl <= runtime::Duration::zero() || options_.max_entries == 0) return;
  std::lock_guard lock(mutex_);
  if (entries_.size() >= options_.max_entries && !entries_.contains(key)) {
    std::erase_if(entries_, [now](const auto& e) { return e.second.expires <= now; });
    if (entries_.size() >= options_.max_entries) {
      auto first = std::min_element(entries_.begin(), entries_.end(), [](auto& a, auto& b) {
        return a.second.expires < b.second.expires;
      });
      entries_.erase(first);
    }
  }
  entries_[std::move(key)] = {decision, now + ttl};
}

std::size_t MetricsAuthorizer::cached() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace respool::server
