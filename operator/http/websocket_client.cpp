// A WebSocket session on Beast's websocket::stream, layered over the Transport's own TCP or TLS
// stream (by reference: the Transport keeps owning the connection and its io_context, and its
// run() bounds every wait by the tcp_stream's deadline).

#include "operator/http/websocket_client.hpp"

#include "operator/http/beast_http.hpp"  // first: Beast's HTTP parser with its warning silenced

#include <algorithm>
#include <atomic>
#include <boost/beast/websocket.hpp>
#include <functional>

#include "operator/http/client_connection.hpp"

namespace respool::http::detail {

namespace {

namespace websocket = beast::websocket;
using StopCallback = std::stop_callback<std::function<void()>>;

std::string join(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values)
    out += (out.empty() ? "" : ", ") + v;
  return out;
}

// The Host header request_head would send: the port only when it is not the scheme's default.
std::string host_field(const Url& url) {
  bool default_port =
      (url.scheme == "https" && url.port == 443) || (url.scheme == "http" && url.port == 80);
  if (!default_port) return host_port(url.host, url.port);
  return url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
}

bool is_websocket_error(const beast::error_code& ec) {
  return ec.category() == websocket::make_error_code(websocket::error::closed).category();
}

template <class Next>
class BeastWebSocket final : public WebSocket {
 public:
  BeastWebSocket(std::unique_ptr<Transport> transport, Next& next, std::string what)
      : transport_(std::move(transport)), ws_(next), what_(std::move(what)) {}

  // Aborts the handshake and later reads when `stop` is requested (at once if it already was).
  void stop_on(std::stop_token stop) {
    if (stop.stop_possible()) on_stop_.emplace(std::move(stop), [this] { cancel(); });
  }

  std::expected<WebSocketUpgrade, NetError> handshake(const Request& request,
                                                      const std::string& host,
                                                      const std::vector<std::string>& protocols,
                                                      Clock::time_point deadline) {
    ws_.set_option(websocket::stream_base::decorator(
        [headers = request.headers, offered = join(protocols)](websocket::request_type& req) {
          for (const auto& [name, value] : headers.fields())
            req.set(name, value);
          if (!offered.empty()) req.set(beast::http::field::sec_websocket_protocol, offered);
        }));
    websocket::response_type response;
    beast::error_code ec = transport_->run(deadline, [&](auto&, auto handler) {
      ws_.async_handshake(response, host, request.target, std::move(handler));
    });
    if (cancelled_) return std::unexpected(cancelled());
    WebSocketUpgrade upgrade;
    upgrade.status = response.result_int();
    upgrade.headers = to_headers(response);
    if (ec == websocket::error::upgrade_declined) {  // an answer: the caller reads its Status
      upgrade.body = std::move(response.body());
      return upgrade;
    }
    if (ec) {
      NetError error = to_net_error(ec, what_ + ": handshake", transport_->ssl());
      if (is_websocket_error(ec)) error.kind = NetError::Kind::Protocol;
      return std::unexpected(error);
    }
    protocol_ = std::string(response[beast::http::field::sec_websocket_protocol]);
    if (!protocols.empty() &&
        std::find(protocols.begin(), protocols.end(), protocol_) == protocols.end()) {
      return std::unexpected(NetError{NetError::Kind::Protocol,
                                      what_ + ": the server chose subprotocol \"" + protocol_ +
                                          "\", not one of [" + join(protocols) + "]"});
    }
    return upgrade;
  }

  const std::string& protocol() const override { return protocol_; }
  int close_code() const override { return close_code_; }

  std::expected<std::optional<std::string>, NetError> read(Clock::time_point deadline) override {
    if (cancelled_) return std::unexpected(cancelled());
    if (failed_) return std::unexpected(*failed_);
    if (close_code_ != 0) return std::nullopt;
    beast::flat_buffer message;
    beast::error_code ec = transport_->run(
        deadline, [&](auto&, auto handler) { ws_.async_read(message, std::move(handler)); });
    if (cancelled_) return std::unexpected(cancelled());
    // A close frame ends the session, however the closing handshake and TLS shutdown went.
    if (ec && ws_.reason().code != websocket::close_code::none) {
      close_code_ = ws_.reason().code;
      return std::nullopt;
    }
    if (ec) {
      failed_ = to_net_error(ec, what_, transport_->ssl());
      if (is_websocket_error(ec)) failed_->kind = NetError::Kind::Protocol;
      return std::unexpected(*failed_);
    }
    return beast::buffers_to_string(message.data());
  }

  void cancel() override {
    if (!cancelled_.exchange(true)) transport_->post_close();
  }

 private:
  NetError cancelled() const { return {NetError::Kind::Cancelled, what_ + ": cancelled"}; }

  std::unique_ptr<Transport> transport_;  // first: the stream below refers to its connection
  websocket::stream<Next&> ws_;
  std::string what_;
  std::string protocol_;
  int close_code_ = 0;
  std::optional<NetError> failed_;
  std::atomic<bool> cancelled_{false};
  std::optional<StopCallback> on_stop_;  // last: unregistered before anything it touches goes
};

template <class Next>
std::expected<WebSocketUpgrade, NetError> handshake_on(std::unique_ptr<Transport> transport,
                                                       Next& next, const Request& request,
                                                       const Url& endpoint,
                                                       const std::vector<std::string>& protocols,
                                                       Clock::time_point deadline,
                                                       std::stop_token stop, std::string what) {
  auto socket = std::make_unique<BeastWebSocket<Next>>(std::move(transport), next, std::move(what));
  socket->stop_on(std::move(stop));
  auto upgrade = socket->handshake(request, host_field(endpoint), protocols, deadline);
  if (upgrade && upgrade->status == 101) upgrade->socket = std::move(socket);
  return upgrade;
}

}  // namespace

std::expected<WebSocketUpgrade, NetError> websocket_handshake(
    std::unique_ptr<Transport> transport, const Request& request, const Url& endpoint,
    const std::vector<std::string>& protocols, Clock::time_point deadline, std::stop_token stop,
    std::string what) {
  // The request checks of every other request (method, target, header names and values).
  if (auto head = request_head(request, endpoint); !head) return std::unexpected(head.error());
  if (request.method != "GET") {
    return std::unexpected(
        NetError{NetError::Kind::Protocol, what + ": a WebSocket handshake is a GET"});
  }
  Transport& t = *transport;
  if (TlsStream* tls = t.tls()) {
    return handshake_on(std::move(transport), *tls, request, endpoint, protocols, deadline,
                        std::move(stop), std::move(what));
  }
  return handshake_on(std::move(transport), t.tcp(), request, endpoint, protocols, deadline,
                      std::move(stop), std::move(what));
}

}  // namespace respool::http::detail
