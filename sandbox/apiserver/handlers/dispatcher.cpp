#include "sandbox/apiserver/handlers/dispatcher.hpp"

#include <thread>

#include "sandbox/apiserver/auth/auth.hpp"
#include "sandbox/apiserver/discovery/discovery.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/apiserver/openapi/openapi.hpp"

namespace respool::sandbox {
namespace {

ApiError fault_error(const FaultRule& rule, const RequestInfo& info) {
  switch (rule.action) {
    case FaultRule::Action::TooManyRequests:
      return too_many_requests("Too many requests, please try again later.",
                               rule.retry_after_seconds);
    case FaultRule::Action::Conflict:
      return stale_conflict({info.group, info.resource}, info.name);
    case FaultRule::Action::ServerError:
      break;
  }
  return internal_error("injected fault (sandbox)");
}

std::string fault_resource(const RequestInfo& info) {
  return info.subresource.empty() ? info.resource : info.resource + "/" + info.subresource;
}

bool under(const std::string& path, const char* prefix) {
  std::string p = prefix;
  return path == p || path == p + "/" || path.rfind(p + "/", 0) == 0;
}

}  // namespace

Dispatcher::Dispatcher(Engine& engine, FaultInjector& faults, RequestCounts& counts,
                       DispatcherOptions options)
    : engine_(engine),
      faults_(faults),
      counts_(counts),
      options_(std::move(options)),
      authenticator_(options_.token, engine, tokens_),
      authorizer_(engine) {
  authorizer_.set_enabled(options_.authorization);
}

void Dispatcher::set_server_address(std::string address) {
  std::lock_guard lock(address_mu_);
  server_address_ = std::move(address);
}

void Dispatcher::stop() {
  stopping_ = true;
  std::lock_guard lock(engine_.store().mutex());
  engine_.store().changed().notify_all();
}

void Dispatcher::handle(const http::ServerRequest& request, http::Responder& responder) {
  // Tracks whether an answer went out, so a late failure never answers twice.
  struct Guard final : http::Responder {
    explicit Guard(http::Responder& inner) : inner(inner) {}
    void respond(http::Response r) override {
      answered = true;
      inner.respond(std::move(r));
    }
    http::ChunkWriter& stream(int status, http::Headers headers) override {
      answered = true;
      return inner.stream(status, std::move(headers));
    }
    http::ChunkWriter* upgrade(http::Headers headers) override {
      http::ChunkWriter* upgraded = inner.upgrade(std::move(headers));
      answered = answered || upgraded;
      return upgraded;
    }
    http::Responder& inner;
    bool answered = false;
  } guard(responder);
  try {
    http::Target target = http::parse_target(request.target);
    RequestInfo info = parse_request_info(request.method, target);
    route(request, target, info, guard);
  } catch (const std::exception& e) {
    if (!guard.answered) guard.respond(error_response(internal_error(e.what())));
  } catch (...) {
    if (!guard.answered) guard.respond(error_response(internal_error("unknown failure")));
  }
}

void Dispatcher::route(const http::ServerRequest& request, const http::Target& target,
                       const RequestInfo& info, http::Responder& responder) {
  auto user = authenticator_.authenticate(request);
  if (!user) {
    responder.respond(error_response(unauthorized()));
    return;
  }
  auto acting = authorizer_.impersonate(request.headers, *user);
  if (!acting) {
    responder.respond(error_response(acting.error()));
    return;
  }
  user = *acting;
  if (auto denied = authorizer_.check(*user, info)) {
    responder.respond(error_response(*denied));
    return;
  }
  if (request.body_too_large) {
    responder.respond(error_response(entity_too_large(options_.max_body_bytes)));
    return;
  }
  std::string resource = fault_resource(info);
  counts_.count(request.headers.get("User-Agent").value_or(""), info.verb,
                info.resource_request ? resource : std::string());
  auto latency = faults_.latency_for(info.verb, resource);
  if (latency.count() > 0) std::this_thread::sleep_for(latency);
  if (info.resource_request && info.verb != "watch") {
    if (auto rule = faults_.take(info.verb, resource)) {
      responder.respond(error_response(fault_error(*rule, info)));
      return;
    }
  }
  if (info.resource_request) {
    this->resource(request, target, info, *user, responder);
    return;
  }
  non_resource(request, target, info, responder);
}

void Dispatcher::non_resource(const http::ServerRequest& request, const http::Target& target,
                              const RequestInfo& info, http::Responder& responder) {
  const std::string& path = target.path;
  bool get = request.method == "GET" || request.method == "HEAD";
  if (path == "/version" || path == "/version/") {
    responder.respond(get ? serve_version() : error_response(method_not_allowed()));
    return;
  }
  for (const char* health : {"/healthz", "/livez", "/readyz"}) {
    if (under(path, health)) {
      http::Response r;
      r.status = 200;
      r.headers = api_headers("text/plain; charset=utf-8");
      r.headers.set("X-Content-Type-Options", "nosniff");
      r.body = "ok";
      responder.respond(std::move(r));
      return;
    }
  }
  if (path == "/sandbox/faults") {
    if (request.method != "POST") {
      responder.respond(error_response(method_not_allowed()));
      return;
    }
    Json body = Json::parse(request.body, nullptr, false);
    if (body.is_discarded()) {
      responder.respond(error_response(bad_request("the fault body is not JSON")));
      return;
    }
    if (auto err = faults_.apply_control(body)) {
      responder.respond(error_response(bad_request(*err)));
      return;
    }
    OJson ok = {{"kind", "Status"},
                {"apiVersion", "v1"},
                {"metadata", OJson::object()},
                {"status", "Success"},
                {"code", 200}};
    responder.respond(json_response(200, ok.dump()));
    return;
  }
  if (under(path, "/openapi/v3") || under(path, "/openapi/v2")) {
    if (auto r = openapi_.serve(engine_.registry(), target,
                                request.headers.get("Accept").value_or(""))) {
      responder.respond(std::move(*r));
      return;
    }
  }
  if (under(path, "/api") || under(path, "/apis")) {
    if (!get) {
      responder.respond(error_response(method_not_allowed()));
      return;
    }
    std::string address;
    {
      std::lock_guard lock(address_mu_);
      address = server_address_.empty() ? options_.server_address : server_address_;
    }
    if (auto r = serve_discovery(engine_.registry(), path, request, address)) {
      responder.respond(std::move(*r));
      return;
    }
  }
  (void)info;
  responder.respond(page_not_found());
}

}  // namespace respool::sandbox
