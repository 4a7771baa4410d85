// Client::exec against a scripted WebSocket server (operator/http's server and the sandbox's
// frame helpers): what the sandbox never does on its own: offering only v4, a subprotocol
// nobody asked for, a session that never ends (deadline, cancellation), odd error channels,
// a server that cannot be reached.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <thread>

#include "operator/http/server.hpp"
#include "operator/kube/client.hpp"
#include "sandbox/apiserver/handlers/websocket.hpp"

using namespace respool;
using namespace std::chrono_literals;
using kube::Error;
using kube::Json;
namespace ws = respool::sandbox::websocket;

namespace {

std::string frame(char channel, const std::string& data) {
  return ws::binary_frame(std::string(1, channel) + data);
}

std::string exit_status(int code) {
  return Json{
      {"metadata", Json::object()},
      {"status", "Failure"},
      {"reason", "NonZeroExitCode"},
      {"message", "command terminated with non-zero exit code: exit code " + std::to_string(code)},
      {"details", {{"causes", {{{"reason", "ExitCode"}, {"message", std::to_string(code)}}}}}}}
      .dump();
}

// Answers pods/exec for pod P as the script for P says; records the protocols offered.
class ScriptedServer {
 public:
  ScriptedServer() {
    auto started =
        http::Server::start({}, [this](const http::ServerRequest& request,
                                       http::Responder& responder) { serve(request, responder); });
    REQUIRE(started);
    server_ = std::move(*started);
  }
  ~ScriptedServer() { server_->stop(); }

  kube::ClusterConfig config() const { return {server_->url(), {}, "token", {}, {}}; }
  std::uint16_t port() const { return server_->port(); }
  std::string offered() {
    std::lock_guard lock(mutex_);
    return offered_;
  }

 private:
  void serve(const http::ServerRequest& request, http::Responder& responder) {
    {
      std::lock_guard lock(mutex_);
      offered_ = request.headers.get("Sec-WebSocket-Protocol").value_or("");
    }
    const std::string pod = request.target.substr(0, request.target.find('?'));
    auto open = [&](const std::string& protocol) {
      http::Headers headers;
      headers.set("Upgrade", "websocket");
      headers.set("Connection", "Upgrade");
      headers.set("Sec-WebSocket-Accept",
                  ws::accept_key(request.headers.get("Sec-WebSocket-Key").value_or("")));
      headers.set("Sec-WebSocket-Protocol", protocol);
      return responder.upgrade(std::move(headers));
    };
    if (pod.ends_with("/old/exec")) {  // a server that speaks v4 only
      http::ChunkWriter* socket = open("v4.channel.k8s.io");
      socket->write(frame(1, "old\n") + frame(3, exit_status(3)) + ws::close_frame(1000));
    } else if (pod.ends_with("/odd/exec")) {
      open("v3.channel.k8s.io")->write(ws::close_frame(1000));
    } else if (pod.ends_with("/hang/exec")) {  // output, then nothing until the client goes
      http::ChunkWriter* socket = open("v5.channel.k8s.io");
      socket->write(frame(1, "working\n"));
      for (int i = 0; i < 1000 && !socket->closed(); ++i)
        std::this_thread::sleep_for(10ms);
    } else if (pod.ends_with("/broken/exec")) {  // the runtime could not start the command
      Json status = {{"metadata", Json::object()},
                     {"status", "Failure"},
                     {"message", "OCI runtime exec failed"},
                     {"reason", "InternalError"},
                     {"code", 500}};
      open("v5.channel.k8s.io")->write(frame(3, status.dump()) + ws::close_frame(1000));
    } else if (pod.ends_with("/garbled/exec")) {
      open("v5.channel.k8s.io")
          ->write(frame(3,
                        "{\"status\":\"Failure\",\"reason\":"
                        "\"NonZeroExitCode\",\"details\":{\"causes\":"
                        "[{\"reason\":\"ExitCode\",\"message\":\"x\"}]}}") +
                  ws::close_frame(1000));
    } else if (pod.ends_with("/aborted/exec")) {  // closed with an error code, then dropped
      open("v5.channel.k8s.io")->write(frame(1, "partial") + ws::close_frame(1011));
    } else if (pod.ends_with("/dropped/exec")) {  // the Status, then the connection just ends
      open("v5.channel.k8s.io")->write(frame(2, "bye\n") + frame(3, exit_status(137)));
    } else {  // not a WebSocket endpoint: a proxy's plain answer
      responder.respond({502, {}, "upstream unavailable\n"});
    }
  }

  std::unique_ptr<http::Server> server_;
  std::mutex mutex_;
  std::string offered_;
};

std::unique_ptr<kube::Client> client_for(const kube::ClusterConfig& config,
                                         kube::ClientOptions options = {}) {
  auto client = kube::Client::create(config, std::move(options));
  REQUIRE(client);
  return std::move(*client);
}

}  // namespace

