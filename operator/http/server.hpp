#pragma once
// An HTTP/1.1 server over TCP or TLS, one thread per connection. Used by the operator's
// endpoints (/metrics, /healthz, later the admission webhook) and by the sandbox's API server.

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "operator/http/message.hpp"

namespace respool::http {

// The subject of a client certificate that the server's client CA verified.
struct PeerIdentity {
  std::string common_name;                 // CN: the user
  std::vector<std::string> organizations;  // O: the groups
};

struct ServerRequest : Request {
  std::string remote_address;                      // "127.0.0.1:53122"
  std::optional<PeerIdentity> client_certificate;  // only a verified certificate is given
  // The body exceeded ServerOptions::max_body_bytes: it was not read and `body` is empty. The
  // handler answers (413); the connection is closed afterwards.
  bool body_too_large = false;
};

// Writes a chunked response body, one chunk per write.
class ChunkWriter {
 public:
  virtual ~ChunkWriter() = default;
  // Sends one chunk at once. False once the peer has gone or the server is stopping; then
  // every later write is false too.
  virtual bool write(std::string_view data) = 0;
  // True once writes can no longer succeed (peer gone, server stopping). Cheap to poll.
  virtual bool closed() const = 0;
};

// How a handler answers: exactly one of respond() or stream() per request.
class Responder {
 public:
  virtual ~Responder() = default;
  // A whole response; Content-Length is added.
  virtual void respond(Response response) = 0;
  // Sends the status and headers now (Transfer-Encoding: chunked) and returns the writer for the
  // body. The body ends with the terminating chunk when the handler returns.
  virtual ChunkWriter& stream(int status, Headers headers) = 0;
  // Sends "101 Switching Protocols" with `headers` (Upgrade, Sec-WebSocket-Accept, ...) and
  // hands the connection over: each write sends its bytes as they are (the new protocol's
  // frames). What the peer sends afterwards is not read; the connection closes (lingering) when
  // the handler returns. nullptr where the responder cannot switch.
  virtual ChunkWriter* upgrade(Headers headers) {
    (void)headers;
    return nullptr;
  }
};

using Handler = std::function<void(const ServerRequest&, Responder&)>;

struct ServerTls {
  std::string cert_pem;  // serving certificate (chain)
  std::string key_pem;
  std::string client_ca_pem;  // when set, client certificates signed by it are verified and
                              // reported; a connection without one is still accepted
};

struct ServerOptions {
  std::string bind_address = "127.0.0.1";
  std::uint16_t port = 0;        // 0 picks a free port
  std::optional<ServerTls> tls;  // none: plain HTTP
  std::size_t max_body_bytes = 3 * 1024 * 1024;
  std::chrono::seconds idle_timeout{120};  // a keep-alive connection idle this long closes
  std::size_t max_connections = 512;
};

class Server {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };
  struct Impl;

 public:
  Server(Key, std::unique_ptr<Impl> impl);
  // Binds and starts accepting. Fails with a message naming the address when bind fails.
  static std::expected<std::unique_ptr<Server>, std::string> start(ServerOptions options,
                                                                   Handler handler);
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint16_t port() const;
  // "https://127.0.0.1:PORT" (or http).
  std::string url() const;
  // Serves `tls` from the next connection on (a rotated certificate); connections already open
  // keep theirs. Fails, keeping the old one, when the pair does not load.
  std::expected<void, std::string> reload_tls(const ServerTls& tls);
  // Stops accepting, closes every connection (open streams see closed()), waits for handlers.
  void stop();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace respool::http
