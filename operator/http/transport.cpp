#include "operator/http/transport.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>

#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <vector>

namespace respool::http::detail {

Transport::Transport(std::unique_ptr<net::io_context> ioc, net::ip::tcp::socket socket,
                     std::shared_ptr<net::ssl::context> tls)
    : ioc_(std::move(ioc)), tls_context_(std::move(tls)) {
  if (tls_context_) {
    tls_.emplace(std::move(socket), *tls_context_);
  } else {
    plain_.emplace(std::move(socket));
  }
}

Transport::~Transport() {
  close();
}

void Transport::run_until(const bool& done) {
  ioc_->restart();
  while (!done) {
    if (ioc_->run_one() == 0) break;  // nothing left that could complete the operation
  }
}

beast::error_code Transport::handshake(net::ssl::stream_base::handshake_type type,
                                       Clock::time_point deadline) {
  if (!tls_) return {};
  return run(deadline, [&](auto& stream, auto handler) {
    if constexpr (std::is_same_v<std::decay_t<decltype(stream)>, TlsStream>) {
      stream.async_handshake(type, std::move(handler));
    }
  });
}

beast::error_code Transport::write(std::initializer_list<std::string_view> pieces,
                                   Clock::time_point deadline) {
  std::vector<net::const_buffer> buffers;
  buffers.reserve(pieces.size());
  for (std::string_view piece : pieces)
    buffers.emplace_back(piece.data(), piece.size());
  return run(deadline, [&](auto& stream, auto handler) {
    net::async_write(stream, buffers, std::move(handler));
  });
}

void Transport::close() {
  beast::error_code ignored;
  auto& socket = tcp().socket();
  if (socket.is_open()) socket.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  tcp().close();
}

void Transport::post_close() {
  net::post(*ioc_, [this] { close(); });
}

void Transport::linger_close(Clock::time_point deadline) {
  auto& socket = tcp().socket();
  beast::error_code ec;
  if (socket.is_open()) socket.shutdown(net::ip::tcp::socket::shutdown_send, ec);
  while (!ec && socket.is_open()) {
    std::array<char, 16384> scratch;
    ec = run(deadline, [&](auto& stream, auto handler) {
      beast::get_lowest_layer(stream).async_read_some(net::buffer(scratch), std::move(handler));
    });
  }
  close();
}

bool Transport::peer_closed() {
  auto& socket = tcp().socket();
  if (!socket.is_open()) return true;
  pollfd descriptor{socket.native_handle(), POLLIN | POLLRDHUP, 0};
  if (::poll(&descriptor, 1, 0) <= 0) return false;
  return (descriptor.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

std::string Transport::remote_address() {
  beast::error_code ec;
  auto endpoint = tcp().socket().remote_endpoint(ec);
  if (ec) return "";
  return host_port(endpoint.address().to_string(), endpoint.port());
}

std::string host_port(const std::string& host, unsigned short port) {
  bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool is_tls_error(const beast::error_code& ec) {
  if (ec.category() == net::error::get_ssl_category()) return true;
  return ec.category() == net::ssl::error::get_stream_category() &&
         ec != net::ssl::error::stream_truncated;
}

namespace {

std::string describe_tls_error(const beast::error_code& ec, SSL* ssl) {
  if (ec.category() != net::error::get_ssl_category()) return ec.message();
  auto code = static_cast<unsigned long>(static_cast<unsigned int>(ec.value()));
  if (ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_CERTIFICATE_VERIFY_FAILED &&
      ssl) {
    long result = SSL_get_verify_result(ssl);
    return std::string("certificate verify failed: ") + X509_verify_cert_error_string(result);
  }
  const char* reason = ERR_reason_error_string(code);
  return reason ? reason : ec.message();
}

bool is_closed_error(const beast::error_code& ec) {
  namespace http = beast::http;
  return ec == http::error::end_of_stream || ec == http::error::partial_message ||
         ec == net::error::eof || ec == net::error::connection_reset ||
         ec == net::error::broken_pipe || ec == net::error::connection_aborted ||
         ec == net::error::not_connected || ec == net::error::bad_descriptor ||
         ec == net::ssl::error::stream_truncated;
}

}  // namespace

NetError to_net_error(const beast::error_code& ec, std::string_view what, SSL* ssl) {
  using Kind = NetError::Kind;
  std::string prefix = std::string(what) + ": ";
  if (ec == beast::error::timeout) return {Kind::Timeout, prefix + "timed out"};
  if (ec == net::error::operation_aborted) return {Kind::Cancelled, prefix + "cancelled"};
  if (is_tls_error(ec)) return {Kind::Tls, prefix + describe_tls_error(ec, ssl)};
  if (is_closed_error(ec))
    return {Kind::Closed, prefix + "connection closed (" + ec.message() + ")"};
  if (ec.category() == beast::http::make_error_code(beast::http::error::bad_target).category()) {
    return {Kind::Protocol, prefix + "invalid HTTP message: " + ec.message()};
  }
  if (ec == net::error::connection_refused || ec == net::error::host_unreachable ||
      ec == net::error::network_unreachable) {
    return {Kind::Connect, prefix + ec.message()};
  }
  return {Kind::Closed, prefix + ec.message()};
}

}  // namespace respool::http::detail
