#include "operator/kube/exec.hpp"

#include <charconv>

#include "operator/kube/network_error.hpp"
#include "operator/kube/resource.hpp"

namespace respool::kube::detail {

namespace {

enum Channel : unsigned char { Stdout = 1, Stderr = 2, ErrorChannel = 3 };

// An error channel that breaks the protocol, worded as client-go words it.
Error protocol_error(std::string what, std::string_view status) {
  Error e;
  e.kind = Error::Kind::Decode;
  e.message = "error stream protocol error: " + std::move(what);
  if (!status.empty()) e.message += " in \"" + std::string(status.substr(0, 512)) + "\"";
  return e;
}

// The exit code of a NonZeroExitCode Status: its first cause of reason ExitCode, 0-255.
Result<int> exit_code_of(const Json& status) {
  const Json* causes = nullptr;
  if (auto d = status.find("details"); d != status.end() && d->is_object()) {
    if (auto c = d->find("causes"); c != d->end() && c->is_array()) causes = &*c;
  }
  if (!causes) return std::unexpected(protocol_error("details must be set", {}));
  for (const Json& cause : *causes) {
    if (!cause.is_object() || cause.value("reason", "") != "ExitCode") continue;
    const std::string text = cause.value("message", "");
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value > 255) {
      return std::unexpected(protocol_error("invalid exit code value \"" + text + "\"", {}));
    }
    return static_cast<int>(value);
  }
  return std::unexpected(protocol_error("no ExitCode cause given", {}));
}

}  // namespace

const std::vector<std::string>& exec_protocols() {
  static const std::vector<std::string> protocols = {"v5.channel.k8s.io", "v4.channel.k8s.io"};
  return protocols;
}

std::string exec_target(std::string_view ns, std::string_view pod, std::string_view container,
                        const std::vector<std::string>& command, const ExecOptions& options) {
  std::string query;
  auto add = [&](std::string_view name, std::string_view value) {
    query += query.empty() ? '?' : '&';
    query += name;
    query += '=';
    query += http::percent_encode(value);
  };
  for (const auto& word : command)
    add("command", word);
  if (!container.empty()) add("container", container);
  if (options.capture_stderr) add("stderr", "true");
  if (options.capture_stdout) add("stdout", "true");
  return resources::pods.item_path(ns, pod, "exec") + query;
}

Result<ExecResult> decode_exec_status(std::string_view text, ExecResult result) {
  if (text.empty()) return result;
  Json status = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!status.is_object()) return std::unexpected(protocol_error("not a Status", text));
  const std::string outcome = status.value("status", "");
  if (outcome == "Success") return result;
  if (outcome != "Failure") return std::unexpected(protocol_error("unknown error", text));
  if (status.value("reason", "") == "NonZeroExitCode") {
    auto code = exit_code_of(status);
    if (!code) return std::unexpected(code.error());
    result.exit_code = *code;
    result.message = status.value("message", "");
    return result;
  }
  // The command could not run (the runtime's error): the Status, kind from its code.
  const int code = status.value("code", 0);
  Error e = error_from_response(code > 0 ? code : 500, "");
  e.code = code;
  e.reason = status.value("reason", "");
  e.message = status.value("message", "");
  e.status = std::move(status);
  return std::unexpected(std::move(e));
}

Result<ExecResult> finish_exec(http::WebSocketUpgrade upgrade,
                               std::chrono::steady_clock::time_point deadline) {
  if (upgrade.status != 101 || !upgrade.socket) {
    return std::unexpected(error_from_response(upgrade.status, upgrade.body));
  }
  http::WebSocket& socket = *upgrade.socket;
  ExecResult result;
  result.protocol = socket.protocol();
  std::string status;
  for (;;) {
    auto message = socket.read(deadline);
    if (!message) {
      // The connection ended without a close frame after the command's Status: the Status
      // is the last word (a container that stops may take its session down with it).
      if (message.error().kind == http::NetError::Kind::Closed && !status.empty()) break;
      return std::unexpected(network_error(message.error()));
    }
    if (!message->has_value()) break;  // the server's close frame
    const std::string& data = **message;
    if (data.empty()) continue;
    const std::string_view payload = std::string_view(data).substr(1);
    switch (static_cast<unsigned char>(data[0])) {
      case Stdout:
        result.out += payload;
        break;
      case Stderr:
        result.err += payload;
        break;
      case ErrorChannel:
        status += payload;
        break;
      default:  // other channels (resize, v5's CLOSE) carry nothing for a command's result
        break;
    }
  }
  if (socket.close_code() != 0 && socket.close_code() != 1000) {  // client-go fails these too
    Error e;
    e.kind = Error::Kind::Network;
    e.message = "the exec session closed with code " + std::to_string(socket.close_code());
    return std::unexpected(std::move(e));
  }
  return decode_exec_status(status, std::move(result));
}

}  // namespace respool::kube::detail
