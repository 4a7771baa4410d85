#include "sandbox/apiserver/handlers/faults.hpp"

namespace respool::sandbox {
namespace {

bool matches(const std::string& pattern, const std::string& value) {
  return pattern == "*" || pattern.empty() || pattern == value;
}

// "pods" matches "pods" and "pods/eviction"; "pods/eviction" only the subresource.
bool resource_matches(const std::string& pattern, const std::string& resource) {
  if (matches(pattern, resource)) return true;
  auto slash = resource.find('/');
  return slash != std::string::npos && pattern == resource.substr(0, slash);
}

}  // namespace

void FaultInjector::fail_next(FaultRule rule) {
  std::lock_guard lock(mu_);
  if (rule.remaining > 0) rules_.push_back(std::move(rule));
}

void FaultInjector::set_latency(std::chrono::milliseconds latency, std::string verb,
                                std::string resource) {
  std::lock_guard lock(mu_);
  std::erase_if(latencies_,
                [&](const Latency& l) { return l.verb == verb && l.resource == resource; });
  if (latency.count() > 0) latencies_.push_back({latency, std::move(verb), std::move(resource)});
}

void FaultInjector::close_watches() {
  std::lock_guard lock(mu_);
  ++watch_generation_;
}

void FaultInjector::expire_next_watches(int count) {
  std::lock_guard lock(mu_);
  expire_watches_ += count > 0 ? count : 0;
}

void FaultInjector::clear() {
  std::lock_guard lock(mu_);
  rules_.clear();
  latencies_.clear();
  expire_watches_ = 0;
}

std::optional<FaultRule> FaultInjector::take(const std::string& verb, const std::string& resource) {
  std::lock_guard lock(mu_);
  for (auto it = rules_.begin(); it != rules_.end(); ++it) {
    if (!matches(it->verb, verb) || !resource_matches(it->resource, resource)) continue;
    FaultRule hit = *it;
    if (--it->remaining <= 0) rules_.erase(it);
    return hit;
  }
  return std::nullopt;
}

std::chrono::milliseconds FaultInjector::latency_for(const std::string& verb,
                                                     const std::string& resource) {
  std::lock_guard lock(mu_);
  std::chrono::milliseconds total{0};
  for (const Latency& l : latencies_) {
    if (matches(l.verb, verb) && resource_matches(l.resource, resource)) {
      total = std::max(total, l.latency);
    }
  }
  return total;
}

bool FaultInjector::take_watch_expiry() {
  std::lock_guard lock(mu_);
  if (expire_watches_ <= 0) return false;
  --expire_watches_;
  return true;
}

std::uint64_t FaultInjector::watch_generation() const {
  std::lock_guard lock(mu_);
  return watch_generation_;
}

std::optional<std::string> FaultInjector::apply_control(const nlohmann::json& body) {
  if (!body.is_object() || body.empty()) return "the body must be a JSON object naming a fault";
  auto text = [](const nlohmann::json& o, const char* key, const char* fallback) {
    return o.contains(key) && o[key].is_string() ? o[key].get<std::string>()
                                                 : std::string(fallback);
  };
  auto number = [](const nlohmann::json& o, const char* key, long fallback) {
    return o.contains(key) && o[key].is_number_integer() ? o[key].get<long>() : fallback;
  };
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& v = it.value();
    if (key == "failNext") {
      if (!v.is_object()) return "failNext must be an object";
      FaultRule rule;
      rule.verb = text(v, "verb", "*");
      rule.resource = text(v, "resource", "*");
      std::string action = v.contains("action") && v["action"].is_number_integer()
                               ? std::to_string(v["action"].get<int>())
                               : text(v, "action", "500");
      if (action == "500") {
        rule.action = FaultRule::Action::ServerError;
      } else if (action == "429") {
        rule.action = FaultRule::Action::TooManyRequests;
      } else if (action == "409") {
        rule.action = FaultRule::Action::Conflict;
      } else {
        return "failNext.action must be 500, 429 or 409";
      }
      long count = number(v, "count", 1);
      long retry = number(v, "retryAfterSeconds", 1);
      if (count < 1 || count > 1'000'000) return "failNext.count must be between 1 and 1000000";
      if (retry < 0 || retry > 3600) return "failNext.retryAfterSeconds must be between 0 and 3600";
      rule.remaining = static_cast<int>(count);
      rule.retry_after_seconds = static_cast<int>(retry);
      fail_next(rule);
    } else if (key == "latency") {
      if (!v.is_object()) return "latency must be an object";
      long ms = number(v, "ms", -1);
      if (ms < 0 || ms > 600'000) return "latency.ms must be between 0 and 600000";
      set_latency(std::chrono::milliseconds(ms), text(v, "verb", "*"), text(v, "resource", "*"));
    } else if (key == "closeWatches") {
      if (v != true) return "closeWatches must be true";
      close_watches();
    } else if (key == "expireNextWatches") {
      if (!v.is_number_integer() || v.get<long>() < 1 || v.get<long>() > 1'000'000) {
        return "expireNextWatches must be a positive integer";
      }
      expire_next_watches(v.get<int>());
    } else if (key == "clear") {
      if (v != true) return "clear must be true";
      clear();
    } else {
      return "unknown fault \"" + key + "\"";
    }
  }
  return std::nullopt;
}

}  // namespace respool::sandbox
