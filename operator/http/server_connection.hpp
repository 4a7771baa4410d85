#pragma once
// Internal: serving the requests of one accepted connection, on the connection's own thread.

#include <atomic>

#include "operator/http/server.hpp"
#include "operator/http/transport.hpp"

namespace respool::http::detail {

struct ConnectionContext {
  const ServerOptions& options;
  const Handler& handler;
  const std::atomic<bool>& stopping;
};

// Handshakes (TLS), then reads requests and calls the handler until the peer closes, stays
// idle past options.idle_timeout, sends something malformed, or the server stops.
void serve_connection(Transport& transport, const ConnectionContext& context);

}  // namespace respool::http::detail
