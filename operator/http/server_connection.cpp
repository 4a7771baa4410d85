#include "operator/http/server_connection.hpp"

#include <limits>

#include "operator/http/beast_http.hpp"
#include "operator/http/server_exchange.hpp"
#include "operator/http/tls_context.hpp"
#include "operator/http/wire.hpp"

namespace respool::http::detail {

namespace {

namespace bhttp = beast::http;
using namespace std::chrono_literals;

constexpr Clock::duration kHandshakeTimeout = 30s;
// How long a closing connection keeps reading (and discarding) so that the peer can read our
// last response before the close; see Transport::linger_close.
constexpr Clock::duration kLinger = 2s;

std::string text(beast::string_view s) {
  return std::string(s.data(), s.size());
}

bool is_parse_error(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
         ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
}

// A request that cannot be parsed gets a plain 400 (431 for a huge header block), then the
// connection closes, as Go's server does. A closed or silent peer is just let go.
void reject(Transport& transport, const beast::error_code& ec, const ConnectionContext& context) {
  if (!is_parse_error(ec) || context.stopping) {
    transport.close();
    return;
  }
  int status = ec == bhttp::error::header_limit ? 431 : 400;
  std::string body = std::to_string(status) + " " + std::string(reason_phrase(status)) + ": " +
                     ec.message() + "\n";
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " +
                     std::string(reason_phrase(status)) +
                     "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
                     "Content-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n";
  if (transport.write({head, body}, Clock::now() + kLinger)) {
    transport.close();
  } else {
    transport.linger_close(Clock::now() + kLinger);
  }
}

bool expects_continue(const bhttp::request<bhttp::string_body>& message) {
  auto expect = message[bhttp::field::expect];
  return iequals(std::string_view(expect.data(), expect.size()), "100-continue");
}

}  // namespace

void serve_connection(Transport& transport, const ConnectionContext& context) {
  const ServerOptions& options = context.options;
  const auto idle = std::chrono::duration_cast<Clock::duration>(options.idle_timeout);
  const auto write_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(idle);

  if (transport.tls()) {
    beast::error_code ec = transport.handshake(net::ssl::stream_base::server,
                                               Clock::now() + std::min(idle, kHandshakeTimeout));
    if (ec) {
      // Let the client read our alert (a TLS 1.3 client learns of a rejected certificate
      // only after it has sent its request) rather than have it reset.
      if (!context.stopping && ec != beast::error::timeout) {
        transport.linger_close(Clock::now() + kLinger);
      }
      return;
    }
  }
  std::optional<PeerIdentity> identity;
  if (transport.tls() && options.tls && !options.tls->client_ca_pem.empty()) {
    identity = verified_peer_identity(transport.ssl());
  }
  const std::string remote = transport.remote_address();

  while (!context.stopping) {
    bhttp::request_parser<bhttp::string_body> parser;
    parser.header_limit(kMaxHeaderBytes);
    // The declared length is judged below, so that the handler can answer a body too large.
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    beast::error_code ec = transport.run(Clock::now() + idle, [&](auto& stream, auto handler) {
      bhttp::async_read_header(stream, transport.buffer(), parser, std::move(handler));
    });
    if (ec) return reject(transport, ec, context);

    auto& message = parser.get();
    ServerRequest request;
    request.method = text(message.method_string());
    request.target = text(message.target());
    request.headers = to_headers(message);
    request.remote_address = remote;
    request.client_certificate = identity;

    auto declared = parser.content_length();
    bool too_large = declared && *declared > options.max_body_bytes;
    if (!too_large && !parser.is_done()) {
      if (expects_continue(message) &&
          transport.write({"HTTP/1.1 100 Continue\r\n\r\n"}, Clock::now() + idle)) {
        return transport.close();
      }
      parser.body_limit(options.max_body_bytes);  // also bounds a chunked body as it arrives
      ec = transport.run(Clock::now() + idle, [&](auto& stream, auto handler) {
        bhttp::async_read(stream, transport.buffer(), parser, std::move(handler));
      });
      if (ec == bhttp::error::body_limit) {
        too_large = true;  // a chunked body that grew past the limit
      } else if (ec) {
        return reject(transport, ec, context);
      }
    }
    if (!too_large) request.body = std::move(message.body());
    request.body_too_large = too_large;

    Exchange exchange(transport, write_timeout, context.stopping,
                      {.head = request.method == "HEAD",
                       .http10 = message.version() == 10,
                       .keep_alive = message.keep_alive() && !too_large});
    bool threw = false;
    try {
      context.handler(request, exchange);
    } catch (...) {
      threw = true;
    }
    bool reusable = exchange.finish(threw);
    if (context.stopping) break;
    if (!reusable) {
      // The unread rest of a too large body is still coming: read it away so that the client
      // sees our answer rather than a reset.
      return transport.linger_close(Clock::now() + kLinger);
    }
  }
  transport.close();
}

}  // namespace respool::http::detail
