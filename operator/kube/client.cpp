#include "operator/kube/client.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <simdjson.h>

#include "operator/kube/network_error.hpp"
#include "operator/kube/request_limiter.hpp"

namespace respool::kube {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string_view content_type(PatchType type) {
  switch (type) {
    case PatchType::Merge:
      return "application/merge-patch+json";
    case PatchType::Json:
      return "application/json-patch+json";
    case PatchType::Strategic:
      return "application/strategic-merge-patch+json";
  }
  return "application/merge-patch+json";
}

Json DeleteOptions::to_json() const {
  Json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (precondition_uid || precondition_resource_version) {
    Json pre = Json::object();
    if (precondition_uid) pre["uid"] = *precondition_uid;
    if (precondition_resource_version) pre["resourceVersion"] = *precondition_resource_version;
    body["preconditions"] = pre;
  }
  if (propagation_policy) body["propagationPolicy"] = *propagation_policy;
  if (grace_period_seconds) body["gracePeriodSeconds"] = *grace_period_seconds;
  if (dry_run) body["dryRun"] = Json::array({"All"});
  return body;
}

namespace {

// Builds "?a=b&c=d" from the parameters that are set.
class Query {
 public:
  Query& add(std::string_view name, std::string_view value) {
    if (value.empty()) return *this;
    text_ += text_.empty() ? '?' : '&';
    text_ += name;
    text_ += '=';
    text_ += http::percent_encode(value);
    return *this;
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

std::optional<std::chrono::seconds> retry_after_header(const http::Headers& headers) {
  auto v = headers.get("Retry-After");
  if (!v) return std::nullopt;
  long seconds = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
  if (ec != std::errc() || seconds < 0) return std::nullopt;
  return std::chrono::seconds(seconds);
}

Result<Json> parse_body(const http::Response& response) {
  Json body = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return fail(
        Error::Kind::Decode,
        "the server's answer is not JSON (" + std::to_string(response.body.size()) + " bytes)",
        response.status);
  }
  return body;
}

bool idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE";
}

class HttpWatchStream final : public WatchStream {
 public:
  explicit HttpWatchStream(std::unique_ptr<http::Stream> stream) : stream_(std::move(stream)) {}
  Result<std::optional<std::string>> next_line(std::chrono::milliseconds idle_timeout) override {
    for (;;) {
      auto line = stream_->read_line(idle_timeout);
      if (!line) return std::unexpected(network_error(line.error()));
      if (line->has_value() && (*line)->empty()) continue;  // keep-alive blank line
      return std::move(*line);
    }
  }
  void cancel() override { stream_->cancel(); }

 private:
  std::unique_ptr<http::Stream> stream_;
};

}  // namespace

struct Client::Impl {
  ClusterConfig config;
  ClientOptions options;
  http::Url url;
  std::unique_ptr<http::Client> http;
  RequestLimiter limiter;

  std::mutex token_mu;
  std::string token;
  fs::file_time_type token_mtime{};

  std::mutex rng_mu;
  std::mt19937 rng{std::random_device{}()};

  Impl(ClusterConfig c, ClientOptions o, http::Url u)
      : config(std::move(c)),
        options(std::move(o)),
        url(std::move(u)),
        limiter(options.qps, options.burst) {}

