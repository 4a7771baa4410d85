#pragma once
// Helpers for the HTTP tests: raw loopback sockets (to send what our client never would, or to
// play a misbehaving server), certificates, and waiting for a condition.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "operator/http/client.hpp"
#include "operator/http/pki.hpp"
#include "operator/http/server.hpp"

namespace respool::http::test {

using namespace std::chrono_literals;

// A plain blocking TCP connection to 127.0.0.1, or one accepted by RawListener.
class RawSocket {
 public:
  explicit RawSocket(int fd) : fd_(fd) {}
  static RawSocket connect_to(std::uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd);
      throw std::runtime_error("connect failed");
    }
    return RawSocket(fd);
  }
  RawSocket(RawSocket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  RawSocket& operator=(RawSocket&&) = delete;
  ~RawSocket() { close(); }

  void close() {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  }

  void send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send failed");
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // Reads until `done(received)` holds, the peer closes, or the timeout passes. `closed` tells
  // whether the peer closed (EOF or reset).
  std::string read_until(const std::function<bool(const std::string&)>& done,
                         std::chrono::milliseconds timeout, bool* closed = nullptr) {
    std::string received;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    if (closed) *closed = false;
    while (!done(received)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd descriptor{fd_, POLLIN, 0};
      if (::poll(&descriptor, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[4096];
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        if (closed) *closed = true;
        break;
      }
      received.append(buffer, static_cast<std::size_t>(n));
    }
    return received;
  }

  std::string read_until_contains(std::string_view marker, std::chrono::milliseconds timeout) {
    return read_until([&](const std::string& s) { return s.find(marker) != std::string::npos; },
                      timeout);
  }

  // Everything until the peer closes; `closed` is false when the timeout passed first.
  std::string read_until_close(std::chrono::milliseconds timeout, bool* closed) {
    return read_until([](const std::string&) { return false; }, timeout, closed);
  }

 private:
  int fd_;
};

// A listening socket on 127.0.0.1 for playing a server by hand.
class RawListener {
 public:
  RawListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd_, 16) != 0) {
      throw std::runtime_error("listen failed");
    }
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~RawListener() { ::close(fd_); }
  RawListener(const RawListener&) = delete;
  RawListener& operator=(const RawListener&) = delete;

  std::uint16_t port() const { return port_; }
  RawSocket accept(std::chrono::milliseconds timeout = 10s) {
    pollfd descriptor{fd_, POLLIN, 0};
    if (::poll(&descriptor, 1, static_cast<int>(timeout.count())) <= 0) {
      throw std::runtime_error("nothing to accept");
    }
    return RawSocket(::accept(fd_, nullptr, nullptr));
  }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

// Polls `condition` until it holds or the (generous) deadline passes.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds deadline = 10s) {
  auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}

inline Url url_of(const Server& server) {
  return *parse_url(server.url());
}

inline ClientOptions client_options(Url endpoint, ClientTls tls = {}) {
  ClientOptions options;
  options.endpoint = std::move(endpoint);
  options.tls = std::move(tls);
  options.connect_timeout = 30s;
  return options;
}

// Trusts `ca_pem` and presents `client` (when given).
inline ClientTls client_tls(std::string ca_pem, const KeyPair* client = nullptr) {
  ClientTls tls;
  tls.ca_pem = std::move(ca_pem);
  if (client) {
    tls.cert_pem = client->cert_pem;
    tls.key_pem = client->key_pem;
  }
  return tls;
}

inline Request get(std::string target) {
  Request request;
  request.method = "GET";
  request.target = std::move(target);
  return request;
}

inline Response text_response(int status, std::string body) {
  Response response;
  response.status = status;
  response.headers.set("Content-Type", "text/plain");
  response.body = std::move(body);
  return response;
}

// A CA with a serving certificate for 127.0.0.1 and localhost.
struct Pki {
  KeyPair ca = *make_ca("test-ca");
  KeyPair server = *make_server_cert(ca, "test-server", {"127.0.0.1", "localhost"});
};

}  // namespace respool::http::test
