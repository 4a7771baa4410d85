#include "operator/http/client_connection.hpp"

#include <netdb.h>

#include <boost/asio/ip/tcp.hpp>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "operator/http/tls_context.hpp"

namespace respool::http::detail {

namespace {

using tcp = net::ip::tcp;

// getaddrinfo cannot be interrupted: it runs on a thread of its own, which the caller stops
// waiting for at the deadline (the thread then finishes alone and drops its result).
struct Lookup {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  int status = 0;
  std::vector<tcp::endpoint> endpoints;
};

void look_up(const std::shared_ptr<Lookup>& lookup, const std::string& host, unsigned short port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int status = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  std::vector<tcp::endpoint> endpoints;
  for (addrinfo* entry = found; status == 0 && entry; entry = entry->ai_next) {
    if (entry->ai_addrlen > sizeof(sockaddr_storage)) continue;
    tcp::endpoint endpoint;
    std::memcpy(endpoint.data(), entry->ai_addr, entry->ai_addrlen);
    endpoint.resize(entry->ai_addrlen);
    endpoints.push_back(endpoint);
  }
  if (found) ::freeaddrinfo(found);
  std::lock_guard lock(lookup->mutex);
  lookup->status = status;
  lookup->endpoints = std::move(endpoints);
  lookup->done = true;
  lookup->finished.notify_all();
}

std::expected<std::vector<tcp::endpoint>, NetError> resolve(const Url& url,
                                                            Clock::time_point deadline) {
  beast::error_code ec;
  auto address = net::ip::make_address(url.host, ec);
  if (!ec) return std::vector<tcp::endpoint>{tcp::endpoint(address, url.port)};

  auto lookup = std::make_shared<Lookup>();
  try {
    std::thread(look_up, lookup, url.host, url.port).detach();
  } catch (const std::system_error& e) {
    return std::unexpected(
        NetError{NetError::Kind::Resolve, "resolve " + url.host + ": " + e.what()});
  }
  std::unique_lock lock(lookup->mutex);
  if (!lookup->finished.wait_until(lock, deadline, [&] { return lookup->done; })) {
    return std::unexpected(
        NetError{NetError::Kind::Timeout, "resolve " + url.host + ": timed out"});
  }
  if (lookup->status != 0 || lookup->endpoints.empty()) {
    std::string why = lookup->status != 0 ? ::gai_strerror(lookup->status) : "no address";
    return std::unexpected(NetError{NetError::Kind::Resolve, "resolve " + url.host + ": " + why});
  }
  return std::move(lookup->endpoints);
}

bool is_target(std::string_view s) {
  if (s.empty() || (s.front() != '/' && s != "*")) return false;
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return false;
  }
  return true;
}

// Methods whose empty body goes without a Content-Length, as Go's client does.
bool omits_empty_length(std::string_view method) {
  for (std::string_view m : {"GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT"}) {
    if (m == method) return true;
  }
  return false;
}

}  // namespace

std::expected<std::unique_ptr<Transport>, NetError> connect(const Endpoint& endpoint,
                                                            Clock::time_point deadline) {
  using Kind = NetError::Kind;
  const Url& url = endpoint.url;
  std::string peer = host_port(url.host, url.port);
  auto endpoints = resolve(url, deadline);
  if (!endpoints) return std::unexpected(endpoints.error());
  auto ioc = std::make_unique<net::io_context>();

  net::io_context& context = *ioc;
  auto transport = std::make_unique<Transport>(std::move(ioc), tcp::socket(context), endpoint.tls);
  beast::error_code ec = transport->run(deadline, [&](auto& stream, auto handler) {
    beast::get_lowest_layer(stream).async_connect(*endpoints, std::move(handler));
  });
  if (ec) {
    NetError error = to_net_error(ec, "connect to " + peer);
    if (error.kind != Kind::Timeout) error.kind = Kind::Connect;
    return std::unexpected(error);
  }
  transport->tcp().socket().set_option(tcp::no_delay(true), ec);

  if (endpoint.tls) {
    if (auto ok = prepare_client_ssl(transport->ssl(), endpoint.server_name, endpoint.verify);
        !ok) {
      return std::unexpected(NetError{Kind::Tls, "TLS with " + peer + ": " + ok.error()});
    }
    ec = transport->handshake(net::ssl::stream_base::client, deadline);
    if (ec) {
      NetError error = to_net_error(ec, "TLS handshake with " + peer, transport->ssl());
      if (error.kind != Kind::Timeout) error.kind = Kind::Tls;
      return std::unexpected(error);
    }
  }
  return transport;
}

std::expected<std::string, NetError> request_head(const Request& request, const Url& endpoint) {
  auto invalid = [](std::string what) {
    return std::unexpected(NetError{NetError::Kind::Protocol, std::move(what)});
  };
  if (!is_token(request.method)) return invalid("invalid method '" + request.method + "'");
  // The target goes as given: a server URL's path prefix is the caller's to add (kube does).
  if (!is_target(request.target)) {
    return invalid("invalid request target '" + request.target + "'");
  }
  std::string head = request.method + " " + request.target + " HTTP/1.1\r\n";
  if (!request.headers.has("Host")) {
    bool default_port = (endpoint.scheme == "https" && endpoint.port == 443) ||
                        (endpoint.scheme == "http" && endpoint.port == 80);
    std::string host =
        endpoint.host.find(':') != std::string::npos ? "[" + endpoint.host + "]" : endpoint.host;
    head += "Host: " + (default_port ? host : host + ":" + std::to_string(endpoint.port)) + "\r\n";
  }
  for (const auto& [name, value] : request.headers.fields()) {
    if (!is_token(name)) return invalid("invalid header name '" + name + "'");
    if (!is_field_value(value)) return invalid("line break in header " + name);
    // The body is always sent with its length.
    if (iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding")) continue;
    head += name + ": " + value + "\r\n";
  }
  if (!request.body.empty() || !omits_empty_length(request.method)) {
    head += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  }
  if (!request.headers.has("Connection")) head += "Connection: keep-alive\r\n";
  head += "\r\n";
  return head;
}

bool is_stale_connection_error(const beast::error_code& ec) {
  return ec == beast::http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::error::connection_aborted || ec == net::ssl::error::stream_truncated;
}

}  // namespace respool::http::detail
