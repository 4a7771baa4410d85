#include "operator/http/client.hpp"

#include <mutex>
#include <optional>
#include <vector>

#include "operator/http/client_connection.hpp"
#include "operator/http/tls_context.hpp"
#include "operator/http/websocket_client.hpp"

namespace respool::http {

namespace {

using detail::Clock;
using detail::Transport;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;

// One try of an exchange on one connection.
struct Attempt {
  std::expected<Response, NetError> result;
  bool retryable = false;  // failed before any response byte: the server may have closed it
};

bool is_informational(int status) {
  return status >= 100 && status < 200 && status != 101;
}

}  // namespace

std::string_view to_string(NetError::Kind kind) {
  switch (kind) {
    case NetError::Kind::Resolve:
      return "Resolve";
    case NetError::Kind::Connect:
      return "Connect";
    case NetError::Kind::Tls:
      return "Tls";
    case NetError::Kind::Timeout:
      return "Timeout";
    case NetError::Kind::Closed:
      return "Closed";
    case NetError::Kind::Protocol:
      return "Protocol";
    case NetError::Kind::Cancelled:
      return "Cancelled";
  }
  return "Unknown";
}

struct Client::Impl {
  ClientOptions options;
  detail::Endpoint endpoint;
  std::string peer;         // "host:port", for messages
  std::string setup_error;  // why no connection can be made (bad scheme, bad TLS material)
  std::mutex mutex;
  std::vector<std::unique_ptr<Transport>> idle;  // most recently used last

  explicit Impl(ClientOptions o) : options(std::move(o)) {
    const Url& url = options.endpoint;
    endpoint.url = url;
    peer = detail::host_port(url.host, url.port);
    if (url.scheme == "https") {
      auto context = detail::make_client_context(options.tls);
      if (context) {
        endpoint.tls = std::move(*context);
      } else {
        setup_error = "TLS setup for " + peer + ": " + context.error();
      }
      endpoint.server_name = options.tls.server_name.empty() ? url.host : options.tls.server_name;
      endpoint.verify = !options.tls.insecure_skip_verify;
    } else if (url.scheme != "http") {
      setup_error = "unsupported URL scheme '" + url.scheme + "'";
    }
  }

  // A pooled connection the server has not closed in the meantime, or null.
  std::unique_ptr<Transport> take_idle() {
    std::vector<std::unique_ptr<Transport>> stale;
    std::lock_guard lock(mutex);
    while (!idle.empty()) {
      std::unique_ptr<Transport> transport = std::move(idle.back());
      idle.pop_back();
      if (!transport->peer_closed()) return transport;
      stale.push_back(std::move(transport));
    }
    return nullptr;
  }

  void give_back(std::unique_ptr<Transport> transport) {
    std::lock_guard lock(mutex);
    if (idle.size() < options.max_idle_connections) idle.push_back(std::move(transport));
  }

  std::expected<std::unique_ptr<Transport>, NetError> connect(Clock::time_point deadline) {
    if (!setup_error.empty()) return std::unexpected(NetError{NetError::Kind::Tls, setup_error});
    return detail::connect(endpoint, std::min(deadline, Clock::now() + options.connect_timeout));
  }

