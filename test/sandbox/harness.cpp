#include "harness.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include "reference.hpp"

namespace respool::sandbox::testing {

bool MemoryWriter::write(std::string_view data) {
  if (closed_) return false;
  {
    std::lock_guard lock(mu_);
    chunks_.emplace_back(data);
  }
  cv_.notify_all();
  return true;
}

std::vector<std::string> MemoryWriter::wait_for(std::size_t n, double seconds) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return chunks_.size() >= n; });
  return chunks_;
}

std::vector<std::string> MemoryWriter::chunks() const {
  std::lock_guard lock(mu_);
  return chunks_;
}

void MemoryResponder::respond(http::Response response) {
  reply.status = response.status;
  reply.headers = std::move(response.headers);
  reply.body = std::move(response.body);
}

http::ChunkWriter& MemoryResponder::stream(int status, http::Headers headers) {
  reply.status = status;
  reply.headers = std::move(headers);
  streaming = true;
  return writer;
}

WatchHandle::WatchHandle(Dispatcher& dispatcher, http::ServerRequest request,
                         std::function<void()> wake)
    : responder_(std::make_unique<MemoryResponder>()), wake_(std::move(wake)) {
  thread_ = std::thread([this, &dispatcher, request = std::move(request)] {
    dispatcher.handle(request, *responder_);
    done_ = true;
  });
}

WatchHandle::~WatchHandle() {
  stop();
}

void WatchHandle::stop() {
  responder_->writer.close();
  if (!thread_.joinable()) return;
  while (!done_) {
    wake_();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  thread_.join();
}

bool WatchHandle::wait_finished(double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done_;
}

bool WatchHandle::wait_streaming(double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!responder_->streaming && !done_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return responder_->streaming;
}

std::vector<Json> WatchHandle::events(std::size_t n, double seconds) {
  std::vector<Json> out;
  for (const std::string& c : responder_->writer.wait_for(n, seconds)) {
    out.push_back(Json::parse(c, nullptr, false));
  }
  return out;
}

Harness::Harness(runtime::Clock* clock, std::size_t history, bool authorization) {
  if (!clock) {
    owned_clock_ = std::make_unique<runtime::RealClock>();
    clock = owned_clock_.get();
  }
  clock_ = clock;
  engine_ = std::make_unique<Engine>(*clock_, history);
  engine_->bootstrap();
  DispatcherOptions o;
  o.token = kToken;
  o.server_address = "127.0.0.1:6443";
  o.authorization = authorization;
  dispatcher_ = std::make_unique<Dispatcher>(*engine_, faults_, counts_, o);
}

Harness::~Harness() {
  dispatcher_->stop();
}

http::ServerRequest Harness::make(const Request& r) const {
  http::ServerRequest req;
  req.method = r.method;
  req.target = r.target;
  req.body = r.body;
  req.remote_address = "127.0.0.1:50000";
  req.body_too_large = r.too_large;
  if (r.authenticate) {
    req.headers.set("Authorization", "Bearer " + (r.token.empty() ? kToken : r.token));
  }
  for (const auto& [k, v] : r.headers)
    req.headers.set(k, v);
  return req;
}

Reply Harness::call(const Request& r) {
  MemoryResponder responder;
  dispatcher_->handle(make(r), responder);
  Reply reply = responder.reply;
  reply.chunks = responder.writer.chunks();
  return reply;
}

Reply Harness::get(const std::string& target, const std::string& accept) {
  return call({"GET", target, "", {{"Accept", accept}}});
}

Reply Harness::post(const std::string& target, const Json& body) {
  return call({"POST", target, body.dump(), {{"Content-Type", "application/json"}}});
}

Reply Harness::put(const std::string& target, const Json& body) {
  return call({"PUT", target, body.dump(), {{"Content-Type", "application/json"}}});
}

Reply Harness::patch(const std::string& target, const Json& body, const std::string& type) {
  return call({"PATCH", target, body.dump(), {{"Content-Type", type}}});
}

Reply Harness::del(const std::string& target, const Json& body) {
  Request r{
      "DELETE", target, body.is_null() ? "" : body.dump(), {{"Content-Type", "application/json"}}};
  return call(r);
}

std::unique_ptr<WatchHandle> Harness::watch(const std::string& target, const std::string& accept) {
  Engine* engine = engine_.get();
  return std::make_unique<WatchHandle>(*dispatcher_,
                                       make({"GET", target, "", {{"Accept", accept}}}), [engine] {
                                         std::lock_guard lock(engine->store().mutex());
                                         engine->store().changed().notify_all();
                                       });
}

Json refwidget_crd() {
  return Json::parse(reference::kRefWidgetCrd);
}

namespace {

// The order of several causes follows the schema validator's walk, which the real server does
// not fix either (its transcripts show different orders): compare them as sets.
Json normalized(Json status) {
  if (status.contains("details") && status["details"].contains("causes")) {
    std::vector<Json> causes = status["details"]["causes"];
    std::sort(causes.begin(), causes.end(),
              [](const Json& a, const Json& b) { return a.dump() < b.dump(); });
    status["details"]["causes"] = causes;
  }
  std::string message = status.value("message", "");
  auto open = message.find(" is invalid: [");
  if (open != std::string::npos && message.back() == ']') {
    std::string body = message.substr(open + 14, message.size() - open - 15);
    std::vector<std::string> parts;
    for (const Json& c : status["details"]["causes"]) {
      parts.push_back(c.value("field", "") + ": " + c.value("message", ""));
    }
    std::sort(parts.begin(), parts.end());
    std::string joined;
    for (const std::string& p : parts)
      joined += (joined.empty() ? "" : ", ") + p;
    status["message"] =
        message.substr(0, open + 14) + (body.size() == joined.size() ? joined : body) + "]";
  }
  return status;
}

}  // namespace

void require_same_status(const Json& got_raw, const Json& want_raw) {
  Json got = normalized(got_raw);
  Json want = normalized(want_raw);
  INFO("got " << got_raw.dump() << "\nwant " << want_raw.dump());
  REQUIRE(got.value("kind", "") == "Status");
  REQUIRE(got.value("apiVersion", "") == "v1");
  REQUIRE(got.contains("metadata"));
  for (const char* key : {"status", "message", "reason", "code"}) {
    REQUIRE(got.value(key, Json()) == want.value(key, Json()));
  }
  REQUIRE(got.value("details", Json()) == want.value("details", Json()));
}

}  // namespace respool::sandbox::testing