TEST_CASE("exec falls back to v4 and checks the subprotocol", "[client][exec]") {
  ScriptedServer server;
  auto client = client_for(server.config());
  auto old = client->exec("default", "old", "c", {"kill", "1"});
  REQUIRE(old);
  CHECK(server.offered() == "v5.channel.k8s.io, v4.channel.k8s.io");
  CHECK(old->protocol == "v4.channel.k8s.io");
  CHECK(old->out == "old\n");
  CHECK(old->exit_code == 3);

  auto odd = client->exec("default", "odd", "c", {"true"});
  REQUIRE_FALSE(odd);
  CHECK(odd.error().is(Error::Kind::Network));
  CHECK_THAT(odd.error().message, Catch::Contains("v3.channel.k8s.io"));

  auto proxy = client->exec("default", "elsewhere", "c", {"true"});
  REQUIRE_FALSE(proxy);
  CHECK(proxy.error().is(Error::Kind::ServerError));
  CHECK(proxy.error().code == 502);
  CHECK(proxy.error().message == "upstream unavailable");
}

TEST_CASE("exec decodes the error channel as client-go does", "[client][exec]") {
  ScriptedServer server;
  auto client = client_for(server.config());
  auto broken = client->exec("default", "broken", "c", {"true"});
  REQUIRE_FALSE(broken);
  CHECK(broken.error().is(Error::Kind::ServerError));
  CHECK(broken.error().reason == "InternalError");
  CHECK(broken.error().message == "OCI runtime exec failed");

  auto garbled = client->exec("default", "garbled", "c", {"true"});
  REQUIRE_FALSE(garbled);
  CHECK(garbled.error().is(Error::Kind::Decode));
  CHECK(garbled.error().message == "error stream protocol error: invalid exit code value \"x\"");

  auto aborted = client->exec("default", "aborted", "c", {"true"});
  REQUIRE_FALSE(aborted);
  CHECK(aborted.error().is(Error::Kind::Network));
  CHECK_THAT(aborted.error().message, Catch::Contains("1011"));

  // The Status came, then the connection ended without a close frame: the Status counts.
  auto dropped = client->exec("default", "dropped", "c", {"kill", "-9", "1"});
  REQUIRE(dropped);
  CHECK(dropped->exit_code == 137);
  CHECK(dropped->err == "bye\n");

  using kube::detail::decode_exec_status;
  CHECK(decode_exec_status("", {})->exit_code == 0);  // no Status at all: success
  CHECK(decode_exec_status(R"({"status":"Success"})", {})->exit_code == 0);
  CHECK(decode_exec_status("not json", {}).error().is(Error::Kind::Decode));
  CHECK(decode_exec_status(R"({"status":"Failure","reason":"NonZeroExitCode"})", {})
            .error()
            .message == "error stream protocol error: details must be set");
  CHECK(decode_exec_status(R"({"status":"Unknown"})", {}).error().is(Error::Kind::Decode));
}

TEST_CASE("exec is bounded by its deadline and can be cancelled", "[client][exec]") {
  ScriptedServer server;
  auto client = client_for(server.config());
  kube::ExecOptions options;
  options.timeout = 300ms;
  auto start = std::chrono::steady_clock::now();
  auto late = client->exec("default", "hang", "c", {"sleep", "3600"}, options);
  auto elapsed = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(late);
  CHECK(late.error().is(Error::Kind::Timeout));
  CHECK(elapsed >= 300ms);
  CHECK(elapsed < 3s);

  std::stop_source stop;
  options.timeout = 30s;
  options.stop = stop.get_token();
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    stop.request_stop();
  });
  start = std::chrono::steady_clock::now();
  auto cancelled = client->exec("default", "hang", "c", {"sleep", "3600"}, options);
  elapsed = std::chrono::steady_clock::now() - start;
  canceller.join();
  REQUIRE_FALSE(cancelled);
  CHECK(cancelled.error().is(Error::Kind::Cancelled));
  CHECK(elapsed < 3s);
  // Already stopped: nothing is sent.
  auto never = client->exec("default", "old", "c", {"true"}, options);
  REQUIRE_FALSE(never);
  CHECK(never.error().is(Error::Kind::Cancelled));
}

TEST_CASE("exec tries again only when no connection could be opened", "[client][exec]") {
  std::uint16_t port = 0;
  {
    ScriptedServer gone;  // a port nobody listens on once it stops
    port = gone.port();
  }
  int attempts = 0;
  kube::ClientOptions options;
  options.max_retries = 2;
  options.initial_backoff = 1ms;
  options.observe = [&](std::string_view method, std::string_view, int code, double) {
    CHECK(method == "GET");
    CHECK(code == 0);
    ++attempts;
  };
  auto client = client_for({"http://127.0.0.1:" + std::to_string(port), {}, "", {}, {}}, options);
  auto refused = client->exec("default", "w", "c", {"true"});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().is(Error::Kind::Network));
  CHECK_THAT(refused.error().message, Catch::StartsWith("Connect:"));
  CHECK(attempts == 3);
}