  // Tries a pooled connection first and, when the server had closed it, once more on a new one.
  template <class Exchange>
  auto with_connection(Clock::time_point deadline, Exchange&& exchange)
      -> decltype(exchange(std::declval<std::unique_ptr<Transport>&>())) {
    for (int attempt = 0;; ++attempt) {
      std::unique_ptr<Transport> transport = attempt == 0 ? take_idle() : nullptr;
      bool reused = transport != nullptr;
      if (!transport) {
        auto fresh = connect(deadline);
        if (!fresh) return {std::unexpected(fresh.error())};
        transport = std::move(*fresh);
      }
      auto outcome = exchange(transport);
      if (outcome.retryable && reused && attempt == 0) continue;
      return outcome;
    }
  }
};

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Client::~Client() = default;

const ClientOptions& Client::options() const {
  return impl_->options;
}

std::expected<Response, NetError> Client::send(const Request& request,
                                               std::chrono::milliseconds timeout) {
  auto head = detail::request_head(request, impl_->options.endpoint);
  if (!head) return std::unexpected(head.error());
  const Clock::time_point deadline = Clock::now() + timeout;
  const bool head_request = iequals(request.method, "HEAD");
  const bool close_requested = request.headers.get("Connection")
                                   .transform([](auto v) { return iequals(v, "close"); })
                                   .value_or(false);
  const std::string what = request.method + " " + request.target + " on " + impl_->peer;

  Attempt outcome = impl_->with_connection(deadline, [&](std::unique_ptr<Transport>& t) {
    if (auto ec = t->write({*head, request.body}, deadline)) {
      return Attempt{std::unexpected(detail::to_net_error(ec, what, t->ssl())),
                     detail::is_stale_connection_error(ec)};
    }
    std::optional<bhttp::response_parser<bhttp::string_body>> parser;
    do {
      parser.emplace();
      detail::configure_response_parser(*parser, head_request);
      auto ec = t->run(deadline, [&](auto& stream, auto handler) {
        bhttp::async_read(stream, t->buffer(), *parser, std::move(handler));
      });
      if (ec == net::ssl::error::stream_truncated && parser->is_header_done()) {
        ec = {};  // a body delimited by the close, without TLS close_notify
        parser->put_eof(ec);
      }
      if (ec) {
        bool stale = !parser->got_some() && detail::is_stale_connection_error(ec);
        return Attempt{std::unexpected(detail::to_net_error(ec, what, t->ssl())), stale};
      }
    } while (is_informational(parser->get().result_int()));
    Response response;
    response.status = parser->get().result_int();
    response.headers = detail::to_headers(parser->get());
    response.body = std::move(parser->get().body());
    if (parser->keep_alive() && !close_requested && t->buffer().size() == 0) {
      impl_->give_back(std::move(t));
    }
    return Attempt{std::move(response)};
  });
  return std::move(outcome.result);
}

std::expected<std::unique_ptr<Stream>, NetError> Client::open(
    const Request& request, std::chrono::milliseconds header_timeout) {
  auto head = detail::request_head(request, impl_->options.endpoint);
  if (!head) return std::unexpected(head.error());
  const Clock::time_point deadline = Clock::now() + header_timeout;
  const bool head_request = iequals(request.method, "HEAD");
  const std::string what = request.method + " " + request.target + " on " + impl_->peer;

  struct Opened {
    std::expected<std::unique_ptr<Stream>, NetError> result;
    bool retryable = false;
  };
  Opened outcome = impl_->with_connection(deadline, [&](std::unique_ptr<Transport>& t) {
    if (auto ec = t->write({*head, request.body}, deadline)) {
      return Opened{std::unexpected(detail::to_net_error(ec, what, t->ssl())),
                    detail::is_stale_connection_error(ec)};
    }
    std::unique_ptr<detail::StreamParser> parser;
    do {
      parser = std::make_unique<detail::StreamParser>();
      detail::configure_response_parser(*parser, head_request);
      auto ec = t->run(deadline, [&](auto& stream, auto handler) {
        bhttp::async_read_header(stream, t->buffer(), *parser, std::move(handler));
      });
      if (ec) {
        bool stale = !parser->got_some() && detail::is_stale_connection_error(ec);
        return Opened{std::unexpected(detail::to_net_error(ec, what, t->ssl())), stale};
      }
    } while (is_informational(parser->get().result_int()));
    return Opened{detail::make_stream(std::move(t), std::move(parser), what)};
  });
  return std::move(outcome.result);
}

std::expected<WebSocketUpgrade, NetError> Client::open_websocket(
    const Request& request, const std::vector<std::string>& protocols, Clock::time_point deadline,
    std::stop_token stop) {
  if (stop.stop_requested()) {
    return std::unexpected(NetError{NetError::Kind::Cancelled, "WebSocket: cancelled"});
  }
  auto transport = impl_->connect(deadline);  // never pooled: the session owns its connection
  if (!transport) return std::unexpected(transport.error());
  return detail::websocket_handshake(std::move(*transport), request, impl_->options.endpoint,
                                     protocols, deadline, std::move(stop),
                                     "WebSocket " + request.target + " on " + impl_->peer);
}

}  // namespace respool::http
