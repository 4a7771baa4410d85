// Whole requests and responses between Client and Server over loopback.

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "support.hpp"

using namespace respool::http;
using namespace respool::http::test;

namespace {

// Answers with the method, the target and the body it received; remembers the peers it saw.
struct EchoServer {
  std::mutex mutex;
  std::vector<std::string> remotes;
  std::unique_ptr<Server> server;

  explicit EchoServer(ServerOptions options = {}) {
    auto started =
        Server::start(std::move(options), [this](const ServerRequest& r, Responder& out) {
          {
            std::lock_guard lock(mutex);
            remotes.push_back(r.remote_address);
          }
          Response response = text_response(200, r.method + " " + r.target + " " + r.body);
          response.headers.set("X-Seen-Length",
                               std::string(r.headers.get("Content-Length").value_or("none")));
          out.respond(std::move(response));
        });
    REQUIRE(started);
    server = std::move(*started);
  }
  std::set<std::string> distinct_remotes() {
    std::lock_guard lock(mutex);
    return {remotes.begin(), remotes.end()};
  }
};

}  // namespace

TEST_CASE("a plain round trip carries method, target, headers and body", "[http]") {
  EchoServer echo;
  Client client(client_options(url_of(*echo.server)));
  Request request;
  request.method = "PUT";
  request.target = "/api/v1/things/a?x=1";
  request.headers.set("Content-Type", "application/json");
  request.body = R"({"a":1})";
  auto response = client.send(request, 10s);
  REQUIRE(response);
  CHECK(response->status == 200);
  CHECK(response->body == R"(PUT /api/v1/things/a?x=1 {"a":1})");
  CHECK(response->headers.get("content-type") == "text/plain");
  CHECK(response->headers.get("X-Seen-Length") == "7");
  CHECK(response->headers.get("Content-Length") == std::to_string(response->body.size()));

  auto got = client.send(get("/x"), 10s);
  REQUIRE(got);
  CHECK(got->headers.get("X-Seen-Length") == "none");  // no Content-Length on a bodiless GET
}

TEST_CASE("the target goes as given; the endpoint's path is the caller's to add", "[http]") {
  EchoServer echo;
  Url url = url_of(*echo.server);
  url.path = "/prefix";
  Client client(client_options(url));
  auto response = client.send(get("/prefix/api?a=b%20c"), 10s);
  REQUIRE(response);
  CHECK(response->body == "GET /prefix/api?a=b%20c ");
  Request relative = get("api");
  auto refused = client.send(relative, 10s);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == NetError::Kind::Protocol);
}

TEST_CASE("keep-alive: consecutive requests reuse one connection", "[http]") {
  EchoServer echo;
  Client client(client_options(url_of(*echo.server)));
  for (int i = 0; i < 5; ++i) {
    auto response = client.send(get("/n/" + std::to_string(i)), 10s);
    REQUIRE(response);
    CHECK(response->body == "GET /n/" + std::to_string(i) + " ");
  }
  CHECK(echo.distinct_remotes().size() == 1);
}

TEST_CASE("a response with Connection: close is not pooled", "[http]") {
  std::mutex mutex;
  std::set<std::string> remotes;
  auto server = Server::start({}, [&](const ServerRequest& r, Responder& out) {
    {
      std::lock_guard lock(mutex);
      remotes.insert(r.remote_address);
    }
    Response response = text_response(200, "once");
    response.headers.set("Connection", "close");
    out.respond(std::move(response));
  });
  REQUIRE(server);
  Client client(client_options(url_of(**server)));
  for (int i = 0; i < 3; ++i) {
    auto response = client.send(get("/"), 10s);
    REQUIRE(response);
    CHECK(response->body == "once");
    CHECK(response->headers.get("Connection") == "close");
  }
  std::lock_guard lock(mutex);
  CHECK(remotes.size() == 3);
}

TEST_CASE("requests from several threads each get their own answer", "[http]") {
  EchoServer echo;
  Client client(client_options(url_of(*echo.server)));
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        Request request;
        request.method = "POST";
        request.target = "/t";
        request.body = std::to_string(t) + "-" + std::to_string(i);
        auto response = client.send(request, 20s);
        if (response && response->body == "POST /t " + request.body) ++good;
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  CHECK(good == 120);
  CHECK(echo.distinct_remotes().size() <= 6);
}

TEST_CASE("HEAD and 204 answers have no body and keep the connection usable", "[http]") {
  auto server = Server::start({}, [](const ServerRequest& r, Responder& out) {
    if (r.target == "/empty") {
      out.respond({.status = 204, .headers = {}, .body = ""});
    } else {
      out.respond(text_response(200, "twelve bytes"));
    }
  });
  REQUIRE(server);
  Client client(client_options(url_of(**server)));
  Request head = get("/");
  head.method = "HEAD";
  auto headed = client.send(head, 10s);
  REQUIRE(headed);
  CHECK(headed->status == 200);
  CHECK(headed->body.empty());
  CHECK(headed->headers.get("Content-Length") == "12");
  auto empty = client.send(get("/empty"), 10s);
  REQUIRE(empty);
  CHECK(empty->status == 204);
  auto full = client.send(get("/"), 10s);
  REQUIRE(full);
  CHECK(full->body == "twelve bytes");
}

