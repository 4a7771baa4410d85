#include "sandbox/apiserver/handlers/pod_exec.hpp"

#include "sandbox/apiserver/handlers/pod_log.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/apiserver/handlers/websocket.hpp"
#include "sandbox/simulator/container_exec.hpp"
#include "sandbox/simulator/container_log.hpp"
#include "sandbox/simulator/pod_status.hpp"

namespace respool::sandbox {
namespace {

enum Channel : char { Stdout = 1, Stderr = 2, Error = 3 };

// What the kubelet's exec writes on the error channel.
std::string exit_status(const std::vector<std::string>& command, int exit_code) {
  if (exit_code == 0) return R"({"metadata":{},"status":"Success"})";
  std::string words;
  for (const auto& w : command)
    words += (words.empty() ? "" : " ") + w;
  OJson status = {
      {"metadata", OJson::object()},
      {"status", "Failure"},
      {"message",
       "command terminated with non-zero exit code: error executing "
       "command [" +
           words + "], exit code " + std::to_string(exit_code)},
      {"reason", "NonZeroExitCode"},
      {"details",
       {{"causes",
         OJson::array({{{"reason", "ExitCode"}, {"message", std::to_string(exit_code)}}})}}}};
  return status.dump();
}

// The container's process stopped with `signal`: its kubelet reports the restart (or the end).
Result<void> restart(Engine& engine, const ResourceType& pods, const std::string& ns,
                     const std::string& name, const std::string& container, int signal) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto stored = engine.get(pods, ns, name);
    if (!stored) return std::unexpected(stored.error());
    Json pod = *stored->obj();
    pod["status"] = sim::restarted_status(pod, container, 128 + signal, engine.clock().now());
    WriteOptions options;
    options.field_manager = "kubelet";
    auto written = engine.update(pods, ns, name, std::move(pod), options, "status");
    if (written) return {};
    if (written.error().code != 409) return std::unexpected(written.error());
  }
  return std::unexpected(internal_error("the pod kept changing while its container restarted"));
}

}  // namespace

void serve_pod_exec(Engine& engine, const ResourceType& pods, const http::ServerRequest& request,
                    const http::Target& target, const std::string& ns, const std::string& name,
                    http::Responder& responder) {
  auto fail = [&](const ApiError& e) { responder.respond(error_response(e)); };
  auto stored = engine.get(pods, ns, name);
  if (!stored) return fail(stored.error());
  const auto pod_object = stored->obj();
  const Json& pod = *pod_object;
  auto container = choose_container(pod, std::string(target.param("container").value_or("")));
  if (!container) return fail(container.error());
  const std::string phase = pod.contains("status") ? pod["status"].value("phase", "") : "";
  if (phase == "Succeeded" || phase == "Failed")
    return fail(
        bad_request("cannot exec into a container in a completed pod; current phase is " + phase));
  if (pod.value("spec", Json::object()).value("nodeName", std::string()).empty())
    return fail(bad_request("pod " + name + " does not have a host assigned"));
  std::vector<std::string> command;
  for (const auto& [key, value] : target.query)
    if (key == "command") command.push_back(value);
  if (command.empty()) return fail(bad_request("you must specify at least 1 command"));
  const bool want_out = websocket::stream_flag(target, "stdout");
  const bool want_err = websocket::stream_flag(target, "stderr");
  const bool tty = websocket::stream_flag(target, "tty");
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

  const sim::ExecOutcome outcome = sim::run_exec(command, pod, *container);
  if (outcome.kill_signal > 0) {
    if (auto r = restart(engine, pods, ns, name, *container, outcome.kill_signal); !r)
      return fail(r.error());
  }

  http::Headers headers;
  headers.set("Upgrade", "websocket");
  headers.set("Connection", "Upgrade");
  headers.set("Sec-WebSocket-Accept",
              websocket::accept_key(request.headers.get("Sec-WebSocket-Key").value_or("")));
  headers.set("Sec-WebSocket-Protocol", *protocol);
  http::ChunkWriter* socket = responder.upgrade(std::move(headers));
  if (!socket) return fail(internal_error("the connection cannot be upgraded"));
  auto send = [&](Channel channel, const std::string& data) {
    return socket->write(websocket::binary_frame(std::string(1, channel) + data));
  };
  std::string out = want_out ? outcome.out : "";
  std::string err = want_err ? outcome.err : "";
  if (tty) {  // one terminal: what the command writes to stderr shows on it too
    out += err;
    err.clear();
  }
  if (!out.empty() && !send(Stdout, out)) return;
  if (!err.empty() && !send(Stderr, err)) return;
  if (!send(Error, exit_status(command, outcome.exit_code))) return;
  socket->write(websocket::close_frame(1000));
}

}  // namespace respool::sandbox
