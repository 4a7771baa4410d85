#pragma once
// The API server's request handler, independent of the network: authentication, faults,
// routing, content negotiation, and the verbs on resources. ApiServer wires it to http::Server;
// tests can call handle() with an in-memory Responder.

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

#include "operator/http/server.hpp"
#include "sandbox/apiserver/auth/auth.hpp"
#include "sandbox/apiserver/handlers/faults.hpp"
#include "sandbox/apiserver/handlers/request_counts.hpp"
#include "sandbox/apiserver/handlers/request_info.hpp"
#include "sandbox/apiserver/openapi/openapi.hpp"
#include "sandbox/apiserver/rbac/authorizer.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

struct DispatcherOptions {
  std::string token;
  std::size_t max_body_bytes = 3 * 1024 * 1024;
  std::chrono::seconds default_watch_timeout{1800};
  std::string server_address;  // host:port, for /api's serverAddressByClientCIDRs
  bool authorization = true;   // false: every authenticated request is allowed (AlwaysAllow)
};

class Dispatcher {
 public:
  Dispatcher(Engine& engine, FaultInjector& faults, RequestCounts& counts,
             DispatcherOptions options);
  // Answers exactly once; never throws (an unexpected failure is a 500 Status).
  void handle(const http::ServerRequest& request, http::Responder& responder);
  // Ends every open watch (server stop).
  void stop();
  // The address /api reports (known once the server has bound its port).
  void set_server_address(std::string address);

 private:
  void route(const http::ServerRequest& request, const http::Target& target,
             const RequestInfo& info, http::Responder& responder);
  void non_resource(const http::ServerRequest& request, const http::Target& target,
                    const RequestInfo& info, http::Responder& responder);
  void resource(const http::ServerRequest& request, const http::Target& target,
                const RequestInfo& info, const User& user, http::Responder& responder);

  Engine& engine_;
  FaultInjector& faults_;
  RequestCounts& counts_;
  DispatcherOptions options_;
  rbac::TokenIssuer tokens_;
  Authenticator authenticator_;
  Authorizer authorizer_;
  std::atomic<bool> stopping_{false};
  OpenApiDocuments openapi_;
  mutable std::mutex address_mu_;
  std::string server_address_;
};

}  // namespace respool::sandbox
