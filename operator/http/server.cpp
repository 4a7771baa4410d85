#include "operator/http/server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <list>
#include <mutex>
#include <thread>

#include "operator/http/server_connection.hpp"
#include "operator/http/tls_context.hpp"

namespace respool::http {

namespace {

using detail::Transport;
namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

}  // namespace

namespace detail {

// One accepted connection and the thread that serves it.
struct LiveConnection {
  std::thread thread;
  std::unique_ptr<Transport> transport;  // null once the connection has ended (under the mutex)
  bool finished = false;                 // the thread is done and can be joined
};

}  // namespace detail

struct Server::Impl {
  using LiveConnection = detail::LiveConnection;
  ServerOptions options;
  Handler handler;
  std::mutex tls_mutex;  // guards `tls`: a reload swaps it while connections are accepted
  std::shared_ptr<net::ssl::context> tls;
  std::atomic<bool> stopping{false};
  detail::ConnectionContext context{options, handler, stopping};

  net::io_context accept_context;
  tcp::acceptor acceptor{accept_context};
  net::steady_timer retry_timer{accept_context};
  std::thread accept_thread;
  std::uint16_t port = 0;

  std::mutex mutex;  // guards `connections` and each LiveConnection::transport
  std::list<std::shared_ptr<LiveConnection>> connections;

  std::mutex stop_mutex;
  bool stopped = false;

  Impl(ServerOptions o, Handler h) : options(std::move(o)), handler(std::move(h)) {}

  void accept_next() {
    // Each connection gets its own io_context, driven by its own thread.
    auto connection_context = std::make_unique<net::io_context>();
    net::io_context& target = *connection_context;
    acceptor.async_accept(target, [this, connection_context = std::move(connection_context)](
                                      beast::error_code ec, tcp::socket socket) mutable {
      on_accept(ec, std::move(connection_context), std::move(socket));
    });
  }

  void on_accept(beast::error_code ec, std::unique_ptr<net::io_context> connection_context,
                 tcp::socket socket) {
    if (stopping || ec == net::error::operation_aborted) return;
    if (ec) {  // out of descriptors, say: try again a little later rather than spin
      retry_timer.expires_after(100ms);
      retry_timer.async_wait([this](beast::error_code error) {
        if (!error && !stopping) accept_next();
      });
      return;
    }
    reap();
    if (live_connections() >= options.max_connections) {
      socket.close(ec);
    } else {
      start_connection(std::move(connection_context), std::move(socket));
    }
    accept_next();
  }

  void start_connection(std::unique_ptr<net::io_context> connection_context, tcp::socket socket) {
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto connection = std::make_shared<LiveConnection>();
    std::shared_ptr<net::ssl::context> context;
    {
      std::lock_guard lock(tls_mutex);
      context = tls;
    }
    connection->transport =
        std::make_unique<Transport>(std::move(connection_context), std::move(socket), context);
    std::lock_guard lock(mutex);
    try {
      connection->thread = std::thread([this, connection] { serve(*connection); });
    } catch (const std::system_error&) {
      return;  // no thread to serve it: the connection closes with `connection`
    }
    connections.push_back(std::move(connection));
  }

  void serve(LiveConnection& connection) {
    detail::serve_connection(*connection.transport, context);
    std::unique_ptr<Transport> ended;
    {
      std::lock_guard lock(mutex);
      ended = std::move(connection.transport);
      connection.finished = true;
    }
  }

  std::size_t live_connections() {
    std::lock_guard lock(mutex);
    return connections.size();
  }

  // Joins the threads of connections that have ended.
  void reap() {
    std::vector<std::shared_ptr<LiveConnection>> ended;
    {
      std::lock_guard lock(mutex);
      for (auto it = connections.begin(); it != connections.end();) {
        if ((*it)->finished) {
          ended.push_back(std::move(*it));
          it = connections.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& connection : ended)
      connection->thread.join();
  }

  void stop() {
    std::lock_guard guard(stop_mutex);
    if (stopped) return;
    stopped = true;
    stopping = true;
    net::post(accept_context, [this] {
      beast::error_code ignored;
      acceptor.close(ignored);
      retry_timer.cancel();
    });
    if (accept_thread.joinable()) accept_thread.join();
    // No connection starts any more: close every one (aborting its waits) and join them all.
    std::list<std::shared_ptr<LiveConnection>> all;
    {
      std::lock_guard lock(mutex);
      for (auto& connection : connections) {
        if (connection->transport) connection->transport->post_close();
      }
      all.swap(connections);
    }
    for (auto& connection : all)
      connection->thread.join();
  }
};

std::expected<std::unique_ptr<Server>, std::string> Server::start(ServerOptions options,
                                                                  Handler handler) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler));
  const ServerOptions& o = impl->options;
  if (o.tls) {
    auto context = detail::make_server_context(*o.tls);
    if (!context) return std::unexpected("TLS: " + context.error());
    impl->tls = std::move(*context);
  }
  beast::error_code ec;
  auto address = net::ip::make_address(o.bind_address, ec);
  if (ec) return std::unexpected("invalid bind address '" + o.bind_address + "'");
  const std::string where = detail::host_port(o.bind_address, o.port);
  tcp::endpoint endpoint(address, o.port);
  tcp::acceptor& acceptor = impl->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return std::unexpected("listen on " + where + ": " + ec.message());
  impl->port = acceptor.local_endpoint(ec).port();
  if (ec) return std::unexpected("listen on " + where + ": " + ec.message());

  impl->accept_next();
  Impl* raw = impl.get();
  impl->accept_thread = std::thread([raw] { raw->accept_context.run(); });
  return std::make_unique<Server>(Key{}, std::move(impl));
}

Server::Server(Key, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  stop();
}

std::uint16_t Server::port() const {
  return impl_->port;
}

std::string Server::url() const {
  std::string host = impl_->options.bind_address;
  // An address that listens everywhere is reached on loopback.
  if (host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  return std::string(impl_->options.tls ? "https" : "http") + "://" +
         detail::host_port(host, impl_->port);
}

std::expected<void, std::string> Server::reload_tls(const ServerTls& tls) {
  if (!impl_->options.tls) return std::unexpected("the server was started without TLS");
  auto context = detail::make_server_context(tls);
  if (!context) return std::unexpected("TLS: " + context.error());
  std::lock_guard lock(impl_->tls_mutex);
  impl_->tls = std::move(*context);
  return {};
}

void Server::stop() {
  impl_->stop();
}

}  // namespace respool::http
