#pragma once
// pods/exec as kubectl 1.32 runs a command: a WebSocket (GET .../pods/P/exec?command=...)
// offering v5.channel.k8s.io, then v4.channel.k8s.io; binary messages whose first byte is the
// channel (1 stdout, 2 stderr, 3 the error channel: a metav1.Status once the command ended)
// until the server's close frame. No stdin is sent, so neither protocol's client-side signals
// (v5's CLOSE on channel 255 ends a client stream) are needed: both read the same.

#include <chrono>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "operator/http/websocket_client.hpp"
#include "operator/kube/error.hpp"

namespace respool::kube {

struct ExecOptions {
  bool capture_stdout = true;  // stdout=true: the command's standard output comes back in out
  bool capture_stderr = true;  // stderr=true
  // Bounds the whole exec: connect, TLS, handshake and the command's run until the server
  // closes. 0 = ClientOptions::request_timeout. Expiry is a Timeout error.
  std::chrono::milliseconds timeout{0};
  // A stop request aborts the exec at once (Cancelled), from any thread.
  std::stop_token stop;
};

struct ExecResult {
  int exit_code = 0;     // 0 on Success; else the NonZeroExitCode Status's ExitCode cause
  std::string out;       // channel 1
  std::string err;       // channel 2
  std::string protocol;  // the subprotocol the server chose: v5.channel.k8s.io or v4...
  std::string message;   // the Status message of a non-zero exit ("command terminated ...")
};

namespace detail {

// The subprotocols offered, in order of preference.
const std::vector<std::string>& exec_protocols();

// "/api/v1/namespaces/NS/pods/P/exec?command=...&container=C&stderr=true&stdout=true", the
// parameters in the order Go's url.Values encodes them (sorted by name).
std::string exec_target(std::string_view ns, std::string_view pod, std::string_view container,
                        const std::vector<std::string>& command, const ExecOptions& options);

// The outcome of an exec whose handshake got `upgrade`: a refusal is the server's Status as an
// Error (NotFound, Forbidden, BadRequest, ...); an open session is read to its end (or the
// deadline) and its error channel decoded as client-go's v4 decoder does.
Result<ExecResult> finish_exec(http::WebSocketUpgrade upgrade,
                               std::chrono::steady_clock::time_point deadline);

// What the error channel's bytes mean: Success (exit 0), NonZeroExitCode (its exit code, not an
// error), or the failure as an Error. Nothing at all is a success, as for client-go.
Result<ExecResult> decode_exec_status(std::string_view status, ExecResult result);

}  // namespace detail

}  // namespace respool::kube
