#pragma once
// Internal: one TCP or TLS connection with its own io_context, driven by the thread that uses
// it. Every operation is asynchronous under a deadline and the calling thread runs the
// io_context until it completes, so no wait is unbounded and another thread can abort a wait
// by posting to the io_context (post_close).

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>

#include <chrono>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "operator/http/client.hpp"

namespace respool::http::detail {

namespace net = boost::asio;
namespace beast = boost::beast;
using Clock = std::chrono::steady_clock;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

class Transport {
 public:
  // `socket` belongs to `ioc` (connected, or not yet for a client); `tls` is null for plain TCP.
  Transport(std::unique_ptr<net::io_context> ioc, net::ip::tcp::socket socket,
            std::shared_ptr<net::ssl::context> tls);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  net::io_context& io_context() { return *ioc_; }
  beast::tcp_stream& tcp() { return tls_ ? beast::get_lowest_layer(*tls_) : *plain_; }
  TlsStream* tls() { return tls_ ? &*tls_ : nullptr; }
  SSL* ssl() { return tls_ ? tls_->native_handle() : nullptr; }
  // Bytes read from the connection and not yet parsed.
  beast::flat_buffer& buffer() { return buffer_; }

  // Starts an asynchronous operation with initiate(stream, handler) on the plain or TLS stream
  // and runs the io_context until it completes or the deadline passes (beast::error::timeout;
  // the connection is then closed). `bytes` receives the count of a read or write.
  template <class Initiate>
  beast::error_code run(Clock::time_point deadline, Initiate&& initiate,
                        std::size_t* bytes = nullptr);

  // The TLS handshake (no-op on plain TCP).
  beast::error_code handshake(net::ssl::stream_base::handshake_type type,
                              Clock::time_point deadline);
  // Writes the pieces in order, in one gathered write.
  beast::error_code write(std::initializer_list<std::string_view> pieces,
                          Clock::time_point deadline);

  // Closes at once (no TLS close_notify). Only from the thread that drives the connection.
  void close();
  // Thread-safe: makes the driving thread close the connection, aborting a blocked wait.
  void post_close();
  // Closes after the peer has had a chance to read what was sent: shuts down our sending side,
  // then discards what the peer still sends until it closes or the deadline passes. Avoids the
  // reset that would otherwise destroy a response the peer has not read yet.
  void linger_close(Clock::time_point deadline);
  // True when the peer has shut down or reset the connection (a cheap, non-blocking poll).
  bool peer_closed();
  bool is_open() { return tcp().socket().is_open(); }

  // "127.0.0.1:53122" or "[::1]:53122".
  std::string remote_address();

 private:
  void run_until(const bool& done);

  std::unique_ptr<net::io_context> ioc_;  // first: outlives the streams that use it
  std::shared_ptr<net::ssl::context> tls_context_;
  std::optional<beast::tcp_stream> plain_;
  std::optional<TlsStream> tls_;
  beast::flat_buffer buffer_;
};

// Keeps the byte count of a completion (read, write), ignores other values (an endpoint).
template <class T>
void take_count(std::size_t& count, const T& value) {
  if constexpr (std::is_integral_v<T>) count = static_cast<std::size_t>(value);
}

template <class Initiate>
beast::error_code Transport::run(Clock::time_point deadline, Initiate&& initiate,
                                 std::size_t* bytes) {
  bool done = false;
  beast::error_code result;
  std::size_t count = 0;
  auto handler = [&](beast::error_code ec, auto&&... rest) {
    result = ec;
    (take_count(count, rest), ...);
    done = true;
  };
  tcp().expires_at(deadline);
  if (tls_) {
    initiate(*tls_, handler);
  } else {
    initiate(*plain_, handler);
  }
  run_until(done);
  if (!done) result = net::error::operation_aborted;
  if (bytes) *bytes = count;
  return result;
}

// "host:port", with brackets for an IPv6 literal.
std::string host_port(const std::string& host, unsigned short port);

// A NetError for a failed operation: the kind follows the error (timeout, closed, TLS, ...),
// the message says what was being done (`what`) and why. `ssl` refines TLS reasons.
NetError to_net_error(const beast::error_code& ec, std::string_view what, SSL* ssl = nullptr);

// True for errors of the TLS layer (other than a connection closed without close_notify).
bool is_tls_error(const beast::error_code& ec);

}  // namespace respool::http::detail
