#pragma once
// Internal: what the client needs to open a connection, write a request and read a response
// head; shared by Client::send, Client::open and the Stream.

#include "operator/http/beast_http.hpp"

#include <expected>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "operator/http/client.hpp"
#include "operator/http/transport.hpp"
#include "operator/http/wire.hpp"

namespace respool::http::detail {

// Where and how to connect.
struct Endpoint {
  Url url;
  std::shared_ptr<net::ssl::context> tls;  // null for http
  std::string server_name;                 // name checked in the server's certificate (and SNI)
  bool verify = true;
};

// TCP connect (plus TLS handshake) before the deadline.
std::expected<std::unique_ptr<Transport>, NetError> connect(const Endpoint& endpoint,
                                                            Clock::time_point deadline);

// The request line and header block, or a Protocol error for a request that cannot be sent
// (bad method, target, or a header with a line break).
std::expected<std::string, NetError> request_head(const Request& request, const Url& endpoint);

// Prepares a response parser: no body limit (lists may be large), bounded header, no body for HEAD.
template <class Parser>
void configure_response_parser(Parser& parser, bool head_request) {
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  parser.header_limit(kMaxHeaderBytes);
  if (head_request) parser.skip(true);
}

// Whether an error on a reused connection before any response byte means the server had
// closed it while idle (so the request may be sent again on a fresh connection).
bool is_stale_connection_error(const beast::error_code& ec);

using StreamParser = beast::http::response_parser<beast::http::buffer_body>;

// A Stream over a connection whose response head has been read into `parser`.
std::unique_ptr<Stream> make_stream(std::unique_ptr<Transport> transport,
                                    std::unique_ptr<StreamParser> parser, std::string peer);

// The opening handshake of a WebSocket session on a new connection (websocket_client.cpp).
std::expected<WebSocketUpgrade, NetError> websocket_handshake(
    std::unique_ptr<Transport> transport, const Request& request, const Url& endpoint,
    const std::vector<std::string>& protocols, Clock::time_point deadline, std::stop_token stop,
    std::string what);

}  // namespace respool::http::detail