  // The bearer token: fixed, or the token file's content, re-read when the file changes (a
  // projected service-account token rotates in place).
  std::string bearer_token() {
    if (config.token_file.empty()) return config.token;
    std::lock_guard lock(token_mu);
    std::error_code ec;
    auto mtime = fs::last_write_time(config.token_file, ec);
    if (!ec && (token.empty() || mtime != token_mtime)) {
      std::ifstream in(config.token_file);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string t = ss.str();
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' '))
        t.pop_back();
      if (!t.empty()) {
        token = std::move(t);
        token_mtime = mtime;
      }
    }
    return token;
  }

  std::chrono::milliseconds backoff(int attempt) {
    auto base = options.initial_backoff * (1LL << std::min(attempt, 16));
    base = std::min<std::chrono::milliseconds>(base, options.max_backoff);
    std::lock_guard lock(rng_mu);
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    return std::chrono::milliseconds(static_cast<long long>(base.count() * jitter(rng)));
  }

  http::Request make_request(std::string_view method, std::string_view target, std::string body,
                             std::string_view content_type) {
    http::Request req;
    req.method = std::string(method);
    req.target = url.path + std::string(target);
    req.headers.set("Accept", "application/json");
    req.headers.set("User-Agent", options.user_agent);
    if (std::string t = bearer_token(); !t.empty()) req.headers.set("Authorization", "Bearer " + t);
    if (!content_type.empty()) req.headers.set("Content-Type", std::string(content_type));
    req.body = std::move(body);
    return req;
  }

  void observe(std::string_view method, int code, std::chrono::steady_clock::time_point start) {
    if (!options.observe) return;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    options.observe(method, url.host + ":" + std::to_string(url.port), code, seconds);
  }

  // One API call with retries: 429 always (the server did not act on it), 5xx and network
  // errors only when repeating the request cannot do harm.
  Result<http::Response> execute(std::string_view method, std::string_view target,
                                 const std::string& body, std::string_view content_type) {
    const bool may_repeat = idempotent(method);
    for (int attempt = 0;; ++attempt) {
      limiter.acquire();
      auto start = std::chrono::steady_clock::now();
      auto response =
          http->send(make_request(method, target, body, content_type), options.request_timeout);
      if (!response) {
        observe(method, 0, start);
        if (response.error().kind == http::NetError::Kind::Cancelled || !may_repeat ||
            attempt >= options.max_retries) {
          return std::unexpected(network_error(response.error()));
        }
        std::this_thread::sleep_for(backoff(attempt));
        continue;
      }
      observe(method, response->status, start);
      const int code = response->status;
      // A 429 is repeated only when the server says when (Retry-After, as client-go does): one
      // without it is an answer, not throttling, e.g. an eviction a PodDisruptionBudget refuses,
      // which the caller retries at its own pace instead of blocking here for seconds.
      auto after = retry_after_header(response->headers);
      const bool throttled = code == 429 && after.has_value();
      if ((throttled || (code >= 500 && may_repeat)) && attempt < options.max_retries) {
        std::chrono::milliseconds wait =
            after ? std::chrono::milliseconds(*after) : backoff(attempt);
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(wait, 60s));
        continue;
      }
      return std::move(*response);
    }
  }

  Result<Json> call(std::string_view method, std::string_view target, const std::string& body = {},
                    std::string_view content_type = {}) {
    auto response = execute(method, target, body, content_type);
    if (!response) return std::unexpected(response.error());
    if (response->status < 200 || response->status >= 300) {
      return std::unexpected(error_from_response(response->status, response->body,
                                                 retry_after_header(response->headers)));
    }
    return parse_body(*response);
  }
};

Client::Client(Key, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::create(ClusterConfig config, ClientOptions options) {
  auto url = http::parse_url(config.server);
  if (!url) return fail(Error::Kind::Config, "server \"" + config.server + "\" is not a URL");
  if (url->scheme != "https" && url->scheme != "http") {
    return fail(Error::Kind::Config,
                "server \"" + config.server + "\": scheme must be https or http");
  }
  auto impl = std::make_unique<Impl>(std::move(config), std::move(options), *url);
  http::ClientOptions http_options;
  http_options.endpoint = *url;
  http_options.tls = impl->config.tls;
  impl->http = std::make_unique<http::Client>(std::move(http_options));
  return std::make_unique<Client>(Key{}, std::move(impl));
}

const ClusterConfig& Client::config() const {
  return impl_->config;
}

Result<Json> Client::get(const Resource& r, std::string_view ns, std::string_view name,
                         std::string_view subresource) {
  return impl_->call("GET", r.item_path(ns, name, subresource));
}

namespace {

std::string list_target(const Resource& r, std::string_view ns, const ListOptions& o) {
  Query q;
  q.add("labelSelector", o.label_selector).add("fieldSelector", o.field_selector);
  if (o.limit > 0) q.add("limit", std::to_string(o.limit));
  q.add("continue", o.continue_token).add("resourceVersion", o.resource_version);
  return r.collection_path(ns) + q.str();
}

// metadata.continue of a list page, read without building the page.
std::string continue_token(std::string_view page) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(page);
  auto doc = parser.iterate(padded);
  std::string_view token;
  if (doc.find_field_unordered("metadata")
          .find_field_unordered("continue")
          .get_string()
          .get(token) != simdjson::SUCCESS) {
    return {};
  }
  return std::string(token);
}

}  // namespace

