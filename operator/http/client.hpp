#pragma once
// An HTTP/1.1 client over TCP or TLS with a pool of keep-alive connections. Calls block the
// calling thread; every wait is bounded by a timeout; a streaming read can be cancelled from
// another thread.

#include <chrono>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "operator/http/message.hpp"

namespace respool::http {

class WebSocket;
struct WebSocketUpgrade;  // websocket_client.hpp

struct NetError {
  enum class Kind {
    Resolve,    // the host name did not resolve
    Connect,    // TCP connect refused or unreachable
    Tls,        // handshake failed: certificate not trusted, name mismatch, bad client cert
    Timeout,    // no progress within the allowed time
    Closed,     // the peer closed the connection mid-message
    Protocol,   // not a valid HTTP message
    Cancelled,  // cancel() was called
  };
  Kind kind;
  std::string message;  // human-readable, names the cause (for TLS: OpenSSL's reason)
};
std::string_view to_string(NetError::Kind kind);

struct ClientTls {
  std::string ca_pem;  // trusted roots; empty = the system's default roots
  bool insecure_skip_verify = false;
  std::string cert_pem;     // client certificate, optional
  std::string key_pem;      // its private key
  std::string server_name;  // SNI and name checked; empty = the URL's host
};

struct ClientOptions {
  Url endpoint;                                       // scheme, host, port
  ClientTls tls;                                      // used when scheme is https
  std::chrono::milliseconds connect_timeout{10'000};  // TCP connect plus TLS handshake
  std::size_t max_idle_connections = 16;              // kept for reuse
};

// A response whose body is read as it arrives (a watch). Owns its connection.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual int status() const = 0;
  virtual const Headers& headers() const = 0;
  // The next line of the body, without its '\n'. std::nullopt once the body has ended cleanly.
  // Fails with Timeout when no byte arrives within idle_timeout, Cancelled after cancel().
  virtual std::expected<std::optional<std::string>, NetError> read_line(
      std::chrono::milliseconds idle_timeout) = 0;
  // The rest of the body at once (for an error answer).
  virtual std::expected<std::string, NetError> read_all(std::chrono::milliseconds timeout) = 0;
  // Thread-safe: aborts a blocked read at once; every later read fails with Cancelled.
  virtual void cancel() = 0;
};

class Client {
 public:
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends a request and reads the whole response on a pooled connection. The timeout bounds the
  // whole exchange. Adds Host, Content-Length and Connection: keep-alive.
  std::expected<Response, NetError> send(const Request& request, std::chrono::milliseconds timeout);

  // Sends a request and returns once the status and headers have arrived; the body is read
  // through the Stream. The connection is not returned to the pool.
  std::expected<std::unique_ptr<Stream>, NetError> open(const Request& request,
                                                        std::chrono::milliseconds header_timeout);

  // Opens a WebSocket session on a new connection: `request` (GET, target, headers such as
  // Authorization) goes as the opening handshake, offering `protocols` in order of preference;
  // a subprotocol the server picks outside them is a Protocol error. A refusal (any status but
  // 101) is an answer, not an error. The deadline bounds connect, TLS and the handshake; a stop
  // request on `stop` aborts the handshake and, later, the session's reads (Cancelled).
  std::expected<WebSocketUpgrade, NetError> open_websocket(
      const Request& request, const std::vector<std::string>& protocols,
      std::chrono::steady_clock::time_point deadline, std::stop_token stop = {});

  const ClientOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace respool::http
