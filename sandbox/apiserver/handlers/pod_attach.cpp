#include "sandbox/apiserver/handlers/pod_attach.hpp"

#include "sandbox/apiserver/handlers/pod_log.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/apiserver/handlers/websocket.hpp"
#include "sandbox/simulator/container_log.hpp"

namespace respool::sandbox {
namespace {}  // namespace

void serve_pod_attach(Engine& engine, const std::atomic<bool>& stopping, const ResourceType& pods,
                      const http::ServerRequest& request, const http::Target& target,
                      const std::string& ns, const std::string& name, http::Responder& responder) {
  auto fail = [&](const ApiError& e) { responder.respond(error_response(e)); };
  auto stored = engine.get(pods, ns, name);
  if (!stored) return fail(stored.error());
  const Json pod = *stored->obj();
  auto container = choose_container(pod, std::string(target.param("container").value_or("")));
  if (!container) return fail(container.error());
  if (pod.value("spec", Json::object()).value("nodeName", std::string()).empty())
    return fail(bad_request("pod " + name + " does not have a host assigned"));
  const bool want_out = websocket::stream_flag(target, "stdout");
  const bool want_err = websocket::stream_flag(target, "stderr");
  if (!websocket::stream_flag(target, "stdin") && !want_out && !want_err)
    return fail(bad_request("you must specify at least 1 of stdin, stdout, stderr"));
  if (!websocket::is_upgrade(request.headers)) return fail(bad_request("Upgrade request required"));
  auto protocol = websocket::choose_protocol(request.headers, websocket::kStreamProtocols);
  if (!protocol)
    return fail(
        bad_request("unable to upgrade: unable to select a protocol: supported are "
                    "[v5.channel.k8s.io v4.channel.k8s.io]"));
  auto run = sim::container_run(pod, *container, false);
  if (!run || run->finished)
    return fail(bad_request("container not found (\"" + *container + "\")"));

  http::Headers headers;
  headers.set("Upgrade", "websocket");
  headers.set("Connection", "Upgrade");
  headers.set("Sec-WebSocket-Accept",
              websocket::accept_key(request.headers.get("Sec-WebSocket-Key").value_or("")));
  headers.set("Sec-WebSocket-Protocol", *protocol);
  http::ChunkWriter* socket = responder.upgrade(std::move(headers));
  if (!socket) return fail(internal_error("the connection cannot be upgraded"));

  // Attaching shows what is written from now on: the lines so far are skipped.
  long long last_step = -1;
  sim::container_log(pod, *container, *run, sim::LogQuery{}, engine.clock().now(), last_step);
  long long unlimited = -1;
  const char channel = want_out || !want_err ? 1 : 2;
  const bool ended = follow_container_output(
      engine, stopping, pods, ns, pod, *container, *run, false, last_step, unlimited,
      [&](const std::string& text) {
        if (!want_out && !want_err) return true;  // stdin only: nothing to show
        return socket->write(websocket::binary_frame(std::string(1, channel) + text));
      },
      [&] { return socket->closed(); });
  if (ended)
    socket->write(
        websocket::binary_frame(std::string(1, 3) + R"({"metadata":{},"status":"Success"})"));
  socket->write(websocket::close_frame(1000));
}

}  // namespace respool::sandbox