Result<Json> Client::list(const Resource& r, std::string_view ns, ListOptions options) {
  Json result;
  bool restarted = false;
  for (;;) {
    auto page = impl_->call("GET", list_target(r, ns, options));
    if (!page) {
      // The continue token outlived the server's history: start over once, as client-go does.
      if (page.error().is(Error::Kind::Gone) && !options.continue_token.empty() && !restarted) {
        restarted = true;
        options.continue_token.clear();
        result = Json();
        continue;
      }
      return page;
    }
    if (result.is_null()) {
      result = std::move(*page);
      if (!result.contains("items") || !result["items"].is_array()) result["items"] = Json::array();
    } else {
      auto& items = (*page)["items"];
      if (items.is_array()) {
        for (auto& item : items)
          result["items"].push_back(std::move(item));
      }
      result["metadata"]["continue"] = page->value("/metadata/continue"_json_pointer, "");
    }
    std::string next = result["metadata"].value("continue", "");
    if (next.empty()) break;
    options.continue_token = next;
  }
  if (result.contains("metadata")) {
    result["metadata"].erase("continue");
    result["metadata"].erase("remainingItemCount");
  }
  return result;
}

Result<void> Client::list_pages(const Resource& r, std::string_view ns, ListOptions options,
                                const std::function<bool(std::string_view page)>& on_page) {
  for (;;) {
    auto response = impl_->execute("GET", list_target(r, ns, options), {}, {});
    if (!response) return std::unexpected(response.error());
    if (response->status != 200) {
      return std::unexpected(error_from_response(response->status, response->body,
                                                 retry_after_header(response->headers)));
    }
    if (!on_page(response->body)) return {};
    std::string next = continue_token(response->body);
    if (next.empty()) return {};
    options.continue_token = std::move(next);
  }
}

namespace {
std::string write_query(const WriteOptions& o) {
  Query q;
  if (o.dry_run) q.add("dryRun", "All");
  q.add("fieldManager", o.field_manager);
  return q.str();
}

std::string object_name(const Json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return {};
  auto name = meta->find("name");
  return name != meta->end() && name->is_string() ? name->get<std::string>() : std::string();
}
}  // namespace

Result<Json> Client::create(const Resource& r, std::string_view ns, const Json& object,
                            const WriteOptions& options) {
  return impl_->call("POST", r.collection_path(ns) + write_query(options), object.dump(),
                     "application/json");
}

Result<Json> Client::update(const Resource& r, std::string_view ns, const Json& object,
                            const WriteOptions& options) {
  std::string name = object_name(object);
  if (name.empty()) return fail(Error::Kind::Invalid, "update: the object has no metadata.name");
  return impl_->call("PUT", r.item_path(ns, name, options.subresource) + write_query(options),
                     object.dump(), "application/json");
}

Result<Json> Client::update_status(const Resource& r, std::string_view ns, const Json& object) {
  WriteOptions options;
  options.subresource = "status";
  return update(r, ns, object, options);
}

Result<Json> Client::patch(const Resource& r, std::string_view ns, std::string_view name,
                           PatchType type, const Json& patch, const WriteOptions& options) {
  return impl_->call("PATCH", r.item_path(ns, name, options.subresource) + write_query(options),
                     patch.dump(), content_type(type));
}