TEST_CASE("a pooled connection the server closed is replaced transparently", "[http]") {
  SECTION("closed while the request was on its way (retry on a fresh connection)") {
    RawListener listener;
    std::thread server([&] {
      try {
        RawSocket first = listener.accept();
        first.read_until_contains("\r\n\r\n", 10s);
        first.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nA1");
        first.read_until_contains("\r\n\r\n", 10s);
        first.close();  // the second request gets no answer on this connection
        RawSocket second = listener.accept();
        second.read_until_contains("\r\n\r\n", 10s);
        second.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nB2");
      } catch (const std::exception&) {
        // the client did not come as expected: the checks below fail
      }
    });
    Client client(
        client_options(*parse_url("http://127.0.0.1:" + std::to_string(listener.port()))));
    auto one = client.send(get("/one"), 10s);
    auto two = client.send(get("/two"), 10s);
    server.join();
    REQUIRE(one);
    CHECK(one->body == "A1");
    REQUIRE(two);
    CHECK(two->body == "B2");
  }
  SECTION("closed by the server's idle timeout") {
    ServerOptions options;
    options.idle_timeout = std::chrono::seconds(1);
    EchoServer echo(options);
    Client client(client_options(url_of(*echo.server)));
    REQUIRE(client.send(get("/a"), 10s));
    std::this_thread::sleep_for(1500ms);  // gives the server time to close; not an assertion
    auto again = client.send(get("/b"), 10s);
    REQUIRE(again);
    CHECK(again->body == "GET /b ");
  }
}

TEST_CASE("the server closes a connection idle past idle_timeout", "[http]") {
  ServerOptions options;
  options.idle_timeout = std::chrono::seconds(1);
  EchoServer echo(options);
  RawSocket socket = RawSocket::connect_to(echo.server->port());
  bool closed = false;
  socket.read_until_close(20s, &closed);
  CHECK(closed);
}

