#pragma once
// An in-process API server without the network: requests go straight to the Dispatcher and
// answers are captured by an in-memory Responder. Watches run on a thread and record chunks.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/handlers/dispatcher.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox::testing {

using Json = nlohmann::json;

struct Reply {
  int status = 0;
  http::Headers headers;
  std::string body;
  std::vector<std::string> chunks;  // a streamed answer
  Json json() const { return Json::parse(body, nullptr, false); }
  std::string header(std::string_view name) const {
    return std::string(headers.get(name).value_or(""));
  }
};

class MemoryWriter final : public http::ChunkWriter {
 public:
  bool write(std::string_view data) override;
  bool closed() const override { return closed_.load(); }
  void close() { closed_ = true; }
  // Waits (up to `seconds`) until at least n chunks arrived; returns them.
  std::vector<std::string> wait_for(std::size_t n, double seconds = 20);
  std::vector<std::string> chunks() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> chunks_;
  std::atomic<bool> closed_{false};
};

class MemoryResponder final : public http::Responder {
 public:
  void respond(http::Response response) override;
  http::ChunkWriter& stream(int status, http::Headers headers) override;
  Reply reply;
  MemoryWriter writer;
  std::atomic<bool> streaming{false};
};

struct Request {
  Request(std::string m, std::string t, std::string b = "",
          std::vector<std::pair<std::string, std::string>> h = {})
      : method(std::move(m)), target(std::move(t)), body(std::move(b)), headers(std::move(h)) {}
  std::string method = "GET";
  std::string target;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool authenticate = true;
  std::string token;  // overrides the good token when set
  bool too_large = false;
};

// A watch running on its own thread until the server ends it or stop() is called.
class WatchHandle {
 public:
  // `wake` nudges the server's watches (as ApiServer's housekeeping does) so a closed client is
  // noticed.
  WatchHandle(Dispatcher& dispatcher, http::ServerRequest request, std::function<void()> wake);
  ~WatchHandle();
  MemoryResponder& responder() { return *responder_; }
  std::vector<Json> events(std::size_t n, double seconds = 20);
  bool finished() const { return done_.load(); }
  // Waits until the answer's headers went out (the watch is established).
  bool wait_streaming(double seconds = 20);
  // Waits until the server ended the stream.
  bool wait_finished(double seconds = 20);
  void stop();

 private:
  std::unique_ptr<MemoryResponder> responder_;
  std::function<void()> wake_;
  std::thread thread_;
  std::atomic<bool> done_{false};
};

class Harness {
 public:
  explicit Harness(runtime::Clock* clock = nullptr, std::size_t history = 10'000,
                   bool authorization = true);
  ~Harness();

  Reply call(const Request& r);
  Reply get(const std::string& target, const std::string& accept = "application/json");
  Reply post(const std::string& target, const Json& body);
  Reply put(const std::string& target, const Json& body);
  Reply patch(const std::string& target, const Json& body,
              const std::string& type = "application/merge-patch+json");
  Reply del(const std::string& target, const Json& body = nullptr);
  std::unique_ptr<WatchHandle> watch(const std::string& target,
                                     const std::string& accept = "application/json");

  Engine& engine() { return *engine_; }
  FaultInjector& faults() { return faults_; }
  Dispatcher& dispatcher() { return *dispatcher_; }
  runtime::Clock& clock() { return *clock_; }
  static constexpr const char* kToken = "test-token";

 private:
  http::ServerRequest make(const Request& r) const;
  std::unique_ptr<runtime::Clock> owned_clock_;
  runtime::Clock* clock_;
  std::unique_ptr<Engine> engine_;
  FaultInjector faults_;
  RequestCounts counts_;
  std::unique_ptr<Dispatcher> dispatcher_;
};

// The RefWidget CRD of k8s-reference/crd-create.txt.
Json refwidget_crd();
// Status fields of an answer compared with a transcript's (uid/time/rv ignored).
void require_same_status(const Json& got, const Json& want);

}  // namespace respool::sandbox::testing
