#pragma once
// The client side of a WebSocket session (RFC 6455), opened by Client::open_websocket on a
// connection of its own (same TCP/TLS setup as every request). Used for pods/exec: the server
// sends binary messages and then closes; what the client needs is the opening handshake with a
// subprotocol and reading messages under a deadline, abortable from another thread.

#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "operator/http/client.hpp"

namespace respool::http {

// An open session. Owns its connection; closes it when destroyed.
class WebSocket {
 public:
  virtual ~WebSocket() = default;
  // The subprotocol the server chose, one of those offered ("" when none was offered).
  virtual const std::string& protocol() const = 0;
  // The next whole message (binary or text), pings answered on the way. std::nullopt once the
  // server has closed the session with a close frame (answered; close_code() says which).
  // Fails with Timeout at the deadline, Cancelled after cancel(), Closed when the connection
  // ends without a close frame. After a failure every later read fails the same way.
  virtual std::expected<std::optional<std::string>, NetError> read(
      std::chrono::steady_clock::time_point deadline) = 0;
  // The status code of the server's close frame (1000: normal closure); 0 before it came.
  virtual int close_code() const = 0;
  // Thread-safe: aborts a blocked read at once; later reads fail with Cancelled.
  virtual void cancel() = 0;
};

// The server's answer to the opening handshake.
struct WebSocketUpgrade {
  int status = 0;                     // 101 when the session is open
  Headers headers;                    // of the response
  std::string body;                   // of a refusal (any status but 101): often a Status
  std::unique_ptr<WebSocket> socket;  // set when the status is 101
};

}  // namespace respool::http