TEST_CASE("a chunked request body is decoded", "[http]") {
  EchoServer echo;
  RawSocket socket = RawSocket::connect_to(echo.server->port());
  socket.send(
      "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n");
  std::string response = socket.read_until_contains("POST /c hello world", 10s);
  CHECK(response.starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK(response.find("POST /c hello world") != std::string::npos);
}

TEST_CASE("a body over max_body_bytes is not read; the handler answers 413", "[http]") {
  std::atomic<int> too_large{0};
  std::atomic<std::size_t> body_seen{1};
  ServerOptions options;
  options.max_body_bytes = 1024;
  auto server = Server::start(options, [&](const ServerRequest& r, Responder& out) {
    if (r.body_too_large) ++too_large;
    body_seen = r.body.size();
    out.respond(text_response(r.body_too_large ? 413 : 200, "limit"));
  });
  REQUIRE(server);

  SECTION("declared by Content-Length") {
    Client client(client_options(url_of(**server)));
    Request request;
    request.method = "POST";
    request.target = "/big";
    request.body = std::string(256 * 1024, 'x');
    auto response = client.send(request, 20s);
    REQUIRE(response);
    CHECK(response->status == 413);
    CHECK(response->headers.get("Connection") == "close");
    CHECK(too_large == 1);
    CHECK(body_seen == 0);
    // The next request goes on a new connection and is served normally.
    request.body = "small";
    auto small = client.send(request, 10s);
    REQUIRE(small);
    CHECK(small->status == 200);
  }
  SECTION("discovered while reading a chunked body") {
    RawSocket socket = RawSocket::connect_to((*server)->port());
    std::string chunk(800, 'y');
    socket.send("POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    socket.send("320\r\n" + chunk + "\r\n320\r\n" + chunk + "\r\n");
    bool closed = false;
    std::string response = socket.read_until_close(20s, &closed);
    CHECK(response.starts_with("HTTP/1.1 413 Request Entity Too Large\r\n"));
    CHECK(closed);
    CHECK(too_large == 1);
  }
}

TEST_CASE("a malformed request gets 400 and the connection closes", "[http]") {
  EchoServer echo;
  RawSocket socket = RawSocket::connect_to(echo.server->port());
  socket.send("this is not http\r\n\r\n");
  bool closed = false;
  std::string response = socket.read_until_close(10s, &closed);
  CHECK(response.starts_with("HTTP/1.1 400 Bad Request\r\n"));
  CHECK(closed);
  CHECK(echo.distinct_remotes().empty());  // the handler never ran
}

TEST_CASE("Connection: close from the client is honoured", "[http]") {
  EchoServer echo;
  RawSocket socket = RawSocket::connect_to(echo.server->port());
  socket.send("GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  bool closed = false;
  std::string response = socket.read_until_close(10s, &closed);
  CHECK(response.find("Connection: close\r\n") != std::string::npos);
  CHECK(response.find("GET /bye ") != std::string::npos);
  CHECK(closed);
}

TEST_CASE("a handler that throws or does not answer yields 500", "[http]") {
  auto server = Server::start({}, [](const ServerRequest& r, Responder&) {
    if (r.target == "/throw") throw std::runtime_error("boom");
  });
  REQUIRE(server);
  Client client(client_options(url_of(**server)));
  auto thrown = client.send(get("/throw"), 10s);
  REQUIRE(thrown);
  CHECK(thrown->status == 500);
  auto silent = client.send(get("/silent"), 10s);
  REQUIRE(silent);
  CHECK(silent->status == 500);
}

TEST_CASE("beyond max_connections a connection is accepted and closed", "[http]") {
  ServerOptions options;
  options.max_connections = 1;
  EchoServer echo(options);
  RawSocket first = RawSocket::connect_to(echo.server->port());
  first.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(first.read_until_contains("GET /1 ", 10s).find("GET /1 ") != std::string::npos);

  RawSocket second = RawSocket::connect_to(echo.server->port());
  second.send("GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
  bool closed = false;
  std::string refused = second.read_until_close(10s, &closed);
  CHECK(closed);
  CHECK(refused.empty());

  first.close();  // frees the slot
  CHECK(eventually([&] {
    Client client(client_options(url_of(*echo.server)));
    auto response = client.send(get("/3"), 5s);
    return response && response->status == 200;
  }));
}

TEST_CASE("client errors name their cause", "[http]") {
  SECTION("connection refused") {
    std::uint16_t port = 0;
    {
      RawListener listener;  // bound, then closed: nothing listens on the port any more
      port = listener.port();
    }
    Client client(client_options(*parse_url("http://127.0.0.1:" + std::to_string(port))));
    auto response = client.send(get("/"), 5s);
    REQUIRE_FALSE(response);
    CHECK(response.error().kind == NetError::Kind::Connect);
    CHECK_THAT(response.error().message, Catch::Contains("127.0.0.1"));
  }
  SECTION("a server that never answers runs into the timeout") {
    RawListener listener;
    Client client(
        client_options(*parse_url("http://127.0.0.1:" + std::to_string(listener.port()))));
    auto response = client.send(get("/"), 300ms);
    REQUIRE_FALSE(response);
    CHECK(response.error().kind == NetError::Kind::Timeout);
  }
  SECTION("an unresolvable host name") {
    Client client(client_options(*parse_url("http://no-such-host.invalid:80")));
    auto response = client.send(get("/"), 10s);
    REQUIRE_FALSE(response);
    CHECK(response.error().kind == NetError::Kind::Resolve);
  }
  SECTION("a header value with a line break is refused before sending") {
    Client client(client_options(*parse_url("http://127.0.0.1:1")));
    Request request = get("/");
    request.headers.set("X-Bad", "a\r\nInjected: yes");
    auto response = client.send(request, 5s);
    REQUIRE_FALSE(response);
    CHECK(response.error().kind == NetError::Kind::Protocol);
  }
}

TEST_CASE("an IPv6 loopback server and client", "[http]") {
  ServerOptions options;
  options.bind_address = "::1";
  EchoServer echo(options);
  CHECK(echo.server->url().starts_with("http://[::1]:"));
  Client client(client_options(url_of(*echo.server)));
  auto response = client.send(get("/six"), 10s);
  REQUIRE(response);
  CHECK(response->body == "GET /six ");
  CHECK(echo.distinct_remotes().begin()->starts_with("[::1]:"));
}

TEST_CASE("Expect: 100-continue gets its interim answer before the body is sent", "[http]") {
  EchoServer echo;
  RawSocket socket = RawSocket::connect_to(echo.server->port());
  socket.send("PUT /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
  std::string interim = socket.read_until_contains("\r\n\r\n", 10s);
  CHECK(interim == "HTTP/1.1 100 Continue\r\n\r\n");
  socket.send("body");
  std::string response = socket.read_until_contains("PUT /e body", 10s);
  CHECK(response.starts_with("HTTP/1.1 200 OK\r\n"));
}

TEST_CASE("stop() returns at once with idle and half-open connections", "[http]") {
  Pki pki;
  ServerOptions options;  // idle_timeout stays at 120 s: stop() must not wait for it
  options.tls = ServerTls{pki.server.cert_pem, pki.server.key_pem, ""};
  EchoServer echo(options);
  Client client(client_options(url_of(*echo.server), client_tls(pki.ca.cert_pem)));
  REQUIRE(client.send(get("/"), 10s));                            // an idle keep-alive one
  RawSocket silent = RawSocket::connect_to(echo.server->port());  // says nothing
  auto started = std::chrono::steady_clock::now();
  echo.server->stop();
  CHECK(std::chrono::steady_clock::now() - started < 20s);
  bool closed = false;
  silent.read_until_close(10s, &closed);
  CHECK(closed);
}