Result<Json> Client::remove(const Resource& r, std::string_view ns, std::string_view name,
                            const DeleteOptions& options) {
  return impl_->call("DELETE", r.item_path(ns, name), options.to_json().dump(), "application/json");
}

Result<void> Client::evict(std::string_view ns, std::string_view pod,
                           const DeleteOptions& options) {
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", ns}}},
                   {"deleteOptions", options.to_json()}};
  auto result = impl_->call("POST", resources::pods.item_path(ns, pod, "eviction"), eviction.dump(),
                            "application/json");
  if (!result) return std::unexpected(result.error());
  return {};
}

Result<std::unique_ptr<WatchStream>> Client::watch(const Resource& r, std::string_view ns,
                                                   const WatchOptions& options) {
  Query q;
  q.add("watch", "true")
      .add("labelSelector", options.label_selector)
      .add("fieldSelector", options.field_selector)
      .add("resourceVersion", options.resource_version);
  if (options.allow_bookmarks) q.add("allowWatchBookmarks", "true");
  if (options.timeout_seconds > 0) q.add("timeoutSeconds", std::to_string(options.timeout_seconds));
  const std::string target = r.collection_path(ns) + q.str();
  for (int attempt = 0;; ++attempt) {
    impl_->limiter.acquire();
    auto start = std::chrono::steady_clock::now();
    auto stream = impl_->http->open(impl_->make_request("GET", target, {}, {}),
                                    impl_->options.request_timeout);
    if (!stream) {
      impl_->observe("WATCH", 0, start);
      return std::unexpected(network_error(stream.error()));
    }
    const int code = (*stream)->status();
    impl_->observe("WATCH", code, start);
    if (code == 200) return std::make_unique<HttpWatchStream>(std::move(*stream));
    auto body = (*stream)->read_all(impl_->options.request_timeout);
    auto after = retry_after_header((*stream)->headers());
    if (code == 429 && attempt < impl_->options.max_retries) {
      std::this_thread::sleep_for(after ? std::chrono::milliseconds(*after)
                                        : impl_->backoff(attempt));
      continue;
    }
    return std::unexpected(error_from_response(code, body ? *body : std::string(), after));
  }
}

Result<http::Response> Client::request(std::string_view method, std::string_view target,
                                       std::string body, std::string_view content_type) {
  return impl_->execute(method, target, body, content_type);
}

namespace {
// The request never reached the server: trying again cannot run the command twice.
bool never_connected(const http::NetError& e) {
  return e.kind == http::NetError::Kind::Resolve || e.kind == http::NetError::Kind::Connect;
}
}  // namespace

Result<ExecResult> Client::exec(std::string_view ns, std::string_view pod,
                                std::string_view container, const std::vector<std::string>& command,
                                const ExecOptions& options) {
  using Clock = std::chrono::steady_clock;
  if (command.empty()) return fail(Error::Kind::Invalid, "exec: the command is empty");
  const auto timeout =
      options.timeout.count() > 0 ? options.timeout : impl_->options.request_timeout;
  const Clock::time_point deadline = Clock::now() + timeout;
  const std::string target = detail::exec_target(ns, pod, container, command, options);
  for (int attempt = 0;; ++attempt) {
    impl_->limiter.acquire();
    auto start = Clock::now();
    auto upgrade = impl_->http->open_websocket(impl_->make_request("GET", target, {}, {}),
                                               detail::exec_protocols(), deadline, options.stop);
    if (!upgrade) {
      impl_->observe("GET", 0, start);
      const auto wait = impl_->backoff(attempt);
      if (!never_connected(upgrade.error()) || attempt >= impl_->options.max_retries ||
          options.stop.stop_requested() || Clock::now() + wait >= deadline) {
        return std::unexpected(network_error(upgrade.error()));
      }
      std::this_thread::sleep_for(wait);
      continue;
    }
    impl_->observe("GET", upgrade->status, start);
    return detail::finish_exec(std::move(*upgrade), deadline);
  }
}

}  // namespace respool::kube
